// The f32 .approx transcendentals (sin, cos, lg2, ex2, tanh) plain and .ftz. Each output buffer is
// compared within the PTX ISA's documented bound; the measured ulp distance is reported.
// corpus-arch: sm_89
#include "common.cuh"

F32_UN(sin_a, "sin.approx.f32")
F32_UN(sin_a_ftz, "sin.approx.ftz.f32")
F32_UN(cos_a, "cos.approx.f32")
F32_UN(cos_a_ftz, "cos.approx.ftz.f32")
F32_UN(lg2_a, "lg2.approx.f32")
F32_UN(lg2_a_ftz, "lg2.approx.ftz.f32")
F32_UN(ex2_a, "ex2.approx.f32")
F32_UN(ex2_a_ftz, "ex2.approx.ftz.f32")
F32_UN(tanh_a, "tanh.approx.f32")

// Every output: 2 per thread (input a, input b) except tanh (2: a, b).
KERNEL void f32_approx(const float* a, const float* b, float* sin_o, float* cos_o, float* lg2_o, float* ex2_o,
                       float* tanh_o) {
    unsigned i = gtid();
    float x = a[i], y = b[i];
    sin_o[i * 2 + 0] = sin_a(x);
    sin_o[i * 2 + 1] = sin_a_ftz(y);
    cos_o[i * 2 + 0] = cos_a(x);
    cos_o[i * 2 + 1] = cos_a_ftz(y);
    lg2_o[i * 2 + 0] = lg2_a(x);
    lg2_o[i * 2 + 1] = lg2_a_ftz(y);
    ex2_o[i * 2 + 0] = ex2_a(x);
    ex2_o[i * 2 + 1] = ex2_a_ftz(y);
    tanh_o[i * 2 + 0] = tanh_a(x);
    tanh_o[i * 2 + 1] = tanh_a(y);
}
