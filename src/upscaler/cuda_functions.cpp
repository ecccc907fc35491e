// Resolving the CUDA driver functions the open NGX core calls (see cuda_functions.h).
#include "upscaler/cuda_functions.h"

#include <fmt/format.h>

#include "upscaler/platform.h"

namespace d4r::upscaler {

Expected<CudaFunctions> resolve_cuda_functions(void* library) {
    if (!library) return make_error(ErrorCode::Invalid, "resolving CUDA functions: no library handle");
    CudaFunctions f;
#define D4R_UPSCALER_RESOLVE(name)                                                     \
    f.name = reinterpret_cast<abi::PFN_##name>(platform::find_symbol(library, #name)); \
    if (!f.name) return make_error(ErrorCode::NotFound, "the CUDA library does not export {}", #name);
    D4R_UPSCALER_CUDA_FUNCTIONS(D4R_UPSCALER_RESOLVE)
#undef D4R_UPSCALER_RESOLVE
    f.d4rFuncIsNative = reinterpret_cast<abi::PFN_d4rFuncIsNative>(platform::find_symbol(library, abi::kFuncIsNative));
    f.cuModuleGetGlobal_v2 =
        reinterpret_cast<abi::PFN_cuModuleGetGlobal_v2>(platform::find_symbol(library, "cuModuleGetGlobal_v2"));
    f.cuFuncSetAttribute =
        reinterpret_cast<abi::PFN_cuFuncSetAttribute>(platform::find_symbol(library, "cuFuncSetAttribute"));
    return f;
}

Expected<CudaFunctions> load_cuda_functions(const std::string& path) {
    // Never unloaded: a libcuda keeps threads and state for the whole process.
    void* handle = D4R_TRY(platform::open_library(path));
    auto f = resolve_cuda_functions(handle);
    if (!f) f.error().add_context(path);
    return f;
}

Error cuda_error(const CudaFunctions& cuda, const char* call, abi::CUresult result) {
    const char* name = nullptr;
    if (!cuda.cuGetErrorName || cuda.cuGetErrorName(result, &name) != abi::CUDA_SUCCESS || !name)
        name = "CUDA_ERROR_UNKNOWN_CODE";
    ErrorCode code = result == abi::CUDA_ERROR_INVALID_VALUE   ? ErrorCode::Invalid
                     : result == abi::CUDA_ERROR_NOT_SUPPORTED ? ErrorCode::Unsupported
                                                               : ErrorCode::Io;
    return make_error(code, "{}: {} ({})", call, name, static_cast<int>(result));
}

} // namespace d4r::upscaler
