// Warp matrix instructions: wmma.load.{a,b,c}, wmma.store.d and wmma.mma for the shapes and types
// nvcc emits for sm_70 to sm_90: m16n16k16, m32n8k16, m8n32k16 with f16 or bf16 inputs (f16 or f32
// accumulators) and s8/u8 inputs (s32 accumulators, optional .satfinite); m16n16k8 with tf32 inputs;
// m8n8k4 with f64; and the sub-byte forms of nvcuda::wmma::experimental: m8n8k32 with s4/u4 inputs
// (s32 accumulators, optional .satfinite) and m8n8k128 with b1 inputs (.xor.popc, or .and.popc from
// sm_80 on; s32 accumulators). Sub-byte A is row-major and B column-major only, A and B have the same
// type (the ISA has no mixed-signedness wmma), and they need a .target of sm_75 or later.
//
// Fragments: how matrix elements sit in a lane's registers is unspecified by CUDA (programs may only
// load, store, mma and apply element-wise operations), so ptxsim uses one simple mapping for every
// fragment of an R x C matrix: unique element u of lane l is element (i / C, i % C) with i = 32u + l,
// packed low bits first (two f16/bf16, four s8/u8, eight s4/u4 or thirty-two b1 per 32-bit register,
// so each sub-byte A or B fragment is the one register the ISA declares). The f16 A and B fragments
// have 8 registers whatever the shape, as the ISA states; the elements beyond the unique ones repeat
// them. Loads and stores touch only the executing lane's own elements, so they are not collectives;
// wmma.mma needs the whole warp, like mma.sync.
//
// Sub-byte memory: the stride counts elements (4-bit or 1-bit units, as the ISA says), element e of a
// row or column lies at bit e * width from its start, low bits of each byte first; every row of A and
// column of B must start 4-byte aligned (the fragment's size), so the address must be a multiple of 4
// and the stride of 8 (s4/u4) or 32 (b1) elements: otherwise the load faults with a misaligned address.
//
// Arithmetic: f16/bf16 dot products of K = 16 follow mma.sync's measured rule (mma_numerics.h);
// tf32 inputs drop their 13 low mantissa bits and follow the same rule with 10-bit significands in two
// passes of k = 4, the first pass's f32 result the second's accumulator (measured on the H200 with
// tests/device/wmma_tf32_probe.cu: 512 of 512 results bit exact, against 402 for one pass of 8); s8/u8 products are
// exact and summed in 32 bits (wrapping, or clamped with .satfinite), as are s4/u4 products; b1 is popc(row of A
// AND/XOR column of B) added to C (32-bit wrapping); f64 is an IEEE fused multiply-add per k in k order.
//
// Instr use: flags = kAddr32 | fragment | col layout | shape | type (see pack_spec), count = registers,
// aux = index of the register list in Program::branch_tables (mma: D, A, B, C), base/imm the address,
// s[0] the stride register (kNoReg: the default, the matrix's row or column length); mma: s[0] the
// full member mask, count the D type | kSatfinite | kAndPopc | kXorPopc, flags bits 10-13 the C type.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/mma.h"
#include "ptxsim/mma_numerics.h"
#include "ptxsim/program_builder.h"

