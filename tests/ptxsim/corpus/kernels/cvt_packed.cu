// Packed conversions: two f32 -> f16x2 / bf16x2 (.rn, .rz, .relu, .satfinite), f16x2 <-> e4m3x2 /
// e5m2x2 and f32 pairs -> e4m3x2 / e5m2x2 with .satfinite (and .relu). FP8 forms need sm_89.
// corpus-arch: sm_90
#include "common.cuh"

#define PK(name, instr) \
    __device__ __forceinline__ uint32_t name(float a, float b) { \
        uint32_t r; asm(instr " %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b)); return r; }
#define PK8(name, instr) \
    __device__ __forceinline__ uint16_t name(float a, float b) { \
        uint16_t r; asm(instr " %0, %1, %2;" : "=h"(r) : "f"(a), "f"(b)); return r; }
#define H2F8(name, instr) \
    __device__ __forceinline__ uint16_t name(uint32_t a) { uint16_t r; asm(instr " %0, %1;" : "=h"(r) : "r"(a)); return r; }
#define F82H(name, instr) \
    __device__ __forceinline__ uint32_t name(uint16_t a) { uint32_t r; asm(instr " %0, %1;" : "=r"(r) : "h"(a)); return r; }
PK(h2_rn, "cvt.rn.f16x2.f32") PK(h2_rz, "cvt.rz.f16x2.f32") PK(h2_rn_relu, "cvt.rn.relu.f16x2.f32")
PK(h2_rn_satfinite, "cvt.rn.satfinite.f16x2.f32")
PK(b2_rn, "cvt.rn.bf16x2.f32") PK(b2_rz, "cvt.rz.bf16x2.f32") PK(b2_rn_relu, "cvt.rn.relu.bf16x2.f32")
PK(b2_rz_satfinite, "cvt.rz.satfinite.bf16x2.f32")
PK8(e4_f32, "cvt.rn.satfinite.e4m3x2.f32") PK8(e5_f32, "cvt.rn.satfinite.e5m2x2.f32")
PK8(e4_f32_relu, "cvt.rn.satfinite.relu.e4m3x2.f32") PK8(e5_f32_relu, "cvt.rn.satfinite.relu.e5m2x2.f32")
H2F8(e4_h2, "cvt.rn.satfinite.e4m3x2.f16x2") H2F8(e5_h2, "cvt.rn.satfinite.e5m2x2.f16x2")
H2F8(e4_h2_relu, "cvt.rn.satfinite.relu.e4m3x2.f16x2")
F82H(h2_e4, "cvt.rn.f16x2.e4m3x2") F82H(h2_e5, "cvt.rn.f16x2.e5m2x2") F82H(h2_e4_relu, "cvt.rn.relu.f16x2.e4m3x2")

// a, b: f32 pairs; h: f16x2 words; q: 16-bit fp8 pairs (every byte value appears).
// o32: 11 per thread; o16: 7 per thread.
KERNEL void cvt_packed(const float* a, const float* b, const uint32_t* h, const uint16_t* q, uint32_t* o32,
                       uint16_t* o16) {
    unsigned i = gtid();
    float x = a[i], y = b[i];
    uint32_t* p = o32 + i * 11;
    p[0] = h2_rn(x, y); p[1] = h2_rz(x, y); p[2] = h2_rn_relu(x, y); p[3] = h2_rn_satfinite(x, y);
    p[4] = b2_rn(x, y); p[5] = b2_rz(x, y); p[6] = b2_rn_relu(x, y); p[7] = b2_rz_satfinite(x, y);
    p[8] = h2_e4(q[i]); p[9] = h2_e5(q[i]); p[10] = h2_e4_relu(q[i]);
    uint16_t* o = o16 + i * 7;
    o[0] = e4_f32(x, y); o[1] = e5_f32(x, y); o[2] = e4_f32_relu(x, y); o[3] = e5_f32_relu(x, y);
    o[4] = e4_h2(h[i]); o[5] = e5_h2(h[i]); o[6] = e4_h2_relu(h[i]);
}
