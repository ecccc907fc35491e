// Tests' kernels of Hopper's wgmma (ptx/instr_wgmma.h), shared by the interpreter's tests (tests/ptxsim/wgmma_test.cpp)
// and the JIT's (tests/jit/warp_ops_test.cpp).
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {

// The layout the tests put the matrices in: core matrices 128 bytes apart along K (LBO) and 256 along the rows (SBO).
inline constexpr uint32_t kLeading = 128, kStride = 256;
inline constexpr uint64_t kLayoutBits = uint64_t(kLeading >> 4) << 16 | uint64_t(kStride >> 4) << 32;

struct WgmmaForm {
    unsigned n = 16;
    bool acc16 = false, bf16 = false, a_registers = false, scale_d = true, negate_a = false;
    std::string swizzle_bits = "0"; // or'ed into B's descriptor (a refusal test sets mode bits)
    bool scale_d_constant = false;  // scale-d written as the constant 0 or 1 instead of a predicate
};

// Kernel "wg" of one warpgroup (params pa, pb, pd, pr, ps): A (64 x 16) and B (N x 16) images copied from global memory
// into shared memory as they are (the host lays them out; 16 bytes a thread, B in rounds of 2048 bytes), D loaded from
// pd (per thread, its registers in order), A's registers from pr (4 words a thread), scale-d the word at ps (unless a
// constant), one wgmma, D stored back.
inline std::string wgmma_kernel(const WgmmaForm& f) {
    const unsigned nd = f.acc16 ? f.n / 4 : f.n / 2;
    std::string dregs, loads, stores;
    for (unsigned i = 0; i < nd; ++i) {
        dregs += fmt::format("{}%d{}", i ? "," : "", i);
        loads += fmt::format("  ld.global.b32 %d{}, [%rd8+{}];\n", i, 4 * i);
        stores += fmt::format("  st.global.b32 [%rd8+{}], %d{};\n", 4 * i, i);
    }
    const std::string types = f.acc16 ? "f16.f16.f16" : f.bf16 ? "f32.bf16.bf16" : "f32.f16.f16";
    const std::string a_operand = f.a_registers ? "{%a0,%a1,%a2,%a3}" : "%rd10";
    const std::string tail = f.a_registers ? "0" : "0, 0";
    return ptx(fmt::format(R"(
.visible .entry wg(.param .u64 pa, .param .u64 pb, .param .u64 pd, .param .u64 pr, .param .u64 ps)
{{
  .reg .b32 %r<16>;
  .reg .b32 %d<{}>;
  .reg .b32 %a<4>;
  .reg .b64 %rd<16>;
  .reg .pred %p<2>;
  .shared .align 128 .b8 sa[2048];
  .shared .align 128 .b8 sb[{}];
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pd];
  ld.param.u64 %rd4, [pr];
  ld.param.u64 %rd12, [ps];
  ld.global.u32 %r9, [%rd12];
  setp.ne.u32 %p1, %r9, 0;
  mov.u32 %r1, %tid.x;
  // 16 bytes a thread: A's 2048 bytes, then B's
  shl.b32 %r2, %r1, 4;
  cvt.u64.u32 %rd5, %r2;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.v4.u32 {{%r4,%r5,%r6,%r7}}, [%rd6];
  mov.u32 %r3, sa;
  add.u32 %r8, %r3, %r2;
  st.shared.v4.u32 [%r8], {{%r4,%r5,%r6,%r7}};
  mov.u32 %r10, %r2;
B_LOOP:
  setp.lt.u32 %p0, %r10, {};
  @!%p0 bra B_DONE;
  cvt.u64.u32 %rd5, %r10;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.v4.u32 {{%r4,%r5,%r6,%r7}}, [%rd6];
  mov.u32 %r3, sb;
  add.u32 %r8, %r3, %r10;
  st.shared.v4.u32 [%r8], {{%r4,%r5,%r6,%r7}};
  add.u32 %r10, %r10, 2048;
  bra B_LOOP;
B_DONE:
  bar.sync 0;
  // A's registers (when A is in registers): 4 words a thread
  mul.wide.u32 %rd7, %r1, 16;
  add.s64 %rd9, %rd4, %rd7;
  ld.global.v4.u32 {{%a0,%a1,%a2,%a3}}, [%rd9];
  // the descriptors
  mov.u32 %r3, sa;
  shr.u32 %r3, %r3, 4;
  cvt.u64.u32 %rd10, %r3;
  or.b64 %rd10, %rd10, {};
  mov.u32 %r3, sb;
  shr.u32 %r3, %r3, 4;
  cvt.u64.u32 %rd11, %r3;
  or.b64 %rd11, %rd11, {};
  or.b64 %rd11, %rd11, {};
  mul.wide.u32 %rd7, %r1, {};
  add.s64 %rd8, %rd3, %rd7;
{}  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n{}k16.{} {{{}}}, {}, %rd11, {}, {}, 1, {};
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
{}  ret;
}}
)",
                           nd, f.n * 32, f.n * 32, kLayoutBits, kLayoutBits, f.swizzle_bits, 4 * nd, loads, f.n, types,
                           dregs, a_operand, f.scale_d_constant ? (f.scale_d ? "1" : "0") : "%p1", f.negate_a ? -1 : 1,
                           tail, stores));
}

} // namespace d4r::ptxsim::test
