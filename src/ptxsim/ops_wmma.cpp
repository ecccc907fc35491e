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

#include "ptx/instr_wmma.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/mma.h"
#include "ptxsim/numerics.h"
#include "ptxsim/program_builder.h"

namespace d4r::ptxsim {

namespace {

using mma::Elem;
using mma::Format;

// Shapes, element types and fragment sizes are the front end's (ptx/instr_wmma.h).
using ptx::wmma::bits_of;
using ptx::wmma::Dims;
using ptx::wmma::dims_of;
using ptx::wmma::EType;
using ptx::wmma::Frag;
using ptx::wmma::matrix_of;
using ptx::wmma::regs_of;
using ptx::wmma::sub_byte;
using ptx::wmma::WShape;

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

// ---- decoding: the family's meaning is the front end's (ptx/instr_wmma.h); here registers, addresses, handlers ----

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

Status decode_ldst(InstrDecoder& d, const ptx::Wmma& w) {
    const bool store = w.op == ptx::Wmma::Op::Store;
    const Frag f = w.fragment;
    const EType t = w.type;
    const unsigned n = w.regs;
    std::vector<uint32_t> regs;
    D4R_TRY(frag_list(d, d.operand(store ? 1 : 0), n, t, regs, store ? "wmma.store source" : "wmma.load destination"));
    InstrDecoder::Address addr = D4R_TRY(d.address(d.operand(store ? 0 : 1), space_of(w.space)));
    uint32_t stride = kNoReg;
    if (w.stride) stride = D4R_TRY(d.src(2, Type::U32));
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
    in.flags = pack_spec(f, w.col, w.shape, t);
    in.base = addr.base;
    in.imm = addr.imm;
    if (addr.base != kNoReg && !addr.base_wide) in.flags |= kAddr32;
    in.s[0] = stride;
    return ok_status();
}

Status decode_mma_op(InstrDecoder& d, const ptx::Wmma& w) {
    const EType dt = w.d_type, ct = w.c_type, ab = w.type;
    std::vector<uint32_t> ops;
    D4R_TRY(frag_list(d, d.operand(0), w.d_regs, dt, ops, "wmma.mma D"));
    D4R_TRY(frag_list(d, d.operand(1), w.a_regs, ab, ops, "wmma.mma A"));
    D4R_TRY(frag_list(d, d.operand(2), w.b_regs, ab, ops, "wmma.mma B"));
    D4R_TRY(frag_list(d, d.operand(3), w.c_regs, ct, ops, "wmma.mma C"));
    ExecFn fn = nullptr;
    switch (w.shape) {
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
    in.flags = static_cast<uint16_t>(pack_spec(Frag::C, false, w.shape, ab) | static_cast<unsigned>(ct) << 10);
    in.count = static_cast<uint8_t>(static_cast<unsigned>(dt) | (w.satfinite ? kSatfinite : 0) |
                                    (w.bit_op == ptx::Wmma::BitOp::AndPopc   ? kAndPopc
                                     : w.bit_op == ptx::Wmma::BitOp::XorPopc ? kXorPopc
                                                                             : 0));
    return ok_status();
}

Status decode_wmma(InstrDecoder& d) {
    const std::string_view target = d.builder().ctx().target;
    const ptx::Wmma w = D4R_TRY(d.typed([target](const ast::Instruction& in) { return ptx::decode_wmma(in, target); }));
    return w.op == ptx::Wmma::Op::Mma ? decode_mma_op(d, w) : decode_ldst(d, w);
}

} // namespace

void add_wmma_ops(OpcodeTable& t) { t["wmma"] = &decode_wmma; }

} // namespace d4r::ptxsim
