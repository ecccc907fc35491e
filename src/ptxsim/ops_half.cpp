// f16, bf16 and their packed x2 forms: add sub mul fma (.rn, .ftz, .sat, .relu), min max (.ftz, .NaN,
// .xorsign.abs), neg abs (.ftz), and ex2 / tanh .approx.
//
// Exactness: each operation is one correctly rounded IEEE operation on the half format. Operands are
// widened to double; a + b, a - b and a * b are then computed in double (products of f16/bf16 values
// are exact; a sum rounded to 53 bits and then to 8 or 11 rounds correctly, because 53 >= 2p + 2), and
// fma is the exact product plus c rounded to odd (fp.h: fma_odd) before the one rounding to the half
// format. Packed forms apply the operation to the low and the high half independently.
//
// NaN results are the canonical NaN 0x7fff (f16 and bf16 alike). .ftz flushes subnormal inputs and
// results to sign-preserving zero, with tininess detected after rounding as for f32 (fp.h). .sat clamps
// to [0, 1] (NaN gives +0), .relu makes negative results +0 (NaN stays the canonical NaN).
//
// Instr use: d[0] result; s[0..2] sources in operand order.
#include <cmath>

#include <fmt/format.h>

#include "ptx/instr_half.h"
#include "ptxsim/dispatch.h"
#include "ptxsim/lanes.h"
#include "ptxsim/numerics.h"
#include "ptxsim/ops.h"

