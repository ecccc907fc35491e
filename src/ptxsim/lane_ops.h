// ptxsim internals: one lane of interpreter handlers that the PTX JIT's runtime helpers (compiled_ops.cpp) also
// run, so compiled code does what the interpreter does with the same code. (The atomics: scalar_atomic.h.)
#pragma once

#include <cstdint>

#include "ptxsim/exec.h"

namespace d4r::ptxsim {

// ops_async.cpp: lane LANE's cp.async of BYTES (4, 8 or 16) from global SRC to shared DST, SIZE of them read (the
// rest zero; 0 for an ignored source): false after recording the fault.
bool cp_async_lane(Warp& w, uint32_t lane, unsigned bytes, uint64_t dst, uint64_t src, uint32_t size);

// ops_move.cpp: %clock64 read by warp W (strictly increasing for each warp: Warp::last_clock), and %globaltimer.
uint64_t clock_cycles(Warp& w);
uint64_t global_timer_ns();

} // namespace d4r::ptxsim