namespace d4r::ptxsim {

namespace {

using mma::Elem;
using mma::Format;

enum class Frag : uint8_t { A, B, C };
enum class WShape : uint8_t { M16N16K16, M32N8K16, M8N32K16, M16N16K8, M8N8K4, M8N8K32, M8N8K128 };
enum class EType : uint8_t { F16, BF16, F32, S8, U8, S32, TF32, F64, S4, U4, B1 };

struct Dims {
    unsigned m, n, k;
};
constexpr Dims dims_of(WShape s) {
    switch (s) {
    case WShape::M16N16K16:
        return {16, 16, 16};
    case WShape::M32N8K16:
        return {32, 8, 16};
    case WShape::M8N32K16:
        return {8, 32, 16};
    case WShape::M16N16K8:
        return {16, 16, 8};
    case WShape::M8N8K4:
        return {8, 8, 4};
    case WShape::M8N8K32:
        return {8, 8, 32};
    case WShape::M8N8K128:
        return {8, 8, 128};
    }
    return {16, 16, 16};
}
constexpr bool sub_byte(EType t) { return t == EType::S4 || t == EType::U4 || t == EType::B1; }
constexpr unsigned bits_of(EType t) {
    switch (t) {
    case EType::F16:
    case EType::BF16:
        return 16;
    case EType::S8:
    case EType::U8:
        return 8;
    case EType::S4:
    case EType::U4:
        return 4;
    case EType::B1:
        return 1;
    case EType::F64:
        return 64;
    default:
        return 32;
    }
}

// The matrix a fragment holds: rows x cols.
constexpr std::pair<unsigned, unsigned> matrix_of(Frag f, Dims d) {
    return f == Frag::A ? std::pair{d.m, d.k} : f == Frag::B ? std::pair{d.k, d.n} : std::pair{d.m, d.n};
}

// Registers of a fragment as the ISA declares them.
constexpr unsigned regs_of(Frag f, WShape s, EType t) {
    if (f != Frag::C && t == EType::F16) return 8;
    const auto [rows, cols] = matrix_of(f, dims_of(s));
    const unsigned per_reg = t == EType::F64 ? 1 : 32 / bits_of(t);
    return rows * cols / 32 / per_reg;
}

// flags layout: bits 0-1 fragment, 2 col-major, 3-5 shape, 6-9 type; kAddr32 (0x8000) stays free.
constexpr uint16_t kCol = 4;
constexpr uint16_t pack_spec(Frag f, bool col, WShape s, EType t) {
    return static_cast<uint16_t>(static_cast<unsigned>(f) | (col ? kCol : 0) | static_cast<unsigned>(s) << 3 |
                                 static_cast<unsigned>(t) << 6);
}
Frag frag_of(uint16_t flags) { return static_cast<Frag>(flags & 3); }
WShape shape_of(uint16_t flags) { return static_cast<WShape>((flags >> 3) & 7); }
EType type_of(uint16_t flags) { return static_cast<EType>((flags >> 6) & 15); }

// Element E of a fragment in lane LANE: its bits in the lane's registers REGS (read or written).
struct FragmentView {
    Warp& w;
    const uint32_t* regs;
    unsigned lane;
    EType type;

    uint64_t get(unsigned e) const {
        const unsigned bits = bits_of(type);
        if (bits == 64) return lane_slot64(w, regs[e], lane);
        const unsigned per = 32 / bits;
        const uint32_t v = lane_slot32(w, regs[e / per], lane);
        return bits == 32 ? v : (v >> (bits * (e % per))) & ((1u << bits) - 1);
    }
    void set(unsigned e, uint64_t value) const {
        const unsigned bits = bits_of(type);
        if (bits == 64) {
            lane_slot64(w, regs[e], lane) = value;
            return;
        }
        const unsigned per = 32 / bits;
        uint32_t& v = lane_slot32(w, regs[e / per], lane);
        if (bits == 32) {
            v = static_cast<uint32_t>(value);
            return;
        }
        const unsigned shift = bits * (e % per);
        const uint32_t field = ((1u << bits) - 1) << shift;
        v = (v & ~field) | ((static_cast<uint32_t>(value) << shift) & field);
    }
};

// Elements of the fragment in one lane (duplicates included) and the unique ones.
unsigned elements_of(const Instr& in, EType t) { return in.count * (t == EType::F64 ? 1 : 32 / bits_of(t)); }

// A sub-byte A or B fragment (s4/u4/b1, loads only: there is no sub-byte store) for the lanes of MASK.
template <Space S>
Flow load_sub_byte(Warp& w, const Instr& in, uint32_t mask) {
    const EType t = type_of(in.flags);
    const auto [rows, cols] = matrix_of(frag_of(in.flags), dims_of(shape_of(in.flags)));
    const bool col = in.flags & kCol;
    const unsigned bits = bits_of(t);
    const unsigned n = rows * cols / 32; // one register: every element is unique
    const uint32_t reg = w.launch->program->branch_tables[in.aux][0];
    uint32_t m = mask;
    while (m) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        m &= m - 1;
        const uint64_t base = lane_address(w, in, lane);
        const uint64_t stride = in.s[0] != kNoReg ? lane_slot32(w, in.s[0], lane) : (col ? rows : cols);
        // Each row of A / column of B starts at a multiple of the fragment's 4 bytes.
        if (base % 4 != 0 || stride * bits % 32 != 0)
            return fault(w, FaultKind::MisalignedAddress, lane, base, 4,
                         fmt::format("wmma.load of {}-bit elements: address 0x{:x} and stride {} elements must "
                                     "start every row or column on a 4-byte boundary",
                                     bits, base, stride));
        uint32_t value = 0;
        for (unsigned e = 0; e < n; ++e) {
            const unsigned i = e * 32 + lane;
            const uint64_t r = i / cols, c = i % cols;
            const uint64_t bit = (col ? c * stride + r : r * stride + c) * bits;
            const uint8_t* p = translate<S>(w, lane, base + bit / 8, 1, false);
            if (!p) return Flow::Stop;
            value |= ((*p >> (bit % 8)) & ((1u << bits) - 1)) << (e * bits);
        }
        lane_slot32(w, reg, lane) = value;
    }
    return Flow::Next;
}

template <Space S, bool Store>
Flow exec_wmma_ldst(Warp& w, const Instr& in, uint32_t mask) {
    if constexpr (!Store) {
        if (sub_byte(type_of(in.flags))) return load_sub_byte<S>(w, in, mask);
    }
    const Frag f = frag_of(in.flags);
    const EType t = type_of(in.flags);
    const auto [rows, cols] = matrix_of(f, dims_of(shape_of(in.flags)));
    const bool col = in.flags & kCol;
    const unsigned unique = rows * cols / 32;
    const unsigned n = elements_of(in, t);
    const unsigned bytes = bits_of(t) / 8;
    const uint32_t* regs = w.launch->program->branch_tables[in.aux].data();
    uint32_t m = mask;
    while (m) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        m &= m - 1;
        const uint64_t base = lane_address(w, in, lane);
        const uint64_t stride = in.s[0] != kNoReg ? lane_slot32(w, in.s[0], lane) : (col ? rows : cols);
        FragmentView view{w, regs, lane, t};
        for (unsigned e = 0; e < n; ++e) {
            const unsigned i = (e % unique) * 32 + lane;
            const uint64_t r = i / cols, c = i % cols;
            const uint64_t addr = base + (col ? c * stride + r : r * stride + c) * bytes;
            uint8_t* p = translate<S>(w, lane, addr, bytes, Store);
            if (!p) return Flow::Stop;
            uint64_t v = 0;
            if constexpr (Store) {
                v = view.get(e);
                std::memcpy(p, &v, bytes);
            } else {
                std::memcpy(&v, p, bytes);
                view.set(e, v);
            }
        }
    }
    return Flow::Next;
}

