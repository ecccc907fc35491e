// cpu backend: kernel launches (validated at once, run by the context's worker on ptxsim) and the
// occupancy queries.
//
// Occupancy model (sm_90 figures): a block needs ceil(threads / 32) warps of the SM's 64, 32 registers per
// thread (kReportedRegsPerThread) of its 65536, and static + dynamic + 1 KiB reserved shared memory of its
// 228 KiB; an SM holds at most 32 blocks. Blocks per SM is the smallest of these limits.
#include <cstdlib>
#include <cstring>

#include "core/env_vars.h"
#include "core/log.h"
#include "ptxsim/compiled.h"
#include "runtime/backends/cpu/cpu_graph.h"
#include "runtime/backends/cpu/cpu_heap.h"
#include "runtime/backends/cpu/cpu_ptx_profile.h"
#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

int function_max_threads(const Function& f) {
    const ptx::KernelDirectives& d = f.kernel->info().directives;
    uint64_t n = kMaxThreadsPerBlock;
    if (d.reqntid) n = std::min<uint64_t>(n, uint64_t((*d.reqntid)[0]) * (*d.reqntid)[1] * (*d.reqntid)[2]);
    if (d.maxntid) n = std::min<uint64_t>(n, uint64_t((*d.maxntid)[0]) * (*d.maxntid)[1] * (*d.maxntid)[2]);
    return static_cast<int>(n);
}

