// ptxsim internals: one lane of the f32/f64 arithmetic of ops_float.cpp (add sub mul fma div min max abs neg sqrt
// rcp rsqrt sin cos lg2 ex2 tanh copysign testp) as scalar functions. The interpreter's handlers apply them to every
// lane (inline, so their loops still vectorise); the PTX JIT's numerics helpers (compiled_numerics.cpp) apply them
// to one, so compiled code computes what the interpreter computes with the same code.
//
// Promise: each function is the exact per-lane rule of its handler. Those taking a rounding mode R compute with the
// host in mode R: the caller holds a RoundScope(R) around the call (numerics/fp.h), as the handlers do around their
// loops. Rules and measurements: docs/numerics.md, docs/ptxsim.md ("Approximate instructions").
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

struct FAdd {
    template <class T>
    static T apply(T a, T b) {
        return a + b;
    }
};
struct FSub {
    template <class T>
    static T apply(T a, T b) {
        return a - b;
    }
};
struct FMul {
    template <class T>
    static T apply(T a, T b) {
        return a * b;
    }
};
struct FDiv {
    template <class T>
    static T apply(T a, T b) {
        return a / b;
    }
};

// div.approx.f32 (ISA): for 2^126 < |b| < 2^128 the result is 0 with the sign of a/b, NaN when a is
// infinite or NaN (the hardware multiplies by a reciprocal that underflows); elsewhere the exact
// quotient is within the ISA's 2 ulp.
struct FDivApprox {
    template <class T>
    static T apply(T a, T b) {
        const T m = std::fabs(b);
        if (m > T(0x1p126) && m <= std::numeric_limits<T>::max()) return a * std::copysign(T(0), b);
        return a / b;
    }
};

// f64 NaN results (measured on the H200, docs/ptxsim.md): an invalid operation gives 0xfff8000000000000
// (as x86 does); otherwise the result is a NaN operand, quieted with its sign and payload kept, chosen
// by operand position: add/sub/mul take b before a, fma takes b, then c, then a, div takes a before b.
D4R_INLINE double quiet(double x) { return std::bit_cast<double>(std::bit_cast<uint64_t>(x) | 0x0008000000000000ull); }
D4R_INLINE double f64_nan(double first, double second, double r) {
    const bool fn = first != first, sn = second != second;
    return fn ? quiet(first) : sn ? quiet(second) : r;
}

template <class Op>
D4R_INLINE double f64_nan_rule(double a, double b, double r) {
    if constexpr (std::is_same_v<Op, FDiv>)
        return f64_nan(a, b, r);
    else
        return f64_nan(b, a, r);
}

// add sub mul div (Op) with .ftz/.sat, in mode R.
template <class T, class Op, Round R, bool Ftz, bool Sat>
D4R_INLINE T fbin_lane(T a, T b) {
    a = maybe_flush<Ftz>(a);
    b = maybe_flush<Ftz>(b);
    T r = canonical(Op::apply(a, b));
    if constexpr (std::is_same_v<T, double>) r = f64_nan_rule<Op>(a, b, r);
    if constexpr (Ftz) r = flush_result<R>(r, Op::apply(double(a), double(b)));
    return Sat ? saturate(r) : r;
}

// fma after its operands were flushed (under .ftz) and R = fma(a, b, c) was rounded in mode R: the NaN, .ftz
// and .sat rules on the result.
template <class T, Round R, bool Ftz, bool Sat>
D4R_INLINE T fma_result(T a, T b, T c, T r) {
    T v = canonical(r);
    if constexpr (std::is_same_v<T, double>) v = f64_nan(b, c, f64_nan(c, a, v));
    if constexpr (Ftz) v = flush_result<R>(v, std::fma(double(a), double(b), double(c)));
    return Sat ? saturate(v) : v;
}

// fma of one lane, in mode R (libm's fma is correctly rounded in the current mode, as the FMA instruction is).
template <class T, Round R, bool Ftz, bool Sat>
D4R_INLINE T fma_lane(T a, T b, T c) {
    a = maybe_flush<Ftz>(a);
    b = maybe_flush<Ftz>(b);
    c = maybe_flush<Ftz>(c);
    return fma_result<T, R, Ftz, Sat>(a, b, c, std::fma(a, b, c));
}

enum class Unary : uint8_t { Sqrt, Rcp, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh, Abs, Neg };

