// Software rounding to narrow floating-point formats and round-to-odd integer conversion.
#include "ptxsim/fp.h"

#include <bit>
#include <cmath>

namespace d4r::ptxsim {

uint32_t round_to_small(double x, SmallFormat f, Round r) {
    const int mb = f.mantissa_bits;
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const int emin = 1 - bias;
    const uint64_t inf = ((1ull << f.exponent_bits) - 1) << mb;
    const uint64_t sign = std::signbit(x) ? 1ull << (mb + f.exponent_bits) : 0;
    if (std::isnan(x)) return static_cast<uint32_t>((1ull << (mb + f.exponent_bits)) - 1);
    double a = std::fabs(x);
    if (std::isinf(a)) return static_cast<uint32_t>(sign | inf);
    if (a == 0) return static_cast<uint32_t>(sign);
    int e = 0;
    std::frexp(a, &e);
    int exp = std::max(e - 1, emin); // exponent of the result's quantum grid
    double q = std::ldexp(a, mb - exp); // exact: scaling by a power of two
    double fl = std::floor(q);
    double frac = q - fl;
    const bool neg = sign != 0;
    bool up = false;
    switch (r) {
    case Round::Rn: up = frac > 0.5 || (frac == 0.5 && std::fmod(fl, 2.0) != 0); break;
    case Round::Rna: up = frac >= 0.5; break;
    case Round::Rz: up = false; break;
    case Round::Rp: up = !neg && frac > 0; break;
    case Round::Rm: up = neg && frac > 0; break;
    }
    // Clamp before converting: huge values only need to be recognised as overflow.
    double limit = std::ldexp(1.0, mb + 2);
    uint64_t n = static_cast<uint64_t>(std::min(fl, limit)) + (up ? 1 : 0);
    uint64_t bits = (static_cast<uint64_t>(exp + bias) << mb) + n - (1ull << mb);
    if (exp + bias >= (1 << f.exponent_bits) - 1 || bits >= inf) {
        bool to_inf = r == Round::Rn || r == Round::Rna || (r == Round::Rp && !neg) || (r == Round::Rm && neg);
        bits = to_inf ? inf : inf - 1;
    }
    return static_cast<uint32_t>(sign | bits);
}

double small_to_double(uint32_t bits, SmallFormat f) {
    const int mb = f.mantissa_bits;
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const uint32_t emask = (1u << f.exponent_bits) - 1;
    bool neg = (bits >> (mb + f.exponent_bits)) & 1;
    uint32_t e = (bits >> mb) & emask;
    uint32_t m = bits & ((1u << mb) - 1);
    double v;
    if (e == emask) v = m ? std::nan("") : INFINITY;
    else if (e == 0) v = std::ldexp(static_cast<double>(m), 1 - bias - mb);
    else v = std::ldexp(static_cast<double>(m | (1u << mb)), static_cast<int>(e) - bias - mb);
    return neg ? -v : v;
}

double u64_to_double_odd(uint64_t v) {
    int width = std::bit_width(v);
    if (width <= 53) return static_cast<double>(v);
    int shift = width - 53;
    uint64_t kept = v >> shift;
    if (v & ((1ull << shift) - 1)) kept |= 1; // sticky
    return std::ldexp(static_cast<double>(kept), shift);
}

double s64_to_double_odd(int64_t v) {
    uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    double d = u64_to_double_odd(mag);
    return v < 0 ? -d : d;
}

} // namespace d4r::ptxsim
