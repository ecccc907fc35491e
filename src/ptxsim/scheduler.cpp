// The warp loop, lane selection and the block runner.
#include "ptxsim/scheduler.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

namespace d4r::ptxsim {

namespace {

// Instructions a warp runs before the block runner moves to the next warp. Only matters for warps
// that wait on each other without a barrier (spin loops on shared memory); results do not depend on it.
constexpr int64_t kSlice = 1 << 14;
// Instructions a worker takes from the launch budget at a time.
constexpr int64_t kBudgetChunk = 1 << 16;

D4R_INLINE uint32_t min_pc(const Warp& w, uint32_t lanes) {
    uint32_t m = kNoPc;
    for (int i = 0; i < 32; ++i) {
        uint32_t v = (lanes & lane_bit(i)) ? w.pc[i] : kNoPc;
        m = v < m ? v : m;
    }
    return m;
}

D4R_INLINE uint32_t lanes_at(const Warp& w, uint32_t lanes, uint32_t pc) {
    uint32_t m = 0;
    for (int i = 0; i < 32; ++i) m |= ((lanes & lane_bit(i)) && w.pc[i] == pc) ? lane_bit(i) : 0u;
    return m;
}

D4R_INLINE void commit_active(Warp& w) {
    for (int i = 0; i < 32; ++i)
        if (w.active & lane_bit(i)) w.pc[i] = w.cur_pc;
}

} // namespace

Flow fault(Warp& w, FaultKind kind, uint32_t lane, uint64_t address, uint32_t bytes, std::string detail) {
    w.fault = kind;
    w.fault_lane = lane;
    w.fault_address = address;
    w.fault_bytes = bytes;
    w.fault_detail = std::move(detail);
    return Flow::Stop;
}

void reschedule(Warp& w) {
    uint32_t runnable = w.live & ~w.bar_wait & ~w.sync_wait;
    w.forced = false;
    uint32_t pool = runnable;
    if (pool == 0) {
        // Only lanes waiting for a collective are left: run them, the collective completes or faults.
        pool = w.sync_wait & w.live & ~w.bar_wait;
        if (pool == 0) {
            w.set_active(0);
            w.next_min = kNoPc;
            return;
        }
        w.forced = true;
    }
    uint32_t pc = min_pc(w, pool);
    uint32_t candidates = w.forced ? pool : (w.live & ~w.bar_wait);
    w.set_active(lanes_at(w, candidates, pc));
    w.cur_pc = pc;
    w.next_min = min_pc(w, runnable & ~w.active);
}

WarpStatus run_warp(Warp& w, int64_t& slice) {
    const Instr* code = w.launch->program->code.data();
    const uint64_t start = w.instructions;
    const uint64_t end = start + static_cast<uint64_t>(std::max<int64_t>(slice, 0));
    auto leave = [&](WarpStatus st) {
        w.settle_lanes();
        slice -= static_cast<int64_t>(w.instructions - start);
        return st;
    };
    for (;;) {
        if (w.active == 0) {
            reschedule(w);
            if (w.active == 0) return leave(w.live == 0 ? WarpStatus::Done : WarpStatus::Blocked);
        }
        if (w.instructions >= end) return leave(WarpStatus::Yield);
        const Instr& in = code[w.cur_pc];
        uint32_t mask = w.active;
        if (in.guard >= 0) mask &= w.preds[in.guard] ^ (in.guard_neg ? kFullMask : 0u);
        ++w.instructions;
        if (w.pc_counts) ++w.pc_counts[w.cur_pc];
        Flow flow = mask != 0 ? in.fn(w, in, mask) : Flow::Next;
        switch (flow) {
        case Flow::Next:
            ++w.cur_pc;
            [[fallthrough]];
        case Flow::Continue:
            if (w.cur_pc >= w.next_min) {
                commit_active(w);
                reschedule(w);
            }
            break;
        case Flow::Resched:
            reschedule(w);
            break;
        case Flow::Stop:
            if (w.fault == FaultKind::None) { // a yield: the handler moved its lanes on (pc[] written)
                reschedule(w);
                return leave(WarpStatus::Yield);
            }
            return leave(WarpStatus::Fault);
        }
    }
}

BlockRunner::BlockRunner(LaunchState& launch) : m_launch(launch) {
    const Program& p = *launch.program;
    uint32_t warps = launch.warps_per_block;
    m_arena_bytes = static_cast<uint32_t>(p.arena_image.size());
    m_arenas = static_cast<uint8_t*>(std::aligned_alloc(64, std::max<size_t>(64, size_t(m_arena_bytes) * warps)));
    m_preds.assign(size_t(std::max(p.pred_count, 1u)) * warps, 0);
    if (p.recursive) {
        m_recursion.resize(warps);
    } else {
        m_stacks.assign(size_t(std::max(p.max_call_depth, 1u)) * 32 * warps, 0);
        m_frames.assign(size_t(std::max(p.max_call_depth, 1u)) * 32 * warps, 0);
    }
    m_shared.assign(size_t(launch.shared_window) + 16, 0);
    uint32_t threads = static_cast<uint32_t>(launch.config.block.count());
    m_local.assign(size_t(p.local_bytes) * threads + 16, 0);
    m_fparam.assign(size_t(p.fparam_bytes) * threads + 16, 0);
    m_warps.resize(warps);
    m_state.assign(warps, 0);
    if (launch.config.profile_sink) m_pc_counts.assign(p.code.size(), 0);
    for (uint32_t wi = 0; wi < warps; ++wi) init_arena(wi);
    m_allowance = launch.budget_on ? 0 : INT64_MAX;
}

BlockRunner::~BlockRunner() { std::free(m_arenas); }

// The budget is exact whatever the number of workers: workers take it in chunks and give back what they
// did not use after every block; a worker that finds none left waits until the others either give some
// back or are starved too (then the launch really needs more than its budget).
bool BlockRunner::take_budget(int64_t want, int64_t& got) {
    for (;;) {
        int64_t avail = m_launch.budget.load();
        while (avail > 0) {
            int64_t take = std::min(want, avail);
            if (m_launch.budget.compare_exchange_weak(avail, avail - take)) {
                got = take;
                return true;
            }
        }
        m_launch.starved_workers.fetch_add(1);
        for (;;) {
            if (m_launch.budget.load() > 0) break;
            if (m_launch.starved_workers.load() >= m_launch.running_workers.load()) {
                m_launch.starved_workers.fetch_sub(1);
                return false;
            }
            std::this_thread::yield();
        }
        m_launch.starved_workers.fetch_sub(1);
    }
}

void BlockRunner::return_budget() {
    if (m_launch.budget_on && m_allowance > 0) {
        m_launch.budget.fetch_add(m_allowance);
        m_allowance = 0;
    }
}

void BlockRunner::finish() {
    return_budget();
    m_launch.running_workers.fetch_sub(1);
}

void BlockRunner::setup_block(uint64_t linear_id) {
    const Program& p = *m_launch.program;
    setup_block_memory(linear_id);
    uint32_t pred_count = std::max(p.pred_count, 1u);
    uint32_t depth = std::max(p.max_call_depth, 1u);
    for (uint32_t wi = 0; wi < m_warps.size(); ++wi) {
        Warp& w = m_warps[wi];
        uint64_t instructions = w.instructions;
        uint64_t lanes = w.lane_instructions;
        w = Warp{};
        w.instructions = instructions;
        w.lane_instructions = lanes;
        w.regs = m_arenas + size_t(m_arena_bytes) * wi;
        w.preds = m_preds.data() + size_t(pred_count) * wi;
        if (p.recursive) {
            m_recursion[wi].attach(w, depth);
        } else {
            w.ret_stack = m_stacks.data() + size_t(depth) * 32 * wi;
            w.frame_stack = m_frames.data() + size_t(depth) * 32 * wi;
            w.max_depth = p.max_call_depth;
        }
        w.block = &m_block;
        w.launch = &m_launch;
        w.pc_counts = m_pc_counts.empty() ? nullptr : m_pc_counts.data();
        w.index = wi;
        w.first_thread = wi * 32;
        // Registers start at zero in every block (CUDA leaves them undefined; zero keeps results
        // independent of which block ran before on this worker). Constants and the special registers
        // that do not depend on the block were written once by the constructor.
        std::memset(w.regs + p.regs_begin, 0, p.regs_end - p.regs_begin);
        std::memset(w.preds, 0, sizeof(uint32_t) * pred_count);
        uint32_t n = std::min<uint32_t>(32, m_block.nthreads - w.first_thread);
        w.live = n == 32 ? kFullMask : ((1u << n) - 1);
        w.cur_pc = p.entry_pc;
        w.epoch_start = w.instructions;
        w.set_active(w.live);
        for (int i = 0; i < 32; ++i) w.pc[i] = p.entry_pc;
        w.next_min = kNoPc;
        auto put = [&](Special s, uint32_t v) {
            uint32_t* slot = reinterpret_cast<uint32_t*>(w.regs + special_offset(s));
            for (int i = 0; i < 32; ++i) slot[i] = v;
        };
        put(Special::CtaidX, m_block.ctaid.x);
        put(Special::CtaidY, m_block.ctaid.y);
        put(Special::CtaidZ, m_block.ctaid.z);
        put(Special::SmId, static_cast<uint32_t>(linear_id % 132));
        m_state[wi] = w.live ? 0 : 2;
    }
}

void BlockRunner::setup_block_memory(uint64_t linear_id) {
    const LaunchConfig& cfg = m_launch.config;
    const Program& p = *m_launch.program;
    m_block = BlockState{};
    m_block.launch = &m_launch;
    m_block.linear_id = linear_id;
    m_block.ctaid.x = static_cast<uint32_t>(linear_id % cfg.grid.x);
    m_block.ctaid.y = static_cast<uint32_t>((linear_id / cfg.grid.x) % cfg.grid.y);
    m_block.ctaid.z = static_cast<uint32_t>(linear_id / (uint64_t(cfg.grid.x) * cfg.grid.y));
    m_block.nthreads = static_cast<uint32_t>(cfg.block.count());
    // Shared and local memory start zeroed in every block: CUDA leaves them undefined, and zeroing makes
    // results independent of which block ran before on this worker.
    m_block.shared = m_shared.data();
    m_block.shared_bytes = m_launch.shared_bytes;
    m_block.reserved_shared = m_launch.reserved_shared;
    std::memset(m_shared.data(), 0, m_launch.shared_window);
    m_block.local = m_local.data();
    m_block.local_stride = p.local_bytes;
    if (p.local_bytes) std::memset(m_local.data(), 0, size_t(p.local_bytes) * m_block.nthreads);
    m_block.fparam = m_fparam.data();
    m_block.fparam_stride = p.fparam_bytes;
    if (p.fparam_bytes) std::memset(m_fparam.data(), 0, size_t(p.fparam_bytes) * m_block.nthreads);
}

// The arena of warp WI as every block of this launch starts it: constants, and the special registers
// that depend only on the warp's place in the block and the launch shape.
void BlockRunner::init_arena(uint32_t wi) {
    const LaunchConfig& cfg = m_launch.config;
    const Program& p = *m_launch.program;
    uint8_t* regs = m_arenas + size_t(m_arena_bytes) * wi;
    std::memcpy(regs, p.arena_image.data(), m_arena_bytes);
    const uint32_t first = wi * 32;
    auto put = [&](Special s, auto value_of_lane) {
        uint32_t* slot = reinterpret_cast<uint32_t*>(regs + special_offset(s));
        for (uint32_t i = 0; i < 32; ++i) slot[i] = value_of_lane(i);
    };
    const Dim3 b = cfg.block;
    put(Special::TidX, [&](uint32_t i) { return (first + i) % b.x; });
    put(Special::TidY, [&](uint32_t i) { return ((first + i) / b.x) % b.y; });
    put(Special::TidZ, [&](uint32_t i) { return (first + i) / (b.x * b.y); });
    put(Special::NtidX, [&](uint32_t) { return b.x; });
    put(Special::NtidY, [&](uint32_t) { return b.y; });
    put(Special::NtidZ, [&](uint32_t) { return b.z; });
    put(Special::NctaidX, [&](uint32_t) { return cfg.grid.x; });
    put(Special::NctaidY, [&](uint32_t) { return cfg.grid.y; });
    put(Special::NctaidZ, [&](uint32_t) { return cfg.grid.z; });
    put(Special::LaneId, [&](uint32_t i) { return i; });
    put(Special::WarpId, [&](uint32_t) { return wi; });
    put(Special::NWarpId, [&](uint32_t) { return 64u; });
    put(Special::NSmId, [&](uint32_t) { return 132u; });
    put(Special::DynamicSmemSize, [&](uint32_t) { return cfg.dynamic_shared_bytes; });
    put(Special::TotalSmemSize, [&](uint32_t) { return m_launch.shared_bytes; });
    put(Special::LanemaskEq, [&](uint32_t i) { return 1u << i; });
    put(Special::LanemaskLe, [&](uint32_t i) { return i == 31 ? kFullMask : (2u << i) - 1; });
    put(Special::LanemaskLt, [&](uint32_t i) { return (1u << i) - 1; });
    put(Special::LanemaskGe, [&](uint32_t i) { return ~((1u << i) - 1); });
    put(Special::LanemaskGt, [&](uint32_t i) { return i == 31 ? 0u : ~((2u << i) - 1); });
    const uint32_t reserved = m_launch.reserved_shared;
    put(Special::ReservedSmemBegin, [&](uint32_t) { return reserved; });
    put(Special::ReservedSmemEnd, [&](uint32_t) { return reserved + kReservedSharedBytes; });
    put(Special::ReservedSmemCap, [&](uint32_t) { return kReservedSharedBytes; });
    put(Special::ReservedSmemOffset0, [&](uint32_t) { return reserved; });
    put(Special::ReservedSmemOffset1, [&](uint32_t) { return reserved + kReservedSharedBytes / 2; });
    put(Special::EnvReg1, [&](uint32_t) { return static_cast<uint32_t>(m_launch.grid_workspace >> 32); });
    put(Special::EnvReg2, [&](uint32_t) { return static_cast<uint32_t>(m_launch.grid_workspace); });
    put(Special::EnvRegZero, [&](uint32_t) { return 0u; });
}

bool BlockRunner::fail(const Warp& w, FaultKind kind, std::string detail) {
    m_fault.kind = kind;
    m_fault.block = m_block.linear_id;
    m_fault.thread = w.first_thread + w.fault_lane;
    m_fault.address = w.fault_address;
    m_fault.bytes = w.fault_bytes;
    m_fault.pc = w.cur_pc;
    m_fault.detail = std::move(detail);
    m_fault.site = nullptr;
    return false;
}

// Releases the barriers every participating warp has reached. Per the PTX ISA a warp arrives once all
// its non-exited threads execute the barrier; a barrier with a thread count completes when that many
// threads (counted per arriving warp, 32 each) arrived, one without a count when every warp of the
// block that has not exited arrived.
// The result of bar.red.popc / .and / .or for the lanes of W that executed it.
void BlockRunner::deliver_reduction(Warp& w, uint32_t id) {
    if (w.red_op == 1) {
        uint32_t* slot = reinterpret_cast<uint32_t*>(w.regs + w.red_dst);
        for (int i = 0; i < 32; ++i)
            if (w.red_lanes & lane_bit(i)) slot[i] = m_block.red_popc[id];
    } else {
        bool v = w.red_op == 2 ? m_block.red_false[id] == 0 : m_block.red_true[id] != 0;
        uint32_t& p = w.preds[w.red_dst];
        p = (p & ~w.red_lanes) | (v ? w.red_lanes : 0u);
    }
    w.red_op = 0;
    w.red_lanes = 0;
}

bool BlockRunner::release_barriers() {
    bool released = false;
    uint32_t not_done = 0;
    for (uint8_t s : m_state) not_done += s != 2;
    for (uint32_t id = 0; id < 16; ++id) {
        uint32_t waiting = 0;
        uint32_t count = 0;
        bool any = false;
        for (size_t wi = 0; wi < m_warps.size(); ++wi) {
            if (m_state[wi] == 1 && m_warps[wi].bar_id == id) {
                ++waiting;
                count = std::max(count, m_warps[wi].bar_count);
                any = true;
            }
        }
        if (!any) continue;
        uint32_t arrived = waiting + m_block.bar_arrivals[id];
        bool complete = count ? arrived * 32 >= count : waiting >= not_done;
        if (!complete) continue;
        for (size_t wi = 0; wi < m_warps.size(); ++wi) {
            Warp& w = m_warps[wi];
            if (m_state[wi] == 1 && w.bar_id == id) {
                m_state[wi] = 0;
                w.bar_wait = 0;
                w.set_active(0);
                if (w.red_op) deliver_reduction(w, id);
            }
        }
        m_block.bar_arrivals[id] = 0;
        m_block.red_popc[id] = 0;
        m_block.red_false[id] = 0;
        m_block.red_true[id] = 0;
        released = true;
    }
    return released;
}

bool BlockRunner::run_block(uint64_t linear_id) {
    setup_block(linear_id);
    for (;;) {
        Step s = step();
        if (s != Step::Running) return s == Step::Done;
    }
}

BlockRunner::Step BlockRunner::step() {
    bool progressed = false;
    for (size_t wi = 0; wi < m_warps.size(); ++wi) {
        if (m_state[wi] != 0) continue;
        Warp& w = m_warps[wi];
        if (m_allowance <= 0) {
            int64_t got = 0;
            // Small budgets are handed out in small chunks so several workers share them.
            int64_t chunk =
                std::max<int64_t>(1, std::min<int64_t>(kBudgetChunk, int64_t(m_launch.config.instruction_budget / 64)));
            if (!take_budget(chunk, got)) {
                w.fault_lane = static_cast<uint32_t>(std::countr_zero(w.active | w.live));
                fail(w, FaultKind::BudgetExceeded,
                     fmt::format("the launch ran past its budget of {} warp instructions",
                                 m_launch.config.instruction_budget));
                return Step::Failed;
            }
            m_allowance = got;
        }
        int64_t slice = std::min(kSlice, m_allowance);
        int64_t before = slice;
        uint64_t lanes_before = w.lane_instructions;
        WarpStatus st = run_warp(w, slice);
        int64_t used = before - slice;
        if (m_allowance != INT64_MAX) m_allowance -= used;
        m_warp_instructions += static_cast<uint64_t>(used);
        m_lane_instructions += w.lane_instructions - lanes_before;
        progressed = progressed || used > 0 || st != WarpStatus::Yield;
        switch (st) {
        case WarpStatus::Fault:
            fail(w, w.fault, w.fault_detail);
            return Step::Failed;
        case WarpStatus::Blocked:
            m_state[wi] = 1;
            break;
        case WarpStatus::Done:
            m_state[wi] = 2;
            break;
        case WarpStatus::Yield:
            break;
        }
    }
    bool any_left = false;
    for (uint8_t s : m_state) any_left |= s != 2;
    if (!any_left) {
        return_budget();
        return Step::Done;
    }
    bool released = release_barriers();
    if (!progressed && !released) {
        // Every warp left waits at a barrier that cannot complete.
        for (size_t wi = 0; wi < m_warps.size(); ++wi) {
            if (m_state[wi] == 1) {
                Warp& w = m_warps[wi];
                w.fault_lane = static_cast<uint32_t>(std::countr_zero(w.live));
                w.cur_pc = w.pc[w.fault_lane] ? w.pc[w.fault_lane] - 1 : 0;
                fail(w, FaultKind::IllegalInstruction,
                     fmt::format("barrier {} can never complete (deadlock: warps wait while the others "
                                 "have exited or wait elsewhere)",
                                 w.bar_id));
                return Step::Failed;
            }
        }
        return Step::Done;
    }
    return Step::Running;
}

} // namespace d4r::ptxsim