// A tf32 input: the 13 low mantissa bits are ignored, the value carries 10 fraction bits.
Elem decode_tf32(uint32_t bits) {
    Elem e = mma::decode(bits & 0xffffe000u, Format::F32);
    e.m >>= 13;
    return e;
}

Elem decode_input(uint64_t bits, EType t) {
    switch (t) {
    case EType::F16:
        return mma::decode(static_cast<uint32_t>(bits), Format::F16);
    case EType::BF16:
        return mma::decode(static_cast<uint32_t>(bits), Format::BF16);
    default:
        return decode_tf32(static_cast<uint32_t>(bits));
    }
}

double as_f64(uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
}

// wmma.mma keeps the A/B type in flags bits 6-9 (pack_spec) and the C type in bits 10-13; count holds
// the D type, kSatfinite and (b1) the bit operation.
constexpr uint8_t kSatfinite = 0x80;
constexpr uint8_t kAndPopc = 0x40; // b1: popc(a AND b)
constexpr uint8_t kXorPopc = 0x20; // b1: popc(a XOR b)

// m8n8k32 (s4/u4) and m8n8k128 (b1): A and B are one register per lane, C and D two.
template <WShape Shape>
Flow exec_wmma_mma_sub_byte(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    Flow flow;
    if (!whole_warp(w, in, mask, g, flow)) return flow;
    constexpr Dims dm = dims_of(Shape);
    const EType ab = type_of(in.flags);
    const bool satfinite = in.count & kSatfinite;
    const bool and_popc = in.count & kAndPopc;
    const auto& tables = w.launch->program->branch_tables;
    // Operand list: D (2 registers), A (1), B (1), C (2).
    uint8_t a[dm.m][dm.k] = {}, b[dm.n][dm.k] = {}; // b[j][k]: column j of B
    int32_t c[dm.m][dm.n] = {};
    for (unsigned l = 0; l < 32; ++l) {
        const uint32_t* ops = tables[g.instr[l]->aux].data();
        FragmentView av{w, ops + 2, l, ab}, bv{w, ops + 3, l, ab}, cv{w, ops + 4, l, EType::S32};
        for (unsigned u = 0; u < dm.m * dm.k / 32; ++u) {
            const unsigned i = u * 32 + l;
            a[i / dm.k][i % dm.k] = static_cast<uint8_t>(av.get(u));
        }
        for (unsigned u = 0; u < dm.k * dm.n / 32; ++u) {
            const unsigned i = u * 32 + l;
            b[i % dm.n][i / dm.n] = static_cast<uint8_t>(bv.get(u));
        }
        for (unsigned u = 0; u < dm.m * dm.n / 32; ++u) {
            const unsigned i = u * 32 + l;
            c[i / dm.n][i % dm.n] = static_cast<int32_t>(cv.get(u));
        }
    }
    int32_t d[dm.m][dm.n];
    if constexpr (Shape == WShape::M8N8K128) {
        constexpr unsigned kWords = dm.k / 32; // a row of A / column of B as 32-bit words
        uint32_t arow[dm.m][kWords] = {}, bcol[dm.n][kWords] = {};
        for (unsigned i = 0; i < dm.m; ++i)
            for (unsigned k = 0; k < dm.k; ++k) arow[i][k / 32] |= uint32_t(a[i][k]) << (k % 32);
        for (unsigned j = 0; j < dm.n; ++j)
            for (unsigned k = 0; k < dm.k; ++k) bcol[j][k / 32] |= uint32_t(b[j][k]) << (k % 32);
        for (unsigned i = 0; i < dm.m; ++i)
            for (unsigned j = 0; j < dm.n; ++j) {
                uint32_t s = static_cast<uint32_t>(c[i][j]);
                for (unsigned q = 0; q < kWords; ++q)
                    s += static_cast<uint32_t>(
                        __builtin_popcount(and_popc ? arow[i][q] & bcol[j][q] : arow[i][q] ^ bcol[j][q]));
                d[i][j] = static_cast<int32_t>(s);
            }
    } else {
        const bool is_signed = ab == EType::S4;
        auto value = [is_signed](uint8_t v) { return is_signed ? int64_t(v & 8 ? int(v) - 16 : int(v)) : int64_t(v); };
        for (unsigned i = 0; i < dm.m; ++i)
            for (unsigned j = 0; j < dm.n; ++j) {
                int64_t s = c[i][j];
                for (unsigned k = 0; k < dm.k; ++k) s += value(a[i][k]) * value(b[j][k]);
                if (satfinite) s = std::clamp<int64_t>(s, INT32_MIN, INT32_MAX);
                d[i][j] = static_cast<int32_t>(static_cast<uint32_t>(s));
            }
    }
    for (unsigned l = 0; l < 32; ++l) {
        const uint32_t* ops = tables[g.instr[l]->aux].data();
        FragmentView dv{w, ops, l, EType::S32};
        for (unsigned u = 0; u < dm.m * dm.n / 32; ++u) {
            const unsigned i = u * 32 + l;
            dv.set(u, static_cast<uint32_t>(d[i / dm.n][i % dm.n]));
        }
    }
    return g.simple() ? Flow::Next : finish_collective(w, g);
}

