// f32/f64 arithmetic: add sub mul fma mad div (.rn .rz .rm .rp, .ftz, .sat, .approx, .full), min max
// (.NaN, .xorsign.abs), abs neg, sqrt rcp (.rn exact, .approx), rsqrt sin cos lg2 ex2 tanh (.approx),
// copysign and testp.
//
// Exactness: IEEE operations are the host's (SSE, round-to-nearest-even) or run under RoundScope for
// directed modes; fma uses the hardware FMA instruction when the CPU has one (chosen at decode time)
// and libm's correctly rounded fma otherwise. f32 NaN results are canonical (fp.h); f64 results
// propagate a NaN operand, quieted, chosen as the H200 chooses (f64_nan below). Most .approx functions
// are computed in double precision and rounded once, which is within every bound the PTX ISA documents
// for them; sin/cos reduce their argument as the hardware does, div.approx gives 0 for huge divisors
// and rcp.approx.ftz.f64 works on the high word (see docs/ptxsim.md, "Approximate instructions").
//
// Instr use: d[0] result; s[0..2] sources in operand order; testp: pd[0] result, flags = TestpOp.
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "ptx/instr_float.h"
#include "ptxsim/dispatch.h"
#include "ptxsim/lanes.h"
#include "ptxsim/numerics.h"
#include "ptxsim/ops.h"

namespace d4r::ptxsim {

namespace {

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

template <class T, class Op, Round R, bool Ftz, bool Sat>
Flow exec_fbin(Warp& w, const Instr& in, uint32_t mask) {
    RoundScope scope(R);
    map2<T, T, T>(w, in, mask, [](T a, T b) {
        a = maybe_flush<Ftz>(a);
        b = maybe_flush<Ftz>(b);
        T r = canonical(Op::apply(a, b));
        if constexpr (std::is_same_v<T, double>) r = f64_nan_rule<Op>(a, b, r);
        if constexpr (Ftz) r = flush_result<R>(r, Op::apply(double(a), double(b)));
        return Sat ? saturate(r) : r;
    });
    return Flow::Next;
}

// Lane loops of fused multiply-add with the CPU's FMA instructions (selected only when present).
__attribute__((target("avx2,fma"))) void fma_lanes_hw(const float* a, const float* b, const float* c, float* r) {
    for (int i = 0; i < 32; ++i) r[i] = __builtin_fmaf(a[i], b[i], c[i]);
}
__attribute__((target("avx2,fma"))) void fma_lanes_hw(const double* a, const double* b, const double* c, double* r) {
    for (int i = 0; i < 32; ++i) r[i] = __builtin_fma(a[i], b[i], c[i]);
}
template <class T>
void fma_lanes_sw(const T* a, const T* b, const T* c, T* r) {
    for (int i = 0; i < 32; ++i) r[i] = std::fma(a[i], b[i], c[i]);
}

template <class T, Round R, bool Ftz, bool Sat, bool Hw>
Flow exec_fma(Warp& w, const Instr& in, uint32_t mask) {
    RoundScope scope(R);
    T a[32], b[32], c[32], r[32];
    read_lanes(w, in.s[0], a);
    read_lanes(w, in.s[1], b);
    read_lanes(w, in.s[2], c);
    if constexpr (Ftz) {
        for (int i = 0; i < 32; ++i) {
            a[i] = flush(a[i]);
            b[i] = flush(b[i]);
            c[i] = flush(c[i]);
        }
    }
    if constexpr (Hw)
        fma_lanes_hw(a, b, c, r);
    else
        fma_lanes_sw(a, b, c, r);
    for (int i = 0; i < 32; ++i) {
        T v = canonical(r[i]);
        if constexpr (std::is_same_v<T, double>) v = f64_nan(b[i], c[i], f64_nan(c[i], a[i], v));
        if constexpr (Ftz) v = flush_result<R>(v, std::fma(double(a[i]), double(b[i]), double(c[i])));
        r[i] = Sat ? saturate(v) : v;
    }
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
}

bool cpu_has_fma() {
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
    }();
    return has;
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

template <class T, Unary U, Round R, bool Ftz>
Flow exec_funary(Warp& w, const Instr& in, uint32_t mask) {
    RoundScope scope(R);
    T a[32], r[32];
    read_lanes(w, in.s[0], a);
    // The transcendental functions go through libm per lane; sqrt/rcp/abs/neg vectorise.
    for (int i = 0; i < 32; ++i) {
        T x = maybe_flush<Ftz>(a[i]);
        T v = canonical(unary_value<T, U>(x));
        if constexpr (Ftz && U == Unary::Rcp && std::is_same_v<T, float>)
            v = flush_result<R>(v, 1.0 / double(x));
        else
            v = maybe_flush<Ftz>(v);
        r[i] = v;
    }
    write_lanes(w, in.d[0], r, mask);
    return Flow::Next;
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

Flow exec_rcp_approx_f64(Warp& w, const Instr& in, uint32_t mask) {
    map1<double, double>(w, in, mask, [](double a) { return rcp_approx_ftz_f64(a); });
    return Flow::Next;
}

// min/max: a NaN operand yields the other operand (both NaN: f32 gives the canonical NaN 0x7fffffff, as
// the H200 goldens of corpus case f32_minmax show; f64 gives the second operand, quieted); .NaN makes any NaN operand
// give the canonical NaN; -0.0 is below +0.0; .xorsign.abs compares magnitudes and gives the result the XOR of the
// operands' signs.
template <class T, bool IsMax, bool Ftz, bool NaNMode, bool XorSignAbs>
Flow exec_fminmax(Warp& w, const Instr& in, uint32_t mask) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    constexpr Bits kSign = Bits(1) << (sizeof(T) * 8 - 1);
    map2<T, T, T>(w, in, mask, [](T a, T b) {
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
    });
    return Flow::Next;
}

template <class T>
Flow exec_copysign(Warp& w, const Instr& in, uint32_t mask) {
    map2<T, T, T>(w, in, mask, [](T a, T b) { return std::copysign(b, a); });
    return Flow::Next;
}

enum class TestpOp : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };

template <class T>
Flow exec_testp(Warp& w, const Instr& in, uint32_t mask) {
    T a[32];
    read_lanes(w, in.s[0], a);
    TestpOp op = static_cast<TestpOp>(in.flags);
    uint32_t r = 0;
    for (int i = 0; i < 32; ++i) {
        T x = a[i];
        bool v = false;
        switch (op) {
        case TestpOp::Finite:
            v = std::isfinite(x);
            break;
        case TestpOp::Infinite:
            v = std::isinf(x);
            break;
        case TestpOp::Number:
            v = !std::isnan(x);
            break;
        case TestpOp::NotANumber:
            v = std::isnan(x);
            break;
        case TestpOp::Normal:
            v = std::isnormal(x) || x == T(0);
            break; // zero counts as normal (ISA)
        case TestpOp::Subnormal:
            v = std::fpclassify(x) == FP_SUBNORMAL;
            break;
        }
        r |= v ? lane_bit(i) : 0u;
    }
    write_pred(w, in.pd[0], r, mask);
    return Flow::Next;
}

// ----- handler selection: type suffix and runtime modifiers to template instantiations (dispatch.h) -----
// f64 has no .ftz or .sat (the decoders reject them, check_f64_mods), so only its plain forms are
// instantiated.

template <class Op>
ExecFn fbin_fn(Type t, Round r, bool ftz, bool sat) {
    return by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
        return select_round(r, [&]<Round R>() {
            if constexpr (std::is_same_v<T, double>)
                return &exec_fbin<T, Op, R, false, false>;
            else
                return select_flags<2>({ftz, sat}, []<bool F, bool S>() { return &exec_fbin<T, Op, R, F, S>; });
        });
    });
}

