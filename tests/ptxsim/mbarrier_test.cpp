// mbarrier: phases across warps (state and parity waits), arrive counts, arrive_drop, transaction
// counts, pending_count, cp.async.mbarrier.arrive (with and without .noinc), the faults for arrivals
// the ISA forbids, and the reserved cooperative-groups forms the decoder rejects.
#include <gtest/gtest.h>

#include <algorithm>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// 128 threads (4 warps) in two phases: each thread writes its slot, arrives and waits, then reads a
// slot another warp wrote. Phase 1 waits on the returned state with test_wait, phase 2 on the parity
// with try_wait. A missing wait would read zeros: warps run round-robin in slices, so the late warps
// have not written when the first warp passes an arrive.
const char* kPhases = R"(
.visible .entry phases(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 data[128];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mbarrier.init.shared.b64 [bar], 128;
SKIP:
  bar.sync 0;
  mov.u32 %r2, data;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  add.u32 %r5, %r1, 1000;
  st.shared.u32 [%r4], %r5;
  mbarrier.arrive.shared.b64 %rd2, [bar];
WAIT1:
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
  @!%p2 bra WAIT1;
  // read the slot of thread (tid + 37) % 128, then phase 2 overwrites it
  add.u32 %r6, %r1, 37;
  and.b32 %r6, %r6, 127;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r2, %r7;
  ld.shared.u32 %r9, [%r8];
  mbarrier.pending_count.b64 %r10, %rd2;
  mbarrier.arrive.release.cta.shared::cta.b64 _, [bar];
WAIT_ALL_READ:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 1;
  @!%p3 bra WAIT_ALL_READ;
  add.u32 %r11, %r1, 2000;
  st.shared.u32 [%r4], %r11;
  mbarrier.arrive.shared.b64 %rd3, [bar];
WAIT2:
  mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;
  @!%p3 bra WAIT2;
  ld.shared.u32 %r12, [%r8];
  mul.wide.u32 %rd4, %r1, 12;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r9;
  st.global.u32 [%rd5+4], %r12;
  st.global.u32 [%rd5+8], %r10;
  ret;
}
)";

TEST(PtxsimMbarrier, PhasesSynchroniseWarps) {
    auto m = load_ok(ptx(kPhases));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(128 * 3, 0));
    Params p(kernel_of(*m, "phases"));
    p.set(0, out);
    run_ok(dev, *m, "phases", config({2}, {128}, 2), p);
    auto got = download<uint32_t>(dev, out, 128 * 3);
    std::vector<uint32_t> pending;
    for (uint32_t t = 0; t < 128; ++t) {
        uint32_t other = (t + 37) % 128;
        EXPECT_EQ(got[t * 3], 1000 + other) << t;
        EXPECT_EQ(got[t * 3 + 1], 2000 + other) << t;
        pending.push_back(got[t * 3 + 2]);
    }
    // pending_count of the state each arrive returned: the arrivals still missing before it, so the
    // 128 threads saw 128, 127, ..., 1 in some order.
    std::sort(pending.begin(), pending.end());
    for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(pending[i], i + 1);
}

