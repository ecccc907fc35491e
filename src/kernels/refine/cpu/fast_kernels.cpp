// The fast CPU native kernels of the refine network: d4r_nn_linear@fast (and _wide), d4r_nn_linear_fp8@fast and
// d4r_nn_attention@fast, selected by a kernel set whose NAME.cpu says `1 fast` (docs/runtime.md, "Native-kernel
// overrides"). They compute the same layers as the PTX with f32 accumulators through the whole K chain instead of
// an f16 accumulator rounded after every step of 16 (the fast set's rule, as on the GPUs' fast sets), each sum in
// order (k = 0, 1, ...; keys j = 0, 1, ...) with separate multiplies and adds, whatever the vector width: the
// linears keep a tile of tokens x outputs in registers, the attention's softmax runs eight keys at a time (AVX2 and
// F16C where the CPU has them, the same operations one by one otherwise). Everything else (softmax, epilogues,
// layouts) is the PTX path's arithmetic. Not bit-exact with the PTX: checked against the accuracy kernels by PSNR
// (tests/network) and against the definition above bit for bit (tests/network/cpu_kernels). The FP8 linear's
// weights are dequantised once per launch (scale * e4m3, exact in f32) and its activations rounded to e4m3 as the
// PTX rounds them, then it is the f32 linear.
#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kernels/refine/cpu/fast_registration.h"
#include "kernels/refine/cpu/half_rows.h"
#include "kernels/refine/cpu/simd.h"
#include "kernels/refine/ptx/refine_math.h"
#include "network/host_kernels.h"
#include "numerics/mma_numerics.h"
#include "runtime/native/cpu_registry.h"

