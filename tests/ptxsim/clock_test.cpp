// %clock64 advances at kClockRateKhz with wall time (a spin of N cycles takes N / rate seconds), %clock and
// %clock_hi are its halves, successive reads in a warp strictly increase, and %globaltimer counts nanoseconds.
#include <gtest/gtest.h>

#include <chrono>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// Spins until %clock64 has advanced by CYCLES; out[0..5] = cycles seen, globaltimer ns seen, the first
// %clock64, %clock and %clock_hi read right after it, and whether every read was larger than the last.
const std::string kSpin = ptx(R"(
.visible .entry spin(.param .u64 out, .param .u64 cycles)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<16>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [cycles];
  mov.u64 %rd3, %globaltimer;
  mov.u64 %rd4, %clock64;
  mov.u32 %r1, %clock;
  mov.u32 %r2, %clock_hi;
  mov.u64 %rd5, %rd4;
  mov.u64 %rd9, 1;
LOOP:
  mov.u64 %rd6, %clock64;
  setp.le.u64 %p1, %rd6, %rd5;
  @%p1 mov.u64 %rd9, 0;
  mov.u64 %rd5, %rd6;
  sub.u64 %rd7, %rd6, %rd4;
  setp.lt.u64 %p2, %rd7, %rd2;
  @%p2 bra LOOP;
  mov.u64 %rd8, %globaltimer;
  sub.u64 %rd8, %rd8, %rd3;
  st.global.u64 [%rd1], %rd7;
  st.global.u64 [%rd1+8], %rd8;
  st.global.u64 [%rd1+16], %rd4;
  cvt.u64.u32 %rd10, %r1;
  st.global.u64 [%rd1+24], %rd10;
  cvt.u64.u32 %rd11, %r2;
  st.global.u64 [%rd1+32], %rd11;
  st.global.u64 [%rd1+40], %rd9;
  ret;
}
)");

TEST(PtxsimClock, SpinOfNCyclesTakesNOverTheClockRate) {
    auto m = load_ok(kSpin, "spin.ptx");
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint64_t>(6, 0));
    const double ms = 100;
    const uint64_t cycles = uint64_t(kClockRateKhz) * uint64_t(ms);
    Params p(kernel_of(*m, "spin"));
    p.set(0, out).set(1, cycles);
    const auto start = std::chrono::steady_clock::now();
    run_ok(dev, *m, "spin", config({1}, {1}), p);
    const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    auto got = download<uint64_t>(dev, out, 6);
    EXPECT_GE(got[0], cycles);
    // At least the time the cycles stand for (a loaded machine may take longer: the loop then runs fewer
    // times, the clock does not slow down).
    EXPECT_GE(elapsed, ms * 0.95);
    EXPECT_GE(double(got[1]) / 1e6, ms * 0.95) << "globaltimer ns: " << got[1];
    // The clock advanced at its rate against %globaltimer, measured around the same loop.
    const double rate_khz = double(got[0]) / double(got[1]) * 1e6;
    EXPECT_GT(rate_khz, kClockRateKhz * 0.8);
    EXPECT_LT(rate_khz, kClockRateKhz * 1.25);
    // %clock was read right after %clock64: the same counter, a little later (well under a millisecond).
    const uint32_t later = uint32_t(got[3]) - uint32_t(got[2]);
    EXPECT_GT(later, 0u);
    EXPECT_LT(later, kClockRateKhz);
    EXPECT_EQ(got[4], got[2] >> 32);
    EXPECT_EQ(got[5], 1u) << "a %clock64 read was not larger than the one before";
}

TEST(PtxsimClock, GlobaltimerHalves) {
    auto m = load_ok(ptx(R"(
.visible .entry halves(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, %globaltimer;
  mov.u32 %r1, %globaltimer_lo;
  mov.u32 %r2, %globaltimer_hi;
  st.global.u64 [%rd1], %rd2;
  st.global.u32 [%rd1+8], %r1;
  st.global.u32 [%rd1+12], %r2;
  ret;
}
)"),
                     "halves.ptx");
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(4, 0));
    Params p(kernel_of(*m, "halves"));
    p.set(0, out);
    run_ok(dev, *m, "halves", config({1}, {1}), p);
    auto got = download<uint32_t>(dev, out, 4);
    const uint64_t full = got[0] | (uint64_t(got[1]) << 32);
    EXPECT_EQ(got[3], uint32_t(full >> 32)); // read within nanoseconds: the high half is the same
    EXPECT_LT(got[2] - uint32_t(full), 100'000'000u) << "%globaltimer_lo is not the low half, read just after";
    EXPECT_NE(full, 0u);
}

} // namespace
} // namespace d4r::ptxsim::test
