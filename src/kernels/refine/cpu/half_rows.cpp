#include "kernels/refine/cpu/half_rows.h"

#include "kernels/common/f16.h"
#include "kernels/refine/cpu/simd.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define D4R_HALF_ROWS_F16C 1
#endif

namespace d4r::refine_cpu {
namespace {

void halves_to_floats_scalar(const uint16_t* in, float* out, size_t count) {
    for (size_t i = 0; i < count; ++i) out[i] = kernels::half_to_float(in[i]);
}
void floats_to_halves_scalar(const float* in, uint16_t* out, size_t count) {
    for (size_t i = 0; i < count; ++i) out[i] = kernels::float_to_half(in[i]);
}

#ifdef D4R_HALF_ROWS_F16C
__attribute__((target("avx,f16c"))) void halves_to_floats_f16c(const uint16_t* in, float* out, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
    halves_to_floats_scalar(in + i, out + i, count - i);
}
__attribute__((target("avx,f16c"))) void floats_to_halves_f16c(const float* in, uint16_t* out, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 v = _mm256_loadu_ps(in + i);
        const __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
        // NaN lanes (unordered with themselves) get the scalar function's canonical 0x7fff.
        const int nan = _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        if (nan != 0)
            for (size_t j = 0; j < 8; ++j)
                if ((nan >> j) & 1) out[i + j] = 0x7fffu;
    }
    floats_to_halves_scalar(in + i, out + i, count - i);
}
#endif

} // namespace

void halves_to_floats(const uint16_t* in, float* out, size_t count) {
#ifdef D4R_HALF_ROWS_F16C
    if (use_avx_f16c()) return halves_to_floats_f16c(in, out, count);
#endif
    halves_to_floats_scalar(in, out, count);
}

void floats_to_halves(const float* in, uint16_t* out, size_t count) {
#ifdef D4R_HALF_ROWS_F16C
    if (use_avx_f16c()) return floats_to_halves_f16c(in, out, count);
#endif
    floats_to_halves_scalar(in, out, count);
}

} // namespace d4r::refine_cpu
