// Hopper's warpgroup matrix instructions (ptx/instr_wgmma.h says what they compute): wgmma.mma_async.sync.aligned
// m64nNk16 with f16 (f32 or f16 accumulators) or bf16 (f32) inputs, A from registers or a matrix descriptor, B from a
// descriptor (K-major, no swizzling), and wgmma.fence, commit_group and wait_group.
//
// Each warp computes its own 16 rows (rank = warp % 4 of its warpgroup): they depend only on its registers and on
// shared memory, so a warp runs its part when it reaches the instruction, as mma.sync's collective of its 32 lanes
// (every lane there, or a fault). The product is performed when the instruction issues: the ISA makes D readable only
// after the matching wgmma.wait_group and forbids writing the operands before it, so a program that is correct on
// hardware cannot tell, and fence, commit_group and wait_group have nothing left to do. Each 8-column slice of D is
// one mma.sync m16n8k16 of the warp's A rows with that slice of B, through mma_warp (the measured tensor-core rule of
// mma_numerics.h); scale-d false takes +0 accumulators. Descriptors must be the same in every lane, and scale-d too;
// a swizzled descriptor (mode 1-3) or a base offset is refused when met (a fault naming it), never read another way.
//
// Instr use: s[0] full member mask (constant), s[1] A's descriptor (64-bit; kNoReg when A is in registers), s[2] B's
// descriptor, ps[0]/ps_neg[0] scale-d (-1: the constant kScaleDOne gives), aux = index in Program::branch_tables of the
// register list (D's registers, then A's four when A is in registers), count = N / 8, flags: kAcc16 | kBf16 | kNegateA
// | kNegateB | kScaleDOne.
#include <fmt/format.h>

#include "ptx/instr_wgmma.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/mma.h"
#include "ptxsim/mma_warp.h"
#include "ptxsim/program_builder.h"
#include "ptxsim/wgmma_warp.h"