// sin/cos.approx.f32 as the hardware computes them: the argument is first converted to revolutions by an
// f32 multiplication by 1/(2 pi) rounded toward zero (ptxas emits FMUL.RZ before MUFU.SIN/COS), so for
// large arguments the fraction of a revolution keeps only the bits that survive that product (none at all
// beyond 2^24 revolutions: sin(-2^31) is -0, cos(2^31) is 1). The function of the reduced argument is
// then evaluated in double precision by quadrant, so quarter revolutions give exact zeros and ones. This
// matches the H200 goldens of corpus case f32_approx within 2^-21.5 everywhere (docs/ptxsim.md).
D4R_INLINE float mul_rz(float a, float b) {
    const double p = double(a) * double(b);                               // exact: 24 x 24 significant bits
    float r = static_cast<float>(p);                                      // round to nearest (the workers' mode) ...
    if (std::fabs(double(r)) > std::fabs(p)) r = std::nextafter(r, 0.0f); // ... then toward zero
    return r;
}

template <bool IsCos>
D4R_INLINE float sincos_revolutions(float x) {
    const float t = mul_rz(x, 0x1.45f306p-3f); // 1/(2 pi) as an f32 (0x3e22f983)
    if (!std::isfinite(t)) return std::bit_cast<float>(kCanonicalNaN32);
    const double at = std::fabs(double(t));
    const double frac = at - std::floor(at); // exact
    const double q4 = frac * 4;              // exact
    const int quadrant = static_cast<int>(q4);
    const double r = (q4 - quadrant) * (M_PI / 2);
    const double s = std::sin(r), c = std::cos(r);
    double v;
    if constexpr (IsCos) {
        v = quadrant == 0 ? c : quadrant == 1 ? -s : quadrant == 2 ? -c : s;
    } else {
        v = quadrant == 0 ? s : quadrant == 1 ? c : quadrant == 2 ? -s : -c;
        if (std::signbit(t)) v = -v;
    }
    return static_cast<float>(v);
}

template <class T, Unary U>
D4R_INLINE T unary_value(T x) {
    if constexpr (U == Unary::Sqrt)
        return std::sqrt(x);
    else if constexpr (U == Unary::Rcp)
        return T(1) / x;
    else if constexpr (U == Unary::Rsqrt)
        return static_cast<T>(1.0 / std::sqrt(static_cast<double>(x)));
    else if constexpr (U == Unary::Sin)
        return sincos_revolutions<false>(x);
    else if constexpr (U == Unary::Cos)
        return sincos_revolutions<true>(x);
    else if constexpr (U == Unary::Lg2)
        return static_cast<T>(std::log2(static_cast<double>(x)));
    else if constexpr (U == Unary::Ex2)
        return static_cast<T>(std::exp2(static_cast<double>(x)));
    else if constexpr (U == Unary::Tanh)
        return static_cast<T>(std::tanh(static_cast<double>(x)));
    else if constexpr (U == Unary::Abs || U == Unary::Neg) {
        // f64 abs/neg leave a NaN as it is (measured: neg.f64 keeps the sign of a NaN); f32 NaNs become
        // canonical like every f32 result.
        if constexpr (std::is_same_v<T, double>)
            if (std::isnan(x)) return std::bit_cast<double>(std::bit_cast<uint64_t>(x) | 0x0008000000000000ull);
        return U == Unary::Abs ? std::fabs(x) : -x;
    }
}

// The unary functions (U) with .ftz, in mode R.
template <class T, Unary U, Round R, bool Ftz>
D4R_INLINE T unary_lane(T a) {
    T x = maybe_flush<Ftz>(a);
    T v = canonical(unary_value<T, U>(x));
    if constexpr (Ftz && U == Unary::Rcp && std::is_same_v<T, float>)
        return flush_result<R>(v, 1.0 / double(x));
    else
        return maybe_flush<Ftz>(v);
}

