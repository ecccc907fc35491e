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
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "ptx/instr_wmma.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/mma.h"
#include "ptxsim/program_builder.h"
#include "ptxsim/wmma_memory.h"
#include "ptxsim/wmma_warp.h"

namespace d4r::ptxsim {

namespace {

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

// Element E of a fragment in lane LANE: its bits in the lane's registers REGS (read or written; wmma_warp.h's
// mapping).
struct FragmentView {
    Warp& w;
    const uint32_t* regs;
    unsigned lane;
    EType type;

    uint64_t get(unsigned e) const {
        return fragment_element(type, e, [&](unsigned r) { return word(r); });
    }
    void set(unsigned e, uint64_t value) const {
        set_fragment_element(
            type, e, value, [&](unsigned r) { return word(r); },
            [&](unsigned r, uint64_t v) {
                if (bits_of(type) == 64)
                    lane_slot64(w, regs[r], lane) = v;
                else
                    lane_slot32(w, regs[r], lane) = static_cast<uint32_t>(v);
            });
    }
    uint64_t word(unsigned r) const {
        return bits_of(type) == 64 ? lane_slot64(w, regs[r], lane) : lane_slot32(w, regs[r], lane);
    }
};

// wmma.load / wmma.store (wmma_memory.h) through the lanes' registers.
template <Space S, bool Store>
Flow exec_wmma_ldst(Warp& w, const Instr& in, uint32_t mask) {
    WmmaFragment f;
    f.frag = frag_of(in.flags);
    f.col = in.flags & kCol;
    f.shape = shape_of(in.flags);
    f.type = type_of(in.flags);
    f.regs = in.count;
    const auto [rows, cols] = matrix_of(f.frag, dims_of(f.shape));
    const uint32_t* regs = w.launch->program->branch_tables[in.aux].data();
    const bool wide = f.type == EType::F64;
    const bool ok = wmma_move<S, Store>(
        w, mask, f, [&](unsigned lane) { return lane_address(w, in, lane); },
        [&](unsigned lane) -> uint64_t {
            return in.s[0] != kNoReg ? lane_slot32(w, in.s[0], lane) : (f.col ? rows : cols);
        },
        [&](unsigned lane, unsigned r) -> uint64_t {
            return wide ? lane_slot64(w, regs[r], lane) : lane_slot32(w, regs[r], lane);
        },
        [&](unsigned lane, unsigned r, uint64_t v) {
            if (wide)
                lane_slot64(w, regs[r], lane) = v;
            else
                lane_slot32(w, regs[r], lane) = static_cast<uint32_t>(v);
        });
    return ok ? Flow::Next : Flow::Stop;
}

// wmma.mma keeps the A/B type in flags bits 6-9 (pack_spec) and the C type in bits 10-13; count holds
// the D type, kSatfinite and (b1) the bit operation.
constexpr uint8_t kSatfinite = 0x80;
constexpr uint8_t kAndPopc = 0x40; // b1: popc(a AND b)
constexpr uint8_t kXorPopc = 0x20; // b1: popc(a XOR b)

// The whole warp's fragments become matrices (each lane through its own instruction: members may sit at different
// instructions of the same shape and types), wmma_warp.h computes D, and D goes back to the lanes.
Flow exec_wmma_mma(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    Flow flow;
    if (!whole_warp(w, in, mask, g, flow)) return flow;
    WmmaSpec spec;
    spec.shape = shape_of(in.flags);
    spec.ab = type_of(in.flags);
    spec.c = static_cast<EType>((in.flags >> 10) & 15);
    spec.d = static_cast<EType>(in.count & 15);
    spec.satfinite = in.count & kSatfinite;
    spec.and_popc = in.count & kAndPopc;
    const Dims dm = dims_of(spec.shape);
    const auto& tables = w.launch->program->branch_tables;
    const bool sub = sub_byte(spec.ab);
    // Operand list: D, A, B, C (sub-byte: 2, 1, 1, 2 registers).
    const unsigned nd = sub ? 2 : regs_of(Frag::C, spec.shape, spec.d);
    const unsigned na = sub ? 1 : regs_of(Frag::A, spec.shape, spec.ab);
    const unsigned nb = sub ? 1 : regs_of(Frag::B, spec.shape, spec.ab);
    const EType dt = sub ? EType::S32 : spec.d, ct = sub ? EType::S32 : spec.c;
    WmmaMatrices x;
    for (unsigned l = 0; l < 32; ++l) {
        const uint32_t* ops = tables[g.instr[l]->aux].data();
        FragmentView av{w, ops + nd, l, spec.ab}, bv{w, ops + nd + na, l, spec.ab}, cv{w, ops + nd + na + nb, l, ct};
        for (unsigned u = 0; u < dm.m * dm.k / 32; ++u) x.a[u * 32 + l] = av.get(u);
        for (unsigned u = 0; u < dm.k * dm.n / 32; ++u) x.b[u * 32 + l] = bv.get(u);
        for (unsigned u = 0; u < dm.m * dm.n / 32; ++u) x.c[u * 32 + l] = cv.get(u);
    }
    wmma_mma(spec, x);
    for (unsigned l = 0; l < 32; ++l) {
        FragmentView dv{w, tables[g.instr[l]->aux].data(), l, dt};
        for (unsigned u = 0; u < dm.m * dm.n / 32; ++u) dv.set(u, x.d[u * 32 + l]);
    }
    return g.simple() ? Flow::Next : finish_collective(w, g);
}

// ---- decoding: the family's meaning is the front end's (ptx/instr_wmma.h); here registers, addresses, handlers ----

// The register list operand of a fragment (32-bit registers, or 64-bit for f64).
Status frag_list(InstrDecoder& d, const ast::Operand& o, unsigned n, EType t, std::vector<uint32_t>& out,
                 const char* what) {
    return register_list(d, o, n, out, what, t == EType::F64);
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
    ExecFn fn = &exec_wmma_mma;
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
