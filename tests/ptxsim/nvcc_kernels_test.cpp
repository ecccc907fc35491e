// Kernels as nvcc compiles them (tests/ptxsim/kernels/workloads.cu -> workloads.ptx): reductions with
// shared memory, barriers, shuffles and atomics; divergent loops with early exit; a non-inlined device
// function with a struct return and a local array; a switch; float math. References are plain C++.
#include <gtest/gtest.h>

#include <cmath>

#include "ptxsim_test_util.h"
#include "test_support.h"

namespace d4r::ptxsim::test {
namespace {

std::shared_ptr<Module> workloads() {
    static std::shared_ptr<Module> m =
        load_ok(d4r::test::read_file_text(d4r::test::source_dir() / "tests" / "ptxsim" / "kernels" / "workloads.ptx"),
                "workloads.ptx");
    return m;
}

TEST(PtxsimNvcc, BlockReduceWithSharedMemoryShufflesAndAtomics) {
    auto m = workloads();
    ASSERT_TRUE(m);
    const int n = 5000, threads = 256, blocks = (n + threads - 1) / threads;
    std::vector<uint32_t> in(n);
    TestRng rng(1);
    for (auto& v : in) v = uint32_t(rng.next() % 100000);
    for (unsigned workers : {1u, 4u}) {
        Device dev;
        DevicePtr pin = upload(dev, in), sums = upload(dev, std::vector<uint32_t>(blocks, 0)),
                  total = upload(dev, std::vector<uint32_t>(1, 0));
        Params p(kernel_of(*m, "block_reduce"));
        p.set(0, pin).set(1, sums).set(2, total).set(3, int32_t(n));
        run_ok(dev, *m, "block_reduce", config({uint32_t(blocks)}, {uint32_t(threads)}, workers), p);
        auto s = download<uint32_t>(dev, sums, blocks);
        uint32_t all = 0;
        for (int b = 0; b < blocks; ++b) {
            uint32_t e = 0;
            for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) e += in[i];
            EXPECT_EQ(s[b], e) << b;
            all += e;
        }
        EXPECT_EQ(download<uint32_t>(dev, total, 1)[0], all);
    }
}

TEST(PtxsimNvcc, CollatzDivergentLoops) {
    auto m = workloads();
    ASSERT_TRUE(m);
    const int n = 1000;
    std::vector<uint32_t> start(n);
    for (int i = 0; i < n; ++i) start[i] = uint32_t(i * 37 % 5000);
    Device dev;
    DevicePtr ps = upload(dev, start), out = upload(dev, std::vector<uint32_t>(n + 24, 7));
    Params p(kernel_of(*m, "collatz"));
    p.set(0, ps).set(1, out).set(2, int32_t(n));
    run_ok(dev, *m, "collatz", config({(n + 63) / 64}, {64}), p);
    auto got = download<uint32_t>(dev, out, n + 24);
    for (int i = 0; i < n; ++i) {
        uint64_t x = start[i];
        uint32_t e = 0;
        if (x == 0) {
            e = 0xffffffffu;
        } else {
            while (x != 1) {
                x = (x & 1) ? 3 * x + 1 : x / 2;
                ++e;
            }
        }
        ASSERT_EQ(got[i], e) << i;
    }
    for (int i = n; i < n + 24; ++i) EXPECT_EQ(got[i], 7u); // threads past n returned early
}

TEST(PtxsimNvcc, DeviceCallWithStructReturnAndLocalArray) {
    auto m = workloads();
    ASSERT_TRUE(m);
    const int threads = 40, count = 5;
    std::vector<int32_t> values(threads + 16);
    for (size_t i = 0; i < values.size(); ++i) values[i] = int32_t(i * i) - 50;
    Device dev;
    DevicePtr pv = upload(dev, values), sums = upload(dev, std::vector<int32_t>(threads, 0)),
              scaled = upload(dev, std::vector<float>(threads, 0));
    const float scale = 0.5f;
    Params p(kernel_of(*m, "device_calls"));
    p.set(0, pv).set(1, int32_t(count)).set(2, scale).set(3, sums).set(4, scaled);
    run_ok(dev, *m, "device_calls", config({1}, {uint32_t(threads)}), p);
    auto s = download<int32_t>(dev, sums, threads);
    auto f = download<float>(dev, scaled, threads);
    for (int t = 0; t < threads; ++t) {
        int local[16];
        for (int k = 0; k < 16; ++k) local[k] = values[t + k % count] * (k + 1);
        int sum = 0;
        for (int k = 0; k < count; ++k) sum += local[(k * 7) & 15];
        EXPECT_EQ(s[t], sum) << t;
        EXPECT_EQ(f[t], float(sum) * (scale + float(t))) << t;
    }
}

TEST(PtxsimNvcc, SwitchStatement) {
    auto m = workloads();
    ASSERT_TRUE(m);
    std::vector<uint32_t> in(64);
    for (uint32_t i = 0; i < 64; ++i) in[i] = i * 2654435761u;
    Device dev;
    DevicePtr pin = upload(dev, in), out = upload(dev, std::vector<uint32_t>(64, 0));
    Params p(kernel_of(*m, "switch_ops"));
    p.set(0, pin).set(1, out);
    run_ok(dev, *m, "switch_ops", config({1}, {64}), p);
    auto got = download<uint32_t>(dev, out, 64);
    for (uint32_t i = 0; i < 64; ++i) {
        uint32_t v = in[i], r;
        switch (v % 8) {
        case 0:
            r = v * 3;
            break;
        case 1:
            r = v ^ 0x5a5a;
            break;
        case 2:
            r = v >> 2;
            break;
        case 3:
            r = v + 1000;
            break;
        case 4:
            r = ~v;
            break;
        case 5:
            r = v * v;
            break;
        case 6:
            r = v | 0xf0;
            break;
        default:
            r = v - 7;
            break;
        }
        EXPECT_EQ(got[i], r) << i;
    }
}

TEST(PtxsimNvcc, FloatMath) {
    auto m = workloads();
    ASSERT_TRUE(m);
    const int n = 128;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = (float(i) - 64.0f) * 0.37f;
    x[5] = 2.25f; // *10 = 22.5: round-to-nearest-even gives 22
    x[6] = -0.05f;
    Device dev;
    DevicePtr px = upload(dev, x), out = upload(dev, std::vector<float>(n * 4, 0)),
              ints = upload(dev, std::vector<int32_t>(n * 2, 0));
    Params p(kernel_of(*m, "float_math"));
    p.set(0, px).set(1, out).set(2, ints);
    run_ok(dev, *m, "float_math", config({1}, {uint32_t(n)}), p);
    auto f = download<float>(dev, out, n * 4);
    auto k = download<int32_t>(dev, ints, n * 2);
    for (int i = 0; i < n; ++i) {
        float v = x[i];
        EXPECT_EQ(f[i * 4 + 0], std::sqrt(std::fabs(v))) << v;
        double e = std::exp(double(v) * 0.25);
        EXPECT_NEAR(f[i * 4 + 1], e, 2 * std::ldexp(e, -23)) << v; // nvcc's expf sequence: 2 ulp
        EXPECT_EQ(f[i * 4 + 2], v / (1.0f + std::fabs(v))) << v;
        EXPECT_EQ(f[i * 4 + 3], std::fmin(std::fmax(v, -2.0f), 2.0f)) << v;
        EXPECT_EQ(k[i * 2 + 0], int32_t(std::nearbyint(v * 10.0f))) << v;
        EXPECT_EQ(k[i * 2 + 1], int32_t(v * 10.0f)) << v;
    }
}

} // namespace
} // namespace d4r::ptxsim::test