ExecFn fma_fn(Type t, Round r, bool ftz, bool sat) {
    return by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
        return select_round(r, [&]<Round R>() {
            if constexpr (std::is_same_v<T, double>)
                return select_flags<1>({cpu_has_fma()}, []<bool Hw>() { return &exec_fma<T, R, false, false, Hw>; });
            else
                return select_flags<3>({ftz, sat, cpu_has_fma()},
                                       []<bool F, bool S, bool Hw>() { return &exec_fma<T, R, F, S, Hw>; });
        });
    });
}

// sqrt and rcp: every rounding mode.
template <Unary U>
ExecFn unary_fn(Type t, Round r, bool ftz) {
    return by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
        return select_round(r, [&]<Round R>() {
            if constexpr (std::is_same_v<T, double>)
                return &exec_funary<T, U, R, false>;
            else
                return select_flags<1>({ftz}, []<bool F>() { return &exec_funary<T, U, R, F>; });
        });
    });
}

// abs, neg and the .approx functions: round to nearest only. F64_FTZ: the f64 form takes .ftz
// (rsqrt.approx.ftz.f64).
template <Unary U, bool F64Ftz = false>
ExecFn unary_rn_fn(Type t, bool ftz) {
    return by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
        if constexpr (std::is_same_v<T, double> && !F64Ftz)
            return &exec_funary<T, U, Round::Rn, false>;
        else
            return select_flags<1>({ftz}, []<bool F>() { return &exec_funary<T, U, Round::Rn, F>; });
    });
}

// sin cos lg2 ex2 .approx, which have an .f32 form only.
template <Unary U>
ExecFn unary_f32_fn(bool ftz) {
    return select_flags<1>({ftz}, []<bool F>() { return &exec_funary<float, U, Round::Rn, F>; });
}