template <WShape Shape>
Flow exec_wmma_mma(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    Flow flow;
    if (!whole_warp(w, in, mask, g, flow)) return flow;
    constexpr Dims dm = dims_of(Shape);
    const EType ab = type_of(in.flags);
    const EType ct = static_cast<EType>((in.flags >> 10) & 15);
    const EType dt = static_cast<EType>(in.count & 15);
    const bool satfinite = in.count & kSatfinite;
    const auto& tables = w.launch->program->branch_tables;
    const unsigned nd = regs_of(Frag::C, Shape, dt), na = regs_of(Frag::A, Shape, ab), nb = regs_of(Frag::B, Shape, ab);

    uint64_t a[32][16], b[16][32], c[32][32];
    for (unsigned l = 0; l < 32; ++l) {
        const uint32_t* ops = tables[g.instr[l]->aux].data();
        FragmentView av{w, ops + nd, l, ab}, bv{w, ops + nd + na, l, ab}, cv{w, ops + nd + na + nb, l, ct};
        for (unsigned u = 0; u < dm.m * dm.k / 32; ++u) {
            const unsigned i = u * 32 + l;
            a[i / dm.k][i % dm.k] = av.get(u);
        }
        for (unsigned u = 0; u < dm.k * dm.n / 32; ++u) {
            const unsigned i = u * 32 + l;
            b[i / dm.n][i % dm.n] = bv.get(u);
        }
        for (unsigned u = 0; u < dm.m * dm.n / 32; ++u) {
            const unsigned i = u * 32 + l;
            c[i / dm.n][i % dm.n] = cv.get(u);
        }
    }
    uint64_t d[32][32];
    if (ab == EType::S8 || ab == EType::U8) {
        for (unsigned i = 0; i < dm.m; ++i)
            for (unsigned j = 0; j < dm.n; ++j) {
                int64_t s = static_cast<int32_t>(c[i][j]);
                for (unsigned k = 0; k < dm.k; ++k) {
                    int64_t x = ab == EType::S8 ? int8_t(a[i][k]) : int64_t(uint8_t(a[i][k]));
                    int64_t y = ab == EType::S8 ? int8_t(b[k][j]) : int64_t(uint8_t(b[k][j]));
                    s += x * y;
                }
                if (satfinite) s = std::clamp<int64_t>(s, INT32_MIN, INT32_MAX);
                d[i][j] = static_cast<uint32_t>(static_cast<int32_t>(static_cast<uint32_t>(s)));
            }
    } else if (ab == EType::F64) {
        for (unsigned i = 0; i < dm.m; ++i)
            for (unsigned j = 0; j < dm.n; ++j) {
                double s = as_f64(c[i][j]);
                for (unsigned k = 0; k < dm.k; ++k) s = std::fma(as_f64(a[i][k]), as_f64(b[k][j]), s);
                std::memcpy(&d[i][j], &s, 8);
            }
    } else {
        const int in_man = ab == EType::BF16 ? 7 : 10;
        const bool out_f16 = dt == EType::F16;
        // Every column of B decoded once (not once per row of A).
        Elem arow[16], bcols[32][16];
        for (unsigned j = 0; j < dm.n; ++j)
            for (unsigned k = 0; k < dm.k; ++k) bcols[j][k] = decode_input(b[k][j], ab);
        for (unsigned i = 0; i < dm.m; ++i) {
            for (unsigned k = 0; k < dm.k; ++k) arow[k] = decode_input(a[i][k], ab);
            for (unsigned j = 0; j < dm.n; ++j) {
                const Elem* bcol = bcols[j];
                const Elem ce =
                    mma::decode(static_cast<uint32_t>(c[i][j]), ct == EType::F16 ? Format::F16 : Format::F32);
                if (ab == EType::TF32) {
                    // Two passes of k = 4 (as sm_80 and later issue tf32 MMAs), the first's f32 result
                    // the second's accumulator: measured on the H200.
                    const uint32_t half = mma::dot(arow, bcol, 4, ce, in_man, false);
                    d[i][j] = mma::dot(arow + 4, bcol + 4, 4, mma::decode(half, Format::F32), in_man, false);
                } else {
                    d[i][j] = mma::dot(arow, bcol, static_cast<int>(dm.k), ce, in_man, out_f16);
                }
            }
        }
    }
    for (unsigned l = 0; l < 32; ++l) {
        const uint32_t* ops = tables[g.instr[l]->aux].data();
        FragmentView dv{w, ops, l, dt};
        for (unsigned u = 0; u < dm.m * dm.n / 32; ++u) {
            const unsigned i = u * 32 + l;
            dv.set(u, d[i / dm.n][i % dm.n]);
        }
    }
    return g.simple() ? Flow::Next : finish_collective(w, g);
}

