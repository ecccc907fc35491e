// launch(): validates the configuration, runs the grid's blocks on the device's workers, delivers the
// blocks' printf text in block order and turns the lowest faulting block's fault into an error. A
// normal launch runs each block to completion on one worker; a cooperative one keeps every block
// resident and steps them round-robin, so blocks can wait for each other (grid-wide sync).
#include <algorithm>
#include <cfenv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "ptxsim/device_impl.h"
#include "ptxsim/module_impl.h"
#include "ptxsim/profile.h"
#include "ptxsim/scheduler.h"
#include "ptxsim/vprintf.h"

namespace d4r::ptxsim {

namespace {

Error launch_error(FaultKind kind, LaunchFault* out, std::string message) {
    if (out) {
        out->kind = kind;
        out->message = message;
    }
    return Error(kind == FaultKind::Unsupported ? ErrorCode::Unsupported : ErrorCode::Invalid, std::move(message));
}

// Device printf text, delivered in block order after the launch. With a fault, only blocks up to the
// faulting one (the lowest) are delivered: they are the ones every run completes the same way.
void deliver_printf(const LaunchConfig& config, const std::map<uint64_t, std::string>& printed, uint64_t last) {
    for (const auto& [block, text] : printed) {
        if (block > last) break;
        if (config.printf_sink) {
            config.printf_sink(text);
        } else {
            std::fwrite(text.data(), 1, text.size(), stdout);
            std::fflush(stdout);
        }
    }
}

Dim3 unflatten(uint64_t linear, const Dim3& shape) {
    Dim3 d;
    d.x = static_cast<uint32_t>(linear % shape.x);
    d.y = static_cast<uint32_t>((linear / shape.x) % shape.y);
    d.z = static_cast<uint32_t>(linear / (uint64_t(shape.x) * shape.y));
    return d;
}

// Parameter buffers for the launches a kernel may make (ops_device_launch.cpp): CUDA's default limit of
// pending launches, each with the largest parameter block of the module's kernels.
constexpr uint64_t kPendingLaunches = 2048;

uint64_t device_launch_arena_bytes(const Kernel& kernel) {
    uint64_t largest = 16;
    for (const ptx::EntryInfo& e : kernel.module().index().entries) largest = std::max(largest, e.param_block_size);
    return kPendingLaunches * ((largest + 15) / 16 * 16 + 16);
}

Expected<LaunchResult> launch_nested(Device& device, const Kernel& kernel, const LaunchConfig& config,
                                     std::span<const uint8_t> params, LaunchFault* fault_out, uint32_t nesting);

// Runs the launches the grid of PARENT queued, in order (each after its own descendants). Adds their
// instruction counts to RESULT.
Status run_device_launches(Device& device, const Kernel& parent, const LaunchConfig& config, DeviceLaunchQueue& queue,
                           uint32_t nesting, LaunchResult& result, LaunchFault* fault_out) {
    std::vector<const DeviceLaunch*> queued;
    for (const auto& [address, rec] : queue.buffers)
        if (rec.launched) queued.push_back(&rec);
    for (const DeviceLaunch& rec : queue.copies) queued.push_back(&rec);
    std::sort(queued.begin(), queued.end(),
              [](const DeviceLaunch* a, const DeviceLaunch* b) { return a->order < b->order; });
    for (const DeviceLaunch* rec : queued) {
        if (rec->function == UINT32_MAX) { // a cudaMemcpyAsync: its ranges were checked when it was queued
            std::memmove(reinterpret_cast<void*>(rec->copy_dst), reinterpret_cast<const void*>(rec->copy_src),
                         rec->copy_bytes);
            continue;
        }
        const std::string name(parent.module().impl().ast.functions[rec->function].name);
        auto child = parent.module().kernel(name);
        if (!child)
            return launch_error(
                FaultKind::Unsupported, fault_out,
                fmt::format("kernel '{}' launched kernel '{}': {}", parent.name(), name, child.error().message()));
        LaunchConfig cc = config;
        cc.grid = rec->grid;
        cc.block = rec->block;
        cc.dynamic_shared_bytes = rec->shared_bytes;
        cc.cooperative = false;
        const auto* bytes = reinterpret_cast<const uint8_t*>(rec->buffer);
        auto r = launch_nested(device, **child, cc, std::span<const uint8_t>(bytes, rec->buffer_bytes), fault_out,
                               nesting + 1);
        if (!r) {
            std::string message = fmt::format("in a launch by kernel '{}': {}", parent.name(), r.error().message());
            if (fault_out) fault_out->message = message;
            return Error(r.error().code(), std::move(message));
        }
        result.warp_instructions += r->warp_instructions;
        result.lane_instructions += r->lane_instructions;
    }
    return ok_status();
}

} // namespace

Expected<LaunchResult> launch(Device& device, const Kernel& kernel, const LaunchConfig& config,
                              std::span<const uint8_t> params, LaunchFault* fault_out) {
    return launch_nested(device, kernel, config, params, fault_out, 0);
}

namespace {

Expected<LaunchResult> launch_nested(Device& device, const Kernel& kernel, const LaunchConfig& config,
                                     std::span<const uint8_t> params, LaunchFault* fault_out, uint32_t nesting) {
    const Program& program = kernel.program();
    const std::string& name = kernel.name();
    if (!program.unsupported.empty())
        return launch_error(FaultKind::Unsupported, fault_out,
                            fmt::format("kernel '{}': {}", name, program.unsupported));
    if (program.device_heap && !config.heap)
        return launch_error(FaultKind::Unsupported, fault_out,
                            fmt::format("kernel '{}' calls malloc/free but the launch has no device heap", name));
    const Dim3& g = config.grid;
    const Dim3& b = config.block;
    if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0)
        return launch_error(FaultKind::InvalidLaunch, fault_out,
                            fmt::format("kernel '{}': grid ({},{},{}) and block ({},{},{}) must not be empty", name,
                                        g.x, g.y, g.z, b.x, b.y, b.z));
    if (b.count() > 1024 || b.x > 1024 || b.y > 1024 || b.z > 64)
        return launch_error(
            FaultKind::InvalidLaunch, fault_out,
            fmt::format("kernel '{}': block ({},{},{}) exceeds 1024 threads or (1024,1024,64)", name, b.x, b.y, b.z));
    if (g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
        return launch_error(
            FaultKind::InvalidLaunch, fault_out,
            fmt::format("kernel '{}': grid ({},{},{}) exceeds (2^31-1,65535,65535)", name, g.x, g.y, g.z));
    const ptx::EntryInfo& info = kernel.info();
    // The kernel's launch-bound directives, which the driver enforces.
    if (const auto& req = info.directives.reqntid; req && ((*req)[0] != b.x || (*req)[1] != b.y || (*req)[2] != b.z))
        return launch_error(FaultKind::InvalidLaunch, fault_out,
                            fmt::format("kernel '{}': block ({},{},{}) differs from its .reqntid {},{},{}", name, b.x,
                                        b.y, b.z, (*req)[0], (*req)[1], (*req)[2]));
    if (const auto& max = info.directives.maxntid; max && b.count() > uint64_t((*max)[0]) * (*max)[1] * (*max)[2])
        return launch_error(FaultKind::InvalidLaunch, fault_out,
                            fmt::format("kernel '{}': block of {} threads exceeds its .maxntid {},{},{}", name,
                                        b.count(), (*max)[0], (*max)[1], (*max)[2]));
    if (params.size() < info.param_block_size)
        return launch_error(FaultKind::InvalidLaunch, fault_out,
                            fmt::format("kernel '{}': parameter block of {} bytes, the kernel takes {}", name,
                                        params.size(), info.param_block_size));
    uint64_t shared = uint64_t(program.static_shared_bytes) + config.dynamic_shared_bytes;
    if (config.dynamic_shared_bytes) shared = uint64_t(program.dynamic_shared_offset) + config.dynamic_shared_bytes;
    if (shared > kMaxSharedBytes)
        return launch_error(
            FaultKind::InvalidLaunch, fault_out,
            fmt::format("kernel '{}': {} bytes of shared memory exceed {}", name, shared, kMaxSharedBytes));

    LaunchState state;
    state.program = &program;
    state.kernel = &kernel;
    state.config = config;
    state.params.assign(params.begin(), params.begin() + static_cast<ptrdiff_t>(info.param_block_size));
    state.shared_bytes = static_cast<uint32_t>(shared);
    state.reserved_shared = static_cast<uint32_t>((shared + 127) / 128 * 128 + 128);
    state.shared_window = state.reserved_shared + kReservedSharedBytes;
    state.warps_per_block = static_cast<uint32_t>((b.count() + 31) / 32);
    state.ranges = device.impl().snapshot();
    state.images = config.images ? config.images : device.impl().images.snapshot();
    if (program.global_segment_bytes) state.ranges.push_back({program.global_segment, program.global_segment_bytes});
    if (program.const_segment_bytes) state.ranges.push_back({program.const_segment, program.const_segment_bytes});
    // The grid workspace of a cooperative launch (cooperative groups' layout: a size, then the barrier
    // counter grid.sync() counts arrivals in).
    alignas(16) uint32_t workspace[4] = {8, 0, 0, 0};
    if (config.cooperative) {
        state.grid_workspace = reinterpret_cast<uint64_t>(workspace);
        state.ranges.push_back({state.grid_workspace, sizeof workspace});
    }
    std::unique_ptr<DeviceLaunchQueue> device_launches;
    if (program.device_launches) {
        device_launches = std::make_unique<DeviceLaunchQueue>();
        device_launches->arena.resize(device_launch_arena_bytes(kernel));
        state.device_launches = device_launches.get();
        state.nesting = nesting;
        state.ranges.push_back(
            {reinterpret_cast<uint64_t>(device_launches->arena.data()), device_launches->arena.size()});
        device_launches->strings = device_runtime_error_strings();
        state.ranges.push_back(
            {reinterpret_cast<uint64_t>(device_launches->strings.data()), device_launches->strings.size()});
    }
    std::sort(state.ranges.begin(), state.ranges.end(),
              [](const MemRange& x, const MemRange& y) { return x.base < y.base; });
    state.budget_on = config.instruction_budget != 0 || config.watchdog_ms != 0;
    if (config.watchdog_ms != 0 && config.instruction_budget == 0)
        state.config.instruction_budget = uint64_t(1) << 62; // the watchdog stops it by emptying the budget
    state.budget = static_cast<int64_t>(std::min<uint64_t>(state.config.instruction_budget, INT64_MAX));

    uint64_t blocks = g.count();
    unsigned workers =
        config.worker_threads ? config.worker_threads : std::max(1u, std::thread::hardware_concurrency());
    workers = static_cast<unsigned>(std::min<uint64_t>(workers, blocks));

    state.running_workers = static_cast<int>(workers);
    std::atomic<uint64_t> next_block{0};
    std::mutex result_mutex;
    LaunchResult result;
    result.workers = workers;
    std::vector<uint64_t> pc_counts; // the launch's profile (LaunchConfig::profile_sink), summed over its runners
    bool faulted = false;
    BlockRunner::FaultInfo first_fault;
    std::map<uint64_t, std::string> printed; // block -> its printf text (blocks that printed)
    std::atomic<bool> abort{false};          // cooperative: a block faulted, the others may wait for it forever
    auto note_fault = [&](const BlockRunner& runner, uint64_t id) {
        std::lock_guard lock(result_mutex);
        if (!faulted || runner.fault().block < first_fault.block) first_fault = runner.fault();
        faulted = true;
        uint64_t cur = state.stop_block.load();
        while (id < cur && !state.stop_block.compare_exchange_weak(cur, id)) {
        }
        if (runner.fault().kind == FaultKind::BudgetExceeded) state.stop_block = 0;
    };
    // Cooperative: worker WI owns blocks WI, WI + workers, ... and steps them round-robin until all end.
    std::function<void(unsigned)> cooperative_job = [&](unsigned wi) {
        std::fesetenv(FE_DFL_ENV);
        std::vector<std::unique_ptr<BlockRunner>> runners;
        std::vector<uint64_t> ids;
        for (uint64_t id = wi; id < blocks; id += workers) {
            runners.push_back(std::make_unique<BlockRunner>(state));
            runners.back()->start_block(id);
            ids.push_back(id);
        }
        std::vector<std::string> texts(runners.size());
        std::vector<bool> done(runners.size(), false);
        size_t left = runners.size();
        while (left > 0 && !abort.load()) {
            for (size_t i = 0; i < runners.size() && !abort.load(); ++i) {
                if (done[i]) continue;
                t_block_printf = &texts[i];
                const BlockRunner::Step st = runners[i]->step();
                runners[i]->yield_budget();
                if (st == BlockRunner::Step::Running) continue;
                done[i] = true;
                --left;
                if (st == BlockRunner::Step::Failed) {
                    note_fault(*runners[i], ids[i]);
                    abort = true;
                }
            }
        }
        t_block_printf = nullptr;
        state.running_workers.fetch_sub(1);
        std::lock_guard lock(result_mutex);
        for (size_t i = 0; i < runners.size(); ++i) {
            if (!texts[i].empty()) printed.emplace(ids[i], std::move(texts[i]));
            result.warp_instructions += runners[i]->warp_instructions();
            result.lane_instructions += runners[i]->lane_instructions();
            add_pc_counts(pc_counts, runners[i]->pc_counts());
        }
    };
    // Compiled code counts no instructions and never yields to another block: not for a budget, a profile or a
    // cooperative grid; nor warp code made for blocks of whole warps in x for a block of another shape
    // (CompiledKernel).
    const CompiledKernel* compiled = config.compiled && config.instruction_budget == 0 && !config.cooperative &&
                                             !config.profile_sink &&
                                             (!config.compiled->whole_warps_in_x || config.block.x % 32 == 0)
                                         ? config.compiled.get()
                                         : nullptr;
    std::function<void(unsigned)> job = [&](unsigned) {
        // Known floating-point state: round to nearest, no flush-to-zero / denormals-are-zero (a host
        // application built with fast-math must not change kernel results).
        std::fesetenv(FE_DFL_ENV);
        BlockRunner runner(state);
        std::string block_printf;
        t_block_printf = &block_printf;
        for (;;) {
            uint64_t id = next_block.fetch_add(1);
            if (id >= blocks || id > state.stop_block.load()) break;
            block_printf.clear();
            const bool ok = compiled ? runner.run_block_compiled(id, *compiled) : runner.run_block(id);
            if (!block_printf.empty()) {
                std::lock_guard lock(result_mutex);
                printed.emplace(id, std::move(block_printf));
                block_printf = std::string();
            }
            if (!ok) note_fault(runner, id);
        }
        t_block_printf = nullptr;
        runner.finish();
        std::lock_guard lock(result_mutex);
        result.warp_instructions += runner.warp_instructions();
        result.lane_instructions += runner.lane_instructions();
        add_pc_counts(pc_counts, runner.pc_counts());
    };
    // The watchdog: at the deadline it takes the budget away, so every worker stops at its next refill
    // (at most 2^16 warp instructions later) as if the budget had run out.
    std::mutex watchdog_mutex;
    std::condition_variable watchdog_cv;
    bool launch_over = false;
    std::atomic<bool> timed_out{false};
    std::thread watchdog;
    if (config.watchdog_ms != 0) {
        watchdog = std::thread([&] {
            std::unique_lock lock(watchdog_mutex);
            if (!watchdog_cv.wait_for(lock, std::chrono::milliseconds(config.watchdog_ms),
                                      [&] { return launch_over; })) {
                timed_out = true;
                state.budget.store(INT64_MIN / 2);
            }
        });
    }
    {
        std::lock_guard launch_lock(device.impl().launch_mutex);
        device.impl().pool.run(workers, config.cooperative ? cooperative_job : job);
    }
    if (watchdog.joinable()) {
        {
            std::lock_guard lock(watchdog_mutex);
            launch_over = true;
        }
        watchdog_cv.notify_all();
        watchdog.join();
    }
    deliver_printf(config, printed, faulted ? first_fault.block : UINT64_MAX);
    if (config.profile_sink) config.profile_sink(profile_text(program, pc_counts));
    if (!faulted) {
        if (device_launches)
            D4R_TRY(run_device_launches(device, kernel, config, *device_launches, nesting, result, fault_out));
        return result;
    }

    const BlockRunner::FaultInfo& f = first_fault;
    Dim3 block = unflatten(f.block, g);
    Dim3 thread = unflatten(f.thread, b);
    const SourceRef& src = program.sources[std::min<size_t>(f.pc, program.sources.size() - 1)];
    const uint32_t line = f.site ? f.site->line : src.line;
    const std::string_view text = f.site ? std::string_view(f.site->text) : src.text;
    std::string message = fmt::format("kernel '{}': block ({},{},{}) thread ({},{},{}): {}", name, block.x, block.y,
                                      block.z, thread.x, thread.y, thread.z, fault_kind_name(f.kind));
    if (f.kind == FaultKind::IllegalAddress || f.kind == FaultKind::MisalignedAddress)
        message += fmt::format(" 0x{:x} ({} bytes)", f.address, f.bytes);
    if (f.kind == FaultKind::BudgetExceeded && timed_out)
        message += fmt::format(": stopped by the watchdog after {} ms of run time", config.watchdog_ms);
    else if (!f.detail.empty())
        message += ": " + f.detail;
    message += fmt::format(" at {}:{} '{}'", kernel.module().name(), line, text);
    if (fault_out) {
        fault_out->kind = f.kind;
        fault_out->block = block;
        fault_out->thread = thread;
        fault_out->address = f.address;
        fault_out->access_bytes = f.bytes;
        fault_out->line = line;
        fault_out->message = message;
    }
    return Error(ErrorCode::Invalid, std::move(message));
}

} // namespace

} // namespace d4r::ptxsim
