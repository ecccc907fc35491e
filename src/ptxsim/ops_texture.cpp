// Texture and surface instructions through texture/surface objects (.u64 handles, ptxsim_texture.h):
//   tex.{1d,2d,3d,a1d,a2d,cube,acube}.v4.{f32,s32,u32}.f32 (and .s32 coordinates for .1d/.2d),
//   tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32,
//   suld.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero}, sust.b (same forms).
// What each form means, and the layout of its operands, is the front end's (ptx/instr_texture.h); here the
// objects, the registers and the handlers. The sampling arithmetic lives in texture.cpp. Texture references
// (.texref/.surfref variables), explicit samplers, offsets, depth compare, mipmap forms, multisample geometries,
// sust.p/sured/txq/suq are load-time "unsupported" errors. An instruction whose geometry does not match its
// object's image (tex.3d on a 2D texture, ...) stops the launch naming both.
//
// Instr use: base = handle slot (64-bit); aux = x slot | y slot << 32; imm = z slot | layer slot << 32
// (kNoReg where the geometry has none); tex/tld4/suld: d[0..count-1] destinations; sust: s[0..count-1]
// values; count = vector length; flags: see TexFlags.
//
// The PTX JIT's runtime helpers run the same code: CompiledRuntime::image (compiled_image below) one lane, warp code's
// warp_matrix image form (compiled_warp_image) the warp's lanes in one call: the object lookup and geometry check,
// tex_lane and surface_lane.
#include <algorithm>

#include <fmt/format.h>

#include "ptx/instr_decode.h"
#include "ptx/instr_texture.h"
#include "ptxsim/compiled.h"
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
// The front end's out-of-range modes in the same order.
static_assert(uint16_t(ptx::TextureOp::Clamp::Trap) == kTrap && uint16_t(ptx::TextureOp::Clamp::Clamp) == kClamp &&
              uint16_t(ptx::TextureOp::Clamp::Zero) == kZero);

// The instruction's geometry: the front end's (ptx/instr_texture.h).
using Geo = ptx::TextureOp::Geometry;
constexpr Geo kG1D = Geo::D1, kG2D = Geo::D2, kG3D = Geo::D3, kGA1D = Geo::A1D, kGA2D = Geo::A2D, kGCube = Geo::Cube,
              kGACube = Geo::ACube;

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
                      ptx::geometry_name(g), surface ? "surface" : "texture", surface ? "surface" : "texture", handle,
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

// One lane of tex (Mode 0) or tld4 (Mode 1) of geometry G with the instruction's FLAGS on texture T at the
// coordinates' bits X, Y, Z and the layer (or cube) index.
template <int Mode>
D4R_INLINE TexResult tex_lane(const ImageObject& t, Geo g, uint16_t flags, uint32_t cx, uint32_t cy, uint32_t cz,
                              uint32_t layer) {
    const float x = std::bit_cast<float>(cx), y = std::bit_cast<float>(cy), z = std::bit_cast<float>(cz);
    if constexpr (Mode == 1) return gather(t, x, y, (flags >> kCompShift) & 3);
    if (flags & kIntCoords) return fetch_texel(t, static_cast<int32_t>(cx), static_cast<int32_t>(cy));
    switch (g) {
    case kG1D:
    case kG2D:
        return sample(t, x, y, g == kG1D);
    case kG3D:
        return sample_3d(t, x, y, z);
    case kGA1D:
    case kGA2D:
        return sample_layer(t, layer, x, y);
    case kGCube:
    case kGACube:
        return sample_cube(t, layer, x, y, z);
    }
    return {};
}

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
        const TexResult r = tex_lane<Mode>(*t, g, in.flags, c.x[lane], c.y[lane], c.z[lane], c.layer[lane]);
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
D4R_INLINE int64_t surface_plane(Geo g, uint32_t z, uint32_t layer) {
    if (g == kG3D) return int32_t(z);
    if (g == kGA1D || g == kGA2D) return int64_t(layer);
    return 0;
}