// ---- decoding ---------------------------------------------------------------------------------------

constexpr const char* kShapes = "m16n16k16, m32n8k16, m8n32k16, m16n16k8, m8n8k4, m8n8k32, m8n8k128 are";

std::optional<WShape> take_shape(Modifiers& m) {
    std::string_view s = m.take_any({"m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k4", "m8n8k32", "m8n8k128"});
    if (s == "m16n16k16") return WShape::M16N16K16;
    if (s == "m32n8k16") return WShape::M32N8K16;
    if (s == "m8n32k16") return WShape::M8N32K16;
    if (s == "m16n16k8") return WShape::M16N16K8;
    if (s == "m8n8k4") return WShape::M8N8K4;
    if (s == "m8n8k32") return WShape::M8N8K32;
    if (s == "m8n8k128") return WShape::M8N8K128;
    return std::nullopt;
}

std::optional<EType> etype_of(std::string_view t) {
    if (t == "f16") return EType::F16;
    if (t == "bf16") return EType::BF16;
    if (t == "f32") return EType::F32;
    if (t == "s8") return EType::S8;
    if (t == "u8") return EType::U8;
    if (t == "s32") return EType::S32;
    if (t == "tf32") return EType::TF32;
    if (t == "f64") return EType::F64;
    if (t == "s4") return EType::S4;
    if (t == "u4") return EType::U4;
    if (t == "b1") return EType::B1;
    return std::nullopt;
}