namespace d4r::ptxsim {

namespace {

enum class HOp : uint8_t { Add, Sub, Mul, Fma };

template <bool BF>
D4R_INLINE uint32_t sat_half(uint32_t r) {
    using H = HalfTraits<BF>;
    if (H::is_nan(r) || (r & 0x8000u) || r == 0) return 0; // NaN, negatives and -0 become +0
    return r > H::kOne ? H::kOne : r;
}

template <HOp Op, bool BF, bool Ftz, bool Sat, bool Relu>
struct ArithElem {
    static constexpr int kSources = Op == HOp::Fma ? 3 : 2;
    D4R_INLINE static uint32_t apply(uint32_t a, uint32_t b, uint32_t c) {
        using H = HalfTraits<BF>;
        if constexpr (Ftz) {
            a = H::flush(a);
            b = H::flush(b);
            c = H::flush(c);
        }
        const double x = H::value(a), y = H::value(b);
        double exact;
        if constexpr (Op == HOp::Add)
            exact = x + y;
        else if constexpr (Op == HOp::Sub)
            exact = x - y;
        else if constexpr (Op == HOp::Mul)
            exact = x * y;
        else
            exact = fma_odd(x, y, H::value(c));
        uint32_t r = round_to_small(exact, H::kFormat, Round::Rn);
        if constexpr (Ftz) r = H::flush_result(r, exact);
        if constexpr (Sat) r = sat_half<BF>(r);
        if constexpr (Relu) {
            if (!H::is_nan(r) && (r & 0x8000u)) r = 0;
        }
        return r;
    }
};

// min/max: a NaN operand yields the other operand; two NaNs, or any NaN under .NaN, give the canonical
// NaN; -0 is below +0. .xorsign.abs compares magnitudes and gives the result the XOR of the signs.
template <bool BF, bool IsMax, bool Ftz, bool NaNMode, bool XorSign>
struct MinMaxElem {
    static constexpr int kSources = 2;
    D4R_INLINE static uint32_t apply(uint32_t a, uint32_t b, uint32_t) {
        using H = HalfTraits<BF>;
        if constexpr (Ftz) {
            a = H::flush(a);
            b = H::flush(b);
        }
        uint32_t sign = 0;
        if constexpr (XorSign) {
            sign = (a ^ b) & 0x8000u;
            a &= 0x7fffu;
            b &= 0x7fffu;
        }
        const bool an = H::is_nan(a), bn = H::is_nan(b);
        if ((NaNMode && (an || bn)) || (an && bn)) return kCanonicalNaN16;
        uint32_t r;
        if (an)
            r = b;
        else if (bn)
            r = a;
        else {
            const float x = H::to_float(a), y = H::to_float(b);
            const bool a_neg = a & 0x8000u;
            if constexpr (IsMax)
                r = (x > y || (x == y && !a_neg)) ? a : b;
            else
                r = (x < y || (x == y && a_neg)) ? a : b;
        }
        if constexpr (XorSign) r = (r & 0x7fffu) | sign;
        return r;
    }
};

enum class HUnary : uint8_t { Neg, Abs, Ex2, Tanh };

template <bool BF, HUnary U, bool Ftz>
struct UnaryElem {
    static constexpr int kSources = 1;
    D4R_INLINE static uint32_t apply(uint32_t a, uint32_t, uint32_t) {
        using H = HalfTraits<BF>;
        if constexpr (Ftz) a = H::flush(a);
        // neg/abs of a NaN give the canonical NaN (H200 goldens, corpus f16_arith, bf16_arith).
        if constexpr (U == HUnary::Neg)
            return H::is_nan(a) ? kCanonicalNaN16 : a ^ 0x8000u;
        else if constexpr (U == HUnary::Abs)
            return H::is_nan(a) ? kCanonicalNaN16 : a & 0x7fffu;
        else {
            // .approx: computed in double and rounded once, within the ISA bounds (ex2 .f16 2^-9.9
            // relative, .bf16 2^-7; tanh 2^-10.987 relative).
            const double x = H::value(a);
            const double v = U == HUnary::Ex2 ? std::exp2(x) : std::tanh(x);
            uint32_t r = round_to_small(v, H::kFormat, Round::Rn);
            if constexpr (Ftz) r = H::flush(r);
            return r;
        }
    }
};

template <class E, bool Packed>
Flow exec_half(Warp& w, const Instr& in, uint32_t mask) {
    uint32_t a[32], b[32] = {}, c[32] = {}, r[32];
    read_lanes(w, in.s[0], a);
    if constexpr (E::kSources > 1) read_lanes(w, in.s[1], b);
    if constexpr (E::kSources > 2) read_lanes(w, in.s[2], c);
    for (int i = 0; i < 32; ++i) {
        uint32_t lo = E::apply(a[i] & 0xffffu, b[i] & 0xffffu, c[i] & 0xffffu);
        if constexpr (Packed)
            r[i] = lo | (E::apply(a[i] >> 16, b[i] >> 16, c[i] >> 16) << 16);
        else
            r[i] = lo;
    }
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

// ----- handler selection: type suffix and runtime modifiers to template instantiations (dispatch.h) -----

template <HOp Op>
ExecFn arith_fn(Type t, bool ftz, bool sat, bool relu) {
    return by_type<kHalfTypes>(t, [&]<class H>(TypeTag<H>) {
        return select_flags<3>({ftz, sat, relu}, []<bool F, bool S, bool R>() {
            return &exec_half<ArithElem<Op, H::kBF, F, S && !R, R>, H::kPacked>;
        });
    });
}

ExecFn minmax_fn(Type t, bool is_max, bool ftz, bool nan, bool xorsign) {
    return by_type<kHalfTypes>(t, [&]<class H>(TypeTag<H>) {
        return select_flags<4>({is_max, ftz, nan, xorsign}, []<bool M, bool F, bool N, bool X>() {
            return &exec_half<MinMaxElem<H::kBF, M, F, N, X>, H::kPacked>;
        });
    });
}

template <HUnary U>
ExecFn unary_fn(Type t, bool ftz) {
    return by_type<kHalfTypes>(t, [&]<class H>(TypeTag<H>) {
        return select_flags<1>({ftz}, []<bool F>() { return &exec_half<UnaryElem<H::kBF, U, F>, H::kPacked>; });
    });
}

} // namespace

// The family's meaning is the front end's (ptx/instr_half.h); here the handler and operands. f16/bf16 values live in
// .b16 (or .f16) registers, the packed forms in 32-bit registers (HalfArith::reg).
Status decode_half_arith(InstrDecoder& d) {
    const ptx::HalfArith h = D4R_TRY(d.typed(ptx::decode_half));
    using Op = ptx::HalfArith::Op;
    const Type t = h.type;
    switch (h.op) {
    case Op::Fma: // a fma fused from a mul and a sub (contract.h) negates its operands first
        return d.emit_fma(arith_fn<HOp::Fma>(t, h.ftz, h.sat, h.relu), unary_fn<HUnary::Neg>(t, false), h.reg);
    case Op::Add:
        return d.emit_op(arith_fn<HOp::Add>(t, h.ftz, h.sat, h.relu), h.reg, 2);
    case Op::Sub:
        return d.emit_op(arith_fn<HOp::Sub>(t, h.ftz, h.sat, h.relu), h.reg, 2);
    case Op::Mul:
        return d.emit_op(arith_fn<HOp::Mul>(t, h.ftz, h.sat, h.relu), h.reg, 2);
    case Op::Min:
    case Op::Max:
        return d.emit_op(minmax_fn(t, h.op == Op::Max, h.ftz, h.nan, h.xorsign), h.reg, 2);
    case Op::Neg:
        return d.emit_op(unary_fn<HUnary::Neg>(t, h.ftz), h.reg, 1);
    case Op::Abs:
        return d.emit_op(unary_fn<HUnary::Abs>(t, h.ftz), h.reg, 1);
    case Op::Ex2:
        return d.emit_op(unary_fn<HUnary::Ex2>(t, h.ftz), h.reg, 1);
    case Op::Tanh:
        return d.emit_op(unary_fn<HUnary::Tanh>(t, h.ftz), h.reg, 1);
    }
    return d.error("unknown half-precision operation");
}

Status decode_half_unary(InstrDecoder& d) { return decode_half_arith(d); }

} // namespace d4r::ptxsim
