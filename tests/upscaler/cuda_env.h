// The test process's libd4rcuda: build/lib/libcuda.so.1 on the cpu backend (ptxsim), native kernels off.
// The runtime reads its environment at the first CUDA call, so this sets it before loading.
#pragma once

#include <cstdlib>

#include "upscaler/cuda_functions.h"

namespace d4r::upscaler::test {

// Loaded once; nullptr with the reason in WHY when the library or its context cannot be opened.
inline const CudaFunctions* cpu_backend_cuda(std::string* why = nullptr) {
    static std::string reason;
    static const CudaFunctions* table = []() -> const CudaFunctions* {
        setenv("D4R_CUDA_BACKEND", "cpu", 1);
        unsetenv("D4R_NATIVE_KERNEL_DIR");
        unsetenv("D4R_ZLUDA_NATIVE_DIR"); // the deprecated alias
        auto f = load_cuda_functions(std::string(D4R_TEST_LIB_DIR) + "/libcuda.so.1");
        if (!f) {
            reason = f.error().text();
            return nullptr;
        }
        static CudaFunctions functions = *f;
        return &functions;
    }();
    if (why) *why = reason;
    return table;
}

} // namespace d4r::upscaler::test
