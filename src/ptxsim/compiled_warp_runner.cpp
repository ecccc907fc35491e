// Warp code in ptxsim's launches (compiled.h, CompiledKernel::warp): a block's warps run one after the other through
// the compiled function, each up to its end or its next barrier; once every warp that has not finished waits at the
// barrier, they all run on. A partial last warp starts with only the lanes it has.
#include <fmt/format.h>

#include "ptxsim/compiled_ops.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/module_impl.h"
#include "ptxsim/scheduler.h"

namespace d4r::ptxsim {

bool BlockRunner::run_block_warps(uint64_t linear_id, const CompiledKernel& kernel) {
    setup_block_memory(linear_id);
    const LaunchConfig& cfg = m_launch.config;
    CompiledThread t = compiled_block_thread();
    const uint32_t warps = static_cast<uint32_t>(m_warps.size());
    // Every block of the launch has the same shape: the lanes' thread ids once per runner (counted, not divided).
    if (m_lane_tids.size() != size_t(warps) * 96) {
        m_lane_tids.assign(size_t(warps) * 96, 0);
        uint32_t x = 0, y = 0, z = 0;
        for (uint32_t thread = 0; thread < m_block.nthreads; ++thread) {
            uint32_t* tids = m_lane_tids.data() + size_t(thread / 32) * 96 + thread % 32;
            tids[0] = x;
            tids[32] = y;
            tids[64] = z;
            if (++x == cfg.block.x) {
                x = 0;
                if (++y == cfg.block.y) {
                    y = 0;
                    ++z;
                }
            }
        }
    }
    for (uint32_t wi = 0; wi < warps; ++wi) {
        Warp& w = m_warps[wi];
        const uint64_t cache_base = w.cache_base, cache_size = w.cache_size;
        w = Warp{};
        w.block = &m_block;
        w.launch = &m_launch;
        w.index = wi;
        w.first_thread = wi * 32;
        w.cache_base = cache_base;
        w.cache_size = cache_size;
    }
    const uint32_t stride = kernel.state_bytes; // a kernel with barriers: each warp's state
    if (stride) {
        m_compiled_state.resize(size_t(stride) * warps);
        for (uint32_t wi = 0; wi < warps; ++wi)
            std::memset(m_compiled_state.data() + size_t(wi) * stride, 0, kStateRegisters);
    }
    m_compiled_status.assign(warps, ThreadStatus::Runnable);
    for (;;) {
        for (uint32_t wi = 0; wi < warps; ++wi) {
            if (m_compiled_status[wi] != ThreadStatus::Runnable) continue;
            Warp& w = m_warps[wi];
            const uint32_t count = std::min<uint32_t>(32, m_block.nthreads - wi * 32);
            t.warp = &w;
            t.warpid = wi;
            t.lane = 0;
            t.lane_tids = m_lane_tids.data() + size_t(wi) * 96;
            t.lanes = count == 32 ? 0xffffffffu : (1u << count) - 1;
            t.local = m_block.local + size_t(wi) * 32 * m_block.local_stride;
            t.state = stride ? m_compiled_state.data() + size_t(wi) * stride : nullptr;
            if (!call_compiled(kernel, t, w, m_compiled_status[wi], 0, false)) return false;
        }
        if (!stride) return true;
        // The barrier, once every warp that has not finished waits at one.
        uint32_t waiting = 0, barrier = 0;
        bool mixed = false;
        for (uint32_t wi = 0; wi < warps; ++wi) {
            if (m_compiled_status[wi] != ThreadStatus::AtBarrier) continue;
            uint32_t id = 0;
            std::memcpy(&id, m_compiled_state.data() + size_t(wi) * stride + kStateBarrier, 4);
            mixed = mixed || (waiting && id != barrier);
            barrier = id;
            ++waiting;
        }
        if (waiting == 0) return true;
        if (!mixed) {
            for (ThreadStatus& s : m_compiled_status)
                if (s == ThreadStatus::AtBarrier) s = ThreadStatus::Runnable;
            continue;
        }
        for (uint32_t wi = 0; wi < warps; ++wi) {
            if (m_compiled_status[wi] != ThreadStatus::AtBarrier) continue;
            uint32_t id = 0, active = 0;
            std::memcpy(&id, m_compiled_state.data() + size_t(wi) * stride + kStateBarrier, 4);
            std::memcpy(&active, m_compiled_state.data() + size_t(wi) * stride + kStateMember, 4);
            Warp& w = m_warps[wi];
            w.fault_lane = active ? static_cast<uint32_t>(__builtin_ctz(active)) : 0;
            fail(w, FaultKind::IllegalInstruction,
                 fmt::format("barrier {} can never complete (deadlock: warps wait while the others "
                             "have exited or wait elsewhere)",
                             id));
            return false;
        }
        return true;
    }
}

} // namespace d4r::ptxsim
