// atom / red on global and shared memory from many blocks and several workers: every operation and
// type, old values returned, f32 add (global flushes subnormals, shared keeps them), and a CAS-built
// counter; results checked against sequential C++ (order-independent operations only).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// Every thread of every block applies OP with its own operand to the cell counters[0..8).
const char* kAtomics = R"(
.shared .align 8 .b8 sh[64];
.visible .entry k(.param .u64 cells, .param .u64 olds)
{
  .reg .pred %p<3>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<24>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [cells];
  ld.param.u64 %rd2, [olds];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  add.u32 %r5, %r4, 1;
  atom.global.add.u32 %r6, [%rd1], %r5;
  red.global.add.u64 [%rd1+8], 3;
  atom.global.min.s32 %r7, [%rd1+16], %r4;
  atom.global.max.u32 %r8, [%rd1+20], %r4;
  and.b32 %r9, %r4, 31;
  mov.u32 %r10, 1;
  shl.b32 %r11, %r10, %r9;
  atom.global.or.b32 %r12, [%rd1+24], %r11;
  atom.global.xor.b32 %r13, [%rd1+28], %r5;
  atom.global.inc.u32 %r14, [%rd1+32], 9;
  cvt.rn.f32.u32 %f1, %r5;
  mul.f32 %f1, %f1, 0f3E800000;
  atom.global.add.f32 %f2, [%rd1+36], %f1;
  atom.global.exch.b32 %r15, [%rd1+40], %r5;
  atom.global.and.b64 %rd3, [%rd1+48], -2;
  atom.global.max.s64 %rd4, [%rd1+56], %rd1;
  // shared: per-block counters, then one thread publishes them
  mov.u32 %r16, sh;
  atom.shared.add.u32 %r17, [%r16], 1;
  atom.shared.dec.u32 %r18, [%r16+4], 5;
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  ld.shared.v2.u32 {%r19, %r20}, [%r16];
  mul.wide.u32 %rd5, %r2, 8;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v2.u32 [%rd6], {%r19, %r20};
SKIP:
  ret;
}
)";

TEST(PtxsimAtomic, ManyBlocksManyWorkers) {
    auto m = load_ok(ptx(kAtomics));
    ASSERT_TRUE(m);
    const uint32_t blocks = 40, threads = 96, n = blocks * threads;
    for (unsigned workers : {1u, 4u}) {
        Device dev;
        std::vector<uint8_t> init(64, 0);
        int32_t min_init = 1 << 30;
        std::memcpy(init.data() + 16, &min_init, 4);
        uint64_t ones = ~0ull;
        std::memcpy(init.data() + 48, &ones, 8);
        DevicePtr cells = upload(dev, init);
        DevicePtr olds = upload(dev, std::vector<uint32_t>(blocks * 2, 0));
        Params p(kernel_of(*m, "k"));
        p.set(0, cells).set(1, olds);
        run_ok(dev, *m, "k", config({blocks}, {threads}, workers), p);
        auto c = download<uint8_t>(dev, cells, 64);
        auto get32 = [&](size_t off) {
            uint32_t v;
            std::memcpy(&v, c.data() + off, 4);
            return v;
        };
        auto get64 = [&](size_t off) {
            uint64_t v;
            std::memcpy(&v, c.data() + off, 8);
            return v;
        };
        uint64_t sum = 0;
        uint32_t xr = 0;
        float fsum = 0;
        for (uint32_t i = 0; i < n; ++i) {
            sum += i + 1;
            xr ^= i + 1;
            fsum += float(i + 1) * 0.25f; // exact: every partial sum is a multiple of 0.25 below 2^22
        }
        EXPECT_EQ(get32(0), uint32_t(sum)) << workers;
        EXPECT_EQ(get64(8), 3ull * n);
        EXPECT_EQ(int32_t(get32(16)), 0);
        EXPECT_EQ(get32(20), n - 1);
        EXPECT_EQ(get32(24), 0xffffffffu);
        EXPECT_EQ(get32(28), xr);
        // inc wraps to 0 after reaching 9: n increments from 0 leave n mod 10.
        EXPECT_EQ(get32(32), n % 10);
        float f;
        std::memcpy(&f, c.data() + 36, 4);
        EXPECT_EQ(f, fsum);
        uint32_t last = get32(40);
        EXPECT_GE(last, 1u);
        EXPECT_LE(last, n);
        EXPECT_EQ(get64(48), ~1ull);
        EXPECT_EQ(get64(56), cells);
        auto o = download<uint32_t>(dev, olds, blocks * 2);
        for (uint32_t b = 0; b < blocks; ++b) {
            EXPECT_EQ(o[b * 2], threads);
            // dec: v = (v == 0 || v > 5) ? 5 : v - 1, starting at 0, applied 96 times.
            uint32_t v = 0;
            for (uint32_t t = 0; t < threads; ++t) v = (v == 0 || v > 5) ? 5 : v - 1;
            EXPECT_EQ(o[b * 2 + 1], v);
        }
    }
}

TEST(PtxsimAtomic, CompareAndSwapReturnsOldValuesAndBuildsACounter) {
    // Each thread increments a counter with a CAS loop and records the value it observed; the observed
    // values must be a permutation of 0..n-1.
    auto m = load_ok(ptx(R"(
.visible .entry k(.param .u64 counter, .param .u64 seen)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [counter];
  ld.param.u64 %rd2, [seen];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  ld.global.u32 %r5, [%rd1];
RETRY:
  add.u32 %r6, %r5, 1;
  atom.global.cas.b32 %r7, [%rd1], %r5, %r6;
  setp.ne.u32 %p1, %r7, %r5;
  mov.u32 %r5, %r7;
  @%p1 bra RETRY;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r7;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    const uint32_t n = 24 * 64;
    DevicePtr counter = upload(dev, std::vector<uint32_t>(1, 0));
    DevicePtr seen = upload(dev, std::vector<uint32_t>(n, 0));
    Params p(kernel_of(*m, "k"));
    p.set(0, counter).set(1, seen);
    run_ok(dev, *m, "k", config({24}, {64}, 4), p);
    EXPECT_EQ(download<uint32_t>(dev, counter, 1)[0], n);
    auto s = download<uint32_t>(dev, seen, n);
    std::sort(s.begin(), s.end());
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(s[i], i);
}

TEST(PtxsimAtomic, FloatAddFlushesSubnormalsOnGlobalOnly) {
    auto m = load_ok(ptx(R"(
.shared .align 4 .f32 acc;
.visible .entry k(.param .u64 g, .param .f32 v)
{
  .reg .f32 %f<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [g];
  ld.param.f32 %f1, [v];
  atom.global.add.f32 %f2, [%rd1], %f1;
  red.shared.add.f32 [acc], %f1;
  ld.shared.f32 %f3, [acc];
  st.global.f32 [%rd1+4], %f3;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr g = upload(dev, std::vector<float>(2, 0.0f));
    const float sub = 1e-40f;
    Params p(kernel_of(*m, "k"));
    p.set(0, g).set(1, sub);
    run_ok(dev, *m, "k", config({1}, {1}), p);
    auto r = download<float>(dev, g, 2);
    EXPECT_EQ(std::bit_cast<uint32_t>(r[0]), 0u); // global: subnormal input and result flushed
    EXPECT_EQ(r[1], sub);                         // shared: kept
}

} // namespace
} // namespace d4r::ptxsim::test
