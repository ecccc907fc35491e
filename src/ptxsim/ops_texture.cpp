// Texture and surface instructions through texture/surface objects (.u64 handles, ptxsim_texture.h):
//   tex.{1d,2d,3d,a1d,a2d,cube,acube}.v4.{f32,s32,u32}.f32 (and .s32 coordinates for .1d/.2d),
//   tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32,
//   suld.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero}, sust.b (same forms).
// The sampling arithmetic lives in texture.cpp. Texture references (.texref/.surfref variables), explicit
// samplers, offsets, depth compare, mipmap forms, multisample geometries, sust.p/sured/txq/suq are load-time
// "unsupported" errors. An instruction whose geometry does not match its object's image (tex.3d on a 2D
// texture, ...) stops the launch naming both.
//
// Instr use: base = handle slot (64-bit); aux = x slot | y slot << 32; imm = z slot | layer slot << 32
// (kNoReg where the geometry has none); tex/tld4/suld: d[0..count-1] destinations; sust: s[0..count-1]
// values; count = vector length; flags: see TexFlags.
#include <algorithm>

#include <fmt/format.h>

#include "ptxsim/decoder.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/texture.h"

namespace d4r::ptxsim {

namespace {

enum TexFlags : uint16_t {
    kIntCoords = 1,  // tex with .s32 coordinates: texel fetch
    kWideData = 4,   // suld/sust .b64: 64-bit slots
    kGeoShift = 4,   // the instruction's geometry (Geo) at bits 4-6
    kModeShift = 8,  // suld/sust: out-of-range mode (SurfMode) at bits 8-9
    kCompShift = 12, // tld4: component at bits 12-13
};
enum SurfMode : uint16_t { kTrap = 0, kClamp = 1, kZero = 2 };
enum Geo : uint16_t { kG1D, kG2D, kG3D, kGA1D, kGA2D, kGCube, kGACube };

constexpr const char* kGeoNames[] = {"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};

D4R_INLINE Geo geo_of(const Instr& in) { return static_cast<Geo>((in.flags >> kGeoShift) & 7); }

// The coordinates of every lane: x, y, z (0 where the geometry has none) and the layer (or cube) index.
struct Coords {
    uint32_t x[32], y[32], z[32], layer[32];
};

void read_slot(const Warp& w, uint32_t slot, uint32_t (&out)[32]) {
    if (slot != kNoReg)
        read_lanes(w, slot, out);
    else
        std::fill(std::begin(out), std::end(out), 0u);
}

void read_coords(const Warp& w, const Instr& in, Coords& c) {
    const auto imm = static_cast<uint64_t>(in.imm);
    read_slot(w, static_cast<uint32_t>(in.aux), c.x);
    read_slot(w, static_cast<uint32_t>(in.aux >> 32), c.y);
    read_slot(w, static_cast<uint32_t>(imm), c.z);
    read_slot(w, static_cast<uint32_t>(imm >> 32), c.layer);
}

// Whether a texture (or, SURFACE, a surface) instruction of geometry G may use an image of geometry IMAGE.
bool geometry_fits(Geo g, Geometry image, bool surface) {
    switch (g) {
    case kG1D:
    case kG2D:
        return image == Geometry::Plain;
    case kG3D:
        return image == Geometry::Volume3D;
    case kGA1D:
        return image == Geometry::Layered1D;
    case kGA2D:
        return image == Geometry::Layered2D ||
               (surface && (image == Geometry::Cubemap || image == Geometry::CubemapLayered));
    case kGCube:
        return !surface && image == Geometry::Cubemap;
    case kGACube:
        return !surface && image == Geometry::CubemapLayered;
    }
    return false;
}

bool check_geometry(Warp& w, const ImageObject& o, uint64_t handle, Geo g, unsigned lane) {
    const bool surface = o.kind == ImageObject::Kind::Surface;
    if (geometry_fits(g, o.geometry, surface)) return true;
    fault(w, FaultKind::IllegalInstruction, lane, handle, 0,
          fmt::format("a .{} {} instruction used {} object 0x{:x}, whose image is {}: the geometries must match",
                      kGeoNames[g], surface ? "surface" : "texture", surface ? "surface" : "texture", handle,
                      geometry_name(o.geometry)));
    return false;
}

// The object behind HANDLE for LANE, or nullptr after recording a fault.
const ImageObject* find_object(Warp& w, uint64_t handle, ImageObject::Kind kind, unsigned lane) {
    const char* what = kind == ImageObject::Kind::Texture ? "texture" : "surface";
    const ImageTable* table = w.launch->images.get();
    const ImageObject* o = table ? table->find(handle) : nullptr;
    if (!o) {
        fault(w, FaultKind::IllegalInstruction, lane, handle, 0,
              fmt::format("{} object 0x{:x} does not exist (never created, or destroyed)", what, handle));
        return nullptr;
    }
    if (o->kind != kind) {
        fault(w, FaultKind::IllegalInstruction, lane, handle, 0,
              fmt::format("object 0x{:x} is a {} object, not a {} object", handle,
                          o->kind == ImageObject::Kind::Texture ? "texture" : "surface", what));
        return nullptr;
    }
    if (o->device_memory) {
        // Pitch-linear and linear textures read device memory, which may have been freed since.
        const std::vector<MemRange>& ranges = w.launch->ranges;
        const uint64_t base = reinterpret_cast<uint64_t>(o->base);
        auto it = std::upper_bound(ranges.begin(), ranges.end(), base,
                                   [](uint64_t a, const MemRange& r) { return a < r.base; });
        if (it == ranges.begin() || !range_holds((it - 1)->base, (it - 1)->size, base, o->span)) {
            fault(w, FaultKind::IllegalAddress, lane, base,
                  static_cast<uint32_t>(std::min<uint64_t>(o->span, UINT32_MAX)),
                  fmt::format("texture object 0x{:x} reads memory that is not a live allocation", handle));
            return nullptr;
        }
    }
    return o;
}

// Looks objects up once per distinct handle in the warp (handles are almost always uniform).
struct ObjectCache {
    uint64_t handle = 0;
    const ImageObject* object = nullptr;
    const ImageObject* get(Warp& w, uint64_t h, ImageObject::Kind kind, unsigned lane) {
        if (object && h == handle) return object;
        object = find_object(w, h, kind, lane);
        handle = h;
        return object;
    }
};

// The object behind a lane (its kind checked by ObjectCache), its geometry checked against the instruction's
// once per object; nullptr after recording a fault.
struct CheckedObjects {
    ObjectCache cache;
    const ImageObject* checked = nullptr;
    const ImageObject* get(Warp& w, uint64_t h, ImageObject::Kind kind, Geo g, unsigned lane) {
        const ImageObject* o = cache.get(w, h, kind, lane);
        if (!o) return nullptr;
        if (o != checked) {
            if (!check_geometry(w, *o, h, g, lane)) return nullptr;
            checked = o;
        }
        return o;
    }
};

// tex (Mode 0) and tld4 (Mode 1).
template <int Mode>
Flow exec_tex(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t h[32];
    Coords c;
    read_lanes(w, in.base, h);
    read_coords(w, in, c);
    const Geo g = geo_of(in);
    uint32_t out[4][32] = {};
    CheckedObjects textures;
    uint32_t m = mask;
    while (m) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        m &= m - 1;
        const ImageObject* t = textures.get(w, h[lane], ImageObject::Kind::Texture, g, lane);
        if (!t) return Flow::Stop;
        const float x = std::bit_cast<float>(c.x[lane]), y = std::bit_cast<float>(c.y[lane]);
        const float z = std::bit_cast<float>(c.z[lane]);
        TexResult r;
        if constexpr (Mode == 1) {
            r = gather(*t, x, y, (in.flags >> kCompShift) & 3);
        } else if (in.flags & kIntCoords) {
            r = fetch_texel(*t, static_cast<int32_t>(c.x[lane]), static_cast<int32_t>(c.y[lane]));
        } else {
            switch (g) {
            case kG1D:
            case kG2D:
                r = sample(*t, x, y, g == kG1D);
                break;
            case kG3D:
                r = sample_3d(*t, x, y, z);
                break;
            case kGA1D:
            case kGA2D:
                r = sample_layer(*t, c.layer[lane], x, y);
                break;
            case kGCube:
            case kGACube:
                r = sample_cube(*t, c.layer[lane], x, y, z);
                break;
            }
        }
        for (int k = 0; k < 4; ++k) out[k][lane] = r.v[k];
    }
    for (int k = 0; k < 4; ++k) store_slot(w, in.d[k], out[k], mask);
    return Flow::Next;
}

// Where a surface access of BYTES at (x bytes, y, plane) goes: the texel pointer, nullptr for a dropped /
// zero access, or a fault (returns false). PLANE is the slice of a 3D surface (out-of-range slices follow
// the mode, as rows do) or the layer / face of a layered or cubemap surface (out of range: a fault whatever
// the mode; NVIDIA's answer there is not measured).
bool surface_target(Warp& w, const ImageObject& s, uint64_t handle, int64_t x, int64_t y, int64_t plane, Geo g,
                    uint32_t bytes, SurfMode mode, unsigned lane, bool write, uint8_t** out) {
    const int64_t row = int64_t(s.width) * s.texel_bytes;
    const int64_t rows = s.height;
    const int64_t planes = s.depth;
    const bool layered = g == kGA1D || g == kGA2D;
    *out = nullptr;
    if (layered && (plane < 0 || plane >= planes)) {
        fault(w, FaultKind::IllegalAddress, lane, handle, bytes,
              fmt::format("surface {} at layer {} of surface 0x{:x}, which has {} layers", write ? "store" : "load",
                          uint32_t(plane), handle, planes));
        return false;
    }
    const bool inside = x >= 0 && x + bytes <= row && y >= 0 && y < rows && plane >= 0 && plane < planes;
    if (!inside) {
        if (mode == kZero) return true;
        if (mode == kTrap || bytes > row) {
            fault(w, FaultKind::IllegalAddress, lane, handle, bytes,
                  fmt::format("{}-byte surface {} at byte {} of row {} of slice {} is outside surface 0x{:x} ({} x {} "
                              "bytes x {} slices)",
                              bytes, write ? "store" : "load", x, y, plane, handle, row, rows, planes));
            return false;
        }
        // .clamp: the nearest location, aligned to the access size.
        x = std::clamp<int64_t>(x, 0, (row - bytes) / bytes * bytes);
        y = std::clamp<int64_t>(y, 0, rows - 1);
        plane = std::clamp<int64_t>(plane, 0, planes - 1);
    }
    if (x % bytes != 0) {
        fault(w, FaultKind::MisalignedAddress, lane, handle, bytes,
              fmt::format("{}-byte surface {} at byte {} of surface 0x{:x} is not aligned to its size", bytes,
                          write ? "store" : "load", x, handle));
        return false;
    }
    *out = s.base + uint64_t(plane) * s.slice_pitch + uint64_t(y) * s.pitch + uint64_t(x);
    return true;
}

// The plane index of a surface access: the z slice (.3d) or the layer (.a1d/.a2d); 0 otherwise.
D4R_INLINE int64_t surface_plane(const Coords& c, Geo g, unsigned lane) {
    if (g == kG3D) return int32_t(c.z[lane]);
    if (g == kGA1D || g == kGA2D) return int64_t(c.layer[lane]);
    return 0;
}

template <unsigned Bytes, unsigned N>
Flow exec_suld(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t h[32];
    Coords c;
    read_lanes(w, in.base, h);
    read_coords(w, in, c);
    const Geo g = geo_of(in);
    uint64_t v[N][32] = {};
    CheckedObjects surfaces;
    const SurfMode mode = static_cast<SurfMode>((in.flags >> kModeShift) & 3);
    uint32_t m = mask;
    while (m) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        m &= m - 1;
        const ImageObject* s = surfaces.get(w, h[lane], ImageObject::Kind::Surface, g, lane);
        if (!s) return Flow::Stop;
        uint8_t* p;
        if (!surface_target(w, *s, h[lane], int32_t(c.x[lane]), int32_t(c.y[lane]), surface_plane(c, g, lane), g,
                            Bytes * N, mode, lane, false, &p))
            return Flow::Stop;
        if (!p) continue;
        for (unsigned k = 0; k < N; ++k) {
            uint64_t e = 0;
            std::memcpy(&e, p + k * Bytes, Bytes);
            v[k][lane] = e;
        }
    }
    for (unsigned k = 0; k < N; ++k) {
        if (in.flags & kWideData) {
            store_slot(w, in.d[k], v[k], mask);
        } else {
            uint32_t t[32];
            for (int i = 0; i < 32; ++i) t[i] = static_cast<uint32_t>(v[k][i]);
            store_slot(w, in.d[k], t, mask);
        }
    }
    return Flow::Next;
}

template <unsigned Bytes, unsigned N>
Flow exec_sust(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t h[32];
    Coords c;
    read_lanes(w, in.base, h);
    read_coords(w, in, c);
    const Geo g = geo_of(in);
    uint64_t v[N][32];
    for (unsigned k = 0; k < N; ++k) {
        if (in.flags & kWideData) {
            read_lanes(w, in.s[k], v[k]);
        } else {
            uint32_t t[32];
            read_lanes(w, in.s[k], t);
            for (int i = 0; i < 32; ++i) v[k][i] = t[i];
        }
    }
    CheckedObjects surfaces;
    const SurfMode mode = static_cast<SurfMode>((in.flags >> kModeShift) & 3);
    uint32_t m = mask;
    while (m) { // lane order: the highest lane's value stays where lanes collide
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        m &= m - 1;
        const ImageObject* s = surfaces.get(w, h[lane], ImageObject::Kind::Surface, g, lane);
        if (!s) return Flow::Stop;
        uint8_t* p;
        if (!surface_target(w, *s, h[lane], int32_t(c.x[lane]), int32_t(c.y[lane]), surface_plane(c, g, lane), g,
                            Bytes * N, mode, lane, true, &p))
            return Flow::Stop;
        if (!p) continue;
        for (unsigned k = 0; k < N; ++k) std::memcpy(p + k * Bytes, &v[k][lane], Bytes);
    }
    return Flow::Next;
}

template <bool Store, unsigned Bytes>
ExecFn surf_fn_n(unsigned n) {
    switch (n) {
    case 1:
        return Store ? &exec_sust<Bytes, 1> : &exec_suld<Bytes, 1>;
    case 2:
        return Store ? &exec_sust<Bytes, 2> : &exec_suld<Bytes, 2>;
    case 4:
        return Store ? &exec_sust<Bytes, 4> : &exec_suld<Bytes, 4>;
    default:
        return nullptr;
    }
}

template <bool Store>
ExecFn surf_fn(unsigned bytes, unsigned n) {
    switch (bytes) {
    case 1:
        return surf_fn_n<Store, 1>(n);
    case 2:
        return surf_fn_n<Store, 2>(n);
    case 4:
        return surf_fn_n<Store, 4>(n);
    case 8:
        return surf_fn_n<Store, 8>(n);
    default:
        return nullptr;
    }
}

// [handle, {coordinates}] in the layout of geometry G: .1d {x} (or x), .2d {x, y}, .3d and .cube {x, y, z, _},
// .a1d {layer, x}, .a2d {layer, x, y, _}, .acube {layer, x, y, z}. Sets base, aux and imm.
Status image_operand(InstrDecoder& d, const ast::Operand& o, Geo g, Type coord_type, Instr& in) {
    if (o.kind != ast::OperandKind::Address || o.name.empty() || o.offset != 0)
        return d.error("expected [object, {coordinates}]");
    if (o.elements.size() != 1) return d.error("explicit samplers are not supported (texture objects only)");
    auto sym = d.lookup(o.name);
    if (!sym || sym->kind != Symbol::Kind::Reg || !sym->wide)
        return d.error(fmt::format("'{}' is not a 64-bit register: texture/surface references (.texref, .surfref) "
                                   "are not supported, only texture and surface objects",
                                   o.name));
    in.base = static_cast<uint32_t>(sym->value);
    const ast::Operand& c = o.elements[0];
    std::vector<const ast::Operand*> coords;
    if (c.kind == ast::OperandKind::Vector) {
        for (const ast::Operand& e : c.elements) coords.push_back(&e);
    } else {
        coords.push_back(&c);
    }
    // Per geometry: the vector's length, then which element is x, y, z and the layer (-1: none).
    struct Layout {
        size_t count;
        int x, y, z, layer;
    };
    constexpr Layout kLayouts[] = {
        {1, 0, -1, -1, -1}, // 1d
        {2, 0, 1, -1, -1},  // 2d
        {4, 0, 1, 2, -1},   // 3d
        {2, 1, -1, -1, 0},  // a1d
        {4, 1, 2, -1, 0},   // a2d
        {4, 0, 1, 2, -1},   // cube
        {4, 1, 2, 3, 0},    // acube
    };
    const Layout& l = kLayouts[g];
    if (coords.size() != l.count)
        return d.error(fmt::format("expected {} coordinate(s) for .{}", l.count, kGeoNames[g]));
    auto slot = [&](int index, Type t) -> Expected<uint32_t> {
        if (index < 0) return kNoReg;
        return d.src(*coords[size_t(index)], t);
    };
    const uint32_t x = D4R_TRY(slot(l.x, coord_type)), y = D4R_TRY(slot(l.y, coord_type));
    const uint32_t z = D4R_TRY(slot(l.z, coord_type)), layer = D4R_TRY(slot(l.layer, Type::U32));
    in.aux = uint64_t(x) | (uint64_t(y) << 32);
    in.imm = static_cast<int64_t>(uint64_t(z) | (uint64_t(layer) << 32));
    return ok_status();
}

// The destination vector of tex/tld4/suld; '_' elements get scratch slots.
Status vector_dsts(InstrDecoder& d, const ast::Operand& o, unsigned n, Type t, uint32_t (&out)[4]) {
    if (o.kind == ast::OperandKind::Pair) return d.error("the optional residency predicate (d|p) is not supported");
    std::vector<const ast::Operand*> ops;
    if (o.kind == ast::OperandKind::Vector) {
        for (const ast::Operand& e : o.elements) ops.push_back(&e);
    } else {
        ops.push_back(&o);
    }
    if (ops.size() != n) return d.error(fmt::format("expected {} destination registers", n));
    for (unsigned k = 0; k < n; ++k) out[k] = D4R_TRY(d.dst(*ops[k], t));
    return ok_status();
}

// The geometry modifier; SURFACE: the geometries suld/sust take (no cubes: cubemap surfaces are .a2d).
Expected<Geo> geometry(InstrDecoder& d, bool surface) {
    std::string_view g = d.mods().take_any({"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"});
    if (g.empty()) {
        std::string_view other = d.mods().take_any({"2dms", "a2dms"});
        return d.error(other.empty() ? std::string("missing geometry (.1d, .2d, .3d, .a1d, .a2d, .cube or .acube)")
                                     : fmt::format("multisample geometry .{} is not supported", other));
    }
    for (uint16_t i = 0; i < 7; ++i) {
        if (g != kGeoNames[i]) continue;
        if (surface && (i == kGCube || i == kGACube))
            return d.error(fmt::format("surface instructions have no .{} geometry (cubemap faces are .a2d layers)", g));
        return static_cast<Geo>(i);
    }
    return d.error("unknown geometry");
}

Status decode_tex(InstrDecoder& d) {
    Modifiers& m = d.mods();
    if (m.take_any({"base", "level", "grad"}).size()) return d.error("mipmapped texture lookups are not supported");
    const Geo g = D4R_TRY(geometry(d, false));
    if (m.take_vector() != 4) return d.error("only .v4 results are supported");
    const Type dtype = m.take_type(), ctype = m.take_type();
    D4R_TRY(d.finish());
    if (dtype != Type::F32 && dtype != Type::S32 && dtype != Type::U32)
        return d.error("result type must be .f32, .s32 or .u32");
    if (ctype != Type::F32 && ctype != Type::S32) return d.error("coordinate type must be .f32 or .s32");
    if (ctype == Type::S32 && g != kG1D && g != kG2D)
        return d.error(fmt::format("integer coordinates on .{} textures are not supported", kGeoNames[g]));
    if (d.operand_count() != 2) return d.error("offsets and depth-compare operands are not supported");
    Instr tmp;
    D4R_TRY(image_operand(d, d.operand(1), g, ctype, tmp));
    uint32_t dst[4];
    D4R_TRY(vector_dsts(d, d.operand(0), 4, dtype, dst));
    Instr& in = d.emit(&exec_tex<0>);
    in.base = tmp.base;
    in.aux = tmp.aux;
    in.imm = tmp.imm;
    for (int k = 0; k < 4; ++k) in.d[k] = dst[k];
    in.count = 4;
    in.flags = static_cast<uint16_t>((ctype == Type::S32 ? kIntCoords : 0) | (g << kGeoShift));
    return ok_status();
}

Status decode_tld4(InstrDecoder& d) {
    Modifiers& m = d.mods();
    std::string_view comp = m.take_any({"r", "g", "b", "a"});
    if (comp.empty()) return d.error("missing component (.r, .g, .b or .a)");
    if (D4R_TRY(geometry(d, false)) != kG2D) return d.error("tld4 is supported on .2d textures only");
    if (m.take_vector() != 4) return d.error("tld4 returns .v4");
    const Type dtype = m.take_type(), ctype = m.take_type();
    D4R_TRY(d.finish());
    if (dtype != Type::F32 && dtype != Type::S32 && dtype != Type::U32)
        return d.error("result type must be .f32, .s32 or .u32");
    if (ctype != Type::F32) return d.error("tld4 coordinates are .f32");
    if (d.operand_count() != 2) return d.error("offsets and depth-compare operands are not supported");
    Instr tmp;
    D4R_TRY(image_operand(d, d.operand(1), kG2D, ctype, tmp));
    uint32_t dst[4];
    D4R_TRY(vector_dsts(d, d.operand(0), 4, dtype, dst));
    Instr& in = d.emit(&exec_tex<1>);
    in.base = tmp.base;
    in.aux = tmp.aux;
    in.imm = tmp.imm;
    for (int k = 0; k < 4; ++k) in.d[k] = dst[k];
    in.count = 4;
    const uint16_t c = comp == "r" ? 0 : comp == "g" ? 1 : comp == "b" ? 2 : 3;
    in.flags = static_cast<uint16_t>((c << kCompShift) | (kG2D << kGeoShift));
    return ok_status();
}

struct SurfMods {
    Geo geo = kG2D;
    unsigned vector = 1;
    Type type = Type::None;
    SurfMode mode = kTrap;
};

Expected<SurfMods> surf_mods(InstrDecoder& d, bool store) {
    Modifiers& m = d.mods();
    if (!m.take("b")) return d.error(store ? "only unformatted stores (sust.b) are supported" : "expected suld.b");
    SurfMods r;
    r.geo = D4R_TRY(geometry(d, true));
    m.take_any({"ca", "cg", "cs", "cv", "wb", "wt"}); // cache operators: no effect here
    r.vector = m.take_vector();
    r.type = m.take_type();
    std::string_view mode = m.take_any({"trap", "clamp", "zero"});
    r.mode = mode == "clamp" ? kClamp : mode == "zero" ? kZero : kTrap; // .trap is the default
    D4R_TRY(d.finish());
    if (r.type != Type::B8 && r.type != Type::B16 && r.type != Type::B32 && r.type != Type::B64)
        return d.error("type must be .b8, .b16, .b32 or .b64");
    if (r.vector == 8) return d.error(".v8 is not a surface access");
    return r;
}

Status decode_suld(InstrDecoder& d) {
    SurfMods sm = D4R_TRY(surf_mods(d, false));
    D4R_TRY(d.expect_operands(2));
    const bool wide = sm.type == Type::B64;
    Instr tmp;
    D4R_TRY(image_operand(d, d.operand(1), sm.geo, Type::S32, tmp));
    uint32_t dst[4];
    D4R_TRY(vector_dsts(d, d.operand(0), sm.vector, wide ? Type::B64 : Type::B32, dst));
    ExecFn fn = surf_fn<false>(type_bits(sm.type) / 8, sm.vector);
    if (!fn) return d.error("unsupported surface load");
    Instr& in = d.emit(fn);
    in.base = tmp.base;
    in.aux = tmp.aux;
    in.imm = tmp.imm;
    for (unsigned k = 0; k < sm.vector; ++k) in.d[k] = dst[k];
    in.count = static_cast<uint8_t>(sm.vector);
    in.flags = static_cast<uint16_t>((wide ? kWideData : 0) | (sm.mode << kModeShift) | (sm.geo << kGeoShift));
    return ok_status();
}

Status decode_sust(InstrDecoder& d) {
    SurfMods sm = D4R_TRY(surf_mods(d, true));
    D4R_TRY(d.expect_operands(2));
    const bool wide = sm.type == Type::B64;
    Instr tmp;
    D4R_TRY(image_operand(d, d.operand(0), sm.geo, Type::S32, tmp));
    const ast::Operand& vals = d.operand(1);
    std::vector<const ast::Operand*> ops;
    if (vals.kind == ast::OperandKind::Vector) {
        for (const ast::Operand& e : vals.elements) ops.push_back(&e);
    } else {
        ops.push_back(&vals);
    }
    if (ops.size() != sm.vector) return d.error(fmt::format("expected {} source values", sm.vector));
    uint32_t src[4];
    for (unsigned k = 0; k < sm.vector; ++k) src[k] = D4R_TRY(d.src(*ops[k], wide ? Type::B64 : Type::B32));
    ExecFn fn = surf_fn<true>(type_bits(sm.type) / 8, sm.vector);
    if (!fn) return d.error("unsupported surface store");
    Instr& in = d.emit(fn);
    in.base = tmp.base;
    in.aux = tmp.aux;
    in.imm = tmp.imm;
    for (unsigned k = 0; k < sm.vector; ++k) in.s[k] = src[k];
    in.count = static_cast<uint8_t>(sm.vector);
    in.flags = static_cast<uint16_t>((wide ? kWideData : 0) | (sm.mode << kModeShift) | (sm.geo << kGeoShift));
    return ok_status();
}

} // namespace

void add_texture_ops(OpcodeTable& t) {
    t["tex"] = &decode_tex;
    t["tld4"] = &decode_tld4;
    t["suld"] = &decode_suld;
    t["sust"] = &decode_sust;
}

} // namespace d4r::ptxsim