// The next type modifier a wmma instruction names ("" when none is left).
std::string_view take_type_name(Modifiers& m) {
    return m.take_any({"f16", "bf16", "f32", "s8", "u8", "s32", "tf32", "f64", "s4", "u4", "b1"});
}

// Which input types a shape takes.
bool input_fits(WShape s, EType t) {
    switch (s) {
    case WShape::M16N16K8:
        return t == EType::TF32;
    case WShape::M8N8K4:
        return t == EType::F64;
    case WShape::M8N8K32:
        return t == EType::S4 || t == EType::U4;
    case WShape::M8N8K128:
        return t == EType::B1;
    default:
        return t == EType::F16 || t == EType::BF16 || t == EType::S8 || t == EType::U8;
    }
}

constexpr bool sub_byte_shape(WShape s) { return s == WShape::M8N8K32 || s == WShape::M8N8K128; }

// The architecture number of the module's .target ("sm_75" -> 75, "compute_80" -> 80), 0 when none.
unsigned target_sm(InstrDecoder& d) {
    std::string_view t = d.builder().ctx().target;
    for (std::string_view prefix : {"sm_", "compute_"}) {
        if (t.substr(0, prefix.size()) != prefix) continue;
        unsigned n = 0;
        for (char ch : t.substr(prefix.size())) {
            if (ch < '0' || ch > '9') break;
            n = n * 10 + static_cast<unsigned>(ch - '0');
        }
        return n;
    }
    return 0;
}

// Sub-byte and single-bit wmma need sm_75 (ptxas refuses them for older targets).
Status sub_byte_target(InstrDecoder& d) {
    const unsigned sm = target_sm(d);
    if (sm != 0 && sm < 75)
        return d.error(fmt::format("sub-byte and single-bit wmma need .target sm_75 or later (the module targets {})",
                                   d.builder().ctx().target));
    return ok_status();
}

// The register list operand of a fragment (32-bit registers, or 64-bit for f64).
Status frag_list(InstrDecoder& d, const ast::Operand& o, unsigned n, EType t, std::vector<uint32_t>& out,
                 const char* what) {
    if (o.kind != ast::OperandKind::Vector || o.elements.size() != n)
        return d.error(fmt::format("{} must be a list of {} registers", what, n));
    for (const ast::Operand& e : o.elements) {
        if (e.kind != ast::OperandKind::Name || e.name == "_")
            return d.error(fmt::format("{}: expected registers", what));
        InstrDecoder::Reg r = D4R_TRY(d.reg(e));
        if (r.wide != (t == EType::F64))
            return d.error(fmt::format("{}: register '{}' is not {} bits", what, e.name, t == EType::F64 ? 64 : 32));
        out.push_back(r.offset);
    }
    return ok_status();
}

