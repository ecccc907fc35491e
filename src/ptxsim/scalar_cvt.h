// ptxsim internals: one lane of ops_cvt.cpp's conversions (cvt between integers, f16, bf16, f32 and f64; the packed
// f16x2/bf16x2 form; tf32; FP8 pairs) as scalar functions. The interpreter's handlers apply them to every lane; the
// PTX JIT's numerics helper (compiled_numerics.cpp) applies them to one, so compiled code converts with the same code.
//
// Promise: each function is the exact per-lane rule of its handler. convert() rounds f32/f64 results in the host's
// mode: the caller holds a RoundScope (cvt_scope_round) around it, as exec_cvt does around its loop. Rules: ops_cvt.cpp
// and docs/ptxsim.md ("Half precision and narrow conversions").
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "ptx/instr_cvt.h"
#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

// A cvt's modifiers as its handlers read them: the float rounding (bits 0-3), the integer rounding (4-7, .rni when
// none is written) and these flags.
enum CvtFlags : uint16_t { kFtz = 0x100, kSat = 0x200, kIntRound = 0x400, kRelu = 0x800, kSatFinite = 0x1000 };

D4R_INLINE uint16_t cvt_flags(const ptx::Cvt& c) {
    const Round fr = c.round.value_or(Round::Rn);
    const Round ir = c.int_round.value_or(Round::Rn);
    return static_cast<uint16_t>(static_cast<uint16_t>(fr) | (static_cast<uint16_t>(ir) << 4) | (c.ftz ? kFtz : 0) |
                                 (c.sat ? kSat : 0) | (c.int_round ? kIntRound : 0) | (c.relu ? kRelu : 0) |
                                 (c.satfinite ? kSatFinite : 0));
}

// A half-precision result with .satfinite (infinities and overflow become the largest finite value of
// that sign; NaN stays NaN) and .relu (negative results and -0 become +0; NaN becomes the canonical NaN).
D4R_INLINE uint32_t small_result(double x, SmallFormat f, Round r, uint16_t flags) {
    uint32_t bits = round_to_small(x, f, r);
    const uint32_t sign = 1u << (f.mantissa_bits + f.exponent_bits);
    const uint32_t inf = ((1u << f.exponent_bits) - 1) << f.mantissa_bits;
    const bool nan = (bits & ~sign) > inf;
    if ((flags & kSatFinite) && (bits & ~sign) == inf) bits = (bits & sign) | (inf - 1);
    if ((flags & kRelu) && !nan && (bits & sign)) bits = 0;
    return bits;
}

// A double NaN narrowed to FORMAT: sign kept, quiet bit set, the payload's top bits kept.
D4R_INLINE uint32_t narrow_nan(uint64_t bits, SmallFormat f) {
    const int mb = f.mantissa_bits;
    const uint32_t sign = static_cast<uint32_t>(bits >> 63) << (mb + f.exponent_bits);
    const uint32_t inf = ((1u << f.exponent_bits) - 1) << mb;
    const uint32_t payload = static_cast<uint32_t>((bits & 0x000fffffffffffffull) >> (52 - mb));
    return sign | inf | payload | (1u << (mb - 1));
}

template <Type T>
struct Repr;
template <>
struct Repr<Type::U8> {
    using type = uint8_t;
};
template <>
struct Repr<Type::U16> {
    using type = uint16_t;
};
template <>
struct Repr<Type::U32> {
    using type = uint32_t;
};
template <>
struct Repr<Type::U64> {
    using type = uint64_t;
};
template <>
struct Repr<Type::S8> {
    using type = int8_t;
};
template <>
struct Repr<Type::S16> {
    using type = int16_t;
};
template <>
struct Repr<Type::S32> {
    using type = int32_t;
};
template <>
struct Repr<Type::S64> {
    using type = int64_t;
};
template <>
struct Repr<Type::F16> {
    using type = uint16_t;
};
template <>
struct Repr<Type::BF16> {
    using type = uint16_t;
};
template <>
struct Repr<Type::F32> {
    using type = float;
};
template <>
struct Repr<Type::F64> {
    using type = double;
};

constexpr bool int_type(Type t) { return t != Type::F16 && t != Type::BF16 && t != Type::F32 && t != Type::F64; }
constexpr bool small_type(Type t) { return t == Type::F16 || t == Type::BF16; }
constexpr SmallFormat small_format(Type t) { return t == Type::F16 ? kF16 : kBF16; }

