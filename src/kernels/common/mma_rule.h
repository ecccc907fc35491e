// d4r kernels: one step of NVIDIA's mma.sync f16 tensor-core arithmetic (m16n8k16, f16 inputs, f16
// accumulator), for the AMD accuracy kernels (src/kernels/refine/hip) and the host, compiled identically by a
// host C++ compiler and clang's HIP device compilation. AMD's WMMA rounds differently, so kernels that must
// give the PTX path's bytes compute each step with this integer code instead.
//
// Promise: step16(a, b, c) returns the raw f16 bits that numerics::mma::dot(a, b, 16, c, 10, true) returns for
// the same raw f16 inputs (docs/numerics.md, "f16 and bf16 inputs"): products exact; every nonzero term (the
// 16 products and c) aligned to the largest exponent sum E and truncated toward zero to a multiple of
// 2^(E-25); the exact sum rounded to nearest-even f16 (overflow: infinity; an exact zero: +0). A NaN input,
// inf*0 or inf-inf gives the canonical NaN 0x7fff; other infinities their sign's infinity. This is a second,
// independent implementation; tests/kernels checks it against ptxsim's on many inputs.
//
// step_fp8(a, b, c) is one K step of 32 of mma.sync m16n8k32 e4m3 with an f16 accumulator as sm_90 computes it
// (docs/numerics.md, "FP8: m16n8k32 e4m3/e5m2 on sm_90"): a and b hold the 32 values as f16 (e4m3_to_f16: exact);
// P1 = step16 over the products with k mod 4 in {0, 1} from +0, P2 = step16 over the others onto P1, and the
// result is c + P2 by an IEEE f16 add (add_f16). It returns the bits numerics::mma::dot_fp8(a, b, c, true) returns.
#pragma once

#include <cstdint>

#include "kernels/common/f16.h"

