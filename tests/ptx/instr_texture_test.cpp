// The PTX front end's textures and surfaces (ptx/instr_texture.h): what each form reads or writes and where its
// operands are, and what it refuses.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "front_end_test_util.h"
#include "ptx/instr_texture.h"

using namespace d4r;
using namespace d4r::ptx;
using Op = TextureOp::Op;
using Geometry = TextureOp::Geometry;

namespace {

TextureOp decoded(const std::string& instruction) {
    auto t = test::decode_one(instruction, decode_texture);
    EXPECT_TRUE(t) << instruction << ": " << t.error().text();
    return t ? *t : TextureOp{};
}

std::optional<ErrorCode> refusal(const std::string& instruction) {
    return test::refusal_of(instruction, decode_texture);
}

// The message of the refusal of INSTRUCTION ("" when it decodes).
std::string message(const std::string& instruction) {
    auto t = test::decode_one(instruction, decode_texture);
    return t ? std::string() : t.error().message();
}

void expect_layout(const TextureOp& t, unsigned count, int x, int y, int z, int layer) {
    EXPECT_EQ(t.coordinates.count, count);
    EXPECT_EQ(t.coordinates.x, x);
    EXPECT_EQ(t.coordinates.y, y);
    EXPECT_EQ(t.coordinates.z, z);
    EXPECT_EQ(t.coordinates.layer, layer);
}

} // namespace

TEST(FrontEndTexture, SamplesAndFetches) {
    TextureOp t = decoded("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}]");
    EXPECT_EQ(t.op, Op::Tex);
    EXPECT_EQ(t.geometry, Geometry::D2);
    EXPECT_EQ(t.data, Type::F32);
    EXPECT_EQ(t.vector, 4u);
    EXPECT_EQ(t.coordinate, Type::F32);
    EXPECT_EQ(t.data_operand, 0u);
    EXPECT_EQ(t.image_operand, 1u);
    expect_layout(t, 2, 0, 1, -1, -1);

    t = decoded("tex.1d.v4.s32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5}]"); // a texel fetch
    EXPECT_EQ(t.geometry, Geometry::D1);
    EXPECT_EQ(t.data, Type::S32);
    EXPECT_EQ(t.coordinate, Type::S32);
    expect_layout(t, 1, 0, -1, -1, -1);
    EXPECT_EQ(decoded("tex.1d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, %f1]").coordinates.count, 1u); // bare x

    expect_layout(decoded("tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}]"), 4, 0, 1, 2, -1);
    expect_layout(decoded("tex.a1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f5}]"), 2, 1, -1, -1, 0);
    expect_layout(decoded("tex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f5, %f6, %f7}]"), 4, 1, 2, -1, 0);
    t = decoded("tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}]");
    EXPECT_EQ(t.geometry, Geometry::Cube);
    expect_layout(t, 4, 0, 1, 2, -1);
    t = decoded("tex.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f5, %f6, %f7}]");
    EXPECT_EQ(t.geometry, Geometry::ACube);
    expect_layout(t, 4, 1, 2, 3, 0);
    EXPECT_STREQ(geometry_name(Geometry::ACube), "acube");

    t = decoded("tld4.b.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}]");
    EXPECT_EQ(t.op, Op::Gather);
    EXPECT_EQ(t.component, TextureOp::Component::B);
    EXPECT_EQ(t.data, Type::U32);
    EXPECT_EQ(t.coordinate, Type::F32);
    expect_layout(t, 2, 0, 1, -1, -1);
}

TEST(FrontEndTexture, SurfaceAccesses) {
    TextureOp t = decoded("suld.b.2d.v2.b32.clamp {%r1, %r2}, [%rd1, {%r3, %r4}]");
    EXPECT_EQ(t.op, Op::SurfaceLoad);
    EXPECT_EQ(t.geometry, Geometry::D2);
    EXPECT_EQ(t.data, Type::B32);
    EXPECT_EQ(t.vector, 2u);
    EXPECT_EQ(t.coordinate, Type::S32);
    EXPECT_EQ(t.clamp, TextureOp::Clamp::Clamp);
    EXPECT_EQ(t.data_operand, 0u);
    EXPECT_EQ(t.image_operand, 1u);

    t = decoded("sust.b.3d.cg.b64.zero [%rd1, {%r1, %r2, %r3, %r4}], %rd2");
    EXPECT_EQ(t.op, Op::SurfaceStore);
    EXPECT_EQ(t.geometry, Geometry::D3);
    EXPECT_EQ(t.data, Type::B64);
    EXPECT_EQ(t.vector, 1u);
    EXPECT_EQ(t.clamp, TextureOp::Clamp::Zero);
    EXPECT_EQ(t.image_operand, 0u);
    EXPECT_EQ(t.data_operand, 1u);
    expect_layout(t, 4, 0, 1, 2, -1);

    t = decoded("sust.b.a1d.v4.b8 [%rd1, {%r1, %r2}], {%r3, %r4, %r5, %r6}");
    EXPECT_EQ(t.clamp, TextureOp::Clamp::Trap); // the default
    EXPECT_EQ(t.vector, 4u);
    expect_layout(t, 2, 1, -1, -1, 0);
    EXPECT_EQ(decoded("suld.b.1d.b16.trap %r1, [%rd1, {%r2}]").clamp, TextureOp::Clamp::Trap);
}

