// Vector tiles of the tensor-core rule (mma_tile.h): AVX2, FMA and F16C, and AVX-512 where the host has it.
//
// The f32 rule (mma_numerics.cpp) in doubles: every product of two inputs is exact in a double (at most 11 x 11
// significant bits), and so is every term once aligned: with U = 2^(E - 25) (E the largest exponent sum, ref(a) +
// ref(b) of a nonzero product or ref(C) of a nonzero C), a term truncated toward zero to a multiple of U is
// trunc(x / U) * U, and x / U = x * (1 / U) is a scaling by a power of two. The truncated terms are integers below
// 2^28 in units of U, so their sum is exact too, and S * U is the exact sum the scalar rule rounds. Rounding that
// toward zero to f32 is clearing the low 29 bits of the double's significand (an f32 normal) or truncating to a
// multiple of 2^-149 (an f32 denormal). No operation here rounds, so the host's rounding mode does not matter.
// Infinities, NaNs and sums beyond the f32 range leave the tile to the scalar rule (its special cases).
//
// f64: an fma instruction per k in k order is IEEE's fused multiply-add, as std::fma; NaNs (whose payloads the two
// might choose differently) leave the tile to std::fma. A NaN among A, B or C makes a NaN of every element of D it
// reaches (an fma with a NaN operand is NaN, and so is every later step of that chain), as do inf * 0 and inf - inf:
// D holds a NaN exactly when one of them happened, so D alone is checked.
#include "numerics/mma_tile.h"

#include <immintrin.h>

#include <bit>
#include <cstring>

namespace d4r::numerics::mma {

namespace {

constexpr uint64_t kExponentBits = 0x7ff0000000000000ull;

// Up to 32 x 32 elements decoded: values and scales.
struct Decoded {
    double value[1024];
    double scale[1024];
};

// Four inputs or accumulators (raw bits, in the low bits of each word) decoded: their values (exact in a double) and
// 2^ref (ref: the exponent field, 1 - bias for a denormal; 0 for a zero); false when one is an infinity or a NaN. F16
// through F16C; bf16 is the top half of an f32; tf32 an f32 without its 13 low mantissa bits.
// WORD: the raw bits' words (64-bit, or 32-bit ones).
template <class Word>
__attribute__((target("avx2,fma,f16c"), always_inline)) inline bool decode4(const Word* raw, Format format, bool tf32,
                                                                            double* value, double* scale) {
    __m128i low;
    if constexpr (sizeof(Word) == 2) {
        low = _mm_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(raw)));
    } else if constexpr (sizeof(Word) == 4) {
        low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(raw));
    } else {
        const __m256i words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(raw));
        low = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0)));
    }
    __m128i exponent;
    __m256d v;
    int bias = 127;
    int top = 255;
    if (format == Format::F16) {
        const __m128i h = _mm_and_si128(low, _mm_set1_epi32(0xffff));
        v = _mm256_cvtps_pd(_mm_cvtph_ps(_mm_packus_epi32(h, h)));
        exponent = _mm_and_si128(_mm_srli_epi32(h, 10), _mm_set1_epi32(31));
        bias = 15;
        top = 31;
    } else {
        __m128i f = format == Format::BF16 ? _mm_slli_epi32(low, 16) : low;
        if (tf32) f = _mm_and_si128(f, _mm_set1_epi32(int(0xffffe000u)));
        v = _mm256_cvtps_pd(_mm_castsi128_ps(f));
        exponent = _mm_and_si128(_mm_srli_epi32(f, 23), _mm_set1_epi32(255));
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(exponent, _mm_set1_epi32(top))) != 0) return false;
    const __m128i e = _mm_add_epi32(_mm_max_epi32(exponent, _mm_set1_epi32(1)), _mm_set1_epi32(1023 - bias));
    _mm256_storeu_pd(value, v);
    const __m256d s = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_cvtepu32_epi64(e), 52));
    _mm256_storeu_pd(scale, _mm256_and_pd(s, _mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_NEQ_OQ))); // 0 for a zero
    return true;
}

