// cpu backend internals: the device heap of a context (malloc/free and new/delete in kernels). NVIDIA reserves
// it when the first kernel using it runs, CU_LIMIT_MALLOC_HEAP_SIZE bytes (8 MiB unless cuCtxSetLimit changed
// it), and refuses to resize it from then on with CUDA_ERROR_INVALID_VALUE; so does the cpu backend.
#pragma once

#include <memory>

#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

// CTX's heap, made now if it has none: a device allocation of the heap limit (within the memory budget:
// CUDA_ERROR_OUT_OF_MEMORY, logged, when it does not fit). It frees its memory when the last launch holding it
// and the context are gone.
CUresult context_heap(Context& ctx, std::shared_ptr<ptxsim::DeviceHeap>& out);
// Whether CTX's heap exists (its size can no longer change).
bool heap_reserved(Context& ctx);

} // namespace d4r::runtime::cpu