CUresult build_params(const ptxsim::Kernel& kernel, void** params, void** extra, std::vector<uint8_t>& block) {
    const ptx::EntryInfo& info = kernel.info();
    block.assign(info.param_block_size, 0);
    D4R_CPU_REFUSE_IF(params && extra, CUDA_ERROR_INVALID_VALUE);
    if (params) {
        for (size_t i = 0; i < info.params.size(); ++i) {
            const ptx::ParamInfo& p = info.params[i];
            D4R_CPU_REFUSE_IF(!params[i], CUDA_ERROR_INVALID_VALUE);
            std::memcpy(block.data() + p.offset, params[i], p.size);
        }
        return CUDA_SUCCESS;
    }
    if (extra) {
        const void* buffer = nullptr;
        size_t size = 0;
        bool have_size = false;
        for (size_t i = 0; extra[i] != D4R_CU_LAUNCH_PARAM_END; i += 2) {
            D4R_CPU_REFUSE_IF(i > 64, CUDA_ERROR_INVALID_VALUE);
            if (extra[i] == D4R_CU_LAUNCH_PARAM_BUFFER_POINTER) {
                buffer = extra[i + 1];
            } else if (extra[i] == D4R_CU_LAUNCH_PARAM_BUFFER_SIZE) {
                D4R_CPU_REFUSE_IF(!extra[i + 1], CUDA_ERROR_INVALID_VALUE);
                std::memcpy(&size, extra[i + 1], sizeof(size_t));
                have_size = true;
            } else {
                return CUDA_ERROR_INVALID_VALUE;
            }
        }
        D4R_CPU_REFUSE_IF(!buffer || !have_size || size < info.param_block_size, CUDA_ERROR_INVALID_VALUE);
        if (!block.empty()) std::memcpy(block.data(), buffer, block.size());
        return CUDA_SUCCESS;
    }
    return info.params.empty() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

namespace {

CUresult fault_result(ptxsim::FaultKind kind) {
    switch (kind) {
    case ptxsim::FaultKind::IllegalAddress:
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    case ptxsim::FaultKind::MisalignedAddress:
        return CUDA_ERROR_MISALIGNED_ADDRESS;
    case ptxsim::FaultKind::IllegalInstruction:
        return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    case ptxsim::FaultKind::InvalidLaunch:
        return CUDA_ERROR_INVALID_VALUE;
    case ptxsim::FaultKind::BudgetExceeded:
        return CUDA_ERROR_LAUNCH_TIMEOUT;
    case ptxsim::FaultKind::Assert:
        return CUDA_ERROR_ASSERT;
    default:
        return CUDA_ERROR_LAUNCH_FAILED;
    }
}

// D4R_CPU_INSTRUCTION_BUDGET: warp instructions one launch may execute before it is stopped with
// CUDA_ERROR_LAUNCH_TIMEOUT (a watchdog for runaway kernels); unset or 0 = unlimited.
uint64_t instruction_budget() {
    static const uint64_t budget = static_cast<uint64_t>(env_int(process_environment(), EnvVar::CpuInstructionBudget));
    return budget;
}

// D4R_CPU_WATCHDOG_MS: milliseconds of wall time one launch may run before it is stopped with
// CUDA_ERROR_LAUNCH_TIMEOUT, as a display GPU's watchdog stops a kernel (the game chain turns it on:
// d4r.ini's [Interop] WatchdogMs); unset or 0 = off, the default for plain CUDA programs, whose kernels
// may legitimately run for minutes on this backend. A bad value warns once (core/env_vars.h) and means off.
uint32_t watchdog_ms() {
    static const uint32_t ms = [] {
        const int64_t n = env_int(process_environment(), EnvVar::CpuWatchdogMs);
        if (n)
            log::info(
                "cpu backend: watchdog on: a launch running longer than {} ms stops with CUDA_ERROR_LAUNCH_TIMEOUT", n);
        return static_cast<uint32_t>(n);
    }();
    return ms;
}

int blocks_per_sm(const Function& f, int block_size, size_t dynamic_shared);

CUresult launch(CUfunction h, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                unsigned shared, CUstream stream, void** params, void** extra, bool cooperative) {
    if (CUresult r = check_init()) return r;
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_HANDLE);
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    if (CUresult r = ref.ctx->sticky.load()) return r;
    // A function belongs to the context its module was loaded in: it runs on that context's streams
    // (whichever context is current), not on another's, as NVIDIA's driver answers. (A CUkernel resolves
    // to the current context's function; it is not checked.)
    const bool is_function = reinterpret_cast<void*>(h) == static_cast<void*>(f.get());
    D4R_CU_INVALID_IF(is_function && f->module && f->module->ctx != ref.ctx.get(), CUDA_ERROR_INVALID_HANDLE,
                      "cpu backend: cuLaunchKernel: the function belongs to context {}, the stream to context {}",
                      static_cast<const void*>(f->module->ctx), static_cast<const void*>(ref.ctx.get()));
    D4R_CPU_REFUSE_IF(!gx || !gy || !gz || !bx || !by || !bz, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(gx > 2147483647u || gy > 65535 || gz > 65535, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(bx > 1024 || by > 1024 || bz > 64, CUDA_ERROR_INVALID_VALUE);
    uint64_t threads = uint64_t(bx) * by * bz;
    D4R_CPU_REFUSE_IF(threads > uint64_t(function_max_threads(*f)), CUDA_ERROR_INVALID_VALUE);
    const auto& req = f->kernel->info().directives.reqntid;
    D4R_CPU_REFUSE_IF(req && ((*req)[0] != bx || (*req)[1] != by || (*req)[2] != bz), CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(shared > unsigned(f->max_dynamic_shared.load()), CUDA_ERROR_INVALID_VALUE);
    std::vector<uint8_t> block;
    if (CUresult r = build_params(*f->kernel, params, extra, block)) return r;
    // A cooperative grid must fit on the device at once, as the driver requires.
    if (cooperative) {
        const uint64_t fits = uint64_t(blocks_per_sm(*f, static_cast<int>(threads), shared)) * sm_count();
        if (uint64_t(gx) * gy * gz > fits) {
            log::debug("cpu backend: cooperative grid of {} blocks exceeds the {} that fit at once",
                       uint64_t(gx) * gy * gz, fits);
            return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
        }
    }

    ptxsim::LaunchConfig config;
    config.grid = {gx, gy, gz};
    config.block = {bx, by, bz};
    config.dynamic_shared_bytes = shared;
    config.instruction_budget = instruction_budget();
    config.watchdog_ms = watchdog_ms();
    config.stack_bytes = std::max<uint64_t>(ref.ctx->limits[CU_LIMIT_STACK_SIZE], 1); // 0 would mean the maximum
    config.cooperative = cooperative;
    if (f->sim->uses_device_heap())
        if (CUresult r = context_heap(*ref.ctx, config.heap)) return r;
    config.set_conditional = set_graph_conditional;
    // Texture objects as the launch is queued: the sample may destroy them before the stream runs it.
    config.images = ptxsim::image_snapshot(state().device);
    config.compiled = compiled_kernel(*f);
    config.profile_sink = ptx_profile_sink(std::string(f->kernel->name()), config.grid, config.block);
    if (config.compiled && config.compiled->whole_warps_in_x && config.block.x % 32 != 0)
        std::call_once(f->said_shape, [&] {
            log::info("cpu backend: kernel '{}' runs interpreted for blocks of {} threads in x: its warp code is for "
                      "whole warps in x (a multiple of 32)",
                      f->kernel->name(), config.block.x);
        });
    Context* ctx = ref.ctx.get();
    ref.ctx->submit(
        ref.stream, [ctx, sim = f->sim, kernel = f->kernel, config, block = std::move(block)](CUresult status) {
            if (status != CUDA_SUCCESS) return;
            ptxsim::LaunchFault fault;
            auto result = ptxsim::launch(state().device, *kernel, config, block, &fault);
            if (!result) {
                CUresult r = fault_result(fault.kind);
                log::error("cpu backend: kernel launch failed ({}): {}", error_name(r), result.error().text());
                ctx->fail(r);
            } else if (result->warp_instructions != 0) { // interpreted (compiled code counts none)
                log::debug("cpu backend: kernel '{}' grid {}x{}x{} block {}x{}x{}: {} warp instructions, {} lane "
                           "instructions",
                           kernel->name(), config.grid.x, config.grid.y, config.grid.z, config.block.x, config.block.y,
                           config.block.z, result->warp_instructions, result->lane_instructions);
            }
        });
    return CUDA_SUCCESS;
}

CUresult cu_launch_kernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, CUstream stream, void** params, void** extra) {
    return launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra, false);
}

// A cluster attribute's value is { unsigned x, y, z } at the start of the union. The grid must be made of
// whole clusters, as on a GPU; a valid cluster is otherwise ignored (blocks run as without one).
CUresult check_cluster(const CUlaunchConfig& config, const CUlaunchAttributeValue& value) {
    unsigned dim[3];
    std::memcpy(dim, &value, sizeof dim);
    const unsigned grid[3] = {config.gridDimX, config.gridDimY, config.gridDimZ};
    for (int k = 0; k < 3; ++k) {
        D4R_CU_INVALID_IF(dim[k] == 0 || grid[k] % dim[k], CUDA_ERROR_INVALID_CLUSTER_SIZE,
                          "cpu backend: cuLaunchKernelEx: cluster {}x{}x{} does not divide the grid {}x{}x{}", dim[0],
                          dim[1], dim[2], grid[0], grid[1], grid[2]);
    }
    return CUDA_SUCCESS;
}

CUresult cu_launch_kernel_ex(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!config, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(config->numAttrs && !config->attrs, CUDA_ERROR_INVALID_VALUE);
    bool cooperative = false, ignored = false;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
            cooperative = config->attrs[i].value.cooperative != 0;
        else if (config->attrs[i].id != CU_LAUNCH_ATTRIBUTE_IGNORE)
            ignored = true;
        if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
            if (CUresult r = check_cluster(*config, config->attrs[i].value)) return r;
    }
    if (ignored && log::once("cpu:launch-attributes"))
        log::info("cpu backend: cuLaunchKernelEx ignores launch attributes other than cooperative (clusters, "
                  "priorities, ...)");
    return launch(f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX, config->blockDimY,
                  config->blockDimZ, config->sharedMemBytes, config->hStream, params, extra, cooperative);
}

CUresult cu_launch_cooperative_kernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                      unsigned bz, unsigned shared, CUstream stream, void** params) {
    return launch(f, gx, gy, gz, bx, by, bz, shared, stream, params, nullptr, true);
}