// Single-thread checks of the counting rules, observed through pending_count of the state the next
// arrive returns and through the parity.
TEST(PtxsimMbarrier, CountsDropsTransactionsAndCpAsync) {
    auto m = load_ok(ptx(R"(
.visible .entry counts(.param .u64 out, .param .u64 src)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 buf[16];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd9, [src];
  mbarrier.init.shared.b64 [bar], 3;
  mbarrier.arrive.shared.b64 %rd2, [bar], 2;     // pending 3 -> 1
  mbarrier.arrive.shared.b64 %rd3, [bar];        // completes phase 0; pending back to 3
  mbarrier.test_wait.shared.b64 %p1, [bar], %rd2; // phase 0 complete
  mbarrier.arrive_drop.shared.b64 %rd4, [bar];   // expected 3 -> 2, pending 3 -> 2
  mbarrier.arrive.shared.b64 %rd5, [bar];        // pending 2 -> 1
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 1; // phase 1 not complete
  mbarrier.arrive.shared.b64 %rd6, [bar];        // completes phase 1; pending back to 2 (dropped one)
  mbarrier.arrive.expect_tx.shared.b64 %rd7, [bar], 64; // pending 2 -> 1, tx 64
  mbarrier.arrive.shared.b64 %rd8, [bar];        // pending 0, tx 64: not complete
  mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0; // phase 2 (parity 0) not complete
  mbarrier.complete_tx.shared.b64 [bar], 64;     // completes phase 2
  mbarrier.test_wait.parity.shared.b64 %p4, [bar], 0;
  // cp.async: without .noinc no net arrival, with .noinc one arrival.
  cp.async.cg.shared.global [buf], [%rd9], 16;
  cp.async.mbarrier.arrive.shared.b64 [bar];
  mbarrier.arrive.shared.b64 %rd10, [bar];       // pending 2 -> 1 (cp.async left it at 2)
  cp.async.mbarrier.arrive.noinc.shared.b64 [bar]; // the last arrival: completes phase 3
  mbarrier.test_wait.shared.b64 %p5, [bar], %rd10;
  ld.shared.u32 %r9, [buf+12];
  mbarrier.pending_count.b64 %r1, %rd2;
  mbarrier.pending_count.b64 %r2, %rd3;
  mbarrier.pending_count.b64 %r3, %rd4;
  mbarrier.pending_count.b64 %r4, %rd5;
  mbarrier.pending_count.b64 %r5, %rd6;
  mbarrier.pending_count.b64 %r6, %rd7;
  mbarrier.pending_count.b64 %r7, %rd8;
  mbarrier.pending_count.b64 %r8, %rd10;
  selp.u32 %r10, 1, 0, %p1;
  selp.u32 %r11, 1, 0, %p2;
  selp.u32 %r12, 1, 0, %p3;
  selp.u32 %r13, 1, 0, %p4;
  selp.u32 %r14, 1, 0, %p5;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd1+32], {%r10, %r11, %r12, %r13};
  st.global.v2.u32 [%rd1+48], {%r14, %r9};
  mbarrier.inval.shared.b64 [bar];
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(14, 0xffffffff));
    DevicePtr src = upload(dev, std::vector<uint32_t>{1, 2, 3, 44});
    Params p(kernel_of(*m, "counts"));
    p.set(0, out).set(1, src);
    run_ok(dev, *m, "counts", config({1}, {1}), p);
    auto got = download<uint32_t>(dev, out, 14);
    EXPECT_EQ(got[0], 3u); // before the first arrive
    EXPECT_EQ(got[1], 1u);
    EXPECT_EQ(got[2], 3u);
    EXPECT_EQ(got[3], 2u);
    EXPECT_EQ(got[4], 1u);
    EXPECT_EQ(got[5], 2u);
    EXPECT_EQ(got[6], 1u);
    EXPECT_EQ(got[7], 2u);
    EXPECT_EQ(got[8], 1u);  // phase 0 complete
    EXPECT_EQ(got[9], 0u);  // phase 1 not yet
    EXPECT_EQ(got[10], 0u); // arrivals done, transactions outstanding
    EXPECT_EQ(got[11], 1u); // complete_tx completed it
    EXPECT_EQ(got[12], 1u); // the .noinc arrive completed phase 3
    EXPECT_EQ(got[13], 44u);
}

TEST(PtxsimMbarrier, ForbiddenArrivalsFault) {
    auto m = load_ok(ptx(R"(
.visible .entry over()
{
  .reg .b64 %rd<2>;
  .shared .align 8 .b64 bar;
  mbarrier.init.shared.b64 [bar], 2;
  mbarrier.arrive.shared.b64 %rd1, [bar], 3;
  ret;
}
.visible .entry nocomplete()
{
  .reg .b64 %rd<2>;
  .shared .align 8 .b64 bar;
  mbarrier.init.shared.b64 [bar], 1;
  mbarrier.arrive.noComplete.shared.b64 %rd1, [bar];
  ret;
}
.visible .entry misaligned()
{
  .reg .b64 %rd<2>;
  .shared .align 8 .b64 bar[2];
  mbarrier.init.shared.b64 [bar+4], 1;
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    for (const char* k : {"over", "nocomplete", "misaligned"}) {
        LaunchFault fault;
        auto r = launch(dev, kernel_of(*m, k), config({1}, {1}), {}, &fault);
        ASSERT_FALSE(r.ok()) << k;
        EXPECT_EQ(fault.kind,
                  std::string(k) == "misaligned" ? FaultKind::MisalignedAddress : FaultKind::IllegalInstruction)
            << k << ": " << r.error().text();
    }
    EXPECT_NE(load_error(ptx(".visible .entry k()\n{\n  .shared .align 8 .b64 bar;\n"
                             "  mbarrier.init.shared.b32 [bar], 1;\n  ret;\n}\n"))
                  .find(".b64"),
              std::string::npos);
}

} // namespace
} // namespace d4r::ptxsim::test