// rcp.approx.ftz.f64 (ISA): the reciprocal of the high word of a (1.11.20: the low 32 bits of a are
// ignored) in 1.11.20 format, low 32 bits of the result zero; subnormal inputs count as zero, subnormal
// results flush to zero, NaN gives 0x7fffffff00000000. The H200's reciprocal unit is slightly more
// accurate than 20 bits and its result is truncated to them: modelled as 1/hi rounded to 24 significant
// bits, then truncated to 20 (on the corpus goldens it differs from the hardware in 3% of the values, by
// one unit of the 20-bit mantissa; the ISA gives no tighter bound than that format).
D4R_INLINE double rcp_approx_ftz_f64(double a) {
    const uint64_t hi = std::bit_cast<uint64_t>(a) & 0xffffffff00000000ull;
    const uint64_t sign = hi & 0x8000000000000000ull;
    const uint64_t exp = (hi >> 52) & 0x7ff;
    if (exp == 0x7ff) {
        if (hi & 0x000fffff00000000ull) return std::bit_cast<double>(0x7fffffff00000000ull);
        return std::bit_cast<double>(sign); // 1/inf
    }
    if (exp == 0) return std::bit_cast<double>(sign | 0x7ff0000000000000ull); // +-0 and subnormals
    const double r = 1.0 / std::bit_cast<double>(hi);
    uint64_t bits = std::bit_cast<uint64_t>(r);
    if (((bits >> 52) & 0x7ff) == 0) return std::bit_cast<double>(sign); // subnormal result: flushed
    bits += 1ull << 27;            // round to 24 significant bits (52 - 24 = 28 bits dropped) ...
    bits &= 0xffffffff00000000ull; // ... then keep 20 (the carry may step into the exponent)
    return std::bit_cast<double>(bits);
}

// min/max: a NaN operand yields the other operand (both NaN: f32 gives the canonical NaN 0x7fffffff, as
// the H200 goldens of corpus case f32_minmax show; f64 gives the second operand, quieted); .NaN makes any NaN operand
// give the canonical NaN; -0.0 is below +0.0; .xorsign.abs compares magnitudes and gives the result the XOR of the
// operands' signs.
template <class T, bool IsMax, bool Ftz, bool NaNMode, bool XorSignAbs>
D4R_INLINE T minmax_lane(T a, T b) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    constexpr Bits kSign = Bits(1) << (sizeof(T) * 8 - 1);
    a = maybe_flush<Ftz>(a);
    b = maybe_flush<Ftz>(b);
    Bits sign = 0;
    if constexpr (XorSignAbs) {
        sign = (std::bit_cast<Bits>(a) ^ std::bit_cast<Bits>(b)) & kSign;
        a = std::fabs(a);
        b = std::fabs(b);
    }
    bool an = std::isnan(a), bn = std::isnan(b);
    T r;
    if (NaNMode && (an || bn)) return std::bit_cast<T>(Bits(~Bits(0) >> 1));
    if (an && bn) {
        // f32: the canonical NaN (corpus f32_minmax, H200 goldens); f64: the second operand, quieted
        // (measured on the H200, docs/ptxsim.md).
        if constexpr (sizeof(T) == 4) return std::bit_cast<T>(Bits(~Bits(0) >> 1));
        return std::bit_cast<T>(Bits(std::bit_cast<Bits>(b) | (Bits(1) << (std::numeric_limits<T>::digits - 2))));
    }
    if (an)
        r = b;
    else if (bn)
        r = a;
    else {
        bool a_neg = std::bit_cast<Bits>(a) & kSign;
        if constexpr (IsMax)
            r = (a > b || (a == b && !a_neg)) ? a : b;
        else
            r = (a < b || (a == b && a_neg)) ? a : b;
    }
    if constexpr (XorSignAbs) r = std::bit_cast<T>(Bits((std::bit_cast<Bits>(r) & ~kSign) | sign));
    return r;
}

// copysign d, a, b: b with the sign of a (a NaN b keeps its payload).
template <class T>
D4R_INLINE T copysign_lane(T a, T b) {
    return std::copysign(b, a);
}

// testp's tests, in ptx::FloatArith::Test's order.
enum class TestpOp : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };

template <class T>
D4R_INLINE bool testp_lane(TestpOp op, T x) {
    switch (op) {
    case TestpOp::Finite:
        return std::isfinite(x);
    case TestpOp::Infinite:
        return std::isinf(x);
    case TestpOp::Number:
        return !std::isnan(x);
    case TestpOp::NotANumber:
        return std::isnan(x);
    case TestpOp::Normal:
        return std::isnormal(x) || x == T(0); // zero counts as normal (ISA)
    case TestpOp::Subnormal:
        return std::fpclassify(x) == FP_SUBNORMAL;
    }
    return false;
}

} // namespace d4r::ptxsim
