// d4r open NGX core: where the upscaler's native CPU kernel set lives.
//
// Promise: the kernel root below holds `cpu/` with `d4r-kernels.txt` (the upscaler PTX module's hash
// for each of its kernels, written by kernels/make-ptx.sh) and one `NAME.cpu` per kernel. A process
// that sets D4R_ZLUDA_NATIVE_DIR to the root before its first CUDA call gets the upscaler's kernels
// served natively on libd4rcuda's cpu backend (the kernels themselves are linked into libd4rcuda from
// src/native_cpu). Rule: in a source tree the root is `<source>/src/upscaler/native`; an installation
// puts the same folder at `<prefix>/share/d4r/native`.
#pragma once

#include <filesystem>

namespace d4r::upscaler {

inline constexpr const char* kNativeRootInSource = "src/upscaler/native";
inline constexpr const char* kNativeRootInstalled = "share/d4r/native";

// `<source>/src/upscaler/native` of the tree this library was built from.
std::filesystem::path source_native_kernel_root();
// `<prefix>/share/d4r/native` for an installed binary in `<prefix>/bin`.
std::filesystem::path installed_native_kernel_root(const std::filesystem::path& binary_dir);

} // namespace d4r::upscaler