Status decode_ldst(InstrDecoder& d, bool store) {
    Modifiers& m = d.mods();
    std::string_view which = store ? (m.take("d") ? "d" : "") : m.take_any({"a", "b", "c"});
    if (which.empty()) return d.error(store ? "wmma.store needs .d" : "wmma.load needs .a, .b or .c");
    if (!m.take("sync") || !m.take("aligned")) return d.error("wmma needs .sync.aligned");
    std::string_view layout = m.take_any({"row", "col"});
    if (layout.empty()) return d.error("wmma.load/store needs .row or .col");
    std::optional<WShape> shape = take_shape(m);
    if (!shape) return d.error(fmt::format("wmma shape not supported ({})", kShapes));
    std::string_view space = m.take_any({"global", "shared", "shared::cta"});
    std::string_view tname = take_type_name(m);
    D4R_TRY(d.finish());
    std::optional<EType> t = etype_of(tname);
    if (!t) return d.error(fmt::format("wmma type '.{}' is not supported", tname));
    const Frag f = which == "a" ? Frag::A : which == "b" ? Frag::B : Frag::C;
    const bool acc = f == Frag::C;
    const bool ok_type =
        acc ? (*t == EType::F16 || *t == EType::F32 || *t == EType::S32 || *t == EType::F64) : input_fits(*shape, *t);
    const bool acc_fits = !acc || (*shape == WShape::M8N8K4     ? *t == EType::F64
                                   : *shape == WShape::M16N16K8 ? *t == EType::F32
                                   : sub_byte_shape(*shape)     ? *t == EType::S32
                                                                : *t != EType::F64);
    if (!ok_type || !acc_fits)
        return d.error(fmt::format("wmma fragment {} of type .{} does not exist for this shape", which, tname));
    if (sub_byte_shape(*shape)) {
        // The ISA has sub-byte A row-major and B column-major only.
        if (f == Frag::A && layout != "row")
            return d.error(fmt::format("wmma.load.a of .{} must be .row (sub-byte A is row-major only)", tname));
        if (f == Frag::B && layout != "col")
            return d.error(fmt::format("wmma.load.b of .{} must be .col (sub-byte B is column-major only)", tname));
        D4R_TRY(sub_byte_target(d));
    }
    D4R_TRY(d.expect_operands(2, 3));
    const unsigned n = regs_of(f, *shape, *t);
    std::vector<uint32_t> regs;
    D4R_TRY(frag_list(d, d.operand(store ? 1 : 0), n, *t, regs, store ? "wmma.store source" : "wmma.load destination"));
    const Space sp = space == "global" ? Space::Global : space.empty() ? Space::Generic : Space::Shared;
    InstrDecoder::Address addr = D4R_TRY(d.address(d.operand(store ? 0 : 1), sp));
    uint32_t stride = kNoReg;
    if (d.operand_count() == 3) stride = D4R_TRY(d.src(2, Type::U32));
    ExecFn fn;
    if (addr.space == Space::Shared)
        fn = store ? &exec_wmma_ldst<Space::Shared, true> : &exec_wmma_ldst<Space::Shared, false>;
    else if (addr.space == Space::Global)
        fn = store ? &exec_wmma_ldst<Space::Global, true> : &exec_wmma_ldst<Space::Global, false>;
    else
        fn = store ? &exec_wmma_ldst<Space::Generic, true> : &exec_wmma_ldst<Space::Generic, false>;
    auto& tables = d.builder().program().branch_tables;
    const uint64_t index = tables.size();
    tables.push_back(std::move(regs));
    Instr& in = d.emit(fn);
    in.aux = index;
    in.count = static_cast<uint8_t>(n);
    in.flags = pack_spec(f, layout == "col", *shape, *t);
    in.base = addr.base;
    in.imm = addr.imm;
    if (addr.base != kNoReg && !addr.base_wide) in.flags |= kAddr32;
    in.s[0] = stride;
    return ok_status();
}

