// Launches: 3D grids and blocks with every special register, partial warps, worker-count independence
// of a non-trivial kernel's bytes, and the launch checks (shape, shared memory, parameter block).
#include <gtest/gtest.h>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

const char* kSpecials = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<32>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ntid.y;
  mov.u32 %r6, %ntid.z;
  mov.u32 %r7, %ctaid.x;
  mov.u32 %r8, %ctaid.y;
  mov.u32 %r9, %ctaid.z;
  mov.u32 %r10, %nctaid.x;
  mov.u32 %r11, %nctaid.y;
  mov.u32 %r12, %nctaid.z;
  mov.u32 %r13, %laneid;
  mov.u32 %r14, %warpid;
  mov.u32 %r15, %lanemask_lt;
  mov.u32 %r16, %lanemask_ge;
  mov.u32 %r17, %dynamic_smem_size;
  mov.u32 %r18, %lanemask_eq;
  mov.u32 %r19, %lanemask_gt;
  mov.u32 %r20, %lanemask_le;
  // linear block and thread ids
  mad.lo.u32 %r21, %r12, 0, %r9;
  mad.lo.u32 %r21, %r21, %r11, %r8;
  mad.lo.u32 %r21, %r21, %r10, %r7;
  mad.lo.u32 %r22, %r3, %r5, %r2;
  mad.lo.u32 %r22, %r22, %r4, %r1;
  mul.lo.u32 %r23, %r4, %r5;
  mul.lo.u32 %r23, %r23, %r6;
  mad.lo.u32 %r24, %r21, %r23, %r22;
  mul.wide.u32 %rd2, %r24, 64;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r7};
  st.global.v4.u32 [%rd3+16], {%r8, %r9, %r13, %r14};
  st.global.v4.u32 [%rd3+32], {%r15, %r16, %r17, %r18};
  st.global.v4.u32 [%rd3+48], {%r19, %r20, %r4, %r12};
  ret;
}
)";

TEST(PtxsimLaunch, ThreeDimensionalIndicesAndSpecialRegisters) {
    auto m = load_ok(ptx(kSpecials));
    ASSERT_TRUE(m);
    Device dev;
    const Dim3 grid{3, 2, 2}, block{5, 3, 4}; // 60 threads: one full warp and a partial one
    const uint64_t total = grid.count() * block.count();
    DevicePtr out = upload(dev, std::vector<uint32_t>(total * 16, 0xffffffff));
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    auto cfg = config(grid, block, 3);
    cfg.dynamic_shared_bytes = 48;
    auto r = run_ok(dev, *m, "k", cfg, p);
    auto got = download<uint32_t>(dev, out, total * 16);
    for (uint32_t bz = 0; bz < grid.z; ++bz)
        for (uint32_t by = 0; by < grid.y; ++by)
            for (uint32_t bx = 0; bx < grid.x; ++bx)
                for (uint32_t t = 0; t < block.count(); ++t) {
                    uint32_t b = (bz * grid.y + by) * grid.x + bx;
                    const uint32_t* rec = &got[(uint64_t(b) * block.count() + t) * 16];
                    uint32_t lane = t % 32;
                    EXPECT_EQ(rec[0], t % block.x);
                    EXPECT_EQ(rec[1], (t / block.x) % block.y);
                    EXPECT_EQ(rec[2], t / (block.x * block.y));
                    EXPECT_EQ(rec[3], bx);
                    EXPECT_EQ(rec[4], by);
                    EXPECT_EQ(rec[5], bz);
                    EXPECT_EQ(rec[6], lane);
                    EXPECT_EQ(rec[7], t / 32);
                    EXPECT_EQ(rec[8], (1u << lane) - 1);
                    EXPECT_EQ(rec[9], ~((1u << lane) - 1));
                    EXPECT_EQ(rec[10], 48u);
                    EXPECT_EQ(rec[11], 1u << lane);
                    EXPECT_EQ(rec[12], lane == 31 ? 0u : ~((2u << lane) - 1));
                    EXPECT_EQ(rec[13], lane == 31 ? ~0u : (2u << lane) - 1);
                    EXPECT_EQ(rec[14], block.x);
                    EXPECT_EQ(rec[15], grid.z);
                }
    // 12 blocks x 2 warps; the second warp of each block has 28 lanes.
    EXPECT_EQ(r.lane_instructions * 2, r.warp_instructions * 60); // no divergence: 32 + 28 lanes per 2 warps
}