namespace d4r::refine_cpu {
namespace {

using namespace refine::math;

template <typename P>
P params_of(const runtime::CpuLaunch& l) {
    return network::params_as<P>(l.params);
}

// Every block on every core (network/host_kernels.h).
void for_blocks(uint64_t count, const std::function<void(uint64_t)>& body) { network::parallel_for(count, 0, body); }

const uint16_t* h16(uint64_t a) { return reinterpret_cast<const uint16_t*>(a); }

// The hot loops, compiled for AVX2 as well as the x86-64 baseline; the loader picks one per CPU.
#if defined(__x86_64__) && defined(__GNUC__)
#define D4R_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define D4R_SIMD_CLONES
#endif

// Eight floats, loaded and stored unaligned (a GCC/Clang vector extension; the baseline clone splits it in two).
// Sums are written as separate multiplies and adds: no clone enables FMA, so the results are those of the
// scalar loop in the same order.
using V8 = float __attribute__((vector_size(32), aligned(4)));
constexpr uint32_t kTileTokens = 4; // tokens whose accumulators stay in registers together

// acc[t][o] = bias[o] + sum_k x[t][k] * wt[k][o] for kTileTokens tokens and the 8 N outputs from o0, k in order:
// each weight row is read once for the tile and every accumulator stays in a register.
template <uint32_t N>
__attribute__((always_inline)) inline void linear_tile(float* acc, const float* bias, const float* x, const float* wt,
                                                       uint32_t in_ch, uint32_t out_ch, uint32_t o0) {
    V8 a[kTileTokens][N];
    for (uint32_t n = 0; n < N; ++n)
        for (uint32_t t = 0; t < kTileTokens; ++t) a[t][n] = *reinterpret_cast<const V8*>(bias + o0 + 8 * n);
    for (uint32_t k = 0; k < in_ch; ++k) {
        const float* w = wt + size_t(k) * out_ch + o0;
        V8 wk[N];
        for (uint32_t n = 0; n < N; ++n) wk[n] = *reinterpret_cast<const V8*>(w + 8 * n);
        for (uint32_t t = 0; t < kTileTokens; ++t) {
            const float xk = x[size_t(t) * in_ch + k];
            for (uint32_t n = 0; n < N; ++n) a[t][n] += xk * wk[n];
        }
    }
    for (uint32_t t = 0; t < kTileTokens; ++t)
        for (uint32_t n = 0; n < N; ++n) *reinterpret_cast<V8*>(acc + size_t(t) * out_ch + o0 + 8 * n) = a[t][n];
}

// acc (kTileTokens x out_ch) from x (kTileTokens x in_ch) and wt (in_ch x out_ch); out_ch a multiple of 8.
D4R_SIMD_CLONES void outer_products(float* acc, const float* bias, const float* x, const float* wt, uint32_t in_ch,
                                    uint32_t out_ch) {
    uint32_t o = 0;
    for (; o + 16 <= out_ch; o += 16) linear_tile<2>(acc, bias, x, wt, in_ch, out_ch, o);
    if (o < out_ch) linear_tile<1>(acc, bias, x, wt, in_ch, out_ch, o);
}

// out = [residual +] [relu] (x W^T + bias) over every token, W given transposed (K x out, f32); `quantise`
// rounds each activation to e4m3 first (the FP8 linear). Tokens go kTileTokens at a time (the last tile padded
// with zero rows whose results are dropped); the epilogue is refine_math.h's relu_h and add_h on whole rows.
void linear_rows(const LinearParams& p, const std::vector<float>& wt, const std::vector<float>& bias, bool quantise) {
    const uint64_t blocks = (p.tokens + kLinearTokensPerBlock - 1) / kLinearTokensPerBlock;
    for_blocks(blocks, [&](uint64_t b) {
        std::vector<float> acc(size_t(kTileTokens) * p.out_ch), x(size_t(kTileTokens) * p.in_ch, 0.0f), res(p.out_ch);
        std::vector<uint16_t> in_q(p.in_ch), row(p.out_ch);
        const uint32_t first = static_cast<uint32_t>(b * kLinearTokensPerBlock);
        const uint32_t last = std::min(p.tokens, first + kLinearTokensPerBlock);
        for (uint32_t t0 = first; t0 < last; t0 += kTileTokens) {
            const uint32_t count = std::min(kTileTokens, last - t0);
            for (uint32_t t = 0; t < count; ++t) {
                const uint16_t* in = h16(p.in) + uint64_t(t0 + t) * p.in_ch;
                if (quantise) {
                    for (uint32_t k = 0; k < p.in_ch; ++k)
                        in_q[k] = numerics::mma::fp8_to_f16(half_to_e4m3(in[k]), false);
                    in = in_q.data();
                }
                halves_to_floats(in, x.data() + size_t(t) * p.in_ch, p.in_ch);
            }
            if (count < kTileTokens) std::fill(x.begin() + size_t(count) * p.in_ch, x.end(), 0.0f);
            outer_products(acc.data(), bias.data(), x.data(), wt.data(), p.in_ch, p.out_ch);
            for (uint32_t t = 0; t < count; ++t) {
                const uint64_t token = t0 + t;
                uint16_t* out = reinterpret_cast<uint16_t*>(p.out) + token * p.out_ch;
                floats_to_halves(acc.data() + size_t(t) * p.out_ch, row.data(), p.out_ch);
                if (p.flags & kRelu)
                    for (uint32_t o = 0; o < p.out_ch; ++o) row[o] = relu_h(row[o]);
                if (p.flags & kResidual) {
                    float* sum = acc.data() + size_t(t) * p.out_ch; // free again: its halves are in row
                    halves_to_floats(row.data(), sum, p.out_ch);
                    halves_to_floats(h16(p.residual) + token * p.out_ch, res.data(), p.out_ch);
                    for (uint32_t o = 0; o < p.out_ch; ++o) sum[o] = sum[o] + res[o];
                    floats_to_halves(sum, row.data(), p.out_ch);
                }
                std::copy(row.begin(), row.end(), out);
            }
        }
    });
}

// Any shape the PTX takes (in_ch a multiple of 16, out_ch of 8): these loops have no size limit of their own.
bool shape_ok(uint32_t in_ch, uint32_t out_ch) {
    return in_ch != 0 && out_ch != 0 && in_ch % 16 == 0 && out_ch % 8 == 0;
}

void linear(const runtime::CpuLaunch& l) {
    const LinearParams p = params_of<LinearParams>(l);
    if (!shape_ok(p.in_ch, p.out_ch)) return;
    // W transposed to K x out (f32), once per launch.
    std::vector<float> wt(size_t(p.in_ch) * p.out_ch), bias(p.out_ch);
    for (uint32_t o = 0; o < p.out_ch; ++o) {
        bias[o] = half_to_float(h16(p.bias)[o]);
        for (uint32_t k = 0; k < p.in_ch; ++k)
            wt[size_t(k) * p.out_ch + o] = half_to_float(h16(p.weight)[size_t(o) * p.in_ch + k]);
    }
    linear_rows(p, wt, bias, false);
}

void linear_fp8(const runtime::CpuLaunch& l) {
    const LinearFp8Params f = params_of<LinearFp8Params>(l);
    if (!shape_ok(f.in_ch, f.out_ch)) return;
    const LinearParams p{f.in, f.weight, f.bias, f.residual, f.out, f.tokens, f.in_ch, f.out_ch, f.flags};
    const float scale = half_to_float(h16(f.scale)[0]);
    const uint8_t* w = reinterpret_cast<const uint8_t*>(f.weight);
    std::vector<float> wt(size_t(p.in_ch) * p.out_ch), bias(p.out_ch);
    for (uint32_t o = 0; o < p.out_ch; ++o) {
        bias[o] = half_to_float(h16(p.bias)[o]);
        for (uint32_t k = 0; k < p.in_ch; ++k)
            wt[size_t(k) * p.out_ch + o] =
                scale * half_to_float(numerics::mma::fp8_to_f16(w[size_t(o) * p.in_ch + k], false));
    }
    linear_rows(p, wt, bias, true);
}

// s[j] = sum_d q[d] * kt[d][j] (64 keys), and o[d] = sum_j p[j] * v[j][d] (32 dims), d and j in order, with the
// accumulators in registers.
constexpr uint32_t kKeyVectors = kWindowTokens / 8, kDimVectors = kHeadDim / 8;
D4R_SIMD_CLONES void scores(float* s, const float* q, const float (*kt)[kWindowTokens]) {
    V8 acc[kKeyVectors] = {};
    for (uint32_t d = 0; d < kHeadDim; ++d) {
        const float qd = q[d];
        for (uint32_t n = 0; n < kKeyVectors; ++n) acc[n] += qd * *reinterpret_cast<const V8*>(&kt[d][8 * n]);
    }
    for (uint32_t n = 0; n < kKeyVectors; ++n) *reinterpret_cast<V8*>(s + 8 * n) = acc[n];
}
D4R_SIMD_CLONES void weighted_values(float* o, const float* p, const float (*v)[kHeadDim]) {
    V8 acc[kDimVectors] = {};
    for (uint32_t j = 0; j < kWindowTokens; ++j) {
        const float pj = p[j];
        for (uint32_t n = 0; n < kDimVectors; ++n) acc[n] += pj * *reinterpret_cast<const V8*>(&v[j][8 * n]);
    }
    for (uint32_t n = 0; n < kDimVectors; ++n) *reinterpret_cast<V8*>(o + 8 * n) = acc[n];
}

// refine_math.h's softmax_row on f32 scores, with the same operations in the same order (so the same bits), each
// logit and exponential computed once and the relative-position bias of this query to every key given as floats
// (`bias`, 64).
void softmax_probs(float* probs, const float* scores_f32, const float* bias, uint64_t present) {
    float logit[kWindowTokens];
    float m = -3.0e38f;
    for (uint32_t j = 0; j < kWindowTokens; ++j) {
        logit[j] = half_to_float(float_to_half(scores_f32[j])) + bias[j];
        if ((present >> j) & 1u) m = max_f(m, logit[j]);
    }
    float sum = 0.0f;
    for (uint32_t j = 0; j < kWindowTokens; ++j) {
        logit[j] = exp_neg(logit[j] - m);
        if ((present >> j) & 1u) sum = sum + logit[j];
    }
    for (uint32_t j = 0; j < kWindowTokens; ++j)
        probs[j] = ((present >> j) & 1u) ? half_to_float(float_to_half(logit[j] / sum)) : 0.0f;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define D4R_AVX2 __attribute__((target("avx2,f16c")))

// f32 -> f16 -> f32 (F16C: exact; a NaN's payload may differ from the scalar function's, which nothing after
// it can tell: every later step treats any NaN alike).
D4R_AVX2 inline __m256 round_half8(__m256 v) {
    return _mm256_cvtph_ps(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
// max_f(a, b) = a > b ? a : b, and refine_math.h's exp_neg on eight values (its operations in its order).
D4R_AVX2 inline __m256 max8(__m256 a, __m256 b) { return _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, _CMP_GT_OQ)); }
D4R_AVX2 inline __m256 min8(__m256 a, __m256 b) { return _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, _CMP_LT_OQ)); }
D4R_AVX2 inline __m256 exp_neg8(__m256 x) {
    x = min8(max8(x, _mm256_set1_ps(-80.0f)), _mm256_set1_ps(0.0f));
    const __m256 t = _mm256_mul_ps(x, _mm256_set1_ps(1.44269504f));
    const __m256 n = _mm256_floor_ps(t);
    const __m256 f = _mm256_sub_ps(t, n);
    __m256 p = _mm256_set1_ps(1.54035304e-4f);
    for (float c : {1.33335581e-3f, 9.61812911e-3f, 5.55041087e-2f, 2.40226507e-1f, 6.93147181e-1f, 1.0f})
        p = _mm256_add_ps(_mm256_mul_ps(p, f), _mm256_set1_ps(c));
    const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

// softmax_probs on eight keys at a time; the sum still goes key by key, in order.
D4R_AVX2 void softmax_probs_avx2(float* probs, const float* scores_f32, const float* bias, uint64_t present) {
    constexpr uint32_t kVectors = kWindowTokens / 8;
    __m256 logit[kVectors], here[kVectors];
    __m256 m = _mm256_set1_ps(-3.0e38f);
    for (uint32_t n = 0; n < kVectors; ++n) {
        const __m256i lane = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        const __m256i bits = _mm256_set1_epi32(static_cast<int32_t>((present >> (8 * n)) & 0xffu));
        here[n] = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(bits, lane), lane));
        logit[n] = _mm256_add_ps(round_half8(_mm256_loadu_ps(scores_f32 + 8 * n)), _mm256_loadu_ps(bias + 8 * n));
        m = max8(m, _mm256_blendv_ps(_mm256_set1_ps(-3.0e38f), logit[n], here[n]));
    }
    // The largest of the eight lanes: the same value a key-by-key max_f gives (a max does not depend on order).
    float lanes[8];
    _mm256_storeu_ps(lanes, m);
    float largest = -3.0e38f;
    for (float v : lanes) largest = max_f(largest, v);
    const __m256 mv = _mm256_set1_ps(largest);
    float e[kWindowTokens];
    for (uint32_t n = 0; n < kVectors; ++n) _mm256_storeu_ps(e + 8 * n, exp_neg8(_mm256_sub_ps(logit[n], mv)));
    float sum = 0.0f;
    for (uint32_t j = 0; j < kWindowTokens; ++j)
        if ((present >> j) & 1u) sum = sum + e[j];
    const __m256 sv = _mm256_set1_ps(sum);
    for (uint32_t n = 0; n < kVectors; ++n) {
        const __m256 pr = round_half8(_mm256_div_ps(_mm256_loadu_ps(e + 8 * n), sv));
        _mm256_storeu_ps(probs + 8 * n, _mm256_and_ps(pr, here[n]));
    }
}
#endif

