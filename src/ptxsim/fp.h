// ptxsim internals: floating-point rules of the PTX ISA that the host FPU does not apply by itself.
//   - NaN results: f32 arithmetic returns the canonical NaN 0x7fffffff (not the x86 quieted input);
//     canonical() applies that. f64 arithmetic propagates a NaN input (quieted) and makes
//     0xfff8000000000000 for invalid operations, as x86 does: f64 results pass through unchanged.
//     (Both measured on the H200; docs/ptxsim.md lists the experiment.)
//   - .ftz flushes subnormal inputs and results to sign-preserving zero (done in software: the
//     workers run with FTZ/DAZ off so that instructions without .ftz keep subnormals).
//   - Directed rounding (.rz/.rm/.rp) runs the host operation under fesetround; the library is built
//     with -frounding-math -ffp-contract=off so the compiler neither folds nor fuses across it.
//   - Conversions to narrow formats (f16, bf16) are done in software with every rounding mode.
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>

#include "ptxsim/exec.h"

namespace d4r::ptxsim {

enum class Round : uint8_t { Rn, Rz, Rm, Rp, Rna };

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
    if constexpr (Ftz) return flush(x);
    else return x;
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
    if constexpr (R == Round::Rz) q = std::trunc(s);
    else if constexpr (R == Round::Rp) q = neg ? std::floor(s) : std::ceil(s);
    else if constexpr (R == Round::Rm) q = neg ? std::ceil(s) : std::floor(s);
    else q = std::floor(s) + ((s - std::floor(s) > 0.5 || (s - std::floor(s) == 0.5 && std::fmod(std::floor(s), 2.0) != 0)) ? 1 : 0);
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

// An IEEE-style binary format with infinities: significand bits (without the hidden bit), exponent
// bits. f16 = {10, 5}, bf16 = {7, 8}.
struct SmallFormat {
    int mantissa_bits;
    int exponent_bits;
};
inline constexpr SmallFormat kF16{10, 5};
inline constexpr SmallFormat kBF16{7, 8};

// Rounds X (any double, exact) to FORMAT with mode R; NaN gives the canonical NaN of the format
// (all ones but the sign). Returns the raw bits.
uint32_t round_to_small(double x, SmallFormat format, Round r);
// The value of a small-format encoding (exact in double).
double small_to_double(uint32_t bits, SmallFormat format);

// Rounds an integer to double keeping a sticky bit (round to odd), so that a second rounding to a
// narrower format is correct.
double u64_to_double_odd(uint64_t v);
double s64_to_double_odd(int64_t v);

// Rounds a double to an integer value with the ISA's integer rounding modes (.rni = nearest even,
// .rzi, .rmi, .rpi).
D4R_INLINE double round_integer(double x, Round r) {
    switch (r) {
    case Round::Rz: return std::trunc(x);
    case Round::Rm: return std::floor(x);
    case Round::Rp: return std::ceil(x);
    default: return std::nearbyint(x); // the workers run in round-to-nearest-even
    }
}
D4R_INLINE float round_integer(float x, Round r) {
    switch (r) {
    case Round::Rz: return std::trunc(x);
    case Round::Rm: return std::floor(x);
    case Round::Rp: return std::ceil(x);
    default: return std::nearbyint(x);
    }
}

} // namespace d4r::ptxsim
