// ptxsim throughput: an ALU-bound kernel (a per-thread loop of fma, mul, sub, xor, shift, compare and
// branch) and a memory-bound kernel (saxpy over 16 MiB arrays), each on one worker (the per-core figure)
// and on every core. Every ptxsim benchmark also times the same work in native C++ in the same run and
// reports lane-instructions per second and the slowdown. docs/performance.md records the figures. Run:
//   build/bin/bench_ptxsim --benchmark_min_time=1
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "ptxsim/ptxsim.h"

namespace {

using namespace d4r::ptxsim;

const char* kModule = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry alu(.param .u64 out, .param .u32 iters)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  cvt.rn.f32.s32 %f1, %r5;
  mov.f32 %f2, 0f3F800000;
  mov.u32 %r6, 0;
  mov.u32 %r7, %r5;
LOOP:
  fma.rn.f32 %f2, %f2, 0f3F000000, %f1;
  mul.rn.f32 %f3, %f2, 0f3E800000;
  sub.rn.f32 %f2, %f2, %f3;
  xor.b32 %r7, %r7, %r6;
  shl.b32 %r8, %r7, 3;
  add.s32 %r7, %r8, %r7;
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p1, %r6, %r1;
  @%p1 bra LOOP;
  cvt.rzi.s32.f32 %r9, %f2;
  add.s32 %r10, %r9, %r7;
  mul.wide.s32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  ret;
}
.visible .entry saxpy(.param .u64 y, .param .u64 x, .param .f32 a, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y];
  ld.param.u64 %rd2, [x];
  ld.param.f32 %f1, [a];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  add.s64 %rd5, %rd1, %rd3;
  ld.global.f32 %f2, [%rd4];
  ld.global.f32 %f3, [%rd5];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd5], %f4;
DONE:
  ret;
}
)";

std::shared_ptr<Module> module() {
    static std::shared_ptr<Module> m = [] {
        auto r = Module::load(kModule, "bench.ptx");
        if (!r.ok()) std::abort();
        return *r;
    }();
    return m;
}

// The ALU kernel's per-thread work in C++ (the same operations, same rounding), compiled twice: with the
// CPU's FMA instruction where it has one (the baseline x86-64 build would call libm's fmaf instead).
#define D4R_ALU_BODY                                                                                                   \
    for (uint32_t t = 0; t < out.size(); ++t) {                                                                        \
        float f1 = float(int32_t(t)), f2 = 1.0f;                                                                       \
        uint32_t r7 = t;                                                                                               \
        for (uint32_t i = 0; i < iters; ++i) {                                                                         \
            f2 = __builtin_fmaf(f2, 0.5f, f1);                                                                         \
            float f3 = f2 * 0.25f;                                                                                     \
            f2 = f2 - f3;                                                                                              \
            r7 ^= i;                                                                                                   \
            r7 = (r7 << 3) + r7;                                                                                       \
        }                                                                                                              \
        out[t] = uint32_t(int32_t(f2)) + r7;                                                                           \
    }
__attribute__((target("avx2,fma"), noinline)) void alu_native_fma(std::vector<uint32_t>& out, uint32_t iters) { D4R_ALU_BODY }
__attribute__((noinline)) void alu_native_sw(std::vector<uint32_t>& out, uint32_t iters) { D4R_ALU_BODY }

bool has_fma() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
}

void alu_native(std::vector<uint32_t>& out, uint32_t iters) {
    if (has_fma()) alu_native_fma(out, iters);
    else alu_native_sw(out, iters);
}

#define D4R_SAXPY_BODY for (uint32_t i = 0; i < n; ++i) y[i] = __builtin_fmaf(a, x[i], y[i]);
__attribute__((target("avx2,fma"), noinline)) void saxpy_native_fma(float* y, const float* x, float a, uint32_t n) { D4R_SAXPY_BODY }
__attribute__((noinline)) void saxpy_native_sw(float* y, const float* x, float a, uint32_t n) { D4R_SAXPY_BODY }
void saxpy_native(float* y, const float* x, float a, uint32_t n) {
    if (has_fma()) saxpy_native_fma(y, x, a, n);
    else saxpy_native_sw(y, x, a, n);
}