void softmax(float* probs, const float* scores_f32, const float* bias, uint64_t present) {
#ifdef D4R_AVX2
    if (use_avx2_f16c()) return softmax_probs_avx2(probs, scores_f32, bias, present);
#endif
    softmax_probs(probs, scores_f32, bias, present);
}

void attention(const runtime::CpuLaunch& l) {
    const AttnParams p = params_of<AttnParams>(l);
    const uint32_t heads = p.heads, windows = div_up(p.grid_w, kWindow) * div_up(p.grid_h, kWindow);
    if (p.channels != heads * kHeadDim || heads == 0) return;
    // The relative-position bias of query i to key j, per head, as floats.
    std::vector<float> bias(size_t(heads) * kWindowTokens * kWindowTokens);
    for (uint32_t h = 0; h < heads; ++h)
        for (uint32_t i = 0; i < kWindowTokens; ++i)
            for (uint32_t j = 0; j < kWindowTokens; ++j) {
                const int32_t xi = static_cast<int32_t>(i % kWindow), yi = static_cast<int32_t>(i / kWindow);
                const int32_t xj = static_cast<int32_t>(j % kWindow), yj = static_cast<int32_t>(j / kWindow);
                bias[(size_t(h) * kWindowTokens + i) * kWindowTokens + j] =
                    half_to_float(h16(p.relbias)[h * kRelBiasSize + (yi - yj + 7) * 15 + (xi - xj + 7)]);
            }
    for_blocks(uint64_t(windows) * heads, [&](uint64_t b) {
        const uint32_t window = static_cast<uint32_t>(b % windows), head = static_cast<uint32_t>(b / windows);
        const uint32_t stride = 3 * p.channels;
        uint32_t tokens[kWindowTokens];
        uint64_t present = 0;
        for (uint32_t i = 0; i < kWindowTokens; ++i)
            if (window_token(p, window, i, tokens[i])) present |= uint64_t(1) << i;
        // kt: keys transposed (dim x key), v: values (key x dim), f32; absent tokens are zeros.
        float kt[kHeadDim][kWindowTokens], v[kWindowTokens][kHeadDim], q[kHeadDim];
        for (uint32_t j = 0; j < kWindowTokens; ++j) {
            const bool here = (present >> j) & 1u;
            const uint16_t* row = h16(p.qkv) + uint64_t(tokens[j]) * stride + head * kHeadDim;
            for (uint32_t d = 0; d < kHeadDim; ++d) {
                kt[d][j] = here ? half_to_float(row[p.channels + d]) : 0.0f;
                v[j][d] = here ? half_to_float(row[2 * p.channels + d]) : 0.0f;
            }
        }
        const float* head_bias = bias.data() + size_t(head) * kWindowTokens * kWindowTokens;
        uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
        for (uint32_t i = 0; i < kWindowTokens; ++i) {
            if (!((present >> i) & 1u)) continue;
            const uint16_t* qrow = h16(p.qkv) + uint64_t(tokens[i]) * stride + head * kHeadDim;
            for (uint32_t d = 0; d < kHeadDim; ++d) q[d] = half_to_float(qrow[d]);
            float s[kWindowTokens], probs[kWindowTokens], o[kHeadDim];
            scores(s, q, kt);
            softmax(probs, s, head_bias + i * kWindowTokens, present);
            weighted_values(o, probs, v);
            uint16_t* orow = out + uint64_t(tokens[i]) * p.channels + head * kHeadDim;
            for (uint32_t d = 0; d < kHeadDim; ++d) orow[d] = float_to_half(o[d]);
        }
    });
}

const FastKernels g_kernels{
    {"d4r_nn_linear@fast", linear},
    {"d4r_nn_linear_wide@fast", linear}, // the same layer, for shapes outside native_linear_shape (plan.h)
    {"d4r_nn_linear_fp8@fast", linear_fp8},
    {"d4r_nn_attention@fast", attention},
};

} // namespace
} // namespace d4r::refine_cpu
