// d4r open NGX core: where the native kernel set serving the upscaler's kernels lives.
//
// Promise: the kernel root below holds `cpu/` with `d4r-kernels.txt` (for each kernel of every kernel family
// of src/kernels, the upscaler's among them, the hash of its family's PTX module) and one `NAME.cpu` per
// kernel. The build generates it (cmake/D4rKernels.cmake; docs/kernel-sets.md, "Where kernels live"); nothing
// of it is committed. A process that sets D4R_NATIVE_KERNEL_DIR to the root before its first CUDA call gets
// the upscaler's kernels served natively on libd4rcuda's cpu backend (the kernels themselves are linked into
// libd4rcuda from src/kernels/upscaler/cpu). Rule: in a build tree the root is `<build>/share/d4r/native`;
// an installation puts the same folder at `<prefix>/share/d4r/native` (both beside the `bin/` of d4r).
#pragma once

#include <filesystem>

namespace d4r::upscaler {

inline constexpr const char* kNativeRootInstalled = "share/d4r/native";

// `<build>/share/d4r/native` of the build this library comes from (D4R_NATIVE_ROOT_IN_BUILD, from CMake).
std::filesystem::path build_native_kernel_root();
// `<prefix>/share/d4r/native` for an installed binary in `<prefix>/bin`.
std::filesystem::path installed_native_kernel_root(const std::filesystem::path& binary_dir);

} // namespace d4r::upscaler
