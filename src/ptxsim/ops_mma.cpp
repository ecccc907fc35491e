// Tensor-core warp collectives: mma.sync.aligned (m16n8k8 and m16n8k16 with f16/bf16 inputs,
// m16n8k32 with e4m3/e5m2 inputs; .row.col; f32 or f16 accumulators) and ldmatrix.sync.aligned.m8n8
// (.x1/.x2/.x4, .trans, .b16). Both need every lane of the warp: they wait like shfl.sync with a full
// member mask (collective_ready), and fail when a lane has exited. The arithmetic is the measured H200
// rule of mma_numerics.h; the fragment layouts are the PTX ISA's "Matrix Fragments for mma.m16n8k*"
// (groupID g = lane >> 2, t = lane % 4):
//   f16/bf16 A reg r, half h: row g + 8*(r&1), k 2t + 8*(r>>1) + h     B reg r, half h: k 2t + 8r + h, col g
//   fp8 A reg r, byte y:      row g + 8*(r&1), k 4t + 16*(r>>1) + y    B reg r, byte y: k 4t + 16r + y, col g
//   f32 C/D reg r: row g + 8*(r>>1), col 2t + (r&1)                     f16 C/D reg r, half h: row g + 8r, col 2t + h
//
// Instr use: mma: s[0] full member mask (constant), aux = index of the operand list in
// Program::branch_tables (D, A, B, C register slots in that order; the table holds any uint32 list),
// flags = A format | B format << 4. ldmatrix: d[0..n-1] destinations, base/imm row address (kAddr32),
// s[0] full member mask, count = n.
#include <fmt/format.h>

#include "ptx/instr_matrix.h"
#include "ptxsim/decoder.h"
#include "ptxsim/lanes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/mma.h"
#include "ptxsim/mma_warp.h"
#include "ptxsim/numerics.h"
#include "ptxsim/program_builder.h"

