// Exact host arithmetic and the accumulation models of the tensor-core numerics experiments
// (mma_numerics.cu): floating-point formats as (exponent bits, mantissa bits, bias), exact terms
// m * 2^e, rounding of exact sums to a format (RN-even or RZ), aligned multi-term sums, and the
// parameterised models the measurements are compared with. Host code only; one translation unit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

struct Fmt {
    int exp_bits, man_bits, bias;
    bool ieee;
};
static const Fmt kF16 = {5, 10, 15, true}, kBF16 = {8, 7, 127, true}, kF32 = {8, 23, 127, true},
                 kE4M3 = {4, 3, 7, false}, kE5M2 = {5, 2, 15, true};

// value = (neg ? -1 : 1) * m * 2^e
struct Term {
    bool neg = false;
    uint64_t m = 0;
    int e = 0;
    // Exponent the hardware aligns by: the unbiased exponent field of an input (emin for a denormal),
    // the sum of the two input exponents for a product (whose significand lies in [1, 4)).
    int ref = 0;
};
using i128 = __int128;
using u128 = unsigned __int128;

static int bitlen(u128 v) {
    int n = 0;
    while (v) ++n, v >>= 1;
    return n;
}
static bool is_special(uint32_t bits, Fmt f) {
    uint32_t ex = (bits >> f.man_bits) & ((1u << f.exp_bits) - 1), man = bits & ((1u << f.man_bits) - 1);
    if (f.ieee) return ex == (1u << f.exp_bits) - 1;
    return ex == (1u << f.exp_bits) - 1 && man == (1u << f.man_bits) - 1;
}
static Term decode(uint32_t bits, Fmt f) {
    Term t;
    t.neg = (bits >> (f.exp_bits + f.man_bits)) & 1;
    uint32_t ex = (bits >> f.man_bits) & ((1u << f.exp_bits) - 1), man = bits & ((1u << f.man_bits) - 1);
    if (ex == 0) {
        t.m = man;
        t.e = 1 - f.bias - f.man_bits;
        t.ref = 1 - f.bias;
    } else {
        t.m = (uint64_t(1) << f.man_bits) | man;
        t.e = int(ex) - f.bias - f.man_bits;
        t.ref = int(ex) - f.bias;
    }
    return t;
}
static Term mul(Term a, Term b) { return {a.neg != b.neg, a.m * b.m, a.e + b.e, a.ref + b.ref}; }
static int lead(const Term& t) { return t.e + bitlen(t.m) - 1; }

// Round S * 2^L to format f (RN-even or RZ); overflow gives inf (RN) or the largest finite (RZ).
static uint32_t round_to(i128 S, int L, Fmt f, bool rn) {
    uint32_t sign = S < 0 ? 1u : 0u;
    u128 mag = S < 0 ? u128(-S) : u128(S);
    uint32_t sbit = sign << (f.exp_bits + f.man_bits);
    if (mag == 0) return 0; // exact zero: +0 (the sign of zero is probed separately)
    int ue = L + bitlen(mag) - 1;
    int min_e = 1 - f.bias;
    int lsb = ue < min_e ? min_e - f.man_bits : ue - f.man_bits;
    int shift = lsb - L;
    u128 q;
    if (shift <= 0) {
        q = mag << (-shift);
    } else if (shift >= 127) {
        q = 0;
        if (rn && shift == 127 && (mag >> 126)) q = 1; // never happens for our ranges
    } else {
        q = mag >> shift;
        u128 rem = mag & ((u128(1) << shift) - 1), half = u128(1) << (shift - 1);
        if (rn && (rem > half || (rem == half && (q & 1)))) ++q;
    }
    int biased;
    if (ue < min_e) {
        biased = 0; // q < 2^man_bits, or exactly 2^man_bits after rounding (then the bit lands in the exponent)
        return sbit | uint32_t(q);
    }
    biased = ue + f.bias;
    if (q >> (f.man_bits + 1)) {
        q >>= 1;
        ++biased;
    }
    int max_biased = f.ieee ? (1 << f.exp_bits) - 2 : (1 << f.exp_bits) - 1;
    uint32_t man = uint32_t(q) & ((1u << f.man_bits) - 1);
    if (biased > max_biased || (!f.ieee && biased == max_biased && man == (1u << f.man_bits) - 1)) {
        if (rn && f.ieee) return sbit | (((1u << f.exp_bits) - 1) << f.man_bits);
        return sbit | (uint32_t(max_biased) << f.man_bits) | ((1u << f.man_bits) - 1 - (f.ieee ? 0 : 1));
    }
    return sbit | (uint32_t(biased) << f.man_bits) | man;
}

// Sum of terms aligned to 2^(emax - F), emax being the largest alignment exponent (the leading bit,
// or the exponent sum `ref` when expsum); bits below are truncated toward zero (floor=false) or
// toward -inf (floor=true). Returns S with value S * 2^L.
static i128 aligned_sum(const std::vector<Term>& ts, int F, bool floor_mode, bool expsum, int* L_out) {
    int emax = -100000;
    for (const auto& t : ts)
        if (t.m) emax = std::max(emax, expsum ? t.ref : lead(t));
    if (emax == -100000) {
        *L_out = 0;
        return 0;
    }
    int L = emax - F;
    i128 S = 0;
    for (const auto& t : ts) {
        if (!t.m) continue;
        u128 v;
        bool inexact = false;
        if (t.e >= L) {
            v = u128(t.m) << (t.e - L);
        } else {
            int sh = L - t.e;
            v = sh >= 64 ? 0 : u128(t.m >> sh);
            inexact = sh >= 64 ? true : (t.m & ((uint64_t(1) << sh) - 1)) != 0;
        }
        i128 sv = i128(v);
        if (t.neg) sv = -sv - ((floor_mode && inexact) ? 1 : 0);
        S += sv;
    }
    *L_out = L;
    return S;
}

