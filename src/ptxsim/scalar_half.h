// ptxsim internals: one element of the half-precision arithmetic of ops_half.cpp (add sub mul fma .rn .ftz .sat
// .relu, min max .ftz .NaN .xorsign.abs, neg abs .ftz, ex2 tanh .approx on .f16 .f16x2 .bf16 .bf16x2) as scalar
// functions. The interpreter's handlers apply them to every lane (inline, so their loops still vectorise); the PTX
// JIT's numerics helper (compiled_numerics.cpp, CompiledRuntime::half_op) applies them to one, so compiled code
// computes what the interpreter computes with the same code, and pick_half chooses the rule for both.
//
// Exactness: each operation is one correctly rounded IEEE operation on the half format. Operands are widened to
// double; a + b, a - b and a * b are then computed in double (products of f16/bf16 values are exact; a sum rounded to
// 53 bits and then to 8 or 11 rounds correctly, because 53 >= 2p + 2), and fma is the exact product plus c rounded to
// odd (fp.h: fma_odd) before the one rounding to the half format. Packed forms apply the operation to the low and
// the high half independently. The host rounds to nearest (no RoundScope: the one rounding is round_to_small's).
//
// NaN results are the canonical NaN 0x7fff (f16 and bf16 alike). .ftz flushes subnormal inputs and results to
// sign-preserving zero, with tininess detected after rounding as for f32 (fp.h). .sat clamps to [0, 1] (NaN gives
// +0), .relu makes negative results +0 (NaN stays the canonical NaN).
#pragma once

#include <cmath>
#include <cstdint>

#include "ptx/instr_half.h"
#include "ptxsim/dispatch.h"
#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

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
    D4R_INLINE static uint32_t apply(uint32_t a, uint32_t b, uint32_t /*unused*/) {
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
    D4R_INLINE static uint32_t apply(uint32_t a, uint32_t /*unused*/, uint32_t /*unused*/) {
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

// One lane of element rule E on the registers' words: the low 16 bits, or for a packed form each half.
template <class E, bool Packed>
D4R_INLINE uint32_t half_lane(uint32_t a, uint32_t b, uint32_t c) {
    const uint32_t lo = E::apply(a & 0xffffu, b & 0xffffu, c & 0xffffu);
    if constexpr (Packed)
        return lo | (E::apply(a >> 16, b >> 16, c >> 16) << 16);
    else
        return lo;
}

// MAKE.template operator()<E, Packed>() for the element rule E of H's operation, type and modifiers (what the
// interpreter's handler and the JIT's helper are instantiated from); a null FN when H's type is not a half type.
// .sat is ignored under .relu, as the ISA says.
template <class Fn, class Make>
Fn pick_half(const ptx::HalfArith& h, const Make& make) {
    using Op = ptx::HalfArith::Op;
    auto by_format = [&]<bool BF, bool P>() -> Fn {
        auto arith = [&]<HOp O>() -> Fn {
            return select_flags<3>({h.ftz, h.sat, h.relu}, [&]<bool F, bool S, bool R>() -> Fn {
                return make.template operator()<ArithElem<O, BF, F, S && !R, R>, P>();
            });
        };
        auto unary = [&]<HUnary U>() -> Fn {
            return select_flags<1>({h.ftz},
                                   [&]<bool F>() -> Fn { return make.template operator()<UnaryElem<BF, U, F>, P>(); });
        };
        switch (h.op) {
        case Op::Add:
            return arith.template operator()<HOp::Add>();
        case Op::Sub:
            return arith.template operator()<HOp::Sub>();
        case Op::Mul:
            return arith.template operator()<HOp::Mul>();
        case Op::Fma:
            return arith.template operator()<HOp::Fma>();
        case Op::Min:
        case Op::Max:
            return select_flags<4>({h.op == Op::Max, h.ftz, h.nan, h.xorsign},
                                   [&]<bool M, bool F, bool N, bool X>() -> Fn {
                                       return make.template operator()<MinMaxElem<BF, M, F, N, X>, P>();
                                   });
        case Op::Neg:
            return unary.template operator()<HUnary::Neg>();
        case Op::Abs:
            return unary.template operator()<HUnary::Abs>();
        case Op::Ex2:
            return unary.template operator()<HUnary::Ex2>();
        case Op::Tanh:
            return unary.template operator()<HUnary::Tanh>();
        }
        return nullptr;
    };
    switch (h.type) {
    case Type::F16:
        return by_format.template operator()<false, false>();
    case Type::F16x2:
        return by_format.template operator()<false, true>();
    case Type::BF16:
        return by_format.template operator()<true, false>();
    case Type::BF16x2:
        return by_format.template operator()<true, true>();
    default:
        return nullptr;
    }
}

} // namespace d4r::ptxsim
