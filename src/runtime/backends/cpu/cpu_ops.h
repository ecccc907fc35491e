// cpu backend internals: running a memory operation synchronously (after the context's prior work, as
// the legacy stream does) or queued on a stream, and the range checks every copy goes through.
#pragma once

#include <functional>

#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

// CUDA_SUCCESS when [ADDRESS, ADDRESS + BYTES) lies inside one known region (device, host-allocated,
// registered host memory, module variable or array storage) or inside adjacent accessible cuMemMap'd
// pieces (one virtual range made of several mappings), else CUDA_ERROR_INVALID_VALUE.
inline CUresult check_range(uint64_t address, uint64_t bytes) {
    if (bytes == 0) return CUDA_SUCCESS;
    return find_region(address, bytes) || mapped_span(address, bytes) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// Synchronous form: waits for everything queued on the context, returns its sticky error if any, then
// runs WORK on the calling thread. Asynchronous form: queues WORK on the stream; WORK's failure at
// execution time becomes the context's sticky error.
CUresult run_memory_op(StreamRef& ref, bool async, std::function<CUresult()> work);

// The current context's null stream (synchronous entry points).
CUresult current_stream(StreamRef& ref);

} // namespace d4r::runtime::cpu

namespace d4r::runtime::cpu {

// Where a CUDA array's texels live: ROW_BYTES x HEIGHT x DEPTH bytes, packed, at BASE (device memory), or
// in the ptxsim array SIM (then BASE is 0 and DEPTH 1; only ptxsim's copy functions reach the texels).
struct ArrayLayout {
    uint64_t base = 0;
    uint64_t sim = 0;
    uint64_t row_bytes = 0;
    uint64_t element_bytes = 1; // one texel: a copy starts at a whole texel
    uint64_t height = 1;
    uint64_t depth = 1;
};
// INVALID_HANDLE for an unknown or destroyed array (cpu_array.cpp).
CUresult array_layout(CUarray h, ArrayLayout& out);

} // namespace d4r::runtime::cpu
