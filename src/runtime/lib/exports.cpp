// libd4rcuda's exported CUDA driver API: one extern "C" function per entry of abi/cuda_api.h, each
// clearing its out-parameters (out_params.h) and forwarding to the runtime's dispatch table (runtime.h)
// behind an exception barrier (entry_guard.h);
// the per-thread default stream variants of those functions; and every other entry point NVIDIA's libcuda
// exports (abi/cuda_unimplemented.h), answering CUDA_ERROR_NOT_SUPPORTED. Built only into the shared
// library (build/lib/libd4rcuda.so, loadable as libcuda.so.1); everything else of the library is hidden.
#include "abi/cuda_unimplemented.h"
#include "runtime/entry_guard.h"
#include "runtime/out_params.h"
#include "runtime/runtime.h"

using namespace d4r::abi;

extern "C" {

// Out-parameters are cleared before anything can refuse the call (out_params.h), whichever backend or
// layer answers.
#define D4R_EXPORT_FN(exp, base, since, params, args)                                                           \
    __attribute__((visibility("default"))) CUresult exp params {                                                \
        try {                                                                                                   \
            d4r::runtime::clear_out_params<d4r::runtime::out_param_mask<CUresult(*) params>(#exp, #args)> args; \
            return d4r::runtime::dispatch().exp args;                                                           \
        } catch (...) {                                                                                         \
            return d4r::runtime::exception_result(#exp);                                                        \
        }                                                                                                       \
    }
D4R_CUDA_API(D4R_EXPORT_FN)
#undef D4R_EXPORT_FN

// NAME_ptds / NAME_ptsz: the same function (d4r orders every stream as the legacy stream does).
#define D4R_EXPORT_PER_THREAD(exp, variant) __attribute__((visibility("default"), alias(#exp))) decltype(exp) variant;
D4R_CUDA_PER_THREAD(D4R_EXPORT_PER_THREAD)
#undef D4R_EXPORT_PER_THREAD

// Callers pass their arguments; a function without parameters ignores them (the SysV x86-64 calling
// convention leaves them to the caller).
#define D4R_EXPORT_UNIMPLEMENTED(name) \
    __attribute__((visibility("default"))) CUresult name() { return d4r::runtime::unimplemented(#name); }
D4R_CUDA_UNIMPLEMENTED(D4R_EXPORT_UNIMPLEMENTED)
#undef D4R_EXPORT_UNIMPLEMENTED

} // extern "C"
