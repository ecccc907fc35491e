// d4r-rj-run self-test probes for gfx11 (RDNA3, wave32): v_wmma_f32_16x16x16_f16 plus the common probes.
#include "probes_common.h"

typedef _Float16 half16 __attribute__((ext_vector_type(16)));
typedef float float8 __attribute__((ext_vector_type(8)));

// D (16x16 f32, row-major) = A (16x16 f16) * B (16x16 f16) + C. gfx11 wave32: every lane holds the 16 K values of
// row (A) or column (B) lane % 16, both half-waves the same; D row 2j + lane / 16, column lane % 16 in c[j].
KERNEL void wmma_f32_f16(const _Float16* A, const _Float16* B, const float* C, float* D) {
    const u32 lane = __builtin_amdgcn_workitem_id_x();
    const u32 r = lane % 16;
    half16 a, b;
    for (int k = 0; k < 16; ++k) {
        a[k] = A[r * 16 + k];
        b[k] = B[k * 16 + r];
    }
    float8 c;
    for (int j = 0; j < 8; ++j) c[j] = C[(2 * j + lane / 16) * 16 + r];
    c = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c);
    for (int j = 0; j < 8; ++j) D[(2 * j + lane / 16) * 16 + r] = c[j];
}