// One lane of a surface load (V[k * STRIDE] receives element k, or keeps its zero when a .zero access is dropped)
// or STORE (V[k * STRIDE] holds element k) of N elements of BYTES each on surface S at (X bytes, Y, PLANE); false
// after recording a fault.
D4R_INLINE bool surface_lane(Warp& w, const ImageObject& s, uint64_t handle, uint32_t x, uint32_t y, int64_t plane,
                             Geo g, unsigned bytes, unsigned n, SurfMode mode, unsigned lane, bool store, uint64_t* v,
                             size_t stride) {
    uint8_t* p;
    if (!surface_target(w, s, handle, int32_t(x), int32_t(y), plane, g, bytes * n, mode, lane, store, &p)) return false;
    if (!p) return true;
    for (unsigned k = 0; k < n; ++k) {
        if (store) {
            std::memcpy(p + k * bytes, &v[k * stride], bytes);
        } else {
            uint64_t e = 0;
            std::memcpy(&e, p + k * bytes, bytes);
            v[k * stride] = e;
        }
    }
    return true;
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
        if (!surface_lane(w, *s, h[lane], c.x[lane], c.y[lane], surface_plane(g, c.z[lane], c.layer[lane]), g, Bytes, N,
                          mode, lane, false, &v[0][lane], 32))
            return Flow::Stop;
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
        if (!surface_lane(w, *s, h[lane], c.x[lane], c.y[lane], surface_plane(g, c.z[lane], c.layer[lane]), g, Bytes, N,
                          mode, lane, true, &v[0][lane], 32))
            return Flow::Stop;
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

// [handle, {coordinates}] (its shape checked by the front end) in the layout the front end gives: the handle a 64-bit
// register, the coordinates of type T.COORDINATE (the layer .u32). Sets base, aux and imm.
Status image_operand(InstrDecoder& d, const ptx::TextureOp& t, Instr& in) {
    const ast::Operand& o = d.operand(t.image_operand);
    auto sym = d.lookup(o.name);
    if (!sym || sym->kind != Symbol::Kind::Reg || !sym->wide)
        return d.error(fmt::format("'{}' is not a 64-bit register: texture/surface references (.texref, .surfref) "
                                   "are not supported, only texture and surface objects",
                                   o.name));
    in.base = static_cast<uint32_t>(sym->value);
    const std::vector<const ast::Operand*> coords = ptx::decode::vector_elements(o.elements[0]);
    auto slot = [&](int index, Type type) -> Expected<uint32_t> {
        if (index < 0) return kNoReg;
        return d.src(*coords[size_t(index)], type);
    };
    const ptx::TextureOp::Coordinates& l = t.coordinates;
    const uint32_t x = D4R_TRY(slot(l.x, t.coordinate)), y = D4R_TRY(slot(l.y, t.coordinate));
    const uint32_t z = D4R_TRY(slot(l.z, t.coordinate)), layer = D4R_TRY(slot(l.layer, Type::U32));
    in.aux = uint64_t(x) | (uint64_t(y) << 32);
    in.imm = static_cast<int64_t>(uint64_t(z) | (uint64_t(layer) << 32));
    return ok_status();
}

// The flags (TexFlags) of T's handler.
uint16_t tex_flags(const ptx::TextureOp& t) {
    using Op = ptx::TextureOp::Op;
    auto flags = static_cast<uint16_t>(uint16_t(t.geometry) << kGeoShift);
    switch (t.op) {
    case Op::Tex:
        flags |= t.coordinate == Type::S32 ? kIntCoords : 0;
        break;
    case Op::Gather:
        flags |= static_cast<uint16_t>(uint16_t(t.component) << kCompShift);
        break;
    case Op::SurfaceLoad:
    case Op::SurfaceStore:
        flags |= static_cast<uint16_t>((t.data == Type::B64 ? kWideData : 0) | (uint16_t(t.clamp) << kModeShift));
        break;
    }
    return flags;
}

// The family's meaning is the front end's (ptx/instr_texture.h); here the object, the registers and the handler.
Status decode_texture(InstrDecoder& d) {
    const ptx::TextureOp t = D4R_TRY(d.typed(ptx::decode_texture));
    using Op = ptx::TextureOp::Op;
    Instr tmp;
    D4R_TRY(image_operand(d, t, tmp));
    // The data: tex/tld4 results of their type; surface elements in 32-bit slots, 64-bit ones for .b64.
    const bool surface = t.op == Op::SurfaceLoad || t.op == Op::SurfaceStore;
    const bool wide = t.data == Type::B64;
    const Type slot_type = !surface ? t.data : wide ? Type::B64 : Type::B32;
    const std::vector<const ast::Operand*> data = ptx::decode::vector_elements(d.operand(t.data_operand));
    uint32_t regs[4];
    for (unsigned k = 0; k < t.vector; ++k)
        regs[k] = t.op == Op::SurfaceStore ? D4R_TRY(d.src(*data[k], slot_type)) : D4R_TRY(d.dst(*data[k], slot_type));
    ExecFn fn = nullptr;
    const uint16_t flags = tex_flags(t);
    switch (t.op) {
    case Op::Tex:
        fn = &exec_tex<0>;
        break;
    case Op::Gather:
        fn = &exec_tex<1>;
        break;
    case Op::SurfaceLoad:
    case Op::SurfaceStore: {
        const bool store = t.op == Op::SurfaceStore;
        fn = store ? surf_fn<true>(type_bits(t.data) / 8, t.vector) : surf_fn<false>(type_bits(t.data) / 8, t.vector);
        if (!fn) return d.error(store ? "unsupported surface store" : "unsupported surface load");
        break;
    }
    }
    Instr& in = d.emit(fn);
    in.base = tmp.base;
    in.aux = tmp.aux;
    in.imm = tmp.imm;
    for (unsigned k = 0; k < t.vector; ++k) (t.op == Op::SurfaceStore ? in.s[k] : in.d[k]) = regs[k];
    in.count = static_cast<uint8_t>(t.vector);
    in.flags = flags;
    return ok_status();
}

// image_op_code: the handler's flags (bits 0-15), the element's bytes (16-19), the vector length (20-23) and the
// operation (24-27).
constexpr unsigned kCodeBytesShift = 16, kCodeVectorShift = 20, kCodeOpShift = 24;

} // namespace

