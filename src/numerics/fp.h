// d4r's measured numerics (shared by ptxsim and the PTX JIT): floating-point rules of the PTX ISA that the host
// FPU does not apply by itself.
//   - NaN results: f32 arithmetic returns the canonical NaN 0x7fffffff (not the x86 quieted input);
//     canonical() applies that. f64 arithmetic propagates a NaN input (quieted) and makes
//     0xfff8000000000000 for invalid operations, as x86 does: f64 results pass through unchanged.
//     (Both measured on the H200; docs/ptxsim.md lists the experiment.)
//   - .ftz flushes subnormal inputs and results to sign-preserving zero (done in software: the
//     workers run with FTZ/DAZ off so that instructions without .ftz keep subnormals).
//   - Directed rounding (.rz/.rm/.rp) runs the host operation under fesetround; the library is built
//     with -frounding-math -ffp-contract=off so the compiler neither folds nor fuses across it.
//   - Rounding to narrow formats (f16, bf16, tf32, FP8) is bit arithmetic on a double, every mode;
//     HalfTraits decodes f16/bf16 words, fma_odd gives a half-precision fma one correct rounding.
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>

#include "ptx/types.h"

#ifndef D4R_INLINE
#define D4R_INLINE inline __attribute__((always_inline))
#endif

namespace d4r::numerics {

using ptx::Round; // the front end's rounding modes (ptx/types.h)

inline constexpr uint32_t kCanonicalNaN32 = 0x7fffffffu;
inline constexpr uint64_t kCanonicalNaN64 = 0x7fffffffffffffffull;
inline constexpr uint16_t kCanonicalNaN16 = 0x7fffu;

D4R_INLINE float canonical(float x) { return x != x ? std::bit_cast<float>(kCanonicalNaN32) : x; }
D4R_INLINE double canonical(double x) { return x; } // f64 NaNs propagate as on the host (see above)

// Sign-preserving flush of a subnormal f32 to zero.
D4R_INLINE float flush(float x) {
    uint32_t b = std::bit_cast<uint32_t>(x);
    return (b & 0x7f800000u) == 0 ? std::bit_cast<float>(b & 0x80000000u) : x;
}
D4R_INLINE double flush(double x) {
    uint64_t b = std::bit_cast<uint64_t>(x);
    return (b & 0x7ff0000000000000ull) == 0 ? std::bit_cast<double>(b & 0x8000000000000000ull) : x;
}
template <bool Ftz, class T>
D4R_INLINE T maybe_flush(T x) {
    if constexpr (Ftz)
        return flush(x);
    else
        return x;
}

// .ftz on a result: subnormals flush to signed zero, and so does a result that rounding carried up to
// the smallest normal from below when, rounded to 24 bits with an unbounded exponent, it is still tiny
// (tininess after rounding: the H200 flushes FLT_MIN * (1 - 2^-24), which IEEE rounds to FLT_MIN).
// EXACT is the operation's result in double precision.
template <Round R>
D4R_INLINE float flush_result(float r, double exact) {
    r = flush(r);
    if (std::fabs(r) != 0x1p-126f) return r;
    double s = std::fabs(exact) * 0x1p150; // 2^-126 is 2^24 in units of the 24-bit grid below it
    bool neg = exact < 0;
    double q;
    if constexpr (R == Round::Rz)
        q = std::trunc(s);
    else if constexpr (R == Round::Rp)
        q = neg ? std::floor(s) : std::ceil(s);
    else if constexpr (R == Round::Rm)
        q = neg ? std::ceil(s) : std::floor(s);
    else
        q = std::floor(s) +
            ((s - std::floor(s) > 0.5 || (s - std::floor(s) == 0.5 && std::fmod(std::floor(s), 2.0) != 0)) ? 1 : 0);
    return q < 0x1p24 ? std::copysign(0.0f, r) : r;
}

// .sat: clamp to [0, 1]; NaN becomes +0.
template <class T>
D4R_INLINE T saturate(T x) {
    return x > T(0) ? (x < T(1) ? x : T(1)) : T(0);
}

// Sets the host rounding mode for the lifetime of the scope (nothing for round-to-nearest, the default
// the workers run in). Results must be stored to warp memory before the scope ends.
class RoundScope {
public:
    explicit RoundScope(Round r) : m_on(r != Round::Rn && r != Round::Rna) {
        if (!m_on) return;
        m_old = std::fegetround();
        std::fesetround(r == Round::Rz ? FE_TOWARDZERO : r == Round::Rm ? FE_DOWNWARD : FE_UPWARD);
    }
    ~RoundScope() {
        if (m_on) std::fesetround(m_old);
    }
    RoundScope(const RoundScope&) = delete;
    RoundScope& operator=(const RoundScope&) = delete;

private:
    bool m_on;
    int m_old = FE_TONEAREST;
};

// A binary floating-point format narrower than f32: significand bits (without the hidden bit), exponent
// bits. f16 = {10, 5}, bf16 = {7, 8}, tf32 = {10, 8}, e5m2 = {2, 5} have infinities and NaNs in the top
// exponent; e4m3 = {3, 4} uses the top exponent for finite values up to 448 (0x7e) and only 0x7f is NaN.
struct SmallFormat {
    int mantissa_bits;
    int exponent_bits;
};
inline constexpr SmallFormat kF16{10, 5};
inline constexpr SmallFormat kBF16{7, 8};
inline constexpr SmallFormat kTF32{10, 8};
inline constexpr SmallFormat kE4M3{3, 4};
inline constexpr SmallFormat kE5M2{2, 5};

// The magnitude of X (finite, not NaN) rounded to FORMAT's grid with mode R, as an encoding without the
// sign that may exceed the largest finite value (the caller decides between infinity and saturation).
// Bit arithmetic on the double, so the result is exact for every double; NEG is X's sign.
D4R_INLINE uint64_t round_magnitude(double x, SmallFormat f, Round r, bool neg) {
    const uint64_t b = std::bit_cast<uint64_t>(x) & 0x7fffffffffffffffull;
    const int mb = f.mantissa_bits;
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const int emin = 1 - bias;
    if (b == 0) return 0;
    int e = static_cast<int>(b >> 52);
    uint64_t sig = b & 0x000fffffffffffffull;
    int exp = e - 1023; // x = sig * 2^(exp - 52)
    if (e == 0)
        exp = -1022;
    else
        sig |= 1ull << 52;
    const int qexp = (exp > emin ? exp : emin) - mb; // exponent of the result's quantum
    const int shift = qexp - (exp - 52);             // >= 52 - mb > 1
    uint64_t kept, rem, half;
    if (shift >= 64) {
        kept = 0;
        rem = 1; // nonzero and below half a quantum (sig < 2^53 <= 2^(shift-11))
        half = 2;
    } else {
        kept = sig >> shift;
        rem = sig & ((1ull << shift) - 1);
        half = 1ull << (shift - 1);
    }
    bool up = false;
    switch (r) {
    case Round::Rn:
        up = rem > half || (rem == half && (kept & 1));
        break;
    case Round::Rna:
        up = rem >= half;
        break;
    case Round::Rz:
        up = false;
        break;
    case Round::Rp:
        up = !neg && rem != 0;
        break;
    case Round::Rm:
        up = neg && rem != 0;
        break;
    }
    const uint64_t n = kept + (up ? 1 : 0);
    // Normal: ((exp + bias) << mb) + n - 2^mb; subnormal: n (a carry into 2^mb is the smallest normal).
    if (exp < emin) return n;
    return (static_cast<uint64_t>(exp + bias - 1) << mb) + n;
}

// Rounds X (any double, exact) to FORMAT (IEEE-like: f16, bf16, tf32, e5m2) with mode R; NaN gives the
// canonical NaN of the format (all ones but the sign). Overflow gives infinity or the largest finite
// value as IEEE directs for R. Returns the raw bits.
D4R_INLINE uint32_t round_to_small(double x, SmallFormat f, Round r) {
    const int mb = f.mantissa_bits, eb = f.exponent_bits;
    const uint64_t inf = ((1ull << eb) - 1) << mb;
    const uint64_t b = std::bit_cast<uint64_t>(x);
    const bool neg = b >> 63;
    const uint64_t sign = neg ? 1ull << (mb + eb) : 0;
    if ((b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return static_cast<uint32_t>((1ull << (mb + eb)) - 1);
    if ((b & 0x7fffffffffffffffull) == 0x7ff0000000000000ull) return static_cast<uint32_t>(sign | inf);
    uint64_t bits = round_magnitude(x, f, r, neg);
    if (bits >= inf) {
        bool to_inf = r == Round::Rn || r == Round::Rna || (r == Round::Rp && !neg) || (r == Round::Rm && neg);
        bits = to_inf ? inf : inf - 1;
    }
    return static_cast<uint32_t>(sign | bits);
}

// The value of a small-format encoding (exact in double); NaN encodings give a quiet NaN.
D4R_INLINE double small_to_double(uint32_t bits, SmallFormat f) {
    const int mb = f.mantissa_bits;
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const uint32_t emask = (1u << f.exponent_bits) - 1;
    const bool neg = (bits >> (mb + f.exponent_bits)) & 1;
    const uint32_t e = (bits >> mb) & emask;
    const uint64_t m = bits & ((1u << mb) - 1);
    uint64_t d;
    if (e == emask) {
        d = m ? 0x7ff8000000000000ull : 0x7ff0000000000000ull;
    } else if (e == 0) {
        if (m == 0) return neg ? -0.0 : 0.0;
        int w = std::bit_width(m); // value m * 2^(1 - bias - mb), normalised for the double
        d = (static_cast<uint64_t>(1023 + (w - 1) + 1 - bias - mb) << 52) | ((m << (53 - w)) & 0x000fffffffffffffull);
    } else {
        d = (static_cast<uint64_t>(static_cast<int>(e) - bias + 1023) << 52) | (m << (52 - mb));
    }
    return std::bit_cast<double>(d | (neg ? 0x8000000000000000ull : 0));
}

// f16 / bf16 bits to f32 (exact; NaN payloads move to the top of the f32 payload).
D4R_INLINE float f16_to_float(uint32_t h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        float v = static_cast<float>(m) * 0x1p-24f; // exact
        return std::bit_cast<float>(std::bit_cast<uint32_t>(v) | sign);
    }
    return std::bit_cast<float>(sign | ((e + 112) << 23) | (m << 13));
}
D4R_INLINE float bf16_to_float(uint32_t h) { return std::bit_cast<float>((h & 0xffffu) << 16); }

// f16 (BF = false) and bf16 (BF = true) encodings in the low 16 bits of a word.
template <bool BF>
struct HalfTraits {
    static constexpr SmallFormat kFormat = BF ? kBF16 : kF16;
    static constexpr uint32_t kInf = BF ? 0x7f80u : 0x7c00u;
    static constexpr uint32_t kOne = BF ? 0x3f80u : 0x3c00u;
    static constexpr uint32_t kMinNormal = BF ? 0x0080u : 0x0400u;
    static constexpr int kMantissa = BF ? 7 : 10;
    static constexpr int kEmin = BF ? -126 : -14;
    D4R_INLINE static bool is_nan(uint32_t h) { return (h & 0x7fffu) > kInf; }
    D4R_INLINE static float to_float(uint32_t h) { return BF ? bf16_to_float(h) : f16_to_float(h); }
    D4R_INLINE static double value(uint32_t h) { return static_cast<double>(to_float(h)); }
    // Sign-preserving flush of a subnormal.
    D4R_INLINE static uint32_t flush(uint32_t h) { return (h & kInf) == 0 ? h & 0x8000u : h; }
    // .ftz on a result R rounded from EXACT: subnormals flush, and so does a result that rounding carried
    // up to the smallest normal while EXACT, rounded to the format's precision with an unbounded
    // exponent, would still be below it (tininess after rounding, as the H200 does for f32).
    D4R_INLINE static uint32_t flush_result(uint32_t r, double exact) {
        r = flush(r);
        if ((r & 0x7fffu) != kMinNormal) return r;
        // Below 2^emin * (1 - 2^-(p+1)), p = mantissa + 1, rounding to nearest at that precision stays tiny.
        const double limit = std::ldexp(1.0, kEmin) - std::ldexp(1.0, kEmin - kMantissa - 2);
        return std::fabs(exact) < limit ? r & 0x8000u : r;
    }
};

// Round to odd: EXACT = S + ERR (ERR the exact error of the rounded-to-nearest S, |ERR| <= ulp(S)/2).
// Returns S when ERR is 0, else whichever of S and its neighbour toward ERR has an odd significand, so
// that one more rounding to a format at least two bits narrower is correct (no double rounding).
D4R_INLINE double round_odd(double s, double err) {
    if (err == 0 || s != s || std::isinf(s)) return s;
    uint64_t b = std::bit_cast<uint64_t>(s);
    if (b & 1) return s;
    bool away = (err > 0) == (s > 0); // the exact value is farther from zero than S
    return std::bit_cast<double>(away ? b + 1 : b - 1);
}

// a * b + c for values whose product is exact in double (f16, bf16 operands), rounded to odd.
D4R_INLINE double fma_odd(double a, double b, double c) {
    double p = a * b; // exact
    double s = p + c;
    // Knuth's two-sum: the exact error of s (no overflow is possible for half-precision operands).
    double bb = s - p;
    double err = (p - (s - bb)) + (c - bb);
    return round_odd(s, err);
}

// Rounds an integer to double keeping a sticky bit (round to odd), so that a second rounding to a
// narrower format is correct.
double u64_to_double_odd(uint64_t v);
double s64_to_double_odd(int64_t v);

// Rounds a double to an integer value with the ISA's integer rounding modes (.rni = nearest even,
// .rzi, .rmi, .rpi).
D4R_INLINE double round_integer(double x, Round r) {
    switch (r) {
    case Round::Rz:
        return std::trunc(x);
    case Round::Rm:
        return std::floor(x);
    case Round::Rp:
        return std::ceil(x);
    default:
        return std::nearbyint(x); // the workers run in round-to-nearest-even
    }
}
D4R_INLINE float round_integer(float x, Round r) {
    switch (r) {
    case Round::Rz:
        return std::trunc(x);
    case Round::Rm:
        return std::floor(x);
    case Round::Rp:
        return std::ceil(x);
    default:
        return std::nearbyint(x);
    }
}

} // namespace d4r::numerics
