// Texture and surface instructions through texture/surface objects (.u64 handles, ptxsim_texture.h):
//   tex.{1d,2d}.v4.{f32,s32,u32}.{f32,s32}, tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32,
//   suld.b.{1d,2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero}, sust.b (same forms).
// The sampling arithmetic lives in texture.cpp. Texture references (.texref/.surfref variables), explicit
// samplers, offsets, depth compare, mipmap forms, arrays/cubes/3D, sust.p/sured/txq/suq are load-time
// "unsupported" errors.
//
// Instr use: base = handle slot (64-bit); aux = x coordinate slot | y coordinate slot << 32 (y = kNoReg for
// 1D); tex/tld4/suld: d[0..count-1] destinations; sust: s[0..count-1] values; count = vector length;
// flags: see TexFlags.
#include <algorithm>

#include <fmt/format.h>

#include "ptxsim/decoder.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/texture.h"

namespace d4r::ptxsim {

namespace {

enum TexFlags : uint16_t {
    kIntCoords = 1,  // tex with .s32 coordinates: texel fetch
    kOneD = 2,       // 1D geometry
    kWideData = 4,   // suld/sust .b64: 64-bit slots
    kModeShift = 8,  // suld/sust: out-of-range mode (SurfMode) at bits 8-9
    kCompShift = 12, // tld4: component at bits 12-13
};
enum SurfMode : uint16_t { kTrap = 0, kClamp = 1, kZero = 2 };

D4R_INLINE uint32_t coord_slot(const Instr& in, int dim) { return static_cast<uint32_t>(in.aux >> (32 * dim)); }

void read_coords(const Warp& w, const Instr& in, uint32_t (&x)[32], uint32_t (&y)[32]) {
    read_lanes(w, coord_slot(in, 0), x);
    if (coord_slot(in, 1) != kNoReg)
        read_lanes(w, coord_slot(in, 1), y);
    else
        std::fill(std::begin(y), std::end(y), 0u);
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

// tex (Mode 0) and tld4 (Mode 1).
template <int Mode>
Flow exec_tex(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t h[32];
    uint32_t x[32], y[32];
    read_lanes(w, in.base, h);
    read_coords(w, in, x, y);
    uint32_t out[4][32] = {};
    ObjectCache cache;
    uint32_t m = mask;
    while (m) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        m &= m - 1;
        const ImageObject* t = cache.get(w, h[lane], ImageObject::Kind::Texture, lane);
        if (!t) return Flow::Stop;
        TexResult r;
        if constexpr (Mode == 1) {
            r = gather(*t, std::bit_cast<float>(x[lane]), std::bit_cast<float>(y[lane]), (in.flags >> kCompShift) & 3);
        } else if (in.flags & kIntCoords) {
            r = fetch_texel(*t, static_cast<int32_t>(x[lane]), static_cast<int32_t>(y[lane]));
        } else {
            r = sample(*t, std::bit_cast<float>(x[lane]), std::bit_cast<float>(y[lane]), in.flags & kOneD);
        }
        for (int k = 0; k < 4; ++k) out[k][lane] = r.v[k];
    }
    for (int k = 0; k < 4; ++k) store_slot(w, in.d[k], out[k], mask);
    return Flow::Next;
}

// Where a surface access of BYTES at (x bytes, y) goes: the texel row pointer, nullptr for a dropped /
// zero access, or a fault (returns false).
bool surface_target(Warp& w, const ImageObject& s, uint64_t handle, int64_t x, int64_t y, uint32_t bytes, SurfMode mode,
                    unsigned lane, bool write, uint8_t** out) {
    const int64_t row = int64_t(s.width) * s.texel_bytes;
    const int64_t rows = s.height;
    const bool inside = x >= 0 && x + bytes <= row && y >= 0 && y < rows;
    *out = nullptr;
    if (!inside) {
        if (mode == kZero) return true;
        if (mode == kTrap || bytes > row) {
            fault(w, FaultKind::IllegalAddress, lane, handle, bytes,
                  fmt::format("{}-byte surface {} at byte {} of row {} is outside surface 0x{:x} ({} x {} bytes)",
                              bytes, write ? "store" : "load", x, y, handle, row, rows));
            return false;
        }
        // .clamp: the nearest location, aligned to the access size.
        x = std::clamp<int64_t>(x, 0, (row - bytes) / bytes * bytes);
        y = std::clamp<int64_t>(y, 0, rows - 1);
    }
    if (x % bytes != 0) {
        fault(w, FaultKind::MisalignedAddress, lane, handle, bytes,
              fmt::format("{}-byte surface {} at byte {} of surface 0x{:x} is not aligned to its size", bytes,
                          write ? "store" : "load", x, handle));
        return false;
    }
    *out = s.base + uint64_t(y) * s.pitch + uint64_t(x);
    return true;
}

template <unsigned Bytes, unsigned N>
Flow exec_suld(Warp& w, const Instr& in, uint32_t mask) {
    uint64_t h[32];
    uint32_t x[32], y[32];
    read_lanes(w, in.base, h);
    read_coords(w, in, x, y);
    uint64_t v[N][32] = {};
    ObjectCache cache;
    const SurfMode mode = static_cast<SurfMode>((in.flags >> kModeShift) & 3);
    uint32_t m = mask;
    while (m) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        m &= m - 1;
        const ImageObject* s = cache.get(w, h[lane], ImageObject::Kind::Surface, lane);
        if (!s) return Flow::Stop;
        uint8_t* p;
        if (!surface_target(w, *s, h[lane], int32_t(x[lane]), int32_t(y[lane]), Bytes * N, mode, lane, false, &p))
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
    uint32_t x[32], y[32];
    read_lanes(w, in.base, h);
    read_coords(w, in, x, y);
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
    ObjectCache cache;
    const SurfMode mode = static_cast<SurfMode>((in.flags >> kModeShift) & 3);
    uint32_t m = mask;
    while (m) { // lane order: the highest lane's value stays where lanes collide
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        m &= m - 1;
        const ImageObject* s = cache.get(w, h[lane], ImageObject::Kind::Surface, lane);
        if (!s) return Flow::Stop;
        uint8_t* p;
        if (!surface_target(w, *s, h[lane], int32_t(x[lane]), int32_t(y[lane]), Bytes * N, mode, lane, true, &p))
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

// [handle, {x, y}] or [handle, {x}]: sets base and aux; returns the coordinate count.
Expected<unsigned> image_operand(InstrDecoder& d, const ast::Operand& o, bool one_d, Type coord_type, Instr& in) {
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
    const size_t want = one_d ? 1 : 2;
    if (coords.size() != want) return d.error(fmt::format("expected {} coordinate(s)", want));
    uint32_t slots[2] = {kNoReg, kNoReg};
    for (size_t i = 0; i < want; ++i) slots[i] = D4R_TRY(d.src(*coords[i], coord_type));
    in.aux = uint64_t(slots[0]) | (uint64_t(slots[1]) << 32);
    return static_cast<unsigned>(want);
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

Expected<bool> geometry(InstrDecoder& d) {
    std::string_view g = d.mods().take_any({"1d", "2d"});
    if (g.empty()) {
        std::string_view other = d.mods().take_any({"3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms"});
        return d.error(other.empty() ? std::string("missing geometry (.1d or .2d)")
                                     : fmt::format("geometry .{} is not supported (2D texture objects only)", other));
    }
    return g == "1d";
}

Status decode_tex(InstrDecoder& d) {
    Modifiers& m = d.mods();
    if (m.take_any({"base", "level", "grad"}).size()) return d.error("mipmapped texture lookups are not supported");
    const bool one_d = D4R_TRY(geometry(d));
    if (m.take_vector() != 4) return d.error("only .v4 results are supported");
    const Type dtype = m.take_type(), ctype = m.take_type();
    D4R_TRY(d.finish());
    if (dtype != Type::F32 && dtype != Type::S32 && dtype != Type::U32)
        return d.error("result type must be .f32, .s32 or .u32");
    if (ctype != Type::F32 && ctype != Type::S32) return d.error("coordinate type must be .f32 or .s32");
    if (d.operand_count() != 2) return d.error("offsets and depth-compare operands are not supported");
    Instr tmp;
    D4R_TRY(image_operand(d, d.operand(1), one_d, ctype, tmp));
    uint32_t dst[4];
    D4R_TRY(vector_dsts(d, d.operand(0), 4, dtype, dst));
    Instr& in = d.emit(&exec_tex<0>);
    in.base = tmp.base;
    in.aux = tmp.aux;
    for (int k = 0; k < 4; ++k) in.d[k] = dst[k];
    in.count = 4;
    in.flags = (ctype == Type::S32 ? kIntCoords : 0) | (one_d ? kOneD : 0);
    return ok_status();
}

Status decode_tld4(InstrDecoder& d) {
    Modifiers& m = d.mods();
    std::string_view comp = m.take_any({"r", "g", "b", "a"});
    if (comp.empty()) return d.error("missing component (.r, .g, .b or .a)");
    if (D4R_TRY(geometry(d))) return d.error("tld4 needs .2d");
    if (m.take_vector() != 4) return d.error("tld4 returns .v4");
    const Type dtype = m.take_type(), ctype = m.take_type();
    D4R_TRY(d.finish());
    if (dtype != Type::F32 && dtype != Type::S32 && dtype != Type::U32)
        return d.error("result type must be .f32, .s32 or .u32");
    if (ctype != Type::F32) return d.error("tld4 coordinates are .f32");
    if (d.operand_count() != 2) return d.error("offsets and depth-compare operands are not supported");
    Instr tmp;
    D4R_TRY(image_operand(d, d.operand(1), false, ctype, tmp));
    uint32_t dst[4];
    D4R_TRY(vector_dsts(d, d.operand(0), 4, dtype, dst));
    Instr& in = d.emit(&exec_tex<1>);
    in.base = tmp.base;
    in.aux = tmp.aux;
    for (int k = 0; k < 4; ++k) in.d[k] = dst[k];
    in.count = 4;
    const uint16_t c = comp == "r" ? 0 : comp == "g" ? 1 : comp == "b" ? 2 : 3;
    in.flags = static_cast<uint16_t>(c << kCompShift);
    return ok_status();
}

struct SurfMods {
    bool one_d = false;
    unsigned vector = 1;
    Type type = Type::None;
    SurfMode mode = kTrap;
};

Expected<SurfMods> surf_mods(InstrDecoder& d, bool store) {
    Modifiers& m = d.mods();
    if (!m.take("b")) return d.error(store ? "only unformatted stores (sust.b) are supported" : "expected suld.b");
    SurfMods r;
    r.one_d = D4R_TRY(geometry(d));
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
    D4R_TRY(image_operand(d, d.operand(1), sm.one_d, Type::S32, tmp));
    uint32_t dst[4];
    D4R_TRY(vector_dsts(d, d.operand(0), sm.vector, wide ? Type::B64 : Type::B32, dst));
    ExecFn fn = surf_fn<false>(type_bits(sm.type) / 8, sm.vector);
    if (!fn) return d.error("unsupported surface load");
    Instr& in = d.emit(fn);
    in.base = tmp.base;
    in.aux = tmp.aux;
    for (unsigned k = 0; k < sm.vector; ++k) in.d[k] = dst[k];
    in.count = static_cast<uint8_t>(sm.vector);
    in.flags = static_cast<uint16_t>((wide ? kWideData : 0) | (sm.mode << kModeShift));
    return ok_status();
}

Status decode_sust(InstrDecoder& d) {
    SurfMods sm = D4R_TRY(surf_mods(d, true));
    D4R_TRY(d.expect_operands(2));
    const bool wide = sm.type == Type::B64;
    Instr tmp;
    D4R_TRY(image_operand(d, d.operand(0), sm.one_d, Type::S32, tmp));
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
    for (unsigned k = 0; k < sm.vector; ++k) in.s[k] = src[k];
    in.count = static_cast<uint8_t>(sm.vector);
    in.flags = static_cast<uint16_t>((wide ? kWideData : 0) | (sm.mode << kModeShift));
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
