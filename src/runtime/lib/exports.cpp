// libd4rcuda's exported CUDA driver API: one extern "C" function per entry of abi/cuda_api.h, each
// forwarding to the runtime's dispatch table (runtime.h). Built only into the shared library
// (build/lib/libd4rcuda.so, loadable as libcuda.so.1); everything else of the library is hidden.
#include "runtime/runtime.h"

using namespace d4r::abi;

extern "C" {

#define D4R_EXPORT_FN(exp, base, since, params, args)                                                         \
    __attribute__((visibility("default"))) CUresult exp params { return d4r::runtime::dispatch().exp args; }
D4R_CUDA_API(D4R_EXPORT_FN)
#undef D4R_EXPORT_FN

} // extern "C"
