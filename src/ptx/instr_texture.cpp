// Textures' and surfaces' meaning (see instr_texture.h).
#include "ptx/instr_texture.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::element_count;
using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = TextureOp::Op;
using Geometry = TextureOp::Geometry;

constexpr const char* kGeometryNames[] = {"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};

// Per geometry (in Geometry's order): the coordinate vector's length, then which element is x, y, z and the layer.
constexpr TextureOp::Coordinates kLayouts[] = {
    {1, 0, -1, -1, -1}, // 1d {x} (or x)
    {2, 0, 1, -1, -1},  // 2d {x, y}
    {4, 0, 1, 2, -1},   // 3d {x, y, z, _}
    {2, 1, -1, -1, 0},  // a1d {layer, x}
    {4, 1, 2, -1, 0},   // a2d {layer, x, y, _}
    {4, 0, 1, 2, -1},   // cube {x, y, z, _}
    {4, 1, 2, 3, 0},    // acube {layer, x, y, z}
};

// The geometry modifier; SURFACE: the geometries suld/sust take (no cubes: cubemap surfaces are .a2d).
Expected<Geometry> geometry(Modifiers& m, bool surface) {
    std::string_view g = m.take_any({"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"});
    if (g.empty()) {
        std::string_view other = m.take_any({"2dms", "a2dms"});
        return unsupported(other.empty() ? std::string("missing geometry (.1d, .2d, .3d, .a1d, .a2d, .cube or .acube)")
                                         : fmt::format("multisample geometry .{} is not supported", other));
    }
    for (uint8_t i = 0; i < 7; ++i) {
        if (g != kGeometryNames[i]) continue;
        const auto geo = static_cast<Geometry>(i);
        if (surface && (geo == Geometry::Cube || geo == Geometry::ACube))
            return unsupported(
                fmt::format("surface instructions have no .{} geometry (cubemap faces are .a2d layers)", g));
        return geo;
    }
    return unsupported("unknown geometry");
}

// The shapes of the two operands: [object, {coordinates}] in the geometry's layout, and the data.
Status operand_shapes(const ast::Instruction& in, TextureOp& t) {
    t.coordinates = kLayouts[static_cast<uint8_t>(t.geometry)];
    const ast::Operand& image = in.operands[t.image_operand];
    if (image.kind != ast::OperandKind::Address || image.name.empty() || image.offset != 0)
        return unsupported("expected [object, {coordinates}]");
    if (image.elements.size() != 1) return unsupported("explicit samplers are not supported (texture objects only)");
    if (element_count(image.elements[0]) != t.coordinates.count)
        return unsupported(
            fmt::format("expected {} coordinate(s) for .{}", t.coordinates.count, geometry_name(t.geometry)));
    const ast::Operand& data = in.operands[t.data_operand];
    if (t.op == Op::SurfaceStore) {
        if (element_count(data) != t.vector) return unsupported(fmt::format("expected {} source values", t.vector));
        return ok_status();
    }
    if (data.kind == ast::OperandKind::Pair)
        return unsupported("the optional residency predicate (d|p) is not supported");
    if (element_count(data) != t.vector) return unsupported(fmt::format("expected {} destination registers", t.vector));
    return ok_status();
}

Status check_result_type(Type t) {
    if (t != Type::F32 && t != Type::S32 && t != Type::U32)
        return unsupported("result type must be .f32, .s32 or .u32");
    return ok_status();
}

// tex/tld4 d, [t, c] {, offset} {, depth compare}: the last two are not supported.
Status check_sample_operands(const ast::Instruction& in) {
    D4R_TRY(expect_operands(in, 2, 4));
    if (in.operands.size() != 2) return unsupported("offsets and depth-compare operands are not supported");
    return ok_status();
}

Expected<TextureOp> decode_tex(const ast::Instruction& in, Modifiers& m) {
    TextureOp t;
    t.op = Op::Tex;
    if (!m.take_any({"base", "level", "grad"}).empty())
        return unsupported("mipmapped texture lookups are not supported");
    t.geometry = D4R_TRY(geometry(m, false));
    if (m.take_vector() != 4) return unsupported("only .v4 results are supported");
    t.data = m.take_type();
    t.coordinate = m.take_type();
    D4R_TRY(finish(m));
    D4R_TRY(check_result_type(t.data));
    if (t.coordinate != Type::F32 && t.coordinate != Type::S32)
        return unsupported("coordinate type must be .f32 or .s32");
    if (t.coordinate == Type::S32 && t.geometry != Geometry::D1 && t.geometry != Geometry::D2)
        return unsupported(
            fmt::format("integer coordinates on .{} textures are not supported", geometry_name(t.geometry)));
    D4R_TRY(check_sample_operands(in));
    D4R_TRY(operand_shapes(in, t));
    return t;
}

Expected<TextureOp> decode_tld4(const ast::Instruction& in, Modifiers& m) {
    TextureOp t;
    t.op = Op::Gather;
    const std::string_view comp = m.take_any({"r", "g", "b", "a"});
    if (comp.empty()) return unsupported("missing component (.r, .g, .b or .a)");
    t.component = comp == "r"   ? TextureOp::Component::R
                  : comp == "g" ? TextureOp::Component::G
                  : comp == "b" ? TextureOp::Component::B
                                : TextureOp::Component::A;
    t.geometry = D4R_TRY(geometry(m, false));
    if (t.geometry != Geometry::D2) return unsupported("tld4 is supported on .2d textures only");
    if (m.take_vector() != 4) return unsupported("tld4 returns .v4");
    t.data = m.take_type();
    t.coordinate = m.take_type();
    D4R_TRY(finish(m));
    D4R_TRY(check_result_type(t.data));
    if (t.coordinate != Type::F32) return unsupported("tld4 coordinates are .f32");
    D4R_TRY(check_sample_operands(in));
    D4R_TRY(operand_shapes(in, t));
    return t;
}

Expected<TextureOp> decode_surface(const ast::Instruction& in, Modifiers& m, bool store) {
    TextureOp t;
    t.op = store ? Op::SurfaceStore : Op::SurfaceLoad;
    if (!m.take("b")) return unsupported(store ? "only unformatted stores (sust.b) are supported" : "expected suld.b");
    t.geometry = D4R_TRY(geometry(m, true));
    m.take_any({"ca", "cg", "cs", "cv", "wb", "wt"}); // cache operators: no effect in d4r's memory
    t.vector = m.take_vector();
    t.data = m.take_type();
    const std::string_view clamp = m.take_any({"trap", "clamp", "zero"});
    t.clamp = clamp == "clamp"  ? TextureOp::Clamp::Clamp
              : clamp == "zero" ? TextureOp::Clamp::Zero
                                : TextureOp::Clamp::Trap; // .trap is the default
    D4R_TRY(finish(m));
    if (t.data != Type::B8 && t.data != Type::B16 && t.data != Type::B32 && t.data != Type::B64)
        return unsupported("type must be .b8, .b16, .b32 or .b64");
    if (t.vector == 8) return unsupported(".v8 is not a surface access");
    t.coordinate = Type::S32;
    D4R_TRY(expect_operands(in, 2));
    t.image_operand = store ? 0 : 1;
    t.data_operand = store ? 1 : 0;
    D4R_TRY(operand_shapes(in, t));
    return t;
}

} // namespace

const char* geometry_name(TextureOp::Geometry g) { return kGeometryNames[static_cast<uint8_t>(g)]; }

Expected<TextureOp> decode_texture(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    if (m.base() == "tex") return decode_tex(in, m);
    if (m.base() == "tld4") return decode_tld4(in, m);
    if (m.base() == "suld") return decode_surface(in, m, false);
    if (m.base() == "sust") return decode_surface(in, m, true);
    return unsupported(fmt::format("'{}' is not a texture or surface instruction", m.base()));
}

} // namespace d4r::ptx