// The reserved shared region (cooperative groups' multi-warp scratch) lies after the block's own
// shared memory and is addressable; %envreg1/2 (the cooperative grid workspace) read 0 in a normal
// launch, as do the other environment registers.
TEST(PtxsimLaunch, ReservedSharedMemoryAndEnvironmentRegisters) {
    auto m = load_ok(ptx(R"(
.shared .align 4 .b8 s[100];
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %reserved_smem_offset_begin;
  mov.u32 %r2, %reserved_smem_offset_end;
  mov.u32 %r3, %reserved_smem_offset_cap;
  mov.u32 %r4, %reserved_smem_offset_0;
  mov.u32 %r5, %reserved_smem_offset_1;
  mov.u32 %r6, %envreg1;
  mov.u32 %r7, %envreg2;
  mov.u32 %r8, %envreg31;
  st.shared.u32 [%r5], 77;
  add.u32 %r9, %r2, -4;
  st.shared.u32 [%r9], 78;
  ld.shared.u32 %r10, [%r5];
  ld.shared.u32 %r11, [%r9];
  cvt.u64.u32 %rd2, %r5;
  cvta.shared.u64 %rd3, %rd2;
  ld.u32 %r12, [%rd3];
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
  mov.u32 %r13, s;
  st.global.v4.u32 [%rd1+32], {%r10, %r11, %r12, %r13};
  ret;
}
)"));
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(12, 0xffffffff));
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    auto cfg = config({1, 1, 1}, {1, 1, 1}, 1);
    cfg.dynamic_shared_bytes = 48;
    run_ok(dev, *m, "k", cfg, p);
    auto got = download<uint32_t>(dev, out, 12);
    EXPECT_GE(got[0], 148u + 128); // after 100 static and 48 dynamic bytes and a gap
    EXPECT_EQ(got[0] % 128, 0u);
    EXPECT_EQ(got[11], 0u); // the block's own shared memory still starts at 0
    EXPECT_EQ(got[1], got[0] + kReservedSharedBytes);
    EXPECT_EQ(got[2], kReservedSharedBytes);
    EXPECT_EQ(got[3], got[0]);
    EXPECT_GE(got[4], got[0]);
    EXPECT_LE(got[4] + 288, got[1]); // cooperative groups count on 288 bytes from offset 1
    EXPECT_EQ(got[5], 0u);
    EXPECT_EQ(got[6], 0u);
    EXPECT_EQ(got[7], 0u);
    EXPECT_EQ(got[8], 77u);
    EXPECT_EQ(got[9], 78u);
    EXPECT_EQ(got[10], 77u); // through the generic address
    // %envreg32 does not exist.
    EXPECT_NE(load_error(ptx(".visible .entry k()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, %envreg32;\n  ret;\n}\n"))
                  .find("%envreg32"),
              std::string::npos);
}