// decode4 for eight, in AVX-512 (the zero-masking forms: the plain ones read an undefined vector, see Avx512 below).
template <class Word>
__attribute__((target("avx512f,avx512dq,f16c"), always_inline)) inline bool
decode8(const Word* raw, Format format, bool tf32, double* value, double* scale) {
    __m256i low;
    if constexpr (sizeof(Word) == 2)
        low = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(raw)));
    else if constexpr (sizeof(Word) == 4)
        low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(raw));
    else
        low = _mm512_maskz_cvtepi64_epi32(0xff, _mm512_loadu_si512(raw)); // the low 32 bits of each word
    __m256i exponent;
    __m512d v;
    int bias = 127;
    int top = 255;
    if (format == Format::F16) {
        const __m256i h = _mm256_and_si256(low, _mm256_set1_epi32(0xffff));
        v = _mm512_maskz_cvtps_pd(
            0xff, _mm256_cvtph_ps(_mm_packus_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1))));
        exponent = _mm256_and_si256(_mm256_srli_epi32(h, 10), _mm256_set1_epi32(31));
        bias = 15;
        top = 31;
    } else {
        __m256i f = format == Format::BF16 ? _mm256_slli_epi32(low, 16) : low;
        if (tf32) f = _mm256_and_si256(f, _mm256_set1_epi32(int(0xffffe000u)));
        v = _mm512_maskz_cvtps_pd(0xff, _mm256_castsi256_ps(f));
        exponent = _mm256_and_si256(_mm256_srli_epi32(f, 23), _mm256_set1_epi32(255));
    }
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(exponent, _mm256_set1_epi32(top))) != 0) return false;
    const __m256i e =
        _mm256_add_epi32(_mm256_max_epi32(exponent, _mm256_set1_epi32(1)), _mm256_set1_epi32(1023 - bias));
    _mm512_storeu_pd(value, v);
    const __m512d s = _mm512_castsi512_pd(_mm512_maskz_slli_epi64(0xff, _mm512_maskz_cvtepu32_epi64(0xff, e), 52));
    _mm512_storeu_pd(scale, _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(v, _mm512_setzero_pd(), _CMP_NEQ_OQ), s));
    return true;
}

// decode() eight at a time (COLS a multiple of 8), decode8 inlined.
template <class Word>
__attribute__((target("avx512f,avx512dq,f16c"))) bool
decode_avx512(const Word* raw, unsigned ld, unsigned rows, unsigned cols, Format format, bool tf32, Decoded& d) {
    for (unsigned i = 0; i < rows; ++i)
        for (unsigned j = 0; j < cols; j += 8)
            if (!decode8(raw + i * ld + j, format, tf32, &d.value[i * cols + j], &d.scale[i * cols + j])) return false;
    return true;
}

// ROWS x COLS elements with row stride LD decoded into D (row stride COLS); WIDE: eight at a time (AVX-512).
template <class Word>
__attribute__((target("avx2,fma,f16c"))) bool decode(const Word* raw, unsigned ld, unsigned rows, unsigned cols,
                                                     Format format, bool tf32, bool wide, Decoded& d) {
    if (wide && cols % 8 == 0) return decode_avx512(raw, ld, rows, cols, format, tf32, d);
    for (unsigned i = 0; i < rows; ++i)
        for (unsigned j = 0; j < cols; j += 4)
            if (!decode4(raw + i * ld + j, format, tf32, &d.value[i * cols + j], &d.scale[i * cols + j])) return false;
    return true;
}

