// ptxsim internals: the runtime helpers of CompiledRuntime (compiled.h) for atomics, cp.async, the clock and timer
// registers, trap and warp code's warp-wide instructions, for compiled_runner.cpp's runtime table; and that table.
#pragma once

#include <cstdint>

#include "ptxsim/compiled.h"

namespace d4r::ptxsim {

uint32_t compiled_atomic(CompiledThread* thread, uint32_t code, uint64_t address, uint64_t b, uint64_t c,
                         uint64_t* old);
uint32_t compiled_cp_async(CompiledThread* thread, uint32_t bytes, uint64_t dst, uint64_t src, uint32_t size);
uint64_t compiled_counter(CompiledThread* thread, uint32_t which);
void compiled_trap(CompiledThread* thread, uint32_t breakpoint);
// Warp code's warp-wide instructions (compiled_warp_ops.cpp).
uint32_t compiled_warp_collective(CompiledThread* thread, uint32_t code, uint32_t exec, uint32_t site, uint64_t* words);
uint32_t compiled_warp_matrix(CompiledThread* thread, uint32_t code, uint32_t exec, uint32_t site,
                              void* const* registers);

// The runtime table every compiled function receives (compiled_runner.cpp).
const CompiledRuntime& compiled_runtime();

} // namespace d4r::ptxsim