// A cooperative launch keeps every block resident: blocks meet at a grid-wide barrier counted in the
// grid workspace (%envreg1:%envreg2), as cooperative groups' grid.sync() does, and then read what the
// other blocks wrote. A normal launch has no workspace (%envreg1/2 read 0): the barrier's atomic faults.
TEST(PtxsimLaunch, CooperativeLaunchSynchronisesTheGrid) {
    auto m = load_ok(ptx(R"(
.visible .entry k(.param .u64 out, .param .u64 out2)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [out2];
  mov.u32 %r1, %envreg1;
  mov.u32 %r2, %envreg2;
  cvt.u64.u32 %rd3, %r1;
  cvt.u64.u32 %rd4, %r2;
  shl.b64 %rd3, %rd3, 32;
  or.b64 %rd5, %rd3, %rd4;
  add.u64 %rd6, %rd5, 4;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %nctaid.x;
  mov.u32 %r5, %tid.x;
  mul.wide.u32 %rd7, %r3, 4;
  add.u64 %rd8, %rd1, %rd7;
  add.u32 %r6, %r3, 100;
  setp.ne.u32 %p1, %r5, 0;
  @%p1 bra JOIN;
  st.global.u32 [%rd8], %r6;
  atom.add.release.gpu.u32 %r7, [%rd6], 1;
SPIN:
  ld.acquire.gpu.u32 %r8, [%rd6];
  setp.lt.u32 %p2, %r8, %r4;
  @%p2 bra SPIN;
JOIN:
  bar.sync 0;
  add.u32 %r9, %r3, 1;
  rem.u32 %r9, %r9, %r4;
  mul.wide.u32 %rd9, %r9, 4;
  add.u64 %rd10, %rd1, %rd9;
  ld.global.u32 %r10, [%rd10];
  mul.lo.u32 %r11, %r3, 64;
  add.u32 %r11, %r11, %r5;
  mul.wide.u32 %rd11, %r11, 4;
  add.u64 %rd12, %rd2, %rd11;
  st.global.u32 [%rd12], %r10;
  setp.ne.u64 %p3, %rd5, 0;
  @%p3 bra DONE;
  trap;
DONE:
  ret;
}
)"));
    ASSERT_TRUE(m);
    const uint32_t blocks = 9;
    for (unsigned workers : {1u, 3u}) {
        Device dev;
        DevicePtr out = upload(dev, std::vector<uint32_t>(blocks, 0));
        DevicePtr out2 = upload(dev, std::vector<uint32_t>(blocks * 64, 0));
        Params p(kernel_of(*m, "k"));
        p.set(0, out).set(1, out2);
        auto cfg = config({blocks}, {64}, workers);
        cfg.cooperative = true;
        run_ok(dev, *m, "k", cfg, p);
        auto got = download<uint32_t>(dev, out2, blocks * 64);
        for (uint32_t b = 0; b < blocks; ++b)
            for (uint32_t t = 0; t < 64; ++t) ASSERT_EQ(got[b * 64 + t], 100 + (b + 1) % blocks) << b << " " << t;
    }
    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>(blocks, 0));
    DevicePtr out2 = upload(dev, std::vector<uint32_t>(blocks * 64, 0));
    Params p(kernel_of(*m, "k"));
    p.set(0, out).set(1, out2);
    LaunchFault fault;
    EXPECT_FALSE(launch(dev, kernel_of(*m, "k"), config({blocks}, {64}, 1), p.bytes(), &fault).ok());
    EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
    EXPECT_EQ(fault.address, 4u);
}

