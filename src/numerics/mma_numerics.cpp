// The tensor-core rule of mma_numerics.h in 64-bit integer arithmetic. With 25 bits kept below the
// largest exponent sum, a product term is below 2^27 units of 2^(E-25) and C below 2^26, so the sum of
// at most 32 terms fits an int64 with room to spare.
#include "numerics/mma_numerics.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>

#include "numerics/fp.h"

namespace d4r::numerics::mma {

namespace {

constexpr int kKeptBits = 25; // bits kept below the largest exponent sum (measured)

Elem decode_ieee(uint32_t bits, int man, int exp_bits) {
    const int bias = (1 << (exp_bits - 1)) - 1;
    const uint32_t emask = (1u << exp_bits) - 1;
    const bool neg = (bits >> (man + exp_bits)) & 1;
    const uint32_t ex = (bits >> man) & emask, mant = bits & ((1u << man) - 1);
    Elem e;
    if (ex == emask) {
        e.cls = mant ? 2 : 1;
        e.m = mant ? 0 : (neg ? -1 : 1);
        return e;
    }
    int32_t m = static_cast<int32_t>(ex == 0 ? mant : (mant | (1u << man)));
    e.m = neg ? -m : m;
    e.ref = static_cast<int16_t>(ex == 0 ? 1 - bias : int(ex) - bias);
    return e;
}

std::array<uint16_t, 256> make_e4m3_table() {
    std::array<uint16_t, 256> t{};
    for (unsigned b = 0; b < 256; ++b) {
        const bool neg = b & 0x80;
        const unsigned ex = (b >> 3) & 15, man = b & 7;
        if (ex == 15 && man == 7) { // e4m3 has no infinities; S.1111.111 is NaN
            t[b] = 0x7fff;
            continue;
        }
        // Every e4m3 value is an f16 normal: rebias the exponent (7 -> 15), or normalise a denormal.
        uint16_t h;
        if (ex == 0) {
            if (man == 0) {
                h = 0;
            } else {
                int e = -6; // value man * 2^-9 = 1.f * 2^(e) after normalisation
                unsigned m = man;
                while (!(m & 8)) {
                    m <<= 1;
                    --e;
                }
                h = static_cast<uint16_t>(((e + 15) << 10) | ((m & 7) << 7));
            }
        } else {
            h = static_cast<uint16_t>(((ex - 7 + 15) << 10) | (man << 7));
        }
        t[b] = static_cast<uint16_t>(h | (neg ? 0x8000 : 0));
    }
    return t;
}

const std::array<uint16_t, 256> kE4M3ToF16 = make_e4m3_table();

// Rounds S * 2^L to f32 toward zero or to f16 nearest-even; a result whose exponent is beyond the
// format's range is infinity. An exact zero is +0.
uint32_t round_scaled(int64_t s, int l, bool f16) {
    if (s == 0) return 0;
    const int man = f16 ? 10 : 23, bias = f16 ? 15 : 127, max_biased = f16 ? 30 : 254;
    const uint32_t sbit = s < 0 ? (f16 ? 0x8000u : 0x80000000u) : 0u;
    const uint64_t mag = s < 0 ? uint64_t(0) - uint64_t(s) : uint64_t(s);
    const int ue = l + 63 - __builtin_clzll(mag);
    const int min_e = 1 - bias;
    const int lsb = (ue < min_e ? min_e : ue) - man;
    const int shift = lsb - l;
    uint64_t q;
    if (shift <= 0) {
        q = mag << -shift;
    } else if (shift >= 64) {
        q = 0; // mag < 2^63: below half an ulp
    } else {
        q = mag >> shift;
        if (f16) {
            const uint64_t rem = mag & ((uint64_t(1) << shift) - 1), half = uint64_t(1) << (shift - 1);
            if (rem > half || (rem == half && (q & 1))) ++q;
        }
    }
    if (ue < min_e) return sbit | static_cast<uint32_t>(q); // denormal (a carry lands in the exponent)
    int biased = ue + bias;
    if (q >> (man + 1)) {
        q >>= 1;
        ++biased;
    }
    // Beyond the format's range: infinity for both accumulators, although f32 rounds toward zero
    // (H200 goldens of mma_bf16_special: bf16 products past 2^128 give inf, not FLT_MAX).
    if (biased > max_biased) return f16 ? (sbit | 0x7c00u) : (sbit | 0x7f800000u);
    return sbit | (uint32_t(biased) << man) | (static_cast<uint32_t>(q) & ((1u << man) - 1));
}

inline int64_t aligned(int64_t v, int sh) {
    const uint64_t mag = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    const uint64_t t = sh >= 0 ? (mag << sh) : (sh <= -63 ? 0 : (mag >> -sh));
    return v < 0 ? -int64_t(t) : int64_t(t);
}

inline uint32_t nan_bits(bool f16) { return f16 ? kCanonicalNaN16 : kCanonicalNaN32; }
inline uint32_t inf_bits(bool neg, bool f16) {
    return f16 ? (neg ? 0xfc00u : 0x7c00u) : (neg ? 0xff800000u : 0x7f800000u);
}

// NaN, infinities: the result when any input or C is not finite.
uint32_t special_dot(const Elem* a, const Elem* b, int n, const Elem& c, bool f16) {
    bool nan = c.cls == 2, pos = c.cls == 1 && c.m > 0, neg = c.cls == 1 && c.m < 0;
    for (int k = 0; k < n; ++k) {
        if (a[k].cls == 2 || b[k].cls == 2) {
            nan = true;
        } else if (a[k].cls == 1 || b[k].cls == 1) {
            if (a[k].m == 0 || b[k].m == 0)
                nan = true; // inf * 0
            else if ((a[k].m < 0) != (b[k].m < 0))
                neg = true;
            else
                pos = true;
        }
    }
    if (nan || (pos && neg)) return nan_bits(f16);
    return inf_bits(neg, f16);
}

} // namespace

uint16_t fp8_to_f16(uint8_t bits, bool e5m2) { return e5m2 ? static_cast<uint16_t>(bits << 8) : kE4M3ToF16[bits]; }

Elem decode(uint32_t bits, Format f) {
    switch (f) {
    case Format::F16:
        return decode_ieee(bits & 0xffff, 10, 5);
    case Format::BF16:
        return decode_ieee(bits & 0xffff, 7, 8);
    case Format::E4M3:
        return decode_ieee(fp8_to_f16(static_cast<uint8_t>(bits), false), 10, 5);
    case Format::E5M2:
        return decode_ieee(fp8_to_f16(static_cast<uint8_t>(bits), true), 10, 5);
    case Format::F32:
        return decode_ieee(bits, 23, 8);
    }
    return {};
}

uint32_t dot(const Elem* a, const Elem* b, int n, const Elem& c, int in_man, bool out_f16) {
    uint8_t cls = c.cls;
    for (int k = 0; k < n; ++k) cls |= a[k].cls | b[k].cls;
    if (cls) return special_dot(a, b, n, c, out_f16);
    int64_t p[32];
    int r[32];
    int e = INT_MIN;
    for (int k = 0; k < n; ++k) {
        p[k] = int64_t(a[k].m) * b[k].m;
        r[k] = a[k].ref + b[k].ref;
        if (p[k] != 0) e = std::max(e, r[k]);
    }
    if (c.m != 0) e = std::max(e, int(c.ref));
    if (e == INT_MIN) return 0;
    const int l = e - kKeptBits;
    const int prod_man = 2 * in_man, c_man = out_f16 ? 10 : 23;
    int64_t s = 0;
    for (int k = 0; k < n; ++k)
        if (p[k] != 0) s += aligned(p[k], r[k] - prod_man - l);
    if (c.m != 0) s += aligned(c.m, c.ref - c_man - l);
    return round_scaled(s, l, out_f16);
}

uint32_t ieee_add(uint32_t a, uint32_t b, bool f16) {
    if (f16) {
        double x = small_to_double(a, kF16) + small_to_double(b, kF16); // exact: f16 spans < 53 bits
        if (x != x) return kCanonicalNaN16;
        return round_to_small(x, kF16, Round::Rn);
    }
    float x, y;
    std::memcpy(&x, &a, 4);
    std::memcpy(&y, &b, 4);
    float z = x + y;
    if (z != z) return kCanonicalNaN32;
    uint32_t r;
    std::memcpy(&r, &z, 4);
    return r;
}

uint32_t dot_fp8(const Elem* a, const Elem* b, uint32_t c_bits, bool out_f16) {
    Elem a_lo[16], b_lo[16], a_hi[16], b_hi[16];
    for (int k = 0, lo = 0, hi = 0; k < 32; ++k) {
        if ((k & 3) < 2) {
            a_lo[lo] = a[k];
            b_lo[lo++] = b[k];
        } else {
            a_hi[hi] = a[k];
            b_hi[hi++] = b[k];
        }
    }
    const Format out = out_f16 ? Format::F16 : Format::F32;
    const uint32_t p1 = dot(a_lo, b_lo, 16, Elem{}, 10, out_f16);
    const uint32_t p2 = dot(a_hi, b_hi, 16, decode(p1, out), 10, out_f16);
    return ieee_add(c_bits, p2, out_f16);
}

} // namespace d4r::numerics::mma