// The f32 rule's vector operations, on four doubles (AVX2) or eight (AVX-512). M: a comparison's lanes.
#define D4R_AVX2 __attribute__((target("avx2,fma,f16c"), always_inline)) static inline
struct Avx2 {
    using V = __m256d;
    using M = __m256d; // all-ones lanes
    static constexpr unsigned kWidth = 4;
    D4R_AVX2 V load(const double* p) { return _mm256_loadu_pd(p); }
    D4R_AVX2 V set1(double x) { return _mm256_set1_pd(x); }
    D4R_AVX2 V mul(V a, V b) { return _mm256_mul_pd(a, b); }
    D4R_AVX2 V add(V a, V b) { return _mm256_add_pd(a, b); }
    // 1 / X of a power of two (its exponent negated: no division).
    D4R_AVX2 V reciprocal_pow2(V x) {
        return _mm256_castsi256_pd(_mm256_sub_epi64(_mm256_set1_epi64x(int64_t(2046) << 52), _mm256_castpd_si256(x)));
    }
    D4R_AVX2 V max(V a, V b) { return _mm256_max_pd(a, b); }
    D4R_AVX2 V trunc(V x) { return _mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
    D4R_AVX2 V round_even(V x) { return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
    D4R_AVX2 V bits_and(V x, uint64_t mask) {
        return _mm256_and_pd(x, _mm256_castsi256_pd(_mm256_set1_epi64x(int64_t(mask))));
    }
    D4R_AVX2 M ge(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
    D4R_AVX2 M nonzero(V a) { return _mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_NEQ_OQ); }
    D4R_AVX2 M zero(V a) { return _mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_EQ_OQ); }
    D4R_AVX2 V pick(M c, V x, V y) { return _mm256_blendv_pd(y, x, c); } // X where C holds, else Y
    D4R_AVX2 V keep(M c, V x) { return _mm256_and_pd(x, c); }            // X where C holds, else +0
    D4R_AVX2 bool any(M c) { return _mm256_movemask_pd(c) != 0; }
    D4R_AVX2 M either(M a, M b) { return _mm256_or_pd(a, b); }
    D4R_AVX2 M none() { return _mm256_setzero_pd(); }
    template <class Word>
    D4R_AVX2 void store_f32(Word* d, V x) { // X holds f32 values: exact
        const __m128 f = _mm256_cvtpd_ps(x);
        uint32_t bits[4];
        std::memcpy(bits, &f, sizeof bits);
        for (unsigned q = 0; q < 4; ++q) d[q] = bits[q];
    }
    template <class Word>
    D4R_AVX2 void store_f16(Word* d, V x) { // X holds f16 values (or beyond 65504: infinity): exact
        const __m128i h = _mm_cvtps_ph(_mm256_cvtpd_ps(x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        uint16_t bits[8];
        std::memcpy(bits, &h, sizeof bits);
        for (unsigned q = 0; q < 4; ++q) d[q] = bits[q];
    }
};
#undef D4R_AVX2

#define D4R_AVX512 __attribute__((target("avx512f,avx512dq,f16c"), always_inline)) static inline
struct Avx512 {
    using V = __m512d;
    using M = __mmask8;
    static constexpr unsigned kWidth = 8;
    D4R_AVX512 V load(const double* p) { return _mm512_loadu_pd(p); }
    D4R_AVX512 V set1(double x) { return _mm512_set1_pd(x); }
    D4R_AVX512 V mul(V a, V b) { return _mm512_mul_pd(a, b); }
    D4R_AVX512 V add(V a, V b) { return _mm512_add_pd(a, b); }
    D4R_AVX512 V reciprocal_pow2(V x) {
        return _mm512_castsi512_pd(_mm512_sub_epi64(_mm512_set1_epi64(int64_t(2046) << 52), _mm512_castpd_si512(x)));
    }
    // The zero-masking forms of max, roundscale and cvtpd_ps: the plain ones read an undefined vector that GCC 12
    // takes for an uninitialised one.
    D4R_AVX512 V max(V a, V b) { return _mm512_maskz_max_pd(0xff, a, b); }
    D4R_AVX512 V trunc(V x) { return _mm512_maskz_roundscale_pd(0xff, x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
    D4R_AVX512 V round_even(V x) {
        return _mm512_maskz_roundscale_pd(0xff, x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    }
    D4R_AVX512 V bits_and(V x, uint64_t mask) {
        return _mm512_and_pd(x, _mm512_castsi512_pd(_mm512_set1_epi64(int64_t(mask))));
    }
    D4R_AVX512 M ge(V a, V b) { return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ); }
    D4R_AVX512 M nonzero(V a) { return _mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_NEQ_OQ); }
    D4R_AVX512 M zero(V a) { return _mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_EQ_OQ); }
    D4R_AVX512 V pick(M c, V x, V y) { return _mm512_mask_blend_pd(c, y, x); }
    D4R_AVX512 V keep(M c, V x) { return _mm512_maskz_mov_pd(c, x); }
    D4R_AVX512 bool any(M c) { return c != 0; }
    D4R_AVX512 M either(M a, M b) { return static_cast<M>(a | b); }
    D4R_AVX512 M none() { return 0; }
    template <class Word>
    D4R_AVX512 void store_f32(Word* d, V x) {
        const __m256 f = _mm512_maskz_cvtpd_ps(0xff, x);
        uint32_t bits[8];
        std::memcpy(bits, &f, sizeof bits);
        for (unsigned q = 0; q < 8; ++q) d[q] = bits[q];
    }
    template <class Word>
    D4R_AVX512 void store_f16(Word* d, V x) {
        const __m128i h =
            _mm256_cvtps_ph(_mm512_maskz_cvtpd_ps(0xff, x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        uint16_t bits[8];
        std::memcpy(bits, &h, sizeof bits);
        for (unsigned q = 0; q < 8; ++q) d[q] = bits[q];
    }
};
#undef D4R_AVX512

// The tile: a row of D at a time, its N columns in vectors of S::kWidth, in PASSES passes of PER_PASS terms (all
// known when compiled, so that the loops unroll and a row's products and sums stay in registers); one spelling for
// both widths (a function of each, with its target).
// A zero input or accumulator has scale 0 (decode), so a term's scale (the product of its inputs' scales) is 0
// exactly when it is zero and the largest one is E's, as the rule wants. Each pass's sum S * U rounds toward zero to
// f32 as the double with its 29 low significand bits cleared (an f32 normal) or truncated to a multiple of 2^-149 (an
// f32 denormal); a sum at or beyond 2^128 (the rule's infinity) leaves the tile to the scalar rule.
// OUT16 (the f16-accumulator rule, one pass): the same exact sum X rounded to nearest-even f16 in doubles — X times the
// reciprocal of its f16 ulp (2^(e - 10) for X in [2^e, 2^(e+1)), 2^-24 below 2^-14: a power of two, so exact) rounded
// to an integer, times the ulp — then converted to f16 exactly (F16C; a value rounded up to 65536 becomes infinity, as
// the rule's overflow does). A tiny negative X rounds to -0 as the rule does; an exact zero sum is +0.
#define D4R_TILE_F32(NAME, TARGET, S)                                                                                 \
    template <unsigned PerPass, unsigned Passes, unsigned N, bool Out16, class Word>                                  \
    __attribute__((target(TARGET))) bool NAME(const Decoded& a, const Decoded& b, const Decoded& c, Word* d,          \
                                              unsigned ldd, unsigned m) {                                             \
        using V = S::V;                                                                                               \
        using M = S::M;                                                                                               \
        constexpr unsigned k = PerPass * Passes, nv = N / S::kWidth;                                                  \
        const V one = S::set1(1.0), unit = S::set1(0x1p-25);                                                          \
        M overflow = S::none();                                                                                       \
        for (unsigned i = 0; i < m; ++i) {                                                                            \
            V cv[nv], cs[nv];                                                                                         \
            _Pragma("GCC unroll 8") for (unsigned v = 0; v < nv; ++v) {                                               \
                cv[v] = S::load(&c.value[i * N + v * S::kWidth]);                                                     \
                cs[v] = S::load(&c.scale[i * N + v * S::kWidth]);                                                     \
            }                                                                                                         \
            for (unsigned pass = 0; pass < Passes; ++pass) {                                                          \
                V products[PerPass][nv], top[nv];                                                                     \
                _Pragma("GCC unroll 8") for (unsigned v = 0; v < nv; ++v) top[v] = cs[v];                             \
                _Pragma("GCC unroll 16") for (unsigned q = 0; q < PerPass; ++q) {                                     \
                    const unsigned kk = pass * PerPass + q;                                                           \
                    const V av = S::set1(a.value[i * k + kk]), as = S::set1(a.scale[i * k + kk]);                     \
                    _Pragma("GCC unroll 8") for (unsigned v = 0; v < nv; ++v) {                                       \
                        products[q][v] = S::mul(av, S::load(&b.value[kk * N + v * S::kWidth]));                       \
                        top[v] = S::max(top[v], S::mul(as, S::load(&b.scale[kk * N + v * S::kWidth])));               \
                    }                                                                                                 \
                }                                                                                                     \
                _Pragma("GCC unroll 8") for (unsigned v = 0; v < nv; ++v) {                                           \
                    /* U = 2^(E - 25); a row of zero terms (E undefined) sums to +0 whatever U is. */                 \
                    const V u = S::pick(S::zero(top[v]), one, S::mul(top[v], unit));                                  \
                    const V inv = S::reciprocal_pow2(u);                                                              \
                    V sum = S::trunc(S::mul(cv[v], inv));                                                             \
                    _Pragma("GCC unroll 16") for (unsigned q = 0; q < PerPass; ++q) sum =                             \
                        S::add(sum, S::trunc(S::mul(products[q][v], inv)));                                           \
                    sum = S::keep(S::nonzero(sum), sum); /* an exact zero sum is +0 */                                \
                    const V x = S::mul(sum, u);                                                                       \
                    const V mag = S::bits_and(x, 0x7fffffffffffffffull);                                              \
                    if constexpr (Out16) {                                                                            \
                        const V ulp =                                                                                 \
                            S::mul(S::max(S::bits_and(mag, kExponentBits), S::set1(0x1p-14)), S::set1(0x1p-10));      \
                        cv[v] = S::mul(S::round_even(S::mul(x, S::reciprocal_pow2(ulp))), ulp);                       \
                        continue;                                                                                     \
                    }                                                                                                 \
                    overflow = S::either(overflow, S::ge(mag, S::set1(0x1p128)));                                     \
                    const V tiny = S::mul(S::trunc(S::mul(x, S::set1(0x1p149))), S::set1(0x1p-149));                  \
                    cv[v] = S::pick(S::ge(mag, S::set1(0x1p-126)), S::bits_and(x, ~uint64_t(0x1fffffff)), tiny);      \
                    cs[v] = S::keep(S::nonzero(cv[v]), S::max(S::bits_and(cv[v], kExponentBits), S::set1(0x1p-126))); \
                }                                                                                                     \
            }                                                                                                         \
            _Pragma("GCC unroll 8") for (unsigned v = 0; v < nv; ++v) {                                               \
                if constexpr (Out16)                                                                                  \
                    S::store_f16(&d[i * ldd + v * S::kWidth], cv[v]);                                                 \
                else                                                                                                  \
                    S::store_f32(&d[i * ldd + v * S::kWidth], cv[v]);                                                 \
            }                                                                                                         \
        }                                                                                                             \
        return !S::any(overflow);                                                                                     \
    }

D4R_TILE_F32(tile_f32_avx2, "avx2,fma,f16c", Avx2)
D4R_TILE_F32(tile_f32_avx512, "avx512f,avx512dq,f16c", Avx512)
#undef D4R_TILE_F32

bool avx512() {
    static const bool supported = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    return supported;
}

__attribute__((target("avx2,fma"))) inline __m256d load(const uint64_t* p) {
    return _mm256_castsi256_pd(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

__attribute__((target("avx2,fma"))) bool tile_f64_avx2(const uint64_t* a, unsigned lda, const uint64_t* b, unsigned ldb,
                                                       const uint64_t* c, unsigned ldc, uint64_t* d, unsigned ldd,
                                                       unsigned m, unsigned n, unsigned k) {
    __m256d nan = _mm256_setzero_pd();
    for (unsigned i = 0; i < m; ++i)
        for (unsigned j = 0; j < n; j += 4) {
            __m256d acc = load(&c[i * ldc + j]);
            for (unsigned kk = 0; kk < k; ++kk)
                acc = _mm256_fmadd_pd(_mm256_set1_pd(std::bit_cast<double>(a[i * lda + kk])), load(&b[kk * ldb + j]),
                                      acc);
            nan = _mm256_or_pd(nan, _mm256_cmp_pd(acc, acc, _CMP_UNORD_Q)); // a NaN input, inf * 0 or inf - inf
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(&d[i * ldd + j]), _mm256_castpd_si256(acc));
        }
    return _mm256_movemask_pd(nan) == 0;
}

// m8n8k4 (wmma's f64 shape), a row of D in one vector: the same fma per k in k order.
__attribute__((target("avx512f,avx512dq"))) bool tile_f64_m8n8k4_avx512(const uint64_t* a, unsigned lda,
                                                                        const uint64_t* b, unsigned ldb,
                                                                        const uint64_t* c, unsigned ldc, uint64_t* d,
                                                                        unsigned ldd) {
    __m512d brow[4];
    __mmask8 nan = 0;
    for (unsigned kk = 0; kk < 4; ++kk) brow[kk] = _mm512_loadu_pd(&b[kk * ldb]);
    for (unsigned i = 0; i < 8; ++i) {
        __m512d acc = _mm512_loadu_pd(&c[i * ldc]);
        for (unsigned kk = 0; kk < 4; ++kk)
            acc = _mm512_fmadd_pd(_mm512_set1_pd(std::bit_cast<double>(a[i * lda + kk])), brow[kk], acc);
        nan |= _mm512_cmp_pd_mask(acc, acc, _CMP_UNORD_Q); // a NaN input, inf * 0 or inf - inf
        _mm512_storeu_pd(&d[i * ldd], acc);
    }
    return nan == 0;
}

// tile_f64_m8n8k4_avx512 with C's and D's rows 0-3 and 4-7 in two places each, every row of D computed before any is
// stored (D may share memory with A, B or C).
__attribute__((target("avx512f,avx512dq"))) bool
tile_f64_m8n8k4_split_avx512(const uint64_t* a, const uint64_t* b, const uint64_t* const c[2], uint64_t* const d[2]) {
    // Unrolled: the eight rows' chains of four fmas interleave (one row after the other waits on each fma's latency).
    __m512d brow[4], acc[8];
#pragma GCC unroll 4
    for (unsigned kk = 0; kk < 4; ++kk) brow[kk] = _mm512_loadu_pd(&b[kk * 8]);
#pragma GCC unroll 8
    for (unsigned i = 0; i < 8; ++i) acc[i] = _mm512_loadu_pd(&c[i / 4][(i % 4) * 8]);
#pragma GCC unroll 4
    for (unsigned kk = 0; kk < 4; ++kk)
#pragma GCC unroll 8
        for (unsigned i = 0; i < 8; ++i)
            acc[i] = _mm512_fmadd_pd(_mm512_set1_pd(std::bit_cast<double>(a[i * 4 + kk])), brow[kk], acc[i]);
    __mmask8 nan = 0;
#pragma GCC unroll 8
    for (unsigned i = 0; i < 8; ++i)
        nan |= _mm512_cmp_pd_mask(acc[i], acc[i], _CMP_UNORD_Q); // a NaN input, inf * 0, inf - inf
    if (nan != 0) return false;
#pragma GCC unroll 8
    for (unsigned i = 0; i < 8; ++i) _mm512_storeu_pd(&d[i / 4][(i % 4) * 8], acc[i]);
    return true;
}

} // namespace

bool tile_supported() {
    static const bool supported =
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    return supported;
}

namespace {

template <class Word>
bool tile_f32_words(Format format, bool tf32, const Word* a, unsigned lda, const Word* b, unsigned ldb, const Word* c,
                    unsigned ldc, Word* d, unsigned ldd, unsigned m, unsigned n, unsigned k, unsigned passes,
                    TileVector vector) {
    // The passes of the shapes wmma has: tf32 (two of 4 terms) and f16/bf16 (one of 16).
    const bool tf32_passes = k == 8 && passes == 2, one_pass = (k == 16 || k == 8) && passes == 1;
    if (!tile_supported() || m * n > 1024 || m * k > 1024 || k * n > 1024 || !(tf32_passes || one_pass)) return false;
    const bool wide = vector == TileVector::Widest && avx512();
    Decoded da, db, dc;
    if (!decode(a, lda, m, k, format, tf32, wide, da) || !decode(b, ldb, k, n, format, tf32, wide, db) ||
        !decode(c, ldc, m, n, Format::F32, false, wide, dc))
        return false;
    // The shapes: wmma's m16n16k8 (tf32), m16n16k16, m32n8k16 and m8n32k16; mma.sync's m16n8k16 and m16n8k8.
    if (tf32_passes && n == 16)
        return wide ? tile_f32_avx512<4, 2, 16, false>(da, db, dc, d, ldd, m)
                    : tile_f32_avx2<4, 2, 16, false>(da, db, dc, d, ldd, m);
    if (one_pass && k == 16 && n == 16)
        return wide ? tile_f32_avx512<16, 1, 16, false>(da, db, dc, d, ldd, m)
                    : tile_f32_avx2<16, 1, 16, false>(da, db, dc, d, ldd, m);
    if (one_pass && k == 16 && n == 8)
        return wide ? tile_f32_avx512<16, 1, 8, false>(da, db, dc, d, ldd, m)
                    : tile_f32_avx2<16, 1, 8, false>(da, db, dc, d, ldd, m);
    if (one_pass && k == 8 && n == 8) // mma.sync m16n8k8
        return wide ? tile_f32_avx512<8, 1, 8, false>(da, db, dc, d, ldd, m)
                    : tile_f32_avx2<8, 1, 8, false>(da, db, dc, d, ldd, m);
    if (one_pass && k == 16 && n == 32)
        return wide ? tile_f32_avx512<16, 1, 32, false>(da, db, dc, d, ldd, m)
                    : tile_f32_avx2<16, 1, 32, false>(da, db, dc, d, ldd, m);
    return false;
}

// The f16-accumulator tiles: f16 inputs, C and D f16 bits, one pass of K = 16 (N = 8 or 16) or K = 8 (N = 8).
template <class Word>
bool tile_f16_words(const Word* a, unsigned lda, const Word* b, unsigned ldb, const Word* c, unsigned ldc, Word* d,
                    unsigned ldd, unsigned m, unsigned n, unsigned k, TileVector vector) {
    if (!tile_supported() || m * n > 1024 || m * k > 1024 || k * n > 1024) return false;
    const bool wide = vector == TileVector::Widest && avx512();
    Decoded da, db, dc;
    if (!decode(a, lda, m, k, Format::F16, false, wide, da) || !decode(b, ldb, k, n, Format::F16, false, wide, db) ||
        !decode(c, ldc, m, n, Format::F16, false, wide, dc))
        return false;
    if (k == 16 && n == 8)
        return wide ? tile_f32_avx512<16, 1, 8, true>(da, db, dc, d, ldd, m)
                    : tile_f32_avx2<16, 1, 8, true>(da, db, dc, d, ldd, m);
    if (k == 16 && n == 16)
        return wide ? tile_f32_avx512<16, 1, 16, true>(da, db, dc, d, ldd, m)
                    : tile_f32_avx2<16, 1, 16, true>(da, db, dc, d, ldd, m);
    if (k == 8 && n == 8)
        return wide ? tile_f32_avx512<8, 1, 8, true>(da, db, dc, d, ldd, m)
                    : tile_f32_avx2<8, 1, 8, true>(da, db, dc, d, ldd, m);
    return false;
}

} // namespace

bool tile_f16_m16n8k16(const uint32_t* const a[4], const uint32_t* const b[2], const uint32_t* const c[2],
                       uint32_t* const d[2], TileVector vector) {
    // Lane 4g + t of a register holds two halves of row g (or of B's column g): lanes 4g .. 4g + 3 hold eight
    // consecutive ones, 16 bytes. A: registers 0 and 2 rows 0-7 (columns 0-7, 8-15), 1 and 3 rows 8-15; B: register 0
    // K 0-7, 1 K 8-15 of column g; C and D: register 0 rows 0-7, 1 rows 8-15.
    uint16_t am[16 * 16], bm[16 * 8], cm[16 * 8], dm[16 * 8];
    for (unsigned g = 0; g < 8; ++g) {
        std::memcpy(&am[g * 16], a[0] + 4 * g, 16);
        std::memcpy(&am[g * 16 + 8], a[2] + 4 * g, 16);
        std::memcpy(&am[(g + 8) * 16], a[1] + 4 * g, 16);
        std::memcpy(&am[(g + 8) * 16 + 8], a[3] + 4 * g, 16);
        uint16_t column[16];
        std::memcpy(column, b[0] + 4 * g, 16);
        std::memcpy(column + 8, b[1] + 4 * g, 16);
        for (unsigned k = 0; k < 16; ++k) bm[k * 8 + g] = column[k];
        std::memcpy(&cm[g * 8], c[0] + 4 * g, 16);
        std::memcpy(&cm[(g + 8) * 8], c[1] + 4 * g, 16);
    }
    if (!tile_supported()) return false;
    const bool wide = vector == TileVector::Widest && avx512();
    Decoded da, db, dc;
    if (!decode(am, 16u, 16, 16, Format::F16, false, wide, da) ||
        !decode(bm, 8u, 16, 8, Format::F16, false, wide, db) || !decode(cm, 8u, 16, 8, Format::F16, false, wide, dc))
        return false;
    const bool ok = wide ? tile_f32_avx512<16, 1, 8, true>(da, db, dc, dm, 8, 16)
                         : tile_f32_avx2<16, 1, 8, true>(da, db, dc, dm, 8, 16);
    if (!ok) return false;
    for (unsigned g = 0; g < 8; ++g) {
        std::memcpy(d[0] + 4 * g, &dm[g * 8], 16);
        std::memcpy(d[1] + 4 * g, &dm[(g + 8) * 8], 16);
    }
    return true;
}

bool tile_f16(const uint32_t* a, unsigned lda, const uint32_t* b, unsigned ldb, const uint32_t* c, unsigned ldc,
              uint32_t* d, unsigned ldd, unsigned m, unsigned n, unsigned k, TileVector vector) {
    return tile_f16_words(a, lda, b, ldb, c, ldc, d, ldd, m, n, k, vector);
}

bool tile_f32(Format format, bool tf32, const uint64_t* a, unsigned lda, const uint64_t* b, unsigned ldb,
              const uint64_t* c, unsigned ldc, uint64_t* d, unsigned ldd, unsigned m, unsigned n, unsigned k,
              unsigned passes, TileVector vector) {
    return tile_f32_words(format, tf32, a, lda, b, ldb, c, ldc, d, ldd, m, n, k, passes, vector);
}

bool tile_f32(Format format, bool tf32, const uint32_t* a, unsigned lda, const uint32_t* b, unsigned ldb,
              const uint32_t* c, unsigned ldc, uint32_t* d, unsigned ldd, unsigned m, unsigned n, unsigned k,
              unsigned passes, TileVector vector) {
    return tile_f32_words(format, tf32, a, lda, b, ldb, c, ldc, d, ldd, m, n, k, passes, vector);
}

bool tile_f64(const uint64_t* a, unsigned lda, const uint64_t* b, unsigned ldb, const uint64_t* c, unsigned ldc,
              uint64_t* d, unsigned ldd, unsigned m, unsigned n, unsigned k, TileVector vector) {
    if (!tile_supported() || n % 4 != 0) return false;
    if (vector == TileVector::Widest && avx512() && n == 8 && k == 4)
        return tile_f64_m8n8k4_avx512(a, lda, b, ldb, c, ldc, d, ldd);
    return tile_f64_avx2(a, lda, b, ldb, c, ldc, d, ldd, m, n, k);
}

bool tile_f64_m8n8k4(const uint64_t* a, const uint64_t* b, const uint64_t* const c[2], uint64_t* const d[2],
                     TileVector vector) {
    if (!tile_supported()) return false;
    if (vector == TileVector::Widest && avx512()) return tile_f64_m8n8k4_split_avx512(a, b, c, d);
    uint64_t cc[64], dd[64];
    std::memcpy(cc, c[0], 32 * 8);
    std::memcpy(cc + 32, c[1], 32 * 8);
    if (!tile_f64_avx2(a, 4, b, 8, cc, 8, dd, 8, 8, 8, 4)) return false;
    std::memcpy(d[0], dd, 32 * 8);
    std::memcpy(d[1], dd + 32, 32 * 8);
    return true;
}

} // namespace d4r::numerics::mma