// ---- Occupancy -------------------------------------------------------------------------------------------

int blocks_per_sm(const Function& f, int block_size, size_t dynamic_shared) {
    if (block_size <= 0 || block_size > function_max_threads(f)) return 0;
    if (dynamic_shared > size_t(f.max_dynamic_shared.load())) return 0;
    int warps = (block_size + 31) / 32;
    int by_threads = (kMaxThreadsPerSm / 32) / warps;
    int by_regs = kRegistersPerSm / (warps * 32 * kReportedRegsPerThread);
    uint64_t shared = uint64_t(f.kernel->static_shared_bytes()) + dynamic_shared + kReservedSharedPerBlock;
    int by_shared = static_cast<int>(std::min<uint64_t>(kSharedPerSm / shared, kMaxBlocksPerSm));
    return std::min({kMaxBlocksPerSm, by_threads, by_regs, by_shared});
}

CUresult cu_occupancy_flags(int* blocks, CUfunction h, int block_size, size_t dynamic_shared, unsigned flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!blocks || flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE, CUDA_ERROR_INVALID_VALUE);
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_HANDLE);
    *blocks = blocks_per_sm(*f, block_size, dynamic_shared);
    return CUDA_SUCCESS;
}

CUresult cu_occupancy(int* blocks, CUfunction h, int block_size, size_t dynamic_shared) {
    return cu_occupancy_flags(blocks, h, block_size, dynamic_shared, 0);
}