// The host rounding mode a cvt to DT runs under (RoundScope): FR, except for f16/bf16 results, which are rounded in
// software from an exact double.
template <Type DT>
constexpr Round cvt_scope_round(Round fr) {
    return small_type(DT) ? Round::Rn : fr;
}

// The types of cvt's Convert form.
inline constexpr Type kCvtTypes[] = {Type::U8,  Type::U16, Type::U32, Type::U64,  Type::S8,  Type::S16,
                                     Type::S32, Type::S64, Type::F16, Type::BF16, Type::F32, Type::F64};

template <class Result, Type DT, class Pick, size_t... I>
Result select_cvt_src(Type at, const Pick& pick, std::index_sequence<I...>) {
    Result r{};
    ((at == kCvtTypes[I] ? (r = pick.template operator()<DT, kCvtTypes[I]>(), 0) : 0), ...);
    return r;
}
template <class Result, class Pick, size_t... I>
Result select_cvt_dst(Type dt, Type at, const Pick& pick, std::index_sequence<I...> seq) {
    Result r{};
    ((dt == kCvtTypes[I] ? (r = select_cvt_src<Result, kCvtTypes[I]>(at, pick, seq), 0) : 0), ...);
    return r;
}
// PICK.operator()<DT, AT>() for the Convert form from AT to DT; Result{} when either is not a cvt type.
template <class Result, class Pick>
Result select_cvt(Type dt, Type at, const Pick& pick) {
    return select_cvt_dst<Result>(dt, at, pick, std::make_index_sequence<std::size(kCvtTypes)>{});
}

// The exact value of a floating-point source as a double (f32 inputs flushed under .ftz).
template <Type AT>
D4R_INLINE double float_value(typename Repr<AT>::type a, bool ftz) {
    if constexpr (AT == Type::F32)
        return static_cast<double>(ftz ? flush(a) : a);
    else if constexpr (AT == Type::F64)
        return a;
    else
        return small_to_double(a, small_format(AT));
}

template <class D>
D4R_INLINE D float_to_int(double x) {
    if (x != x) return D(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<D>::min());
    // 2^N as a double: the first value above the range (max itself may not be representable).
    constexpr double hi =
        std::is_signed_v<D> ? -lo : 2.0 * (static_cast<double>(std::numeric_limits<D>::max() / 2) + 1.0);
    if (x <= lo) return std::numeric_limits<D>::min();
    if (x >= hi) return std::numeric_limits<D>::max();
    return static_cast<D>(x);
}

