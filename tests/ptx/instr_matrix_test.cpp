// The PTX front end's mma and ldmatrix (ptx/instr_matrix.h), and cp.async (ptx/instr_async.h): what each form does,
// and what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_async.h"
#include "ptx/instr_matrix.h"

using namespace d4r;
using namespace d4r::ptx;

namespace {

MatrixOp matrix(const std::string& instruction) { return test::decoded_by(instruction, decode_matrix); }

AsyncCopy async(const std::string& instruction) { return test::decoded_by(instruction, decode_async); }

} // namespace

TEST(FrontEndMatrix, MmaAndLdmatrixSayTheirShapes) {
    MatrixOp x = matrix("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4, %r5, %r6}, "
                        "{%r7, %r8}, {%r9, %r10}");
    EXPECT_EQ(x.op, MatrixOp::Op::Mma);
    EXPECT_EQ(x.k, 16u);
    EXPECT_EQ(x.accumulator, Type::F16);
    EXPECT_EQ(x.c_regs, 2u);
    EXPECT_EQ(x.a_regs, 4u);

    x = matrix("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, "
               "{%f5, %f6, %f7, %f8}");
    EXPECT_EQ(x.k, 8u);
    EXPECT_EQ(x.a, ElementFormat::BF16);
    EXPECT_EQ(x.a_regs, 2u);
    EXPECT_EQ(x.b_regs, 1u);

    x = matrix("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, "
               "{%r5, %r6}, {%f5, %f6, %f7, %f8}");
    EXPECT_EQ(x.a, ElementFormat::E4M3);
    EXPECT_EQ(x.b, ElementFormat::E5M2);

    x = matrix("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%r5]");
    EXPECT_EQ(x.op, MatrixOp::Op::LoadMatrix);
    EXPECT_EQ(x.matrices, 4u);
    EXPECT_TRUE(x.transpose);
    EXPECT_EQ(x.space, StateSpace::Shared);
}

TEST(FrontEndMatrix, RefusesWhatNoFormTakes) {
    auto refusal = [](const std::string& i) { return test::refusal_of(i, decode_matrix); };
    EXPECT_EQ(refusal("mma.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2}"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2}"),
              ErrorCode::Unsupported); // layouts
    EXPECT_EQ(refusal("mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16 {%r1}, {%r2}, {%r3}, {%r4}"),
              ErrorCode::Unsupported); // bf16 accumulates in f32
    EXPECT_EQ(refusal("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%f1}, {%r1}, {%r2}, {%f2}"),
              ErrorCode::Unsupported); // FP8 is k32
    EXPECT_EQ(refusal("ldmatrix.sync.aligned.m8n8.x3.b16 {%r1}, [%r2]"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}"), ErrorCode::Invalid);
}

TEST(FrontEndAsync, CopiesAndGroups) {
    AsyncCopy c = async("cp.async.cg.shared.global.L2::cache_hint.L2::128B [%r1], [%rd1], 16, %r2, %rd2");
    EXPECT_EQ(c.op, AsyncCopy::Op::Copy);
    EXPECT_TRUE(c.cache_global);
    EXPECT_EQ(c.bytes, 16u);
    EXPECT_TRUE(c.cache_policy);
    EXPECT_TRUE(c.source_operand); // %r2, the source size

    c = async("cp.async.ca.shared.global [%r1], [%rd1], 4");
    EXPECT_EQ(c.bytes, 4u);
    EXPECT_FALSE(c.source_operand);

    EXPECT_EQ(async("cp.async.wait_group 3").groups, 3u);
    EXPECT_EQ(async("cp.async.commit_group").op, AsyncCopy::Op::CommitGroup);
    EXPECT_EQ(async("cp.async.mbarrier.arrive.noinc.shared.b64 [%r1]").op, AsyncCopy::Op::MbarrierArrive);

    auto refusal = [](const std::string& i) { return test::refusal_of(i, decode_async); };
    EXPECT_EQ(refusal("cp.async.cg.shared.global [%r1], [%rd1], 8"), ErrorCode::Unsupported); // .cg is 16 bytes
    EXPECT_EQ(refusal("cp.async.ca.shared.global [%r1], [%rd1], 12"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("cp.async.bulk.shared.global [%r1], [%rd1], 16"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("cp.async.wait_group %r1"), ErrorCode::Unsupported); // a constant
    EXPECT_EQ(refusal("cp.async.ca.shared.global [%r1], [%rd1]"), ErrorCode::Invalid);
}
