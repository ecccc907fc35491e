// d4r_nn_layernorm@fast: refine_math.h's layernorm_token with the accuracy kernel's bits, eight tokens at once, one
// token a lane (AVX where the CPU has it, simd.h): every lane still sums its own channels in channel order, so
// each token's arithmetic is the scalar function's. Its time was the two sums' chains of dependent adds.
#include <algorithm>
#include <vector>

#include "kernels/refine/cpu/fast_registration.h"
#include "kernels/refine/cpu/half_rows.h"
#include "kernels/refine/cpu/simd.h"
#include "kernels/refine/ptx/refine_math.h"
#include "network/host_kernels.h"
#include "runtime/native/cpu_registry.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define D4R_NORM_AVX 1
#endif

namespace d4r::refine_cpu {
namespace {

using namespace refine::math;

constexpr uint32_t kLanes = 8;
constexpr uint32_t kBlockTokens = 64; // tokens a worker takes at a time

#ifdef D4R_NORM_AVX

// COLUMNS holds channel c of lane t at c * 8 + t (f32) and receives the normalised values there.
__attribute__((target("avx"))) void norm_lanes(float* columns, const float* gamma, const float* beta,
                                               uint32_t channels) {
    const __m256 count = _mm256_set1_ps(static_cast<float>(channels));
    __m256 sum = _mm256_setzero_ps();
    for (uint32_t c = 0; c < channels; ++c) sum = _mm256_add_ps(sum, _mm256_loadu_ps(columns + c * kLanes));
    const __m256 mean = _mm256_div_ps(sum, count);
    __m256 var = _mm256_setzero_ps();
    for (uint32_t c = 0; c < channels; ++c) {
        const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(columns + c * kLanes), mean);
        var = _mm256_add_ps(var, _mm256_mul_ps(d, d));
    }
    var = _mm256_div_ps(var, count);
    const __m256 inv =
        _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(_mm256_add_ps(var, _mm256_set1_ps(kNormEps))));
    for (uint32_t c = 0; c < channels; ++c) {
        const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(columns + c * kLanes), mean);
        const __m256 v =
            _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(d, inv), _mm256_set1_ps(gamma[c])), _mm256_set1_ps(beta[c]));
        _mm256_storeu_ps(columns + c * kLanes, v);
    }
}
#endif

void layernorm(const runtime::CpuLaunch& l) {
    const NormParams p = network::params_as<NormParams>(l.params);
    const uint16_t* in = reinterpret_cast<const uint16_t*>(p.in);
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    const uint32_t c = p.channels;
#ifdef D4R_NORM_AVX
    const bool lanes = use_avx();
#else
    const bool lanes = false;
#endif
    if (!lanes || c == 0) {
        network::parallel_for((p.tokens + kBlockTokens - 1) / kBlockTokens, 0, [&](uint64_t b) {
            const uint32_t last = std::min<uint32_t>(p.tokens, static_cast<uint32_t>(b + 1) * kBlockTokens);
            for (uint32_t t = static_cast<uint32_t>(b) * kBlockTokens; t < last; ++t)
                layernorm_token(in + uint64_t(t) * c, reinterpret_cast<const uint16_t*>(p.gamma),
                                reinterpret_cast<const uint16_t*>(p.beta), out + uint64_t(t) * c, c);
        });
        return;
    }
#ifdef D4R_NORM_AVX
    std::vector<float> gamma(c), beta(c);
    halves_to_floats(reinterpret_cast<const uint16_t*>(p.gamma), gamma.data(), c);
    halves_to_floats(reinterpret_cast<const uint16_t*>(p.beta), beta.data(), c);
    network::parallel_for((p.tokens + kBlockTokens - 1) / kBlockTokens, 0, [&](uint64_t b) {
        std::vector<float> rows(size_t(kLanes) * c), columns(size_t(kLanes) * c);
        std::vector<uint16_t> halves(c);
        const uint32_t last = std::min<uint32_t>(p.tokens, static_cast<uint32_t>(b + 1) * kBlockTokens);
        for (uint32_t t0 = static_cast<uint32_t>(b) * kBlockTokens; t0 < last; t0 += kLanes) {
            const uint32_t count = std::min(kLanes, last - t0);
            std::fill(rows.begin(), rows.end(), 0.0f);
            for (uint32_t t = 0; t < count; ++t) halves_to_floats(in + uint64_t(t0 + t) * c, rows.data() + t * c, c);
            for (uint32_t t = 0; t < kLanes; ++t)
                for (uint32_t k = 0; k < c; ++k) columns[k * kLanes + t] = rows[t * c + k];
            norm_lanes(columns.data(), gamma.data(), beta.data(), c);
            for (uint32_t t = 0; t < count; ++t) {
                for (uint32_t k = 0; k < c; ++k) rows[k] = columns[k * kLanes + t];
                floats_to_halves(rows.data(), halves.data(), c);
                std::copy(halves.begin(), halves.end(), out + uint64_t(t0 + t) * c);
            }
        }
    });
#endif
}

const FastKernels g_kernels{{"d4r_nn_layernorm@fast", layernorm}};

} // namespace
} // namespace d4r::refine_cpu