template <Type DT, Type AT>
D4R_INLINE typename Repr<DT>::type convert(typename Repr<AT>::type a, Round fr, Round ir, uint16_t flags) {
    using D = typename Repr<DT>::type;
    using A = typename Repr<AT>::type;
    const bool ftz = flags & kFtz, sat = flags & kSat;
    if constexpr (int_type(AT) && int_type(DT)) {
        if (sat) {
            // Clamp the source value into the destination range.
            if constexpr (std::is_signed_v<A>) {
                int64_t v = a;
                int64_t lo = std::is_signed_v<D> ? int64_t(std::numeric_limits<D>::min()) : 0;
                if (v < lo) return D(lo);
                if (std::is_signed_v<D> || sizeof(D) < 8) {
                    int64_t hi = int64_t(std::numeric_limits<D>::max());
                    if (v > hi) return D(hi);
                }
                return D(v);
            } else {
                uint64_t v = a;
                uint64_t hi = uint64_t(std::numeric_limits<D>::max());
                return D(v > hi ? hi : v);
            }
        }
        return static_cast<D>(a);
    } else if constexpr (int_type(AT)) {
        D r;
        if constexpr (DT == Type::F32 || DT == Type::F64) {
            r = static_cast<D>(a); // under the RoundScope of the handler
            if (DT == Type::F32 && ftz) r = flush(r);
            if (sat) r = saturate(r);
        } else {
            double v = std::is_signed_v<A> ? s64_to_double_odd(int64_t(a)) : u64_to_double_odd(uint64_t(a));
            if (sat) v = saturate(v);
            r = static_cast<D>(small_result(v, small_format(DT), fr, flags));
        }
        return r;
    } else if constexpr (int_type(DT)) {
        double x = round_integer(float_value<AT>(a, ftz), ir);
        if (x != x) {
            // NaN (H200, corpus cvt_f2i/cvt_d2i): a 64-bit destination, or an f64 source, gives the
            // "integer indefinite" pattern (sign bit only), signed or unsigned; f32/f16 -> 32 bits gives 0.
            if constexpr (sizeof(D) == 8)
                return D(0x8000000000000000ull);
            else if constexpr (AT == Type::F64 && sizeof(D) == 4)
                return D(0x80000000u);
            else
                return D(0);
        }
        return float_to_int<D>(x);
    } else {
        if constexpr (small_type(AT) && (DT == Type::F32 || DT == Type::F64)) {
            // Widening a NaN (H200 goldens, corpus cvt_f2h): bf16 -> f32 is the plain 16-bit shift (even a
            // signalling NaN stays one); f16 -> f64 keeps the sign and payload, quieted; f16 -> f32 gives
            // the canonical NaN (below). bf16 -> f64 is taken to behave like f16 -> f64.
            const uint32_t mb = AT == Type::F16 ? 10 : 7;
            const uint32_t inf = AT == Type::F16 ? 0x7c00u : 0x7f80u;
            if ((a & 0x7fffu) > inf) {
                if constexpr (DT == Type::F32 && AT == Type::BF16) return std::bit_cast<float>(uint32_t(a) << 16);
                if constexpr (DT == Type::F64) {
                    return std::bit_cast<double>((uint64_t(a >> 15) << 63) | 0x7ff8000000000000ull |
                                                 (uint64_t(a & ((1u << mb) - 1)) << (52 - mb)));
                }
            }
        }
        double x = float_value<AT>(a, ftz);
        if (flags & kIntRound) x = round_integer(x, ir);
        if (sat) x = saturate(x);
        if constexpr (DT == Type::F64) {
            // f32 -> f64 keeps a NaN's payload (cvtss2sd), like the H200, except under .ftz, which gives
            // the canonical f32 NaN widened; f16 NaNs come out canonical; cvt.rXi.f64.f64 quiets the NaN
            // and keeps sign and payload (H200 goldens, corpus f32_round).
            if (x != x) {
                if constexpr (AT == Type::F64)
                    return std::bit_cast<double>(std::bit_cast<uint64_t>(x) | 0x0008000000000000ull);
                else if (AT != Type::F32 || ftz)
                    return std::bit_cast<double>(0x7fffffffe0000000ull);
            }
            return x;
        } else if constexpr (DT == Type::F32) {
            // f64 -> f32 narrows a NaN's payload (cvtsd2ss, as measured); f32 and f16 sources give the
            // canonical NaN. Rounding happens under the handler's RoundScope.
            float f = static_cast<float>(x);
            if (AT != Type::F64) f = canonical(f);
            return ftz ? flush(f) : f;
        } else {
            if constexpr (AT == Type::F64) {
                // f64 -> f16/bf16 keeps a NaN's sign and the top of its payload, quieted (H200 goldens,
                // corpus cvt_f2h); f32 sources give the canonical NaN.
                if (x != x && !(flags & kRelu))
                    return static_cast<D>(narrow_nan(std::bit_cast<uint64_t>(a), small_format(DT)));
            }
            return static_cast<D>(small_result(x, small_format(DT), fr, flags));
        }
    }
}

// cvt.rn{.relu}.f16x2.f32 d, a, b: d = {cvt(a) in the upper half, cvt(b) in the lower}.
template <Type DT>
D4R_INLINE uint32_t pack_lane(float a, float b, Round fr, uint16_t flags) {
    uint32_t hi = small_result(static_cast<double>(a), small_format(DT), fr, flags);
    uint32_t lo = small_result(static_cast<double>(b), small_format(DT), fr, flags);
    return (hi << 16) | lo;
}

