// ptxsim internals: execution state (launch, block, warp) and the lane helpers every handler uses.
//
// A handler runs one decoded instruction for the lanes in MASK (active lanes whose guard holds). ALU
// handlers read whole 32-lane slots into local arrays, compute all 32 lanes in a loop the compiler
// vectorises, and write back with a full store (mask == all) or a blend: inactive lanes keep their
// values. Memory and other side effects visit only the lanes in MASK.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ptxsim/ir.h"
#include "ptxsim/ptxsim.h"

#define D4R_INLINE inline __attribute__((always_inline))

namespace d4r::ptxsim {

inline constexpr uint32_t kFullMask = 0xffffffffu;
inline constexpr uint32_t kNoPc = UINT32_MAX;

// An address range a kernel may touch in the global space: a device allocation or a module segment.
struct MemRange {
    uint64_t base = 0, size = 0;
};

struct ImageTable;     // texture and surface objects (texture.h)
struct RecursionStack; // recursion.h

// A kernel launch made by a kernel (CUDA dynamic parallelism, ops_device_launch.cpp), or a device-side
// cudaMemcpyAsync (function UINT32_MAX, copy_bytes set), which is queued in the same order.
struct DeviceLaunch {
    uint64_t order = 0;             // the launching block's linear id << 32 | its launch count so far
    uint32_t function = UINT32_MAX; // the child kernel: index of its function in the module
    Dim3 grid, block;
    uint32_t shared_bytes = 0;
    uint64_t buffer = 0; // its parameter buffer (in DeviceLaunchQueue::arena)
    uint64_t buffer_bytes = 0;
    bool launched = false;
    uint64_t copy_dst = 0, copy_src = 0, copy_bytes = 0; // a queued copy (both ranges checked when queued)
};

// The parameter buffers cudaGetParameterBuffer* hands out (one arena the kernels may address) and the
// launches cudaLaunchDevice* queued; launch() runs the queued launches and copies, in `order`, once the
// grid is over. Also each thread's last device-runtime error (cudaGetLastError in kernels) and the error
// strings cudaGetErrorString returns (in `strings`, a range the kernels may read).
struct DeviceLaunchQueue {
    std::vector<uint8_t> arena;
    std::atomic<uint64_t> used{0};
    std::mutex mutex;                         // guards buffers, copies and last_errors
    std::map<uint64_t, DeviceLaunch> buffers; // by buffer address
    std::vector<DeviceLaunch> copies;
    std::map<uint64_t, uint32_t> last_errors; // by block linear id << 32 | thread; absent: cudaSuccess
    std::atomic<uint64_t> streams{0};         // stream handles handed out
    std::vector<char> strings;
};

// The text cudaGetErrorString returns in kernels for the codes the device runtime calls return, one after
// the other, NUL-terminated (ops_device_launch.cpp).
std::vector<char> device_runtime_error_strings();

// Shared by every worker of one launch; read-only while blocks run except the atomics.
struct LaunchState {
    const Program* program = nullptr;
    const Kernel* kernel = nullptr;
    LaunchConfig config;
    std::vector<uint8_t> params;              // the kernel parameter block (16-byte aligned copy)
    std::vector<MemRange> ranges;             // sorted by base: allocations and module segments
    std::shared_ptr<const ImageTable> images; // the device's texture/surface objects when the launch started
    uint32_t shared_bytes = 0;                // static + dynamic
    // The reserved shared region (kReservedSharedBytes) starts at `reserved_shared`, at least 128 bytes
    // after the block's own shared memory, so small overruns still fault.
    uint32_t reserved_shared = 0;
    uint32_t shared_window = 0;  // reserved_shared + kReservedSharedBytes
    uint64_t grid_workspace = 0; // %envreg1:%envreg2 of a cooperative launch (0 otherwise)
    uint32_t warps_per_block = 0;
    std::atomic<int64_t> budget{0}; // warp instructions not yet handed to a worker (when the budget is on)
    bool budget_on = false;
    std::atomic<int> running_workers{0};          // workers still running blocks
    std::atomic<int> starved_workers{0};          // workers waiting for budget another worker may give back
    std::atomic<uint64_t> stop_block{UINT64_MAX}; // lowest faulting block: later blocks are not started
    DeviceLaunchQueue* device_launches = nullptr; // when the kernel may launch kernels
    uint32_t nesting = 0;                         // 0: launched by the host; 1: by a kernel, ...
};

struct Warp;

// One block in flight on one worker.
struct BlockState {
    LaunchState* launch = nullptr;
    Dim3 ctaid;
    uint64_t linear_id = 0;
    uint8_t* shared = nullptr;
    uint32_t shared_bytes = 0;    // the block's own shared memory (static + dynamic) at offset 0
    uint32_t reserved_shared = 0; // offset of the reserved region (kReservedSharedBytes), past a gap
    uint8_t* local = nullptr;     // per-thread local memory, thread t at local + t * local_stride
    uint32_t local_stride = 0;
    uint8_t* fparam = nullptr; // per-thread function-parameter area
    uint32_t fparam_stride = 0;
    uint32_t nthreads = 0;
    uint32_t bar_arrivals[16] = {}; // warps that passed bar.arrive per barrier since it last completed
    // bar.red accumulators per barrier (reset when the barrier completes).
    uint32_t red_popc[16] = {};
    uint32_t red_false[16] = {};  // lanes whose predicate was false (for .and)
    uint32_t red_true[16] = {};   // lanes whose predicate was true (for .or)
    uint32_t device_launches = 0; // kernels this block launched so far (their order)
};

struct Warp {
    // Hot fields first: the warp loop and every handler touch these.
    uint8_t* regs = nullptr;   // the register arena (Program::arena_image layout)
    uint32_t* preds = nullptr; // predicate masks
    LaunchState* launch = nullptr;
    BlockState* block = nullptr;
    uint32_t cur_pc = 0;           // the pc of the active lanes
    uint32_t active = 0;           // lanes executing now (all at cur_pc)
    uint32_t next_min = kNoPc;     // lowest pc of runnable lanes outside `active`
    uint32_t live = 0;             // lanes not exited
    uint64_t instructions = 0;     // warp instructions executed
    uint64_t* pc_counts = nullptr; // warp instructions issued at each pc, when the launch keeps a profile
    uint64_t last_clock = 0;       // the last %clock64 this warp read (it never reads the same one twice)
    uint32_t bar_wait = 0;         // lanes blocked at a block barrier
    uint32_t sync_wait = 0;        // lanes waiting for the rest of a collective's member mask
    uint32_t carry = 0;            // .cc carry flag per lane
    bool forced = false;           // only waiting lanes were left: a collective must complete or fault

