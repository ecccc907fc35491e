// Compiled kernels in ptxsim's launches (compiled.h): a block's threads run one after the other through the
// compiled function, with the interpreter's block memory and its address translation.
#include <fmt/format.h>

#include "ptxsim/compiled_collectives.h"
#include "ptxsim/compiled_numerics.h"
#include "ptxsim/compiled_ops.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/module_impl.h"
#include "ptxsim/scheduler.h"
#include "ptxsim/texture.h"

namespace d4r::ptxsim {

namespace {

uint8_t* compiled_translate(CompiledThread* thread, uint32_t space, uint64_t address, uint32_t bytes, uint32_t write) {
    Warp& w = *static_cast<Warp*>(thread->warp);
    const uint32_t lane = thread->lane;
    const bool store = write != 0;
    uint8_t* p = nullptr;
    switch (static_cast<ptx::StateSpace>(space)) {
    case ptx::StateSpace::Generic:
        p = translate<Space::Generic>(w, lane, address, bytes, store);
        break;
    case ptx::StateSpace::Global:
        p = translate<Space::Global>(w, lane, address, bytes, store);
        break;
    case ptx::StateSpace::Shared:
        p = translate<Space::Shared>(w, lane, address, bytes, store);
        break;
    case ptx::StateSpace::Local:
        p = translate<Space::Local>(w, lane, address, bytes, store);
        break;
    case ptx::StateSpace::Const:
        p = translate<Space::Const>(w, lane, address, bytes, store);
        break;
    case ptx::StateSpace::Param:
        p = translate<Space::KernelParam>(w, lane, address, bytes, store);
        break;
    }
    thread->cache_base = w.cache_base;
    thread->cache_size = w.cache_size;
    return p;
}

// exec_brx's fault for an index outside the table.
void compiled_branch_fault(CompiledThread* thread, uint32_t index, uint32_t entries) {
    Warp& w = *static_cast<Warp*>(thread->warp);
    fault(w, FaultKind::IllegalInstruction, thread->lane, 0, 0,
          fmt::format("brx.idx index {} is outside its {}-entry table", index, entries));
}

const CompiledRuntime kRuntime{
    &compiled_translate, &compiled_branch_fault,    &compiled_f32_op,     &compiled_f64_op, &compiled_cvt,
    &compiled_atomic,    &compiled_cp_async,        &compiled_counter,    &compiled_trap,   &compiled_half_op,
    &compiled_image,     &compiled_warp_collective, &compiled_warp_matrix};

} // namespace

const CompiledRuntime& compiled_runtime() { return kRuntime; }

// Every thread waiting at the barrier runs on; those at a bar.red get the block's reduction of the predicates that
// bar.red threads brought (the interpreter's red_popc, red_false, red_true).
void BlockRunner::release_compiled_barrier(uint32_t stride) {
    uint32_t popc = 0;
    bool any_false = false, any_true = false;
    for (uint32_t thread = 0; thread < m_block.nthreads; ++thread) {
        if (m_compiled_status[thread] != ThreadStatus::AtBarrier) continue;
        const uint8_t* state = m_compiled_state.data() + size_t(thread) * stride;
        uint32_t reduction = 0, pred = 0;
        std::memcpy(&reduction, state + kStateReduction, 4);
        std::memcpy(&pred, state + kStatePredIn, 4);
        if (!reduction) continue;
        popc += pred ? 1 : 0;
        any_true = any_true || pred;
        any_false = any_false || !pred;
    }
    for (uint32_t thread = 0; thread < m_block.nthreads; ++thread) {
        if (m_compiled_status[thread] != ThreadStatus::AtBarrier) continue;
        m_compiled_status[thread] = ThreadStatus::Runnable;
        uint8_t* state = m_compiled_state.data() + size_t(thread) * stride;
        uint32_t reduction = 0;
        std::memcpy(&reduction, state + kStateReduction, 4);
        const uint64_t out = popc;
        const uint32_t pred = reduction == 2 ? !any_false : any_true;
        std::memcpy(state + kStateOut, &out, 8);
        std::memcpy(state + kStatePredOut, &pred, 4);
    }
}

KernelSource kernel_source(const Kernel& kernel) {
    const Module::Impl& impl = kernel.module().impl();
    KernelSource source;
    source.module = &impl.ast;
    for (uint32_t i = 0; i < impl.ast.functions.size(); ++i)
        if (impl.ast.functions[i].is_entry && impl.ast.functions[i].name == kernel.name()) source.function = i;
    source.info = &kernel.info();
    source.layout = &kernel.program().layout;
    source.target = impl.ctx.target;
    source.module_name = kernel.module().name();
    source.module_text = impl.text;
    return source;
}

CompiledThread BlockRunner::compiled_block_thread() const {
    const LaunchConfig& cfg = m_launch.config;
    CompiledThread t;
    t.runtime = &kRuntime;
    t.params = m_launch.params.data();
    t.shared = m_block.shared;
    t.budget = &m_launch.budget;
    t.ntid[0] = cfg.block.x;
    t.ntid[1] = cfg.block.y;
    t.ntid[2] = cfg.block.z;
    t.ctaid[0] = m_block.ctaid.x;
    t.ctaid[1] = m_block.ctaid.y;
    t.ctaid[2] = m_block.ctaid.z;
    t.nctaid[0] = cfg.grid.x;
    t.nctaid[1] = cfg.grid.y;
    t.nctaid[2] = cfg.grid.z;
    t.shared_bytes = m_block.shared_bytes;
    t.reserved_shared = m_block.reserved_shared;
    t.local_bytes = m_block.local_stride;
    t.params_bytes = static_cast<uint32_t>(m_launch.params.size());
    t.dynamic_shared_bytes = cfg.dynamic_shared_bytes;
    return t;
}

bool BlockRunner::call_compiled(const CompiledKernel& kernel, CompiledThread& t, Warp& w, ThreadStatus& status,
                                uint32_t fault_lane, bool collectives) {
    const bool stops = kernel.state_bytes != 0;
    t.cache_base = w.cache_base;
    t.cache_size = w.cache_size;
    t.variables = kernel.variables.data();
    const uint32_t result = kernel.fn(&t);
    w.cache_base = t.cache_base;
    w.cache_size = t.cache_size;
    if (result == kCompiledDone) {
        status = ThreadStatus::Done;
        return true;
    }
    if (stops && result == kCompiledBarrier) {
        status = ThreadStatus::AtBarrier;
        return true;
    }
    if (stops && collectives && result == kCompiledCollective) {
        status = ThreadStatus::AtCollective;
        return true;
    }
    if (result == kCompiledStopped) {
        w.fault_lane = fault_lane;
        fail(w, FaultKind::BudgetExceeded, "stopped");
    } else {
        fail(w, w.fault, w.fault_detail);
        if (result == kCompiledFault && t.fault_site < kernel.sites.size()) m_fault.site = &kernel.sites[t.fault_site];
    }
    return false;
}

bool BlockRunner::run_block_compiled(uint64_t linear_id, const CompiledKernel& kernel) {
    if (kernel.warp) return run_block_warps(linear_id, kernel);
    setup_block_memory(linear_id);
    const LaunchConfig& cfg = m_launch.config;
    CompiledThread t = compiled_block_thread();
    for (uint32_t wi = 0; wi < m_warps.size(); ++wi) {
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
    // A kernel with barriers or collectives: every thread's resumption state, all starting at the kernel's start.
    const uint32_t stride = kernel.state_bytes;
    if (stride) {
        m_compiled_state.resize(size_t(stride) * m_block.nthreads);
        for (uint32_t i = 0; i < m_block.nthreads; ++i)
            std::memset(m_compiled_state.data() + size_t(i) * stride, 0, kStateRegisters);
    }
    m_compiled_status.assign(m_block.nthreads, ThreadStatus::Runnable);
    // Sweeps over the runnable threads, each up to its exit or its next barrier or collective; then the warps'
    // collectives, then the barrier.
    for (;;) {
        for (uint32_t thread = 0; thread < m_block.nthreads; ++thread) {
            if (m_compiled_status[thread] != ThreadStatus::Runnable) continue;
            Warp& w = m_warps[thread / 32];
            const uint32_t lane = thread % 32;
            t.warp = &w;
            t.warpid = w.index;
            t.lane = lane;
            t.tid[0] = thread % cfg.block.x;
            t.tid[1] = (thread / cfg.block.x) % cfg.block.y;
            t.tid[2] = thread / (cfg.block.x * cfg.block.y);
            t.local = m_block.local + size_t(thread) * m_block.local_stride;
            t.state = stride ? m_compiled_state.data() + size_t(thread) * stride : nullptr;
            if (!call_compiled(kernel, t, w, m_compiled_status[thread], lane, true)) return false;
        }
        if (!stride) return true;
        // Each warp runs one collective whose members are all there.
        bool ran = false;
        uint32_t stuck_warp = UINT32_MAX, stuck_lane = 0;
        std::string stuck_detail;
        for (uint32_t wi = 0; wi < m_warps.size(); ++wi) {
            WarpThreads threads;
            threads.warp = &m_warps[wi];
            for (uint32_t l = 0; l < 32 && wi * 32 + l < m_block.nthreads; ++l) {
                threads.state[l] = m_compiled_state.data() + size_t(wi * 32 + l) * stride;
                threads.status[l] = &m_compiled_status[wi * 32 + l];
            }
            uint32_t lane = 0, site = 0;
            std::string detail;
            const CollectiveStep step = run_collective(kernel, threads, lane, detail, site);
            if (step == CollectiveStep::MemoryFault) {
                Warp& w = m_warps[wi];
                fail(w, w.fault, w.fault_detail);
                if (site < kernel.sites.size()) m_fault.site = &kernel.sites[site];
                return false;
            }
            if (step == CollectiveStep::Fault) {
                Warp& w = m_warps[wi];
                w.fault_lane = lane;
                fail(w, FaultKind::IllegalInstruction, detail);
                return false;
            }
            if (step == CollectiveStep::Ran) {
                ran = true;
            } else if (!detail.empty() && stuck_warp == UINT32_MAX) {
                stuck_warp = wi;
                stuck_lane = lane;
                stuck_detail = std::move(detail);
            }
        }
        if (ran) continue;
        // Then the barrier, once every thread that has not exited waits at one.
        uint32_t waiting = 0, barrier = 0, at_collective = 0;
        bool mixed = false;
        for (uint32_t thread = 0; thread < m_block.nthreads; ++thread) {
            if (m_compiled_status[thread] == ThreadStatus::AtCollective) ++at_collective;
            if (m_compiled_status[thread] != ThreadStatus::AtBarrier) continue;
            uint32_t id = 0;
            std::memcpy(&id, m_compiled_state.data() + size_t(thread) * stride + kStateBarrier, 4);
            mixed = mixed || (waiting && id != barrier);
            barrier = id;
            ++waiting;
        }
        if (waiting == 0 && at_collective == 0) return true;
        if (at_collective == 0 && !mixed) {
            release_compiled_barrier(stride);
            continue;
        }
        // Nothing can run: a collective whose members never come, or barriers that can never complete.
        if (stuck_warp != UINT32_MAX) {
            Warp& w = m_warps[stuck_warp];
            w.fault_lane = stuck_lane;
            fail(w, FaultKind::IllegalInstruction, stuck_detail);
            return false;
        }
        for (uint32_t thread = 0; thread < m_block.nthreads; ++thread) {
            if (m_compiled_status[thread] != ThreadStatus::AtBarrier) continue;
            uint32_t id = 0;
            std::memcpy(&id, m_compiled_state.data() + size_t(thread) * stride + kStateBarrier, 4);
            Warp& w = m_warps[thread / 32];
            w.fault_lane = thread % 32;
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