namespace d4r::ptxsim {

namespace {

constexpr uint16_t kAcc16 = 1, kBf16 = 2, kNegateA = 4, kNegateB = 8, kScaleDOne = 16;

// The descriptor of the 32 lanes' values BITS, the same in every lane; false (a fault) otherwise.
bool uniform_descriptor(Warp& w, const uint64_t* bits, const char* which, ptx::MatrixDescriptor& out) {
    for (unsigned l = 1; l < 32; ++l)
        if (bits[l] != bits[0]) {
            fault(w, FaultKind::IllegalInstruction, l, 0, 0,
                  fmt::format("wgmma: {} matrix descriptor differs between lanes 0 and {}", which, l));
            return false;
        }
    out = ptx::matrix_descriptor(bits[0]);
    if (out.swizzle != 0 || out.base_offset != 0) {
        fault(w, FaultKind::Unsupported, 0, out.start, 0,
              fmt::format("wgmma: {} matrix descriptor with swizzle mode {} and base offset {}: d4r's cpu device "
                          "implements the unswizzled K-major layout only",
                          which, out.swizzle, out.base_offset));
        return false;
    }
    return true;
}

// ROWS rows from FIRST of a K-major matrix (16 values of K a row) into OUT[row][k]; false after a fault.
bool gather_rows(Warp& w, const ptx::MatrixDescriptor& d, uint32_t first, uint32_t rows, uint16_t (*out)[16]) {
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t half = 0; half < 2; ++half) {
            const uint8_t* p =
                translate<Space::Shared>(w, 0, d.start + ptx::core_matrix_offset(d, first + r, 8 * half), 16, false);
            if (!p) return false;
            __builtin_memcpy(out[r] + 8 * half, p, 16);
        }
    return true;
}

template <bool Acc16>
bool wgmma_rows(Warp& w, const WgmmaForm& f, uint32_t* const* dregs, const uint32_t* const* a_regs,
                const uint64_t* a_desc, const uint64_t* b_desc, uint32_t scale_d, unsigned rank) {
    constexpr unsigned nc = Acc16 ? 2 : 4;
    if (scale_d != 0 && scale_d != kFullMask) {
        fault(w, FaultKind::IllegalInstruction, 0, 0, 0,
              fmt::format("wgmma: scale-d differs between lanes (0x{:08x})", scale_d));
        return false;
    }
    ptx::MatrixDescriptor da{}, db{};
    if (!a_regs && !uniform_descriptor(w, a_desc, "A", da)) return false;
    if (!uniform_descriptor(w, b_desc, "B", db)) return false;
    const uint16_t sign_a = f.negate_a ? 0x8000 : 0, sign_b = f.negate_b ? 0x8000 : 0;
    const auto signed_pair = [](uint32_t v, uint16_t sign) { return v ^ (uint32_t(sign) | uint32_t(sign) << 16); };

    uint32_t frag[32][kMmaFragmentWords] = {}, d[32][4];
    // A: mma.sync m16n8k16's fragment of the warp's 16 rows (lane (g, t), register r, half h: row g + 8 (r & 1), k
    // 2t + 8 (r >> 1) + h).
    uint16_t a[16][16];
    if (!a_regs && !gather_rows(w, da, 16 * rank, 16, a)) return false;
    for (unsigned l = 0; l < 32; ++l)
        for (unsigned r = 0; r < 4; ++r) {
            uint32_t v;
            if (a_regs) {
                v = a_regs[r][l];
            } else {
                const unsigned row = (l >> 2) + 8 * (r & 1), k = 2 * (l & 3) + 8 * (r >> 1);
                v = a[row][k] | uint32_t(a[row][k + 1]) << 16;
            }
            frag[l][r] = signed_pair(v, sign_a);
        }
    const mma::Format format = f.bf16 ? mma::Format::BF16 : mma::Format::F16;
    uint16_t b[8][16];
    for (unsigned j = 0; j < f.n / 8; ++j) {
        if (!gather_rows(w, db, 8 * j, 8, b)) return false;
        for (unsigned l = 0; l < 32; ++l) {
            // B (lane (g, t), register r, half h: k 2t + 8r + h, column g), then C: D's registers of this slice.
            const unsigned col = l >> 2, k = 2 * (l & 3);
            for (unsigned r = 0; r < 2; ++r)
                frag[l][4 + r] = signed_pair(b[col][k + 8 * r] | uint32_t(b[col][k + 8 * r + 1]) << 16, sign_b);
            for (unsigned r = 0; r < nc; ++r) frag[l][6 + r] = scale_d ? dregs[j * nc + r][l] : 0;
        }
        mma_warp<16, Acc16>(format, format, frag, d);
        for (unsigned l = 0; l < 32; ++l)
            for (unsigned r = 0; r < nc; ++r) dregs[j * nc + r][l] = d[l][r];
    }
    return true;
}

Flow exec_wgmma(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    Flow flow;
    if (!whole_warp(w, in, mask, g, flow)) return flow;
    if (!g.simple())
        return fault(w, FaultKind::IllegalInstruction, 0, 0, 0,
                     "wgmma.mma_async.sync.aligned reached by the lanes of a warp at different instructions");
    const WgmmaForm f{in.count * 8u, (in.flags & kAcc16) != 0, (in.flags & kBf16) != 0, (in.flags & kNegateA) != 0,
                      (in.flags & kNegateB) != 0};
    const uint32_t* regs = w.launch->program->branch_tables[in.aux].data();
    const unsigned nd = f.acc16 ? f.n / 4 : f.n / 2;
    uint32_t* d[128];
    for (unsigned r = 0; r < nd; ++r) d[r] = &lane_slot32(w, regs[r], 0);
    const uint32_t* a[4];
    for (unsigned r = 0; r < 4 && in.s[1] == kNoReg; ++r) a[r] = &lane_slot32(w, regs[nd + r], 0);
    const uint32_t scale_d = in.ps[0] >= 0           ? read_pred(w, in.ps[0], in.ps_neg[0])
                             : in.flags & kScaleDOne ? kFullMask
                                                     : 0u;
    const bool ok =
        wgmma_warp(w, f, d, in.s[1] == kNoReg ? a : nullptr, in.s[1] == kNoReg ? nullptr : &lane_slot64(w, in.s[1], 0),
                   &lane_slot64(w, in.s[2], 0), scale_d, (w.first_thread / 32) % 4);
    return ok ? Flow::Next : Flow::Stop;
}

Flow exec_wgmma_nop(Warp&, const Instr&, uint32_t) { return Flow::Next; }

// A 64-bit register holding a matrix descriptor.
Expected<uint32_t> descriptor(InstrDecoder& d, const ast::Operand& o, const char* what) {
    if (o.kind != ast::OperandKind::Name) return d.error(fmt::format("wgmma {} must be a 64-bit register", what));
    InstrDecoder::Reg r = D4R_TRY(d.reg(o));
    if (!r.wide) return d.error(fmt::format("wgmma {}: register '{}' is not 64 bits", what, o.name));
    return r.offset;
}

Status decode_wgmma(InstrDecoder& d) {
    const ptx::Wgmma x = D4R_TRY(d.typed(ptx::decode_wgmma));
    if (x.op != ptx::Wgmma::Op::Mma) {
        d.emit(&exec_wgmma_nop);
        return ok_status();
    }
    const bool acc16 = x.accumulator == Type::F16;
    std::vector<uint32_t> regs;
    D4R_TRY(register_list(d, d.operand(0), x.d_regs, regs, "wgmma destination"));
    uint32_t a_desc = kNoReg;
    if (x.a_registers)
        D4R_TRY(register_list(d, d.operand(1), 4, regs, "wgmma A fragment"));
    else
        a_desc = D4R_TRY(descriptor(d, d.operand(1), "A descriptor"));
    const uint32_t b_desc = D4R_TRY(descriptor(d, d.operand(2), "B descriptor"));
    std::pair<int16_t, bool> scale_d{-1, false}; // a predicate, or (-1) the constant in x.scale_d
    if (x.scale_d < 0) scale_d = D4R_TRY(d.pred_src(d.operand(3)));
    const uint32_t member = d.constant(kFullMask, false);
    auto& tables = d.builder().program().branch_tables;
    const uint64_t index = tables.size();
    tables.push_back(std::move(regs));
    Instr& in = d.emit(&exec_wgmma);
    in.s[0] = member;
    in.s[1] = a_desc;
    in.s[2] = b_desc;
    in.ps[0] = scale_d.first;
    in.ps_neg[0] = scale_d.second ? 1 : 0;
    in.aux = index;
    in.count = static_cast<uint8_t>(x.n / 8);
    in.flags = static_cast<uint16_t>((acc16 ? kAcc16 : 0) | (x.input == ptx::ElementFormat::BF16 ? kBf16 : 0) |
                                     (x.negate_a ? kNegateA : 0) | (x.negate_b ? kNegateB : 0) |
                                     (x.scale_d == 1 ? kScaleDOne : 0));
    return ok_status();
}

} // namespace

bool wgmma_warp(Warp& w, const WgmmaForm& f, uint32_t* const* d, const uint32_t* const* a_regs, const uint64_t* a_desc,
                const uint64_t* b_desc, uint32_t scale_d, unsigned rank) {
    return f.acc16 ? wgmma_rows<true>(w, f, d, a_regs, a_desc, b_desc, scale_d, rank)
                   : wgmma_rows<false>(w, f, d, a_regs, a_desc, b_desc, scale_d, rank);
}

void add_wgmma_ops(OpcodeTable& t) { t["wgmma"] = &decode_wgmma; }

} // namespace d4r::ptxsim