template <class F>
double seconds(F f) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void report(benchmark::State& state, uint64_t lanes_per_run, double ptxsim_s, double native_s, uint64_t runs) {
    state.counters["lane_instr_per_s"] = benchmark::Counter(double(lanes_per_run) * double(runs) / ptxsim_s);
    state.counters["native_us"] = native_s * 1e6;
    state.counters["slowdown"] = (ptxsim_s / double(runs)) / native_s;
}

void BM_Alu(benchmark::State& state) {
    const unsigned workers = static_cast<unsigned>(state.range(0));
    const uint32_t blocks = 64, threads = 256, iters = 500;
    Device dev;
    auto out = *dev.alloc(blocks * threads * 4);
    std::vector<uint8_t> params(16);
    std::memcpy(params.data(), &out, 8);
    std::memcpy(params.data() + 8, &iters, 4);
    LaunchConfig cfg;
    cfg.grid = {blocks};
    cfg.block = {threads};
    cfg.worker_threads = workers;
    const Kernel& k = **module()->kernel("alu");
    std::vector<uint32_t> native(blocks * threads);
    double native_s = 1e30;
    for (int i = 0; i < 3; ++i) native_s = std::min(native_s, seconds([&] { alu_native(native, iters); }));
    uint64_t lanes = 0, runs = 0;
    double total = 0;
    for (auto _ : state) {
        double s = seconds([&] {
            auto r = launch(dev, k, cfg, params);
            if (!r.ok()) state.SkipWithError(r.error().text().c_str());
            else lanes = r->lane_instructions;
        });
        total += s;
        ++runs;
    }
    std::vector<uint32_t> got(blocks * threads);
    (void)dev.copy_to_host(got.data(), out, got.size() * 4);
    if (got != native) state.SkipWithError("ptxsim and native results differ");
    report(state, lanes, total, native_s, runs);
}

void BM_Saxpy(benchmark::State& state) {
    const unsigned workers = static_cast<unsigned>(state.range(0));
    const uint32_t n = 4u << 20, threads = 256;
    Device dev;
    std::vector<float> x(n), y(n);
    for (uint32_t i = 0; i < n; ++i) {
        x[i] = float(i % 1000) * 0.001f;
        y[i] = 1.0f;
    }
    auto dx = *dev.alloc(n * 4), dy = *dev.alloc(n * 4);
    (void)dev.copy_to_device(dx, x.data(), n * 4);
    (void)dev.copy_to_device(dy, y.data(), n * 4);
    const float a = 1.5f;
    std::vector<uint8_t> params(24);
    std::memcpy(params.data(), &dy, 8);
    std::memcpy(params.data() + 8, &dx, 8);
    std::memcpy(params.data() + 16, &a, 4);
    std::memcpy(params.data() + 20, &n, 4);
    LaunchConfig cfg;
    cfg.grid = {(n + threads - 1) / threads};
    cfg.block = {threads};
    cfg.worker_threads = workers;
    const Kernel& k = **module()->kernel("saxpy");
    double native_s = 1e30;
    for (int i = 0; i < 3; ++i) native_s = std::min(native_s, seconds([&] { saxpy_native(y.data(), x.data(), a, n); }));
    uint64_t lanes = 0, runs = 0;
    double total = 0;
    for (auto _ : state) {
        double s = seconds([&] {
            auto r = launch(dev, k, cfg, params);
            if (!r.ok()) state.SkipWithError(r.error().text().c_str());
            else lanes = r->lane_instructions;
        });
        total += s;
        ++runs;
    }
    state.SetBytesProcessed(int64_t(runs) * n * 12);
    report(state, lanes, total, native_s, runs);
}

void BM_AluNative(benchmark::State& state) {
    std::vector<uint32_t> out(64 * 256);
    for (auto _ : state) alu_native(out, 500);
}

const int kAllCores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

BENCHMARK(BM_Alu)->Arg(1)->Arg(kAllCores)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Saxpy)->Arg(1)->Arg(kAllCores)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AluNative)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