Status decode_mma_op(InstrDecoder& d) {
    Modifiers& m = d.mods();
    if (!m.take("sync") || !m.take("aligned")) return d.error("wmma needs .sync.aligned");
    std::string_view la = m.take_any({"row", "col"}), lb = m.take_any({"row", "col"});
    if (la.empty() || lb.empty()) return d.error("wmma.mma needs the A and B layouts");
    std::optional<WShape> shape = take_shape(m);
    if (!shape) return d.error(fmt::format("wmma shape not supported ({})", kShapes));
    m.take("rn"); // f64: the only rounding
    const bool satfinite = m.take("satfinite");
    // Single-bit: wmma.mma.xor.popc / wmma.mma.and.popc.
    const std::string_view bit_op = m.take_any({"xor", "and"});
    const bool popc = m.take("popc");
    std::vector<std::string_view> names;
    for (std::string_view t; !(t = take_type_name(m)).empty();) names.push_back(t);
    D4R_TRY(d.finish());
    // .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype.
    if (names.size() != 2 && names.size() != 4)
        return d.error("wmma.mma needs .dtype.ctype or .dtype.atype.btype.ctype");
    std::vector<EType> types;
    for (std::string_view n : names) {
        std::optional<EType> t = etype_of(n);
        if (!t) return d.error(fmt::format("wmma type '.{}' is not supported", n));
        types.push_back(*t);
    }
    const EType dt = types.front(), ct = types.back();
    const EType ab = names.size() == 2 ? EType::F16 : types[1];
    // The ISA: A and B have the same type (both .s8 or both .u8, both .s4 or both .u4, both .b1).
    if (names.size() == 4 && types[1] != types[2])
        return d.error(fmt::format("wmma.mma A and B types must be the same (.{} and .{} given)", names[1], names[2]));
    if (names.size() == 2 && (dt == EType::S32 || dt == EType::F64))
        return d.error("wmma.mma needs .dtype.atype.btype.ctype for these types");
    if (!input_fits(*shape, ab))
        return d.error(fmt::format("wmma.mma inputs .{} do not exist for this shape", names[1]));
    const bool is_int = ab == EType::S8 || ab == EType::U8 || sub_byte(ab);
    const bool float_acc = (dt == EType::F16 || dt == EType::F32) && (ct == EType::F16 || ct == EType::F32);
    if (is_int             ? (dt != EType::S32 || ct != EType::S32)
        : ab == EType::F64 ? (dt != EType::F64 || ct != EType::F64)
                           : (ab == EType::F16 ? !float_acc : (dt != EType::F32 || ct != EType::F32)))
        return d.error("wmma.mma accumulator types do not fit its inputs");
    if (satfinite && (!is_int || ab == EType::B1))
        return d.error("wmma.mma .satfinite is supported for s8/u8/s4/u4 inputs only");
    if (ab == EType::B1 ? (bit_op.empty() || !popc) : (!bit_op.empty() || popc))
        return d.error(ab == EType::B1 ? "wmma.mma with .b1 inputs needs .xor.popc or .and.popc"
                                       : "wmma.mma .xor/.and/.popc exist for .b1 inputs only");
    if (sub_byte(ab)) {
        if (la != "row" || lb != "col")
            return d.error(fmt::format("wmma.mma with .{} inputs must be .row.col (.{}.{} given)", names[1], la, lb));
        D4R_TRY(sub_byte_target(d));
        if (bit_op == "and" && target_sm(d) != 0 && target_sm(d) < 80)
            return d.error(fmt::format("wmma.mma.and.popc needs .target sm_80 or later (the module targets {})",
                                       d.builder().ctx().target));
    }
    D4R_TRY(d.expect_operands(4));
    std::vector<uint32_t> ops;
    D4R_TRY(frag_list(d, d.operand(0), regs_of(Frag::C, *shape, dt), dt, ops, "wmma.mma D"));
    D4R_TRY(frag_list(d, d.operand(1), regs_of(Frag::A, *shape, ab), ab, ops, "wmma.mma A"));
    D4R_TRY(frag_list(d, d.operand(2), regs_of(Frag::B, *shape, ab), ab, ops, "wmma.mma B"));
    D4R_TRY(frag_list(d, d.operand(3), regs_of(Frag::C, *shape, ct), ct, ops, "wmma.mma C"));
    ExecFn fn = nullptr;
    switch (*shape) {
    case WShape::M16N16K16:
        fn = &exec_wmma_mma<WShape::M16N16K16>;
        break;
    case WShape::M32N8K16:
        fn = &exec_wmma_mma<WShape::M32N8K16>;
        break;
    case WShape::M8N32K16:
        fn = &exec_wmma_mma<WShape::M8N32K16>;
        break;
    case WShape::M16N16K8:
        fn = &exec_wmma_mma<WShape::M16N16K8>;
        break;
    case WShape::M8N8K4:
        fn = &exec_wmma_mma<WShape::M8N8K4>;
        break;
    case WShape::M8N8K32:
        fn = &exec_wmma_mma_sub_byte<WShape::M8N8K32>;
        break;
    case WShape::M8N8K128:
        fn = &exec_wmma_mma_sub_byte<WShape::M8N8K128>;
        break;
    }
    const uint32_t member = d.constant(kFullMask, false);
    auto& tables = d.builder().program().branch_tables;
    const uint64_t index = tables.size();
    tables.push_back(std::move(ops));
    Instr& in = d.emit(fn);
    in.s[0] = member;
    in.aux = index;
    in.flags = static_cast<uint16_t>(pack_spec(Frag::C, false, *shape, ab) | static_cast<unsigned>(ct) << 10);
    in.count = static_cast<uint8_t>(static_cast<unsigned>(dt) | (satfinite ? kSatfinite : 0) |
                                    (bit_op == "and"   ? kAndPopc
                                     : bit_op == "xor" ? kXorPopc
                                                       : 0));
    return ok_status();
}

Status decode_wmma(InstrDecoder& d) {
    Modifiers& m = d.mods();
    if (m.take("load")) return decode_ldst(d, false);
    if (m.take("store")) return decode_ldst(d, true);
    if (m.take("mma")) return decode_mma_op(d);
    return d.error("wmma needs .load, .store or .mma");
}

} // namespace

void add_wmma_ops(OpcodeTable& t) { t["wmma"] = &decode_wmma; }

} // namespace d4r::ptxsim