TEST(PtxsimLaunch, ResultsDoNotDependOnTheWorkerCount) {
    // A kernel mixing divergence, shared memory, barriers, shuffles and integer atomics: the output
    // bytes must be identical with 1, 2 and 4 workers.
    auto m = load_ok(ptx(R"(
.shared .align 4 .b32 s[128];
.visible .entry k(.param .u64 out, .param .u64 hist)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [hist];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 128, %r1;
  mul.lo.u32 %r4, %r3, -1640531535;
  shr.u32 %r5, %r4, 27;
  mov.u32 %r6, 0;
L:
  add.u32 %r6, %r6, %r5;
  mul.lo.u32 %r6, %r6, 3;
  sub.u32 %r5, %r5, 1;
  setp.ne.u32 %p1, %r5, 0xffffffff;
  @%p1 bra L;
  shl.b32 %r7, %r1, 2;
  mov.u32 %r8, s;
  add.s32 %r9, %r8, %r7;
  st.shared.u32 [%r9], %r6;
  bar.sync 0;
  xor.b32 %r10, %r1, 77;
  and.b32 %r10, %r10, 127;
  shl.b32 %r10, %r10, 2;
  add.s32 %r10, %r8, %r10;
  ld.shared.u32 %r11, [%r10];
  shfl.sync.down.b32 %r12, %r11, 3, 31, -1;
  add.u32 %r13, %r11, %r12;
  and.b32 %r14, %r13, 15;
  mul.wide.u32 %rd3, %r14, 4;
  add.s64 %rd4, %rd2, %rd3;
  red.global.add.u32 [%rd4], 1;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r13;
  ret;
}
)"));
    ASSERT_TRUE(m);
    std::vector<std::vector<uint32_t>> outs;
    for (unsigned workers : {1u, 2u, 4u}) {
        Device dev;
        DevicePtr out = upload(dev, std::vector<uint32_t>(64 * 128, 0));
        DevicePtr hist = upload(dev, std::vector<uint32_t>(16, 0));
        Params p(kernel_of(*m, "k"));
        p.set(0, out).set(1, hist);
        auto r = run_ok(dev, *m, "k", config({64}, {128}, workers), p);
        EXPECT_EQ(r.workers, workers);
        auto o = download<uint32_t>(dev, out, 64 * 128);
        auto h = download<uint32_t>(dev, hist, 16);
        o.insert(o.end(), h.begin(), h.end());
        outs.push_back(o);
    }
    EXPECT_EQ(outs[0], outs[1]);
    EXPECT_EQ(outs[0], outs[2]);
    uint32_t total = 0;
    for (size_t i = 64 * 128; i < outs[0].size(); ++i) total += outs[0][i];
    EXPECT_EQ(total, 64u * 128);
}

TEST(PtxsimLaunch, InvalidConfigurationsAreRefused) {
    auto m = load_ok(ptx(R"(
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 a, .param .u32 b)
{
  .reg .b32 %r<2>;
  mov.u32 %r1, dyn;
  ret;
}
)"));
    ASSERT_TRUE(m);
    const Kernel& k = kernel_of(*m, "k");
    EXPECT_EQ(k.info().param_block_size, 12u);
    Device dev;
    std::vector<uint8_t> params(12, 0);
    LaunchFault fault;
    EXPECT_TRUE(launch(dev, k, config({1}, {1024}), params).ok());
    EXPECT_FALSE(launch(dev, k, config({1}, {1025}), params, &fault).ok());
    EXPECT_EQ(fault.kind, FaultKind::InvalidLaunch);
    EXPECT_FALSE(launch(dev, k, config({1}, {8, 8, 65}), params).ok());
    EXPECT_FALSE(launch(dev, k, config({0}, {32}), params).ok());
    EXPECT_FALSE(launch(dev, k, config({1, 70000}, {32}), params).ok());
    auto r = launch(dev, k, config({1}, {32}), std::span<const uint8_t>(params.data(), 8), &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().text().find("parameter block of 8 bytes"), std::string::npos) << r.error().text();
    auto big = config({1}, {32});
    big.dynamic_shared_bytes = kMaxSharedBytes + 1;
    EXPECT_FALSE(launch(dev, k, big, params).ok());
    big.dynamic_shared_bytes = kMaxSharedBytes;
    EXPECT_TRUE(launch(dev, k, big, params).ok());
    // Launch bounds: .maxntid caps the block size, .reqntid fixes it.
    auto bounded = load_ok(ptx(".visible .entry a() .maxntid 64, 1, 1\n{\n  ret;\n}\n"
                               ".visible .entry b() .reqntid 32, 2\n{\n  ret;\n}\n"));
    ASSERT_TRUE(bounded);
    EXPECT_TRUE(launch(dev, kernel_of(*bounded, "a"), config({1}, {64}), {}).ok());
    EXPECT_FALSE(launch(dev, kernel_of(*bounded, "a"), config({1}, {65}), {}).ok());
    EXPECT_TRUE(launch(dev, kernel_of(*bounded, "b"), config({1}, {32, 2}), {}).ok());
    EXPECT_FALSE(launch(dev, kernel_of(*bounded, "b"), config({1}, {64}), {}, &fault).ok());
    EXPECT_EQ(fault.kind, FaultKind::InvalidLaunch);
}

} // namespace
} // namespace d4r::ptxsim::test