    // Lane-instruction accounting: popcount(active) is added lazily, when `active` changes.
    uint32_t active_count = 0;
    uint64_t epoch_start = 0; // `instructions` when active_count was last set
    uint64_t lane_instructions = 0;

    uint32_t* ret_stack = nullptr;   // [depth][32] return pcs
    uint64_t* frame_stack = nullptr; // [depth][32] call site << 32 | target
    uint32_t max_depth = 0;
    RecursionStack* recursion = nullptr; // save stacks, in a kernel with recursion (recursion.h)
    uint32_t index = 0;                  // warp index in the block
    uint32_t first_thread = 0;           // linear thread index of lane 0

    // Barrier the warp waits at (when bar_wait covers all live lanes).
    uint32_t bar_id = 0;
    uint32_t bar_count = 0; // 0: every thread of the block
    // A pending bar.red result: written to `red_dst` (u32 slot or predicate) of `red_lanes` on release.
    uint8_t red_op = 0; // 0 none, 1 popc, 2 and, 3 or
    uint32_t red_dst = 0;
    uint32_t red_lanes = 0;

    // Last global range hit, for the bounds-check fast path.
    uint64_t cache_base = 1, cache_size = 0;

    uint32_t pc[32] = {};    // per-lane pc; authoritative for lanes outside `active`
    uint16_t depth[32] = {}; // call depth per lane

    // Set by a handler that faults (returned Flow::Stop).
    FaultKind fault = FaultKind::None;
    uint32_t fault_lane = 0;
    uint64_t fault_address = 0;
    uint32_t fault_bytes = 0;
    std::string fault_detail;

    // Folds the lane instructions of the current active mask into the total (call before changing it).
    void settle_lanes() {
        lane_instructions += uint64_t(active_count) * (instructions - epoch_start);
        epoch_start = instructions;
    }
    void set_active(uint32_t mask) {
        settle_lanes();
        active = mask;
        active_count = static_cast<uint32_t>(__builtin_popcount(mask));
    }
};

inline constexpr uint32_t lane_bit(unsigned i) { return 1u << i; }

// Slot storage type of a value type: 64-bit values in 64-bit slots, everything else in 32-bit slots.
template <class T>
using SlotOf = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

template <class T>
D4R_INLINE void read_lanes(const Warp& w, uint32_t off, T (&out)[32]) {
    if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
        std::memcpy(out, w.regs + off, sizeof(T) * 32);
    } else {
        uint32_t tmp[32];
        std::memcpy(tmp, w.regs + off, sizeof tmp);
        for (int i = 0; i < 32; ++i) out[i] = static_cast<T>(tmp[i]);
    }
}

// Widens a value to its slot: signed types sign-extend, others zero-extend.
template <class S, class T>
D4R_INLINE S to_slot(T v) {
    if constexpr (sizeof(T) == sizeof(S)) {
        S s;
        std::memcpy(&s, &v, sizeof s);
        return s;
    } else if constexpr (std::is_signed_v<T>) {
        return static_cast<S>(static_cast<std::make_signed_t<S>>(v));
    } else {
        return static_cast<S>(v);
    }
}