uint32_t image_op_code(const ptx::TextureOp& t) {
    return uint32_t(tex_flags(t)) | ((type_bits(t.data) / 8) << kCodeBytesShift) | (t.vector << kCodeVectorShift) |
           (uint32_t(t.op) << kCodeOpShift);
}

namespace {

// One lane of the texture or surface instruction CODE (image_op_code) for compiled code: the object behind HANDLE
// (looked up through OBJECTS, which keeps the last one), then tex_lane or surface_lane. DATA: four 64-bit words, the
// results (tex, tld4, suld) or the values sust stores (STRIDE words apart). False after recording the fault.
D4R_INLINE bool image_lane(Warp& w, CheckedObjects& objects, uint32_t code, unsigned lane, uint64_t handle, uint32_t x,
                           uint32_t y, uint32_t z, uint32_t layer, uint64_t* data, size_t stride) {
    using Op = ptx::TextureOp::Op;
    const auto flags = static_cast<uint16_t>(code);
    const Geo g = static_cast<Geo>((flags >> kGeoShift) & 7);
    const auto op = static_cast<Op>((code >> kCodeOpShift) & 0xfu);
    const bool surface = op == Op::SurfaceLoad || op == Op::SurfaceStore;
    const ImageObject* o =
        objects.get(w, handle, surface ? ImageObject::Kind::Surface : ImageObject::Kind::Texture, g, lane);
    if (!o) return false;
    if (!surface) {
        const TexResult r =
            op == Op::Gather ? tex_lane<1>(*o, g, flags, x, y, z, layer) : tex_lane<0>(*o, g, flags, x, y, z, layer);
        for (int k = 0; k < 4; ++k) data[k * stride] = r.v[k];
        return true;
    }
    const bool store = op == Op::SurfaceStore;
    if (!store)
        for (int k = 0; k < 4; ++k) data[k * stride] = 0;
    const auto mode = static_cast<SurfMode>((flags >> kModeShift) & 3);
    return surface_lane(w, *o, handle, x, y, surface_plane(g, z, layer), g, (code >> kCodeBytesShift) & 0xfu,
                        (code >> kCodeVectorShift) & 0xfu, mode, lane, store, data, stride);
}

} // namespace

uint32_t compiled_image(CompiledThread* thread, uint32_t code, uint64_t handle, uint32_t x, uint32_t y, uint32_t z,
                        uint32_t layer, uint64_t* data) {
    Warp& w = *static_cast<Warp*>(thread->warp);
    CheckedObjects objects;
    return image_lane(w, objects, code, thread->lane, handle, x, y, z, layer, data, 1) ? 1 : 0;
}

bool compiled_warp_image(Warp& w, uint32_t code, uint32_t exec, void* const* registers) {
    const auto* handles = static_cast<const uint64_t*>(registers[0]);
    const auto* x = static_cast<const uint32_t*>(registers[1]);
    const auto* y = static_cast<const uint32_t*>(registers[2]);
    const auto* z = static_cast<const uint32_t*>(registers[3]);
    const auto* layer = static_cast<const uint32_t*>(registers[4]);
    uint64_t* data[4];
    for (int k = 0; k < 4; ++k) data[k] = static_cast<uint64_t*>(registers[5 + k]);
    CheckedObjects objects;                  // one lookup and geometry check per distinct handle, as exec_tex's
    for (uint32_t m = exec; m; m &= m - 1) { // lane order: the first faulting lane reports, the last store stays
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        uint64_t v[4];
        for (int k = 0; k < 4; ++k) v[k] = data[k][lane];
        if (!image_lane(w, objects, code, lane, handles[lane], x[lane], y[lane], z[lane], layer[lane], v, 1))
            return false;
        for (int k = 0; k < 4; ++k) data[k][lane] = v[k];
    }
    return true;
}

void add_texture_ops(OpcodeTable& t) {
    t["tex"] = &decode_texture;
    t["tld4"] = &decode_texture;
    t["suld"] = &decode_texture;
    t["sust"] = &decode_texture;
}

} // namespace d4r::ptxsim