CUresult cu_potential_block_size_flags(int* min_grid, int* block_size, CUfunction h, CUoccupancyB2DSize b2d,
                                       size_t dynamic_shared, int limit, unsigned flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!min_grid || !block_size || flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE,
                      CUDA_ERROR_INVALID_VALUE);
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_HANDLE);
    int max = function_max_threads(*f);
    if (limit > 0) max = std::min(max, limit);
    int best_size = 0, best_threads = 0, best_blocks = 0;
    // From the largest size down in warp steps; a smaller size only wins with strictly more threads.
    for (int size = (max + 31) / 32 * 32; size > 0; size -= 32) {
        int s = std::min(size, max);
        size_t smem = b2d ? b2d(s) : dynamic_shared;
        int n = blocks_per_sm(*f, s, smem);
        if (n * s > best_threads) {
            best_threads = n * s;
            best_size = s;
            best_blocks = n;
        }
    }
    *block_size = best_size;
    *min_grid = best_blocks * sm_count();
    return CUDA_SUCCESS;
}

CUresult cu_potential_block_size(int* min_grid, int* block_size, CUfunction h, CUoccupancyB2DSize b2d,
                                 size_t dynamic_shared, int limit) {
    return cu_potential_block_size_flags(min_grid, block_size, h, b2d, dynamic_shared, limit, 0);
}

CUresult cu_available_dynamic_smem(size_t* out, CUfunction h, int blocks, int block_size) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out || blocks <= 0 || block_size <= 0, CUDA_ERROR_INVALID_VALUE);
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_HANDLE);
    if (blocks_per_sm(*f, block_size, 0) < blocks) {
        *out = 0;
        return CUDA_SUCCESS;
    }
    int64_t per_block = kSharedPerSm / blocks - kReservedSharedPerBlock - int64_t(f->kernel->static_shared_bytes());
    *out = size_t(std::clamp<int64_t>(per_block, 0, f->max_dynamic_shared.load()));
    return CUDA_SUCCESS;
}

} // namespace

void fill_launch(ApiTable& t) {
    t.cuLaunchKernel = cu_launch_kernel;
    t.cuLaunchKernelEx = cu_launch_kernel_ex;
    t.cuLaunchCooperativeKernel = cu_launch_cooperative_kernel;
    t.cuOccupancyMaxActiveBlocksPerMultiprocessor = cu_occupancy;
    t.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags = cu_occupancy_flags;
    t.cuOccupancyMaxPotentialBlockSize = cu_potential_block_size;
    t.cuOccupancyMaxPotentialBlockSizeWithFlags = cu_potential_block_size_flags;
    t.cuOccupancyAvailableDynamicSMemPerBlock = cu_available_dynamic_smem;
}

} // namespace d4r::runtime::cpu
