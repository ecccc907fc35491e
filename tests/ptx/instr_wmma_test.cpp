// The PTX front end's wmma (ptx/instr_wmma.h): fragments, shapes, types and register counts, and what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_wmma.h"

using namespace d4r;
using namespace d4r::ptx;
using wmma::EType;
using wmma::Frag;
using wmma::WShape;

namespace {

auto on(std::string_view target) {
    return [target](const ast::Instruction& in) { return decode_wmma(in, target); };
}

Wmma decoded(const std::string& instruction, std::string_view target = "sm_90") {
    return test::decoded_by(instruction, on(target));
}

std::optional<ErrorCode> refusal(const std::string& instruction, std::string_view target = "sm_90") {
    return test::refusal_of(instruction, on(target));
}

} // namespace

TEST(FrontEndWmma, LoadsAndStoresSayTheirFragments) {
    Wmma w = decoded("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
                     "[%r9], %r10");
    EXPECT_EQ(w.op, Wmma::Op::Load);
    EXPECT_EQ(w.fragment, Frag::A);
    EXPECT_FALSE(w.col);
    EXPECT_EQ(w.regs, 8u); // f16 A and B fragments are eight registers
    EXPECT_EQ(w.space, StateSpace::Shared);
    EXPECT_TRUE(w.stride);

    w = decoded("wmma.store.d.sync.aligned.col.m8n8k4.global.f64 [%rd1], {%fd1, %fd2}");
    EXPECT_EQ(w.op, Wmma::Op::Store);
    EXPECT_EQ(w.fragment, Frag::C);
    EXPECT_TRUE(w.col);
    EXPECT_EQ(w.type, EType::F64);
    EXPECT_EQ(w.regs, 2u);
    EXPECT_FALSE(w.stride);

    EXPECT_EQ(
        decoded("wmma.load.c.sync.aligned.row.m32n8k16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1]").regs, 8u);
}

TEST(FrontEndWmma, MmaSaysItsTypesAndFragments) {
    Wmma w = decoded("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, "
                     "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, "
                     "{%r17, %r18, %r19, %r20}");
    EXPECT_EQ(w.op, Wmma::Op::Mma);
    EXPECT_EQ(w.type, EType::F16); // the .dtype.ctype form: f16 inputs
    EXPECT_EQ(w.d_type, EType::F32);
    EXPECT_EQ(w.c_type, EType::F16);
    EXPECT_EQ(w.d_regs, 8u);
    EXPECT_EQ(w.c_regs, 4u);
    EXPECT_FALSE(w.a_col);
    EXPECT_TRUE(w.b_col);

    w = decoded("wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6}");
    EXPECT_EQ(w.bit_op, Wmma::BitOp::XorPopc);
    EXPECT_EQ(w.shape, WShape::M8N8K128);
    EXPECT_EQ(w.a_regs, 1u);
}

TEST(FrontEndWmma, RefusesWhatNoFormTakes) {
    EXPECT_EQ(refusal("wmma.load.a.sync.aligned.row.m16n16k16.f64 {%fd1}, [%rd1]"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r1}, [%rd1]"), ErrorCode::Unsupported); // A is row
    EXPECT_EQ(refusal("wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.s32 {%r1}, {%r2}, {%r3}, {%r4}"),
              ErrorCode::Unsupported); // A and B types differ
    EXPECT_EQ(refusal("wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6}"),
              ErrorCode::Unsupported); // .b1 needs .xor/.and.popc
    EXPECT_EQ(refusal("wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r1}, [%rd1]", "sm_70"),
              ErrorCode::Unsupported); // sub-byte needs sm_75
    EXPECT_EQ(refusal("wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r1}, [%rd1]", "sm_75"), std::nullopt);
    EXPECT_EQ(refusal("wmma.load.a.row.m16n16k16.f16 {%r1}, [%rd1]"), ErrorCode::Unsupported); // .sync.aligned
    EXPECT_EQ(refusal("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1}"), ErrorCode::Invalid);
}