TEST(FrontEndTexture, RefusesWhatNoFormTakes) {
    const std::string d4 = "{%f1, %f2, %f3, %f4}";
    EXPECT_EQ(refusal("tex.level.2d.v4.f32.f32 " + d4 + ", [%rd1, {%f5, %f6}], %f7"), ErrorCode::Unsupported);
    EXPECT_EQ(message("tex.grad.2d.v4.f32.f32 " + d4 + ", [%rd1, {%f5, %f6}], {%f7}, {%f8}"),
              "mipmapped texture lookups are not supported");
    EXPECT_EQ(message("tex.a2dms.v4.f32.f32 " + d4 + ", [%rd1, {%r1, %r2, %r3, %r4}]"),
              "multisample geometry .a2dms is not supported");
    EXPECT_EQ(refusal("tex.v4.f32.f32 " + d4 + ", [%rd1, {%f5, %f6}]"), ErrorCode::Unsupported); // no geometry
    EXPECT_EQ(refusal("tex.2d.v2.f32.f32 {%f1, %f2}, [%rd1, {%f5, %f6}]"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("tex.2d.v4.f16.f32 " + d4 + ", [%rd1, {%f5, %f6}]"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("tex.2d.v4.f32.u32 " + d4 + ", [%rd1, {%r5, %r6}]"), ErrorCode::Unsupported);
    EXPECT_EQ(message("tex.3d.v4.f32.s32 " + d4 + ", [%rd1, {%r1, %r1, %r1, %r1}]"),
              "integer coordinates on .3d textures are not supported");
    EXPECT_EQ(refusal("tex.2d.v4.f32.f32.ftz " + d4 + ", [%rd1, {%f5, %f6}]"), ErrorCode::Unsupported);
    EXPECT_EQ(message("tex.2d.v4.f32.f32 " + d4 + ", [%rd1, {%f5, %f6}], {%r1, %r2}"),
              "offsets and depth-compare operands are not supported");
    EXPECT_EQ(refusal("tex.2d.v4.f32.f32 " + d4 + ", [%rd1, {%f5, %f6}], {%r1, %r2}, %f7"), ErrorCode::Unsupported);
    EXPECT_EQ(message("tex.2d.v4.f32.f32 " + d4 + ", [%rd1, %rd2, {%f5, %f6}]"),
              "explicit samplers are not supported (texture objects only)");
    EXPECT_EQ(refusal("tex.2d.v4.f32.f32 " + d4 + ", %rd1"), ErrorCode::Unsupported); // not [object, ...]
    EXPECT_EQ(refusal("tex.2d.v4.f32.f32 " + d4 + ", [%rd1+8, {%f5, %f6}]"), ErrorCode::Unsupported); // an offset
    EXPECT_EQ(message("tex.2d.v4.f32.f32 " + d4 + ", [%rd1, {%f5, %f6, %f7}]"), "expected 2 coordinate(s) for .2d");
    EXPECT_EQ(message("tex.2d.v4.f32.f32 {%f1, %f2}, [%rd1, {%f5, %f6}]"), "expected 4 destination registers");
    EXPECT_EQ(message("tex.2d.v4.f32.f32 %f1|%p1, [%rd1, {%f5, %f6}]"),
              "the optional residency predicate (d|p) is not supported");

    EXPECT_EQ(refusal("tld4.2d.v4.f32.f32 " + d4 + ", [%rd1, {%f5, %f6}]"), ErrorCode::Unsupported); // component
    EXPECT_EQ(message("tld4.r.a2d.v4.f32.f32 " + d4 + ", [%rd1, {%r1, %f5, %f6, %f7}]"),
              "tld4 is supported on .2d textures only");
    EXPECT_EQ(refusal("tld4.r.2d.v4.f32.s32 " + d4 + ", [%rd1, {%r5, %r6}]"), ErrorCode::Unsupported);

    EXPECT_EQ(message("sust.p.2d.b32 [%rd1, {%r1, %r2}], %r3"), "only unformatted stores (sust.b) are supported");
    EXPECT_EQ(refusal("suld.p.2d.b32 %r3, [%rd1, {%r1, %r2}]"), ErrorCode::Unsupported);
    EXPECT_EQ(message("suld.b.cube.b32 %r3, [%rd1, {%r1, %r2, %r4, %r5}]"),
              "surface instructions have no .cube geometry (cubemap faces are .a2d layers)");
    EXPECT_EQ(refusal("suld.b.2d.f32 %f3, [%rd1, {%r1, %r2}]"), ErrorCode::Unsupported);
    EXPECT_EQ(refusal("suld.b.2d.v8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1, {%r1, %r2}]"),
              ErrorCode::Unsupported);
    EXPECT_EQ(message("sust.b.2d.v2.b32 [%rd1, {%r1, %r2}], {%r3, %r4, %r5}"), "expected 2 source values");
    EXPECT_EQ(refusal("sured.b.add.2d.u32 [%rd1, {%r1, %r2}], %r3"), ErrorCode::Unsupported); // not decoded here

    // Operand counts no assembler takes.
    EXPECT_EQ(refusal("tex.2d.v4.f32.f32 " + d4), ErrorCode::Invalid);
    EXPECT_EQ(refusal("tex.2d.v4.f32.f32 " + d4 + ", [%rd1, {%f5, %f6}], %r1, %f1, %f2"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("tld4.r.2d.v4.f32.f32 " + d4), ErrorCode::Invalid);
    EXPECT_EQ(refusal("suld.b.2d.b32 %r3"), ErrorCode::Invalid);
    EXPECT_EQ(refusal("sust.b.2d.b32 [%rd1, {%r1, %r2}], %r3, %r4"), ErrorCode::Invalid);
}
