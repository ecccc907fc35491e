// Where the native kernel set lives (see native_kernels.h).
#include "upscaler/native_kernels.h"

namespace d4r::upscaler {

std::filesystem::path build_native_kernel_root() { return std::filesystem::path(D4R_NATIVE_ROOT_IN_BUILD); }

std::filesystem::path installed_native_kernel_root(const std::filesystem::path& binary_dir) {
    return binary_dir.parent_path() / kNativeRootInstalled;
}

} // namespace d4r::upscaler
