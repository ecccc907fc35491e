// ptxsim internals: the warp collectives of compiled kernels (compiled.h, CollectiveSite). The block runner calls
// run_collective() for a warp none of whose threads can run on: it runs one collective among the threads that wait
// at one, with the interpreter's rules (ops_warp.cpp), and makes its participants runnable again.
#pragma once

#include <cstdint>
#include <string>

#include "ptxsim/compiled.h"

namespace d4r::ptxsim {

// A compiled thread's place between its calls.
enum class ThreadStatus : uint8_t { Runnable, Done, AtBarrier, AtCollective };

struct Warp;

struct WarpThreads {
    Warp* warp = nullptr;          // the interpreter's Warp of these threads (ldmatrix's address checks)
    uint8_t* state[32] = {};       // each lane's state (null: no such thread in the block)
    ThreadStatus* status[32] = {}; // each lane's status (null: no such thread)
};

// Fault: a collective that can never run (FAULT_LANE and DETAIL); MemoryFault: ldmatrix's read faulted (recorded in
// the warp as the interpreter records it; SITE: the instruction's CompiledKernel::sites entry).
enum class CollectiveStep : uint8_t { Ran, Nothing, Fault, MemoryFault };

// Runs the collective at the lowest instruction whose members (the non-exited lanes of its member mask) all wait
// at it — or at another instruction of the same kind and member mask, as the interpreter lets them join. Nothing:
// no lane waits at a collective, or none can run yet. Fault: lanes wait at collectives that can never run (FAULT_LANE
// and DETAIL say which, as the interpreter's message).
CollectiveStep run_collective(const CompiledKernel& kernel, const WarpThreads& warp, uint32_t& fault_lane,
                              std::string& detail, uint32_t& site);

} // namespace d4r::ptxsim