// The family's meaning is the front end's (ptx/instr_float.h); here the handler and operands.
Status emit_float(InstrDecoder& d, const ptx::FloatArith& f) {
    using Op = ptx::FloatArith::Op;
    const Type t = f.type;
    const Round round = f.round.value_or(Round::Rn);
    switch (f.op) {
    case Op::Add:
        return d.emit_op(fbin_fn<FAdd>(t, round, f.ftz, f.sat), t, 2);
    case Op::Sub:
        return d.emit_op(fbin_fn<FSub>(t, round, f.ftz, f.sat), t, 2);
    case Op::Mul:
        return d.emit_op(fbin_fn<FMul>(t, round, f.ftz, f.sat), t, 2);
    case Op::Fma:
        // A fma fused from a mul and a sub (contract.h) negates its operands with neg first (emit_fma).
        return d.emit_fma(fma_fn(t, round, f.ftz, f.sat), unary_rn_fn<Unary::Neg>(t, false), t);
    case Op::Div:
        // .approx (for |b| <= 2^126) and .full are within 2 ulp on hardware; the exact quotient is within
        // that bound. div.approx by |b| > 2^126 gives 0 (FDivApprox).
        return d.emit_op(
            t == Type::F32 && f.approx
                ? select_flags<1>({f.ftz}, []<bool F>() { return &exec_fbin<float, FDivApprox, Round::Rn, F, false>; })
                : fbin_fn<FDiv>(t, round, f.ftz, false),
            t, 2);
    case Op::Min:
    case Op::Max: {
        const bool is_max = f.op == Op::Max;
        ExecFn fn = by_type<kFloatTypes>(t, [&]<class T>(TypeTag<T>) {
            if constexpr (std::is_same_v<T, double>) // no modifiers on f64
                return select_flags<1>({is_max}, []<bool M>() { return &exec_fminmax<T, M, false, false, false>; });
            else
                return select_flags<4>({is_max, f.ftz, f.nan, f.xorsign},
                                       []<bool M, bool F, bool N, bool X>() { return &exec_fminmax<T, M, F, N, X>; });
        });
        return d.emit_op(fn, t, 2);
    }
    case Op::Abs:
        return d.emit_op(unary_rn_fn<Unary::Abs>(t, f.ftz), t, 1);
    case Op::Neg:
        return d.emit_op(unary_rn_fn<Unary::Neg>(t, f.ftz), t, 1);
    case Op::Sqrt:
        // .approx is within 2^-23 relative: the exact result satisfies it.
        return d.emit_op(unary_fn<Unary::Sqrt>(t, round, f.ftz), t, 1);
    case Op::Rcp:
        // .approx.f32 is within 1 ulp: the exact result satisfies it; rcp.approx.ftz.f64 is its own rule.
        return d.emit_op(t == Type::F64 && f.approx ? &exec_rcp_approx_f64 : unary_fn<Unary::Rcp>(t, round, f.ftz), t,
                         1);
    case Op::Rsqrt:
        return d.emit_op(unary_rn_fn<Unary::Rsqrt, true>(t, f.ftz), t, 1);
    case Op::Sin:
        return d.emit_op(unary_f32_fn<Unary::Sin>(f.ftz), t, 1);
    case Op::Cos:
        return d.emit_op(unary_f32_fn<Unary::Cos>(f.ftz), t, 1);
    case Op::Lg2:
        return d.emit_op(unary_f32_fn<Unary::Lg2>(f.ftz), t, 1);
    case Op::Ex2:
        return d.emit_op(unary_f32_fn<Unary::Ex2>(f.ftz), t, 1);
    case Op::Tanh:
        return d.emit_op(&exec_funary<float, Unary::Tanh, Round::Rn, false>, t, 1);
    case Op::Copysign:
        return d.emit_op(by_type<kFloatTypes>(t, []<class T>(TypeTag<T>) { return &exec_copysign<T>; }), t, 2);
    case Op::Testp: {
        int16_t p = D4R_TRY(d.pred_dst(d.operand(0)));
        uint32_t a = D4R_TRY(d.src(1, t));
        Instr& in = d.emit(by_type<kFloatTypes>(t, []<class T>(TypeTag<T>) { return &exec_testp<T>; }));
        in.pd[0] = p;
        in.s[0] = a;
        in.flags = static_cast<uint16_t>(f.test);
        return ok_status();
    }
    }
    return d.error("unknown floating-point operation");
}

Status decode_float_family(InstrDecoder& d) { return emit_float(d, D4R_TRY(d.typed(ptx::decode_float))); }

Status decode_float_unary_entry(InstrDecoder& d) {
    if (is_half_type(d.mods().peek_type())) return decode_half_unary(d);
    return decode_float_family(d);
}

} // namespace

Status decode_float_arith(InstrDecoder& d) {
    if (is_half_type(d.mods().peek_type())) return decode_half_arith(d);
    return decode_float_family(d);
}

void add_float_ops(OpcodeTable& t) {
    t["fma"] = &decode_float_arith;
    for (const char* name : {"sqrt", "rcp", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh"})
        t[name] = &decode_float_unary_entry;
    t["copysign"] = &decode_float_family;
    t["testp"] = &decode_float_family;
}

} // namespace d4r::ptxsim