struct Model {
    int F;                  // bits kept below the largest exponent of a group (100 = exact)
    int G;                  // products per group (consecutive k)
    bool floor;             // dropped bits: toward -inf (true) or toward zero (false)
    bool rn;                // rounding of each group's sum: RN-even (true) or RZ (false)
    bool c_last;            // C joins after all products (true) or is the initial accumulator (false)
    bool mid_f16;           // f16-accumulator shapes: the accumulator is rounded to f16 between groups
    bool expsum = false;    // align to the largest exponent sum (true) or the largest leading bit
    bool split_fp8 = false; // k32 FP8 as two k16 f16 passes (low, then high byte pair of every
                            // register) from a zero accumulator, then C added by an IEEE RN add
    bool via_f32 = false;   // f16 results: rounded toward zero to f32 first, then to f16
};
static std::string describe(const Model& m, bool acc16) {
    char buf[300];
    std::string f = m.F >= 100 ? "exact" : std::to_string(m.F);
    if (m.split_fp8) {
        std::snprintf(buf, sizeof buf,
                      "fp8 as 2 x k16 f16 passes (low then high byte pairs) from 0, each: F=%s align=%s "
                      "drop=%s round=%s to %s%s; then C added with IEEE RN",
                      f.c_str(), m.expsum ? "expsum" : "lead", m.floor ? "floor" : "trunc", m.rn ? "RN" : "RZ",
                      acc16 ? "f16" : "f32", m.via_f32 ? " via f32 (RZ)" : "");
        return buf;
    }
    std::snprintf(buf, sizeof buf, "F=%s align=%s G=%d drop=%s round=%s C=%s%s%s", f.c_str(),
                  m.expsum ? "expsum" : "lead", m.G, m.floor ? "floor" : "trunc", m.rn ? "RN" : "RZ",
                  m.c_last ? "last" : "first", acc16 ? (m.mid_f16 ? " mid=f16" : " mid=f32") : "",
                  m.via_f32 ? " via=f32(RZ)" : "");
    return buf;
}

// IEEE addition a + b rounded to nearest-even in format f (what FADD/HADD2 do).
static uint32_t ieee_add_rn(const Term& a, const Term& b, Fmt f) {
    if (!a.m && !b.m) return 0;
    if (a.m && b.m) {
        int gap = std::abs(lead(a) - lead(b));
        if (gap > 60) { // the smaller one is far below half an ulp of the larger
            const Term& big = lead(a) > lead(b) ? a : b;
            int L;
            i128 S = aligned_sum({big}, 64, false, false, &L);
            return round_to(S, L, f, true);
        }
    }
    int L;
    i128 S = aligned_sum({a, b}, 100, false, false, &L);
    return round_to(S, L, f, true);
}

// Rounds S * 2^L to the output format; f16 results optionally pass through f32 (RZ) first.
static uint32_t round_out(const Model& m, i128 S, int L, Fmt f) {
    if (m.via_f32 && f.man_bits == kF16.man_bits && f.exp_bits == kF16.exp_bits) {
        Term t = decode(round_to(S, L, kF32, false), kF32);
        int L2;
        i128 S2 = aligned_sum({t}, 64, false, false, &L2);
        return round_to(S2, L2, f, m.rn);
    }
    return round_to(S, L, f, m.rn);
}

// The model's result bits for one dot product (terms in k order, c the accumulator input term).
static uint32_t model_eval(const Model& m, const std::vector<Term>& prods, Term c, bool acc16) {
    const Fmt out = acc16 ? kF16 : kF32;
    const int K = int(prods.size());
    if (m.split_fp8) {
        Term acc{};
        for (int pass = 0; pass < 2; ++pass) {
            std::vector<Term> grp{acc};
            for (int k = 0; k < K; ++k)
                if (((k & 3) < 2) == (pass == 0)) grp.push_back(prods[k]);
            int L;
            i128 S = aligned_sum(grp, m.F, m.floor, m.expsum, &L);
            acc = decode(round_out(m, S, L, out), out);
        }
        return ieee_add_rn(acc, c, out);
    }
    const Fmt mid = acc16 && m.mid_f16 ? kF16 : kF32;
    Term acc = m.c_last ? Term{} : c;
    uint32_t bits = 0;
    for (int g0 = 0; g0 < K; g0 += m.G) {
        std::vector<Term> grp{acc};
        for (int k = g0; k < std::min(K, g0 + m.G); ++k) grp.push_back(prods[k]);
        int L;
        i128 S = aligned_sum(grp, m.F, m.floor, m.expsum, &L);
        bool last = g0 + m.G >= K && !m.c_last;
        bits = last ? round_out(m, S, L, out) : round_to(S, L, mid, m.rn);
        acc = decode(bits, last ? out : mid);
    }
    if (m.c_last) {
        int L;
        i128 S = aligned_sum({acc, c}, m.F, m.floor, m.expsum, &L);
        bits = round_to(S, L, out, m.rn);
    }
    return bits;
}