// cvt.rna{.satfinite}.tf32.f32, cvt.rn/.rz.tf32.f32: the f32 rounded to tf32 (10 mantissa bits), as f32
// bits with the low 13 bits zero (H200 goldens, corpus cvt_f2h): .rna truncates a NaN's payload (a
// signalling NaN whose payload lies in the dropped bits becomes infinity), .rn/.rz give 0x7fffe000 for
// every NaN. .satfinite then takes one tf32 ulp off any result with an all-ones exponent, which maps
// infinities and overflow to the largest finite value and NaNs to other NaNs (0x7fffffff -> 0x7fffc000).
template <Round R, bool SatFinite>
D4R_INLINE uint32_t tf32_lane(uint32_t a) {
    uint32_t r;
    if ((a & 0x7fffffffu) > 0x7f800000u)
        r = R == Round::Rna ? a & 0xffffe000u : 0x7fffe000u;
    else
        r = round_to_small(static_cast<double>(std::bit_cast<float>(a)), kTF32, R) << 13;
    if (SatFinite && (r & 0x7f800000u) == 0x7f800000u) r -= 0x2000u;
    return r;
}

// PICK.operator()<R, SatFinite>() for the tf32 form FR (the written rounding) and SATFINITE select: .rn and .rz
// without .satfinite, .rna with or without it.
template <class Pick>
D4R_INLINE auto select_tf32(Round fr, bool satfinite, const Pick& pick) {
    if (fr == Round::Rn) return pick.template operator()<Round::Rn, false>();
    if (fr == Round::Rz) return pick.template operator()<Round::Rz, false>();
    if (satfinite) return pick.template operator()<Round::Rna, true>();
    return pick.template operator()<Round::Rna, false>();
}

// FP8 with .satfinite (the only form the ISA has for these destinations): round to nearest even; values
// beyond the largest finite one, infinities included, give it (e4m3 448, e5m2 57344) with their sign;
// NaN gives 0x7f; .relu makes negative results (and -0) +0.
D4R_INLINE uint32_t to_fp8(double x, bool e5m2, bool relu) {
    if (x != x) return 0x7fu;
    const bool neg = std::signbit(x);
    const uint64_t max = e5m2 ? 0x7bu : 0x7eu;
    uint64_t mag = std::isinf(x) ? max : round_magnitude(x, e5m2 ? kE5M2 : kE4M3, Round::Rn, neg);
    if (mag > max) mag = max;
    if (relu && neg) return 0;
    return static_cast<uint32_t>(mag | (neg ? 0x80u : 0u));
}

// The f16 encoding of an FP8 value (exact). NaN (e4m3 0x7f/0xff, e5m2 exponent 31 with a mantissa) gives
// the canonical f16 NaN; .relu makes negative values +0.
D4R_INLINE uint32_t fp8_to_f16(uint32_t v, bool e5m2, bool relu) {
    v &= 0xffu;
    const bool neg = v & 0x80u;
    uint32_t r;
    if (e5m2) {
        r = v << 8; // e5m2 is the top byte of an f16
        if ((r & 0x7fffu) > 0x7c00u) return kCanonicalNaN16;
    } else {
        if ((v & 0x7fu) == 0x7fu) return kCanonicalNaN16;
        // e4m3 has no infinities: exponent 15 holds finite values (256 .. 448), so decode it by hand.
        const uint32_t e = (v >> 3) & 0xfu, m = v & 7u;
        const double mag = e == 0 ? std::ldexp(double(m), -9) : std::ldexp(double(8 + m), int(e) - 10);
        r = round_to_small(mag, kF16, Round::Rn) | (neg ? 0x8000u : 0u);
    }
    if (relu && neg) return 0;
    return r;
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b: a in the high byte, b in the low one.
D4R_INLINE uint32_t f32_to_fp8x2(float a, float b, bool e5m2, bool relu) {
    return (to_fp8(a, e5m2, relu) << 8) | to_fp8(b, e5m2, relu);
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a: each half rounded once, the high half to the high byte.
D4R_INLINE uint32_t f16x2_to_fp8x2(uint32_t a, bool e5m2, bool relu) {
    const uint32_t hi = to_fp8(small_to_double(a >> 16, kF16), e5m2, relu);
    const uint32_t lo = to_fp8(small_to_double(a & 0xffffu, kF16), e5m2, relu);
    return (hi << 8) | lo;
}

// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a: the high byte to the high half.
D4R_INLINE uint32_t fp8x2_to_f16x2(uint32_t a, bool e5m2, bool relu) {
    return (fp8_to_f16(a >> 8, e5m2, relu) << 16) | fp8_to_f16(a, e5m2, relu);
}

} // namespace d4r::ptxsim
