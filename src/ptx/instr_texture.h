// The PTX front end, typed instructions (docs/ptx-front-end.md): textures and surfaces, tex, tld4, suld and sust,
// in the unified texture mode ([object, {coordinates}]: the texture and its sampler are one object or reference).
//
// The forms d4r implements:
//   tex.{1d,2d,3d,a1d,a2d,cube,acube}.v4.{f32,s32,u32}.f32 d, [t, c], and .s32 coordinates on .1d/.2d (a texel fetch)
//   tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32 d, [t, c]
//   suld.b.{1d,2d,3d,a1d,a2d}{.cop}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero} d, [s, c]
//   sust.b.{1d,2d,3d,a1d,a2d}{.cop}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero} [s, c], v
// Refused (Unsupported): the mipmap forms (.base .level .grad), offsets and depth compare (tex/tld4 operands 3 and 4),
// an explicit sampler ([t, s, c], the independent mode), the residency predicate (d|p), multisample geometries,
// formatted surface stores (sust.p), and txq/suq/sured (not decoded here).
//
// Promise: decode_texture() accepts exactly the forms d4r implements and says what each does and how its operands
// are laid out; errors carry no location (the consumer adds it): Invalid for an operand count no assembler takes,
// Unsupported for anything else it refuses, with ptxsim's messages. Whether the image operand names a texture or
// surface object (a .u64 register) or a .texref/.surfref variable, and the registers, are the consumer's.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct TextureOp {
    enum class Op : uint8_t {
        Tex,          // tex: a filtered sample (.f32 coordinates) or a texel fetch (.s32 coordinates)
        Gather,       // tld4: one component of the four texels a bilinear sample of (x, y) would read
        SurfaceLoad,  // suld.b: raw bytes
        SurfaceStore, // sust.b: raw bytes
    };
    // The instruction's geometry, in this order (consumers may encode it as its index).
    enum class Geometry : uint8_t { D1, D2, D3, A1D, A2D, Cube, ACube };
    enum class Component : uint8_t { R, G, B, A }; // tld4's
    // What a surface access outside the image does: fault (.trap, the default), access the nearest location
    // (.clamp), or read zeros / drop the store (.zero).
    enum class Clamp : uint8_t { Trap, Clamp, Zero };
    // The coordinate vector of a geometry: its length and which element is x, y, z and the layer (an array index,
    // or a cube array's cube index, always .u32); -1 where the geometry has none. .3d, .cube and .a2d carry a
    // fourth element that is ignored.
    struct Coordinates {
        unsigned count = 2;
        int8_t x = 0, y = 1, z = -1, layer = -1;
    };

    Op op = Op::Tex;
    Geometry geometry = Geometry::D2;
    Type data = Type::None;       // tex/tld4: .f32 .s32 .u32, the results; suld/sust: .b8 .b16 .b32 .b64, each element
    unsigned vector = 4;          // the data operand's elements: 4 for tex/tld4; 1, 2 or 4 for surfaces
    Type coordinate = Type::None; // x, y, z: .f32 or .s32 (tex), .f32 (tld4), .s32 (surfaces: x in bytes)
    Component component = Component::R; // Gather
    Clamp clamp = Clamp::Trap;          // SurfaceLoad/SurfaceStore
    Coordinates coordinates;
    // The operands, always two: the image [object, {coordinates}] (a one-element .1d vector may be written bare) and
    // the data, a {...} of `vector` elements or one: tex/tld4/suld d, [i] (registers, '_' a sink); sust [i], v.
    unsigned image_operand = 1;
    unsigned data_operand = 0;
};

Expected<TextureOp> decode_texture(const ast::Instruction& in);

// "1d", "a2d", "acube" (no dot).
const char* geometry_name(TextureOp::Geometry g);

} // namespace d4r::ptx
