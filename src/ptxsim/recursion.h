// ptxsim internals: recursive calls. Registers, .local variables and .func parameters are allocated
// statically per function (docs/ptxsim.md "Calls"), so a function on a cycle of the call graph would
// overwrite the state of its own outer activations. A call into such a function first saves the
// callee's state for the calling lanes (its register slots, predicates, .local bytes and
// function-parameter bytes: Program::frames) onto the lane's save stack, and its ret restores it, so
// every activation sees its own copy. Kernels without a cycle never come here (no save stacks exist).
//
// Two limits stop a recursion, each with FaultKind::IllegalAddress, what NVIDIA reports for a stack
// overflow (CUDA_ERROR_ILLEGAL_ADDRESS):
//   - the thread's stack, LaunchConfig::stack_bytes (the context's CU_LIMIT_STACK_SIZE, 1 KiB by default):
//     every activation of a recursive function takes kFrameOverheadBytes of it. That is what one takes on
//     the H200 when its variables live in registers (driver 580: under a limit of L bytes a function
//     calling itself runs L / 16 activations deep and faults at the next), so every recursion NVIDIA runs
//     runs here; a frame NVIDIA keeps in memory (a .local array indexed at run time) takes more there, and
//     d4r lets it go deeper rather than guess how ptxas lays it out;
//   - the memory ptxsim saves: kRecursionStackBytes of saved frames per thread (each frame its bytes plus
//     kFrameOverheadBytes), however large the stack limit.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxsim/exec.h"

namespace d4r::ptxsim {

// Per-thread bytes the save stack may hold: 512 KiB, the most local memory (and so stack) one thread has
// on NVIDIA GPUs since sm_20, the largest CU_LIMIT_STACK_SIZE the driver accepts, and the stack limit
// when LaunchConfig::stack_bytes is 0.
inline constexpr uint64_t kRecursionStackBytes = 512u * 1024;
// What one activation takes of the thread's stack (a return address and saved registers on the H200),
// and what one saved frame costs beyond its bytes, so recursion through functions that have nothing to
// save still overflows.
inline constexpr uint32_t kFrameOverheadBytes = 16;
// Calls a lane may nest in a recursive kernel (Warp::depth is 16 bits).
inline constexpr uint32_t kMaxCallDepth = 65535;

// One warp's call and save stacks in a kernel with recursion (owned by the BlockRunner).
struct RecursionStack {
    std::vector<uint32_t> ret;      // [depth][32] return pcs: Warp::ret_stack
    std::vector<uint64_t> frames;   // [depth][32] call site << 32 | target: Warp::frame_stack
    std::vector<uint8_t> saved[32]; // per lane: the saved frames, newest last
    uint64_t charged[32] = {};      // per lane: bytes held against kRecursionStackBytes
    uint64_t stack[32] = {};        // per lane: bytes of the thread's stack (LaunchConfig::stack_bytes) in use
    std::vector<uint8_t> rets;      // return values while a frame is restored

    // Empties the stacks for a new block and points W at them (DEPTH: the initial call depth).
    void attach(Warp& w, uint32_t depth);
};

// Grows W's call stacks so that lanes at w.max_depth can call once more; false at kMaxCallDepth.
bool grow_call_stack(Warp& w);

// Saves the frames the call site CS is about to overwrite for the lanes of MASK (TARGETS: each lane's
// index into cs.targets). Returns Flow::Next, or Flow::Stop after recording a stack overflow (then
// nothing was saved).
Flow save_frames(Warp& w, const CallSite& cs, const uint32_t (&targets)[32], uint32_t mask);

// ret of LANE from target T (which saved a frame): restores the frame and copies the return values.
void restore_frame(Warp& w, unsigned lane, const CallTarget& t);

// The thread's stack in bytes for the launch of W (LaunchConfig::stack_bytes, 0 = kRecursionStackBytes).
uint64_t stack_limit(const Warp& w);

// The fault of a lane whose call would go past the stack (or kMaxCallDepth).
Flow stack_overflow(Warp& w, unsigned lane, uint32_t frame_bytes);

} // namespace d4r::ptxsim
