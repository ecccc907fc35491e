// f16, bf16 and their packed x2 forms: add sub mul fma (.rn, .ftz, .sat, .relu), min max (.ftz, .NaN,
// .xorsign.abs), neg abs (.ftz), and ex2 / tanh .approx. Each element's rule, and its exactness, is scalar_half.h's
// (shared with the PTX JIT's numerics helper); here the handler over the warp's lanes.
//
// Instr use: d[0] result; s[0..2] sources in operand order.
#include "ptx/instr_half.h"
#include "ptxsim/dispatch.h"
#include "ptxsim/lanes.h"
#include "ptxsim/ops.h"
#include "ptxsim/scalar_half.h"

namespace d4r::ptxsim {

namespace {

template <class E, bool Packed>
Flow exec_half(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t a[32], b[32] = {}, c[32] = {}, r[32];
    read_lanes(w, in.s[0], a);
    if constexpr (E::kSources > 1) read_lanes(w, in.s[1], b);
    if constexpr (E::kSources > 2) read_lanes(w, in.s[2], c);
    for (int i = 0; i < 32; ++i) r[i] = half_lane<E, Packed>(a[i], b[i], c[i]);
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

// The handler of H (scalar_half.h's pick_half chooses the element rule).
ExecFn half_fn(const ptx::HalfArith& h) {
    return pick_half<ExecFn>(h, []<class E, bool P>() -> ExecFn { return &exec_half<E, P>; });
}

} // namespace

// The family's meaning is the front end's (ptx/instr_half.h); here the handler and operands. f16/bf16 values live in
// .b16 (or .f16) registers, the packed forms in 32-bit registers (HalfArith::reg).
Status decode_half_arith(InstrDecoder& d) {
    const ptx::HalfArith h = D4R_TRY(d.typed(ptx::decode_half));
    using Op = ptx::HalfArith::Op;
    switch (h.op) {
    case Op::Fma: { // a fma fused from a mul and a sub (contract.h) negates its operands first
        ptx::HalfArith neg;
        neg.op = Op::Neg;
        neg.type = h.type;
        return d.emit_fma(half_fn(h), half_fn(neg), h.reg);
    }
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Min:
    case Op::Max:
        return d.emit_op(half_fn(h), h.reg, 2);
    case Op::Neg:
    case Op::Abs:
    case Op::Ex2:
    case Op::Tanh:
        return d.emit_op(half_fn(h), h.reg, 1);
    }
    return d.error("unknown half-precision operation");
}

Status decode_half_unary(InstrDecoder& d) { return decode_half_arith(d); }

} // namespace d4r::ptxsim
