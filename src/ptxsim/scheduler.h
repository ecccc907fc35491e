// ptxsim internals: the warp scheduler (min-pc selection of active lanes and the instruction loop) and
// the block runner (warps of one block round-robin, barriers).
//
// Lane selection: every step runs the lanes at the lowest pc among runnable lanes (not exited, not
// blocked at a barrier, not waiting for a collective). Structured code reconverges by itself: the
// lanes that took the shorter path wait at the join point until the others reach it. Divergent lanes
// make progress in pc order, which is one of the schedules independent thread scheduling allows, so
// correct programs give the results they give on Volta and later.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ptxsim/compiled_collectives.h"
#include "ptxsim/exec.h"
#include "ptxsim/recursion.h"

namespace d4r::ptxsim {

enum class WarpStatus : uint8_t { Yield, Blocked, Done, Fault };

// Picks the next active lanes of W (after a handler returned Flow::Resched, or when none are active).
void reschedule(Warp& w);

// Runs W until it blocks, finishes, faults or has executed SLICE instructions (SLICE is decreased).
WarpStatus run_warp(Warp& w, int64_t& slice);

// Runs whole blocks of one launch on one worker thread; owns the per-worker buffers and reuses them.
class BlockRunner {
public:
    explicit BlockRunner(LaunchState& launch);
    ~BlockRunner();

    // Runs block LINEAR_ID to completion; false on a fault (see fault()).
    bool run_block(uint64_t linear_id);
    // The same with compiled code, one thread after the other (compiled.h; compiled_runner.cpp).
    bool run_block_compiled(uint64_t linear_id, const CompiledKernel& kernel);
    // The same with warp code (CompiledKernel::warp): a call per warp (compiled_warp_runner.cpp).
    bool run_block_warps(uint64_t linear_id, const CompiledKernel& kernel);
    // The fields of a compiled call that are the same for every thread and warp of the block set up last.
    CompiledThread compiled_block_thread() const;
    // Calls KERNEL for T (of warp W) and keeps what it stopped at in STATUS (a barrier, or a collective where
    // COLLECTIVES, only in a kernel with stops); false, with the block's fault recorded (FAULT_LANE reporting), when
    // it faulted or was stopped.
    bool call_compiled(const CompiledKernel& kernel, CompiledThread& t, Warp& w, ThreadStatus& status,
                       uint32_t fault_lane, bool collectives);
    void release_compiled_barrier(uint32_t stride);

    // Step by step, for cooperative launches (every block of the grid resident at once): start_block
    // sets block LINEAR_ID up, each step() gives every runnable warp one slice.
    enum class Step : uint8_t { Running, Done, Failed };
    void start_block(uint64_t linear_id) { setup_block(linear_id); }
    Step step();
    // Gives the unused part of the budget back (between steps, so other runners of the worker get it).
    void yield_budget() { return_budget(); }
    // Gives unused budget back; call when the worker has no more blocks to run.
    void finish();

    struct FaultInfo {
        FaultKind kind = FaultKind::None;
        uint64_t block = 0;
        uint32_t thread = 0; // linear thread index in the block
        uint64_t address = 0;
        uint32_t bytes = 0;
        uint32_t pc = 0;
        std::string detail;
        const CompiledKernel::Site* site = nullptr; // compiled code: the faulting instruction (pc is unused)
    };
    const FaultInfo& fault() const { return m_fault; }
    uint64_t warp_instructions() const { return m_warp_instructions; }
    uint64_t lane_instructions() const { return m_lane_instructions; }
    // Warp instructions issued at each pc of the kernel's program by this runner's blocks (empty unless the launch
    // keeps a profile: LaunchConfig::profile_sink).
    const std::vector<uint64_t>& pc_counts() const { return m_pc_counts; }

private:
    bool take_budget(int64_t want, int64_t& got);
    void return_budget();
    void setup_block(uint64_t linear_id);
    void setup_block_memory(uint64_t linear_id); // BlockState, shared, local and parameter areas
    void init_arena(uint32_t warp);
    bool release_barriers(); // true when a barrier completed
    void deliver_reduction(Warp& w, uint32_t id);
    bool fail(const Warp& w, FaultKind kind, std::string detail);

    LaunchState& m_launch;
    BlockState m_block;
    std::vector<Warp> m_warps;
    std::vector<uint8_t> m_state;            // per warp: 0 runnable, 1 blocked at a barrier, 2 done
    uint8_t* m_arenas = nullptr;             // warps x arena bytes (64-byte aligned)
    std::vector<uint32_t> m_preds;           // warps x pred_count
    std::vector<uint32_t> m_stacks;          // warps x depth x 32
    std::vector<uint64_t> m_frames;          // warps x depth x 32
    std::vector<RecursionStack> m_recursion; // per warp, in a kernel with recursion (replaces the two above)
    std::vector<uint8_t> m_shared;
    std::vector<uint8_t> m_local;
    std::vector<uint8_t> m_fparam;
    std::vector<uint8_t> m_compiled_state;       // compiled kernels with barriers: each thread's state (compiled.h)
    std::vector<ThreadStatus> m_compiled_status; // ... and where it is (warp code: per warp)
    std::vector<uint32_t> m_lane_tids;           // warp code: per warp, tid.x, .y, .z of its 32 lanes
    uint32_t m_arena_bytes = 0;
    int64_t m_allowance = 0; // instructions this worker may still execute (budget)
    uint64_t m_warp_instructions = 0;
    uint64_t m_lane_instructions = 0;
    std::vector<uint64_t> m_pc_counts;
    FaultInfo m_fault;
};

} // namespace d4r::ptxsim