template <class S>
D4R_INLINE void store_slot(Warp& w, uint32_t off, const S (&v)[32], uint32_t mask) {
    S* dst = reinterpret_cast<S*>(w.regs + off);
    if (mask == kFullMask) {
        std::memcpy(dst, v, sizeof v);
        return;
    }
    S cur[32];
    std::memcpy(cur, dst, sizeof cur);
    for (int i = 0; i < 32; ++i) cur[i] = (mask & lane_bit(i)) ? v[i] : cur[i];
    std::memcpy(dst, cur, sizeof cur);
}

template <class T>
D4R_INLINE void write_lanes(Warp& w, uint32_t off, const T (&v)[32], uint32_t mask) {
    using S = SlotOf<T>;
    S tmp[32];
    if constexpr (sizeof(T) == sizeof(S)) {
        std::memcpy(tmp, v, sizeof tmp); // bit copy (floats), no aliasing through casts
    } else {
        for (int i = 0; i < 32; ++i) tmp[i] = to_slot<S>(v[i]);
    }
    store_slot<S>(w, off, tmp, mask);
}

// Writes values of type T into a slot of class S (a 64-bit register receiving a 32-bit load, say).
template <class S, class T>
D4R_INLINE void write_lanes_as(Warp& w, uint32_t off, const T (&v)[32], uint32_t mask) {
    S tmp[32];
    for (int i = 0; i < 32; ++i) tmp[i] = to_slot<S>(v[i]);
    store_slot<S>(w, off, tmp, mask);
}

D4R_INLINE void write_pred(Warp& w, int16_t p, uint32_t value, uint32_t mask) {
    if (p >= 0) w.preds[p] = (w.preds[p] & ~mask) | (value & mask);
}
D4R_INLINE uint32_t read_pred(const Warp& w, int16_t p, bool negated) {
    uint32_t v = w.preds[p];
    return negated ? ~v : v;
}

// Packs 32 lane flags (0 or all ones) into a lane mask.
D4R_INLINE uint32_t pack_mask(const uint32_t (&b)[32]) {
#if defined(__SSE2__)
    uint32_t m = 0;
    for (int i = 0; i < 8; ++i) {
        __m128 v = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 4 * i)));
        m |= static_cast<uint32_t>(_mm_movemask_ps(v)) << (4 * i);
    }
    return m;
#else
    uint32_t m = 0;
    for (int i = 0; i < 32; ++i) m |= (b[i] >> 31) << i;
    return m;
#endif
}

// Warp collectives with a member mask (shfl.sync, vote.sync, bar.warp.sync). A collective runs once every
// non-exited lane of its member mask executes it: lanes that arrive first wait (sync_wait). Per the ISA
// the members need not be at the same instruction, only at one with the same qualifiers and member
// mask: lanes waiting at such an instruction join the group (`others`, each with its own instruction).
// Executing lanes that name another member mask form their own collective: they stay at the instruction
// (`deferred`) and run it next.
struct CollectiveGroup {
    uint32_t lanes = 0;          // every participating lane
    uint32_t others = 0;         // participants waiting at other instructions
    uint32_t deferred = 0;       // executing lanes of other member masks
    const Instr* instr[32] = {}; // each participant's instruction
    // Every executing lane (the handler's mask) takes part and nobody else: results go to MASK.
    bool simple() const { return others == 0 && deferred == 0; }
};
enum class SyncResult : uint8_t { Go, Wait, Fault };
// MEMBER_SLOT: the index in Instr::s of the member mask operand. On Wait the handler returns
// Flow::Resched; on Fault, Flow::Stop.
SyncResult collective_ready(Warp& w, const Instr& in, uint32_t mask, unsigned member_slot, CollectiveGroup& group);
// After a collective that is not simple(): `others` move past their instructions, the active lanes past
// this one, deferred lanes stay.
Flow finish_collective(Warp& w, const CollectiveGroup& group);

D4R_INLINE uint32_t& lane_slot32(Warp& w, uint32_t off, unsigned lane) {
    return reinterpret_cast<uint32_t*>(w.regs + off)[lane];
}
D4R_INLINE uint64_t& lane_slot64(Warp& w, uint32_t off, unsigned lane) {
    return reinterpret_cast<uint64_t*>(w.regs + off)[lane];
}

// LANE's function-parameter area (.func parameters and call-site .param variables).
D4R_INLINE uint8_t* fparam_of(Warp& w, unsigned lane) {
    return w.block->fparam + size_t(w.first_thread + lane) * w.block->fparam_stride;
}

// Records a fault for LANE and returns Flow::Stop.
Flow fault(Warp& w, FaultKind kind, uint32_t lane, uint64_t address, uint32_t bytes, std::string detail = {});

// The handler of the hidden instruction after a call, and other shared control handlers live in
// ops_control.cpp; the scheduler lives in scheduler.cpp.

} // namespace d4r::ptxsim
