// Resolving the CUDA driver functions the open NGX core calls (see cuda_functions.h).
#include "upscaler/cuda_functions.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace d4r::upscaler {

Expected<CudaFunctions> resolve_cuda_functions(void* library) {
    if (!library) return make_error(ErrorCode::Invalid, "resolving CUDA functions: no library handle");
    CudaFunctions f;
#define D4R_UPSCALER_RESOLVE(name)                                                                                     \
    f.name = reinterpret_cast<abi::PFN_##name>(dlsym(library, #name));                                                 \
    if (!f.name) return make_error(ErrorCode::NotFound, "the CUDA library does not export {}", #name);
    D4R_UPSCALER_CUDA_FUNCTIONS(D4R_UPSCALER_RESOLVE)
#undef D4R_UPSCALER_RESOLVE
    return f;
}

Expected<CudaFunctions> load_cuda_functions(const std::string& path) {
    // Never dlclose()d: a libcuda keeps threads and state for the whole process.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* text = dlerror();
        std::string why = text ? text : "unknown error";
        dlerror(); // releases glibc's message buffer (otherwise reported as a leak at exit)
        return make_error(ErrorCode::NotFound, "cannot load {}: {}", path, why);
    }
    auto f = resolve_cuda_functions(handle);
    if (!f) f.error().add_context(path);
    return f;
}

Error cuda_error(const CudaFunctions& cuda, const char* call, abi::CUresult result) {
    const char* name = nullptr;
    if (!cuda.cuGetErrorName || cuda.cuGetErrorName(result, &name) != abi::CUDA_SUCCESS || !name)
        name = "CUDA_ERROR_UNKNOWN_CODE";
    ErrorCode code = result == abi::CUDA_ERROR_INVALID_VALUE ? ErrorCode::Invalid
                     : result == abi::CUDA_ERROR_NOT_SUPPORTED ? ErrorCode::Unsupported
                                                              : ErrorCode::Io;
    return make_error(code, "{}: {} ({})", call, name, static_cast<int>(result));
}

} // namespace d4r::upscaler
