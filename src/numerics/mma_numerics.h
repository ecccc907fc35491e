// d4r's measured numerics (shared by ptxsim and the PTX JIT): the tensor-core arithmetic of mma.sync as measured on the
// H200 (docs/numerics.md). Bit exact for f16/bf16 inputs (m16n8k8, m16n8k16; f32 or f16 accumulators) and FP8 inputs
// (m16n8k32 e4m3/e5m2, computed as on sm_90: two f16 passes, then C added by an IEEE add).
//
// The rule (one dot product of K terms plus the accumulator C): products are exact; every nonzero
// term (the K products and C) is aligned to E, the largest exponent sum ref(a)+ref(b) (ref of C: its
// own exponent field, 1-bias for a denormal), and truncated toward zero to a multiple of 2^(E-25);
// the exact sum of the truncated terms is rounded toward zero to f32 or to nearest-even to f16.
// Denormals are kept everywhere. Any NaN, inf*0 or inf-inf gives the canonical NaN; an exact zero
// sum is +0. Used by the mma handlers and by native reference code (benchmarks, tests).
#pragma once

#include <cstdint>

namespace d4r::numerics::mma {

enum class Format : uint8_t { F16, BF16, E4M3, E5M2, F32 };

// One input or accumulator value: signed integer significand M, value M * 2^(ref - mantissa bits).
struct Elem {
    int32_t m = 0;   // signed significand (0 for zeros and NaN; +-1 for infinities)
    int16_t ref = 0; // unbiased exponent field (1 - bias for denormals)
    uint8_t cls = 0; // 0 finite, 1 infinity, 2 NaN
};

// Decodes raw bits of F. FP8 values are converted to f16 first (exact), as sm_90 does, so they carry
// f16 mantissa bits (10).
Elem decode(uint32_t bits, Format f);
// The f16 encoding of an FP8 byte (exact; an e4m3 NaN becomes the f16 NaN 0x7fff).
uint16_t fp8_to_f16(uint8_t bits, bool e5m2);

// Mantissa bits of the decoded form: f16 and FP8 10, bf16 7, f32 23.
constexpr int mantissa_bits(Format f) { return f == Format::BF16 ? 7 : f == Format::F32 ? 23 : 10; }

// One tensor-core pass: sum_{k<n} a[k]*b[k] + c, with a/b carrying IN_MAN mantissa bits each (10 or 7),
// c and the result in f16 (OUT_F16) or f32. Returns the raw result bits.
uint32_t dot(const Elem* a, const Elem* b, int n, const Elem& c, int in_man, bool out_f16);

// m16n8k32 FP8 on sm_90: a/b hold 32 elements in k order (decoded as f16). Pass 1 sums the k with
// k mod 4 in {0, 1} from a zero accumulator, pass 2 the others onto the pass-1 result, then C (raw bits
// of f32 or f16) is added with an IEEE round-to-nearest-even add.
uint32_t dot_fp8(const Elem* a, const Elem* b, uint32_t c_bits, bool out_f16);

// IEEE a + b rounded to nearest-even in f32 or f16 (raw bits); NaN results are canonical.
uint32_t ieee_add(uint32_t a, uint32_t b, bool f16);

} // namespace d4r::numerics::mma