namespace d4r::kernels::mma_rule {

inline constexpr int kKeptBits = 25; // bits kept below the largest exponent sum (measured on the H200)

struct Term {
    int32_t m = 0;    // signed significand (11 bits with the hidden one)
    int32_t e = 0;    // unbiased exponent of the significand's unit (value = m * 2^(e - 10))
    uint32_t cls = 0; // 0 finite, 1 infinity, 2 NaN
};

D4R_HD Term decode(uint16_t h) {
    const uint32_t ex = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    const bool neg = (h & 0x8000u) != 0;
    Term t;
    if (ex == 0x1fu) {
        t.cls = man ? 2u : 1u;
        t.m = man ? 0 : (neg ? -1 : 1);
        return t;
    }
    const int32_t m = static_cast<int32_t>(ex == 0 ? man : (man | 0x400u));
    t.m = neg ? -m : m;
    t.e = ex == 0 ? -14 : static_cast<int32_t>(ex) - 15;
    return t;
}

// v * 2^sh, truncated toward zero when sh < 0.
D4R_HD int64_t shift_toward_zero(int64_t v, int32_t sh) {
    const uint64_t mag = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    const uint64_t t = sh >= 0 ? (mag << sh) : (sh <= -63 ? uint64_t(0) : (mag >> -sh));
    return v < 0 ? -static_cast<int64_t>(t) : static_cast<int64_t>(t);
}

// s * 2^l rounded to nearest-even f16.
D4R_HD uint16_t round_to_f16(int64_t s, int32_t l) {
    if (s == 0) return 0;
    const uint32_t sign = s < 0 ? 0x8000u : 0u;
    const uint64_t mag = s < 0 ? uint64_t(0) - uint64_t(s) : uint64_t(s);
    const int32_t top = l + 63 - __builtin_clzll(mag); // exponent of the leading bit
    const int32_t lsb = (top < -14 ? -14 : top) - 10;  // exponent of the result's last bit
    const int32_t shift = lsb - l;
    uint64_t q;
    if (shift <= 0) {
        q = mag << -shift;
    } else if (shift >= 64) {
        q = 0;
    } else {
        q = mag >> shift;
        const uint64_t rem = mag & ((uint64_t(1) << shift) - 1), half = uint64_t(1) << (shift - 1);
        if (rem > half || (rem == half && (q & 1u))) ++q;
    }
    if (top < -14) return static_cast<uint16_t>(sign | static_cast<uint32_t>(q)); // subnormal (a carry: normal)
    int32_t biased = top + 15;
    if (q >> 11) {
        q >>= 1;
        ++biased;
    }
    if (biased > 30) return static_cast<uint16_t>(sign | 0x7c00u);
    return static_cast<uint16_t>(sign | (static_cast<uint32_t>(biased) << 10) | (static_cast<uint32_t>(q) & 0x3ffu));
}

// sum_{k<16} a[k] * b[k] + c in the tensor-core rule (raw f16 bits in and out).
D4R_HD uint16_t step16(const uint16_t* a, const uint16_t* b, uint16_t c) {
    const Term tc = decode(c);
    bool nan = tc.cls == 2, pos = tc.cls == 1 && tc.m > 0, neg = tc.cls == 1 && tc.m < 0;
    int32_t prod[16], exp_sum[16];
    int32_t top = -1000; // no nonzero term yet
    for (int k = 0; k < 16; ++k) {
        const Term x = decode(a[k]), y = decode(b[k]);
        if (x.cls == 2 || y.cls == 2) {
            nan = true;
        } else if (x.cls == 1 || y.cls == 1) {
            if (x.m == 0 || y.m == 0)
                nan = true; // inf * 0
            else if ((x.m < 0) != (y.m < 0))
                neg = true;
            else
                pos = true;
        }
        prod[k] = x.m * y.m; // |.| < 2^22: exact in 32 bits
        exp_sum[k] = x.e + y.e;
        if (prod[k] != 0 && exp_sum[k] > top) top = exp_sum[k];
    }
    if (nan || (pos && neg)) return 0x7fffu;
    if (pos || neg) return neg ? 0xfc00u : 0x7c00u;
    if (tc.m != 0 && tc.e > top) top = tc.e;
    if (top == -1000) return 0;
    // Units of 2^l, l = top - 25: a product's unit is 2^(e - 20), c's 2^(e - 10).
    const int32_t l = top - kKeptBits;
    int64_t s = 0;
    for (int k = 0; k < 16; ++k)
        if (prod[k] != 0) s += shift_toward_zero(prod[k], exp_sum[k] - 20 - l);
    if (tc.m != 0) s += shift_toward_zero(tc.m, tc.e - 10 - l);
    return round_to_f16(s, l);
}

// The f16 of an OCP e4m3 byte (exact: e4m3 denormals m * 2^-9 are f16 normals); NaN (0x7f, 0xff) gives 0x7fff.
D4R_HD uint16_t e4m3_to_f16(uint8_t v) {
    const uint32_t sign = static_cast<uint32_t>(v & 0x80u) << 8, e = (v >> 3) & 0xfu, m = v & 7u;
    if (e == 15u && m == 7u) return 0x7fffu;
    if (e == 0u) {
        if (m == 0u) return static_cast<uint16_t>(sign);
        const uint32_t top = m >= 4u ? 2u : (m >= 2u ? 1u : 0u); // m * 2^-9 = 1.f * 2^(top - 9)
        return static_cast<uint16_t>(sign | ((top + 6u) << 10) | ((m << (10u - top)) & 0x3ffu));
    }
    return static_cast<uint16_t>(sign | ((e + 8u) << 10) | (m << 7));
}

// a + b of two f16 (raw bits), the exact sum rounded to nearest-even f16 (overflow: infinity). NaN, inf - inf:
// 0x7fff; an exact zero sum is +0 unless both are -0.
D4R_HD uint16_t add_f16(uint16_t a, uint16_t b) {
    const Term x = decode(a), y = decode(b);
    if (x.cls == 2 || y.cls == 2) return 0x7fffu;
    if (x.cls == 1 || y.cls == 1) {
        if (x.cls == 1 && y.cls == 1 && (x.m < 0) != (y.m < 0)) return 0x7fffu;
        return x.cls == 1 ? a : b;
    }
    // Units of 2^-24 (the smallest f16 unit): |x| < 2^16 = 2^40 units.
    const int64_t s = shift_toward_zero(x.m, x.e - 10 + 24) + shift_toward_zero(y.m, y.e - 10 + 24);
    if (s == 0) return (a & b & 0x8000u) ? uint16_t(0x8000u) : uint16_t(0);
    return round_to_f16(s, -24);
}

// One K step of 32 of sm_90's m16n8k32 e4m3 mma with an f16 accumulator (f16 bits of the e4m3 values in a, b).
D4R_HD uint16_t step_fp8(const uint16_t* a, const uint16_t* b, uint16_t c) {
    uint16_t alo[16], blo[16], ahi[16], bhi[16];
    for (int k = 0; k < 32; ++k) {
        const int i = (k >> 2) * 2 + (k & 1); // the place of k in its pass
        if ((k & 3) < 2) {
            alo[i] = a[k];
            blo[i] = b[k];
        } else {
            ahi[i] = a[k];
            bhi[i] = b[k];
        }
    }
    const uint16_t p1 = step16(alo, blo, 0);
    const uint16_t p2 = step16(ahi, bhi, p1);
    return add_f16(c, p2);
}

} // namespace d4r::kernels::mma_rule