namespace d4r::ptxsim {

namespace {

using mma::Format;

D4R_INLINE Flow sync_flow(SyncResult r) { return r == SyncResult::Wait ? Flow::Resched : Flow::Stop; }

} // namespace

bool whole_warp(Warp& w, const Instr& in, uint32_t mask, CollectiveGroup& g, Flow& flow) {
    SyncResult ready = collective_ready(w, in, mask, 0, g);
    if (ready != SyncResult::Go) {
        flow = sync_flow(ready);
        return false;
    }
    if (g.lanes != kFullMask) {
        flow = fault(w, FaultKind::IllegalInstruction, static_cast<uint32_t>(__builtin_ctz(mask)), 0, 0,
                     fmt::format("warp-wide matrix instruction without all 32 lanes (lanes 0x{:08x})", g.lanes));
        return false;
    }
    return true;
}

Status register_list(InstrDecoder& d, const ast::Operand& o, unsigned n, std::vector<uint32_t>& out, const char* what,
                     bool wide) {
    if (o.kind != ast::OperandKind::Vector || o.elements.size() != n)
        return d.error(fmt::format("{} must be a list of {} registers", what, n));
    for (const ast::Operand& e : o.elements) {
        if (e.kind != ast::OperandKind::Name || e.name == "_")
            return d.error(fmt::format("{}: expected registers", what));
        InstrDecoder::Reg r = D4R_TRY(d.reg(e));
        if (r.wide != wide)
            return d.error(fmt::format("{}: register '{}' is not {} bits", what, e.name, wide ? 64 : 32));
        out.push_back(r.offset);
    }
    return ok_status();
}

namespace {

// ---- mma -------------------------------------------------------------------------------------------

// K: 8, 16 or 32 (FP8); ACC16: f16 accumulators and results.
template <int K, bool Acc16>
Flow exec_mma(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    Flow flow;
    if (!whole_warp(w, in, mask, g, flow)) return flow;
    constexpr unsigned na = K == 8 ? 2 : 4, nb = K == 8 ? 1 : 2, nc = Acc16 ? 2 : 4;
    const Format fa = static_cast<Format>(in.flags & 15), fb = static_cast<Format>((in.flags >> 4) & 15);
    const auto& tables = w.launch->program->branch_tables;
    // The fragments, lane by lane through each lane's own instruction (members may sit at different
    // instructions with the same shape and types).
    uint32_t frag[32][kMmaFragmentWords], d[32][4];
    for (unsigned l = 0; l < 32; ++l) {
        const uint32_t* ops = tables[g.instr[l]->aux].data() + nc; // skip D
        for (unsigned r = 0; r < na + nb + nc; ++r) frag[l][r] = lane_slot32(w, ops[r], l);
    }
    mma_warp<K, Acc16>(fa, fb, frag, d);
    for (unsigned l = 0; l < 32; ++l) {
        const uint32_t* dst = tables[g.instr[l]->aux].data();
        for (unsigned r = 0; r < nc; ++r) lane_slot32(w, dst[r], l) = d[l][r];
    }
    return g.simple() ? Flow::Next : finish_collective(w, g);
}

// The family's meaning is the front end's (ptx/instr_matrix.h); here the handlers and fragment registers.
static_assert(uint8_t(Format::F16) == uint8_t(ptx::ElementFormat::F16) &&
              uint8_t(Format::BF16) == uint8_t(ptx::ElementFormat::BF16) &&
              uint8_t(Format::E4M3) == uint8_t(ptx::ElementFormat::E4M3) &&
              uint8_t(Format::E5M2) == uint8_t(ptx::ElementFormat::E5M2) &&
              uint8_t(Format::F32) == uint8_t(ptx::ElementFormat::F32));

Status decode_mma(InstrDecoder& d) {
    const ptx::MatrixOp x = D4R_TRY(d.typed(ptx::decode_matrix));
    const unsigned k = x.k, na = x.a_regs, nb = x.b_regs, nc = x.c_regs;
    const bool acc16 = x.accumulator == Type::F16;
    std::vector<uint32_t> ops;
    D4R_TRY(register_list(d, d.operand(0), nc, ops, "mma destination"));
    D4R_TRY(register_list(d, d.operand(1), na, ops, "mma A fragment"));
    D4R_TRY(register_list(d, d.operand(2), nb, ops, "mma B fragment"));
    D4R_TRY(register_list(d, d.operand(3), nc, ops, "mma C fragment"));
    ExecFn fn = k == 8    ? (acc16 ? &exec_mma<8, true> : &exec_mma<8, false>)
                : k == 16 ? (acc16 ? &exec_mma<16, true> : &exec_mma<16, false>)
                          : (acc16 ? &exec_mma<32, true> : &exec_mma<32, false>);
    const uint32_t member = d.constant(kFullMask, false);
    auto& tables = d.builder().program().branch_tables;
    const uint64_t index = tables.size();
    tables.push_back(std::move(ops));
    Instr& in = d.emit(fn);
    in.s[0] = member;
    in.aux = index;
    in.flags = static_cast<uint16_t>(static_cast<unsigned>(x.a) | (static_cast<unsigned>(x.b) << 4));
    return ok_status();
}

// ---- ldmatrix ---------------------------------------------------------------------------------------

// N matrices of 8x8 b16; lanes 8i..8i+7 give the row addresses of matrix i.
template <Space S, unsigned N, bool Trans>
Flow exec_ldmatrix(Warp& w, const Instr& in, uint32_t mask) {
    CollectiveGroup g;
    Flow flow;
    if (!whole_warp(w, in, mask, g, flow)) return flow;
    uint16_t rows[N][8][8];
    for (unsigned l = 0; l < 8 * N; ++l) {
        const uint8_t* p = translate<S>(w, l, lane_address(w, *g.instr[l], l), 16, false);
        if (!p) return Flow::Stop;
        __builtin_memcpy(rows[l >> 3][l & 7], p, 16);
    }
    uint32_t d[32][4];
    ldmatrix_distribute<N, Trans>(rows, d);
    for (unsigned l = 0; l < 32; ++l)
        for (unsigned i = 0; i < N; ++i) lane_slot32(w, g.instr[l]->d[i], l) = d[l][i];
    return g.simple() ? Flow::Next : finish_collective(w, g);
}

template <Space S, bool Trans>
ExecFn ldmatrix_fn(unsigned n) {
    return n == 1 ? &exec_ldmatrix<S, 1, Trans> : n == 2 ? &exec_ldmatrix<S, 2, Trans> : &exec_ldmatrix<S, 4, Trans>;
}

Status decode_ldmatrix(InstrDecoder& d) {
    const ptx::MatrixOp x = D4R_TRY(d.typed(ptx::decode_matrix));
    const unsigned n = x.matrices;
    const bool trans = x.transpose;
    std::vector<uint32_t> dst;
    D4R_TRY(register_list(d, d.operand(0), n, dst, "ldmatrix destination"));
    InstrDecoder::Address addr = D4R_TRY(d.address(d.operand(1), space_of(x.space)));
    ExecFn fn;
    if (addr.space == Space::Shared)
        fn = trans ? ldmatrix_fn<Space::Shared, true>(n) : ldmatrix_fn<Space::Shared, false>(n);
    else if (addr.space == Space::Generic)
        fn = trans ? ldmatrix_fn<Space::Generic, true>(n) : ldmatrix_fn<Space::Generic, false>(n);
    else
        return d.error("ldmatrix reads shared memory");
    const uint32_t member = d.constant(kFullMask, false);
    Instr& in = d.emit(fn);
    for (unsigned i = 0; i < n; ++i) in.d[i] = dst[i];
    in.s[0] = member;
    in.count = static_cast<uint8_t>(n);
    in.base = addr.base;
    in.imm = addr.imm;
    if (addr.base != kNoReg && !addr.base_wide) in.flags |= kAddr32;
    return ok_status();
}

} // namespace

void add_mma_ops(OpcodeTable& t) {
    t["mma"] = &decode_mma;
    t["ldmatrix"] = &decode_ldmatrix;
    add_async_ops(t);
    add_wmma_ops(t);
    add_wgmma_ops(t);
}

} // namespace d4r::ptxsim
