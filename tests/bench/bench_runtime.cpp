// libd4rcuda on the cpu backend: what a launch costs outside ptxsim's execution. The same one-block,
// one-warp empty kernel is launched (1) straight through ptxsim::launch — the baseline, ptxsim's own
// cost — and (2) through the runtime's cpu backend table (cuLaunchKernel on a stream + synchronize),
// in the same run. The difference per launch is the runtime's overhead (parameter marshalling, queueing
// on the context worker, the hand-off back). `submit_us` is the cost of the cuLaunchKernel call alone
// (launches queued without waiting); BM_RuntimeLaunchStream the per-launch cost of 256 queued launches.
// Goal (issue 5): at most 2 us per launch outside ptxsim. Run:
//   build/bin/bench_runtime --benchmark_min_time=1
#include <cstdlib>
#include <vector>

#include <benchmark/benchmark.h>

#include "ptxsim/ptxsim.h"
#include "runtime/backend.h"
#include "runtime/runtime.h"

namespace {

using namespace d4r;
using namespace d4r::runtime;

const char* kPtx = ".version 7.0\n.target sm_52\n.address_size 64\n"
                   ".visible .entry empty(.param .u64 p)\n{\n\tret;\n}\n";

void BM_PtxsimLaunchDirect(benchmark::State& state) {
    ptxsim::Device device;
    auto module = ptxsim::Module::load(kPtx, "empty.ptx");
    const ptxsim::Kernel& k = **(*module)->kernel("empty");
    std::vector<uint8_t> params(8, 0);
    ptxsim::LaunchConfig config;
    config.grid = {1, 1, 1};
    config.block = {32, 1, 1};
    // worker_threads = 0 (every core), as the cpu backend launches.
    for (auto _ : state) {
        auto r = ptxsim::launch(device, k, config, params);
        if (!r) state.SkipWithError(r.error().text().c_str());
    }
    state.counters["us_per_launch"] = benchmark::Counter(double(state.iterations()) * 1e-6,
                                                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

struct CpuRuntime {
    std::unique_ptr<Backend> backend;
    CUfunction f = nullptr;
    CUstream s = nullptr;
    CpuRuntime() {
        auto b = make_cpu_backend();
        backend = std::move(*b);
        const ApiTable& t = backend->table();
        CUdevice dev;
        CUcontext ctx;
        CUmodule mod;
        t.cuInit(0);
        t.cuDeviceGet(&dev, 0);
        t.cuDevicePrimaryCtxRetain(&ctx, dev);
        t.cuCtxSetCurrent(ctx);
        t.cuModuleLoadData(&mod, kPtx);
        t.cuModuleGetFunction(&f, mod, "empty");
        t.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    }
};

CpuRuntime& cpu_runtime() {
    static CpuRuntime r;
    return r;
}

void BM_RuntimeLaunchAndSync(benchmark::State& state) {
    CpuRuntime& rt = cpu_runtime();
    const ApiTable& t = rt.backend->table();
    CUdeviceptr arg = 0;
    void* params[] = {&arg};
    for (auto _ : state) {
        CUresult r = t.cuLaunchKernel(rt.f, 1, 1, 1, 32, 1, 1, 0, rt.s, params, nullptr);
        if (r == CUDA_SUCCESS) r = t.cuStreamSynchronize(rt.s);
        if (r != CUDA_SUCCESS) state.SkipWithError("launch failed");
    }
    state.counters["us_per_launch"] = benchmark::Counter(double(state.iterations()) * 1e-6,
                                                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_RuntimeSubmitOnly(benchmark::State& state) {
    CpuRuntime& rt = cpu_runtime();
    const ApiTable& t = rt.backend->table();
    CUdeviceptr arg = 0;
    void* params[] = {&arg};
    int64_t queued = 0;
    for (auto _ : state) {
        if (t.cuLaunchKernel(rt.f, 1, 1, 1, 32, 1, 1, 0, rt.s, params, nullptr) != CUDA_SUCCESS)
            state.SkipWithError("launch failed");
        if (++queued == 256) { // keep the queue short: drain outside the timing
            state.PauseTiming();
            t.cuStreamSynchronize(rt.s);
            state.ResumeTiming();
            queued = 0;
        }
    }
    t.cuStreamSynchronize(rt.s);
    state.counters["submit_us"] = benchmark::Counter(double(state.iterations()) * 1e-6,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Launches queued back to back (256, then one synchronize): the per-launch cost of a stream of work,
// which is what an application that does not wait after every launch pays.
void BM_RuntimeLaunchStream(benchmark::State& state) {
    CpuRuntime& rt = cpu_runtime();
    const ApiTable& t = rt.backend->table();
    CUdeviceptr arg = 0;
    void* params[] = {&arg};
    constexpr int kBatch = 256;
    for (auto _ : state) {
        for (int i = 0; i < kBatch; ++i)
            if (t.cuLaunchKernel(rt.f, 1, 1, 1, 32, 1, 1, 0, rt.s, params, nullptr) != CUDA_SUCCESS)
                state.SkipWithError("launch failed");
        t.cuStreamSynchronize(rt.s);
    }
    state.counters["us_per_launch"] = benchmark::Counter(double(state.iterations()) * kBatch * 1e-6,
                                                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The process runtime's dispatch table (what every exported entry point calls, runtime.h) on the cpu
// backend with no layer asked for: the cost of dispatch() and the table around the backend's call.
// BM_DispatchCall: cuCtxGetCurrent (the backend answers from a thread-local); BM_DispatchSubmitOnly:
// BM_RuntimeSubmitOnly through dispatch().
struct DispatchRuntime {
    CUfunction f = nullptr;
    CUstream s = nullptr;
    DispatchRuntime() {
        setenv("D4R_CUDA_BACKEND", "cpu", 1);
        const ApiTable& t = dispatch();
        CUdevice dev;
        CUcontext ctx;
        CUmodule mod;
        t.cuInit(0);
        t.cuDeviceGet(&dev, 0);
        t.cuDevicePrimaryCtxRetain(&ctx, dev);
        t.cuCtxSetCurrent(ctx);
        t.cuModuleLoadData(&mod, kPtx);
        t.cuModuleGetFunction(&f, mod, "empty");
        t.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    }
};

DispatchRuntime& dispatch_runtime() {
    static DispatchRuntime r;
    return r;
}

void BM_DispatchCall(benchmark::State& state) {
    dispatch_runtime();
    CUcontext ctx = nullptr;
    for (auto _ : state) {
        if (dispatch().cuCtxGetCurrent(&ctx) != CUDA_SUCCESS) state.SkipWithError("cuCtxGetCurrent failed");
        benchmark::DoNotOptimize(ctx);
    }
    state.counters["ns_per_call"] = benchmark::Counter(double(state.iterations()) * 1e-9,
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_DispatchSubmitOnly(benchmark::State& state) {
    DispatchRuntime& rt = dispatch_runtime();
    CUdeviceptr arg = 0;
    void* params[] = {&arg};
    int64_t queued = 0;
    for (auto _ : state) {
        if (dispatch().cuLaunchKernel(rt.f, 1, 1, 1, 32, 1, 1, 0, rt.s, params, nullptr) != CUDA_SUCCESS)
            state.SkipWithError("launch failed");
        if (++queued == 256) {
            state.PauseTiming();
            dispatch().cuStreamSynchronize(rt.s);
            state.ResumeTiming();
            queued = 0;
        }
    }
    dispatch().cuStreamSynchronize(rt.s);
    state.counters["submit_us"] = benchmark::Counter(double(state.iterations()) * 1e-6,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

} // namespace

BENCHMARK(BM_PtxsimLaunchDirect)->UseRealTime();
BENCHMARK(BM_RuntimeLaunchStream)->UseRealTime();
BENCHMARK(BM_RuntimeLaunchAndSync)->UseRealTime();
BENCHMARK(BM_RuntimeSubmitOnly)->UseRealTime();
BENCHMARK(BM_DispatchCall)->UseRealTime();
BENCHMARK(BM_DispatchSubmitOnly)->UseRealTime();
BENCHMARK_MAIN();
