// Float-to-float narrowing and widening: f32 -> f16/bf16/tf32 in every rounding mode (with
// .relu/.satfinite where the ISA has them), f64 -> f16/bf16, and f16/bf16 -> f32/f64.
// corpus-arch: sm_90
#include "common.cuh"

#define F2H(name, instr) \
    __device__ __forceinline__ uint16_t name(float a) { uint16_t r; asm(instr " %0, %1;" : "=h"(r) : "f"(a)); return r; }
#define D2H(name, instr) \
    __device__ __forceinline__ uint16_t name(double a) { uint16_t r; asm(instr " %0, %1;" : "=h"(r) : "d"(a)); return r; }
#define F2T(name, instr) \
    __device__ __forceinline__ uint32_t name(float a) { uint32_t r; asm(instr " %0, %1;" : "=r"(r) : "f"(a)); return r; }
#define H2F(name, instr) \
    __device__ __forceinline__ float name(uint16_t a) { float r; asm(instr " %0, %1;" : "=f"(r) : "h"(a)); return r; }
F2H(h_rn, "cvt.rn.f16.f32") F2H(h_rz, "cvt.rz.f16.f32") F2H(h_rm, "cvt.rm.f16.f32") F2H(h_rp, "cvt.rp.f16.f32")
F2H(h_rn_relu, "cvt.rn.relu.f16.f32") F2H(h_rn_satfinite, "cvt.rn.satfinite.f16.f32")
F2H(b_rn, "cvt.rn.bf16.f32") F2H(b_rz, "cvt.rz.bf16.f32") F2H(b_rm, "cvt.rm.bf16.f32") F2H(b_rp, "cvt.rp.bf16.f32")
F2H(b_rn_relu, "cvt.rn.relu.bf16.f32") F2H(b_rn_satfinite, "cvt.rn.satfinite.bf16.f32")
D2H(hd_rn, "cvt.rn.f16.f64") D2H(hd_rz, "cvt.rz.f16.f64") D2H(bd_rn, "cvt.rn.bf16.f64") D2H(bd_rp, "cvt.rp.bf16.f64")
F2T(t_rna, "cvt.rna.tf32.f32") F2T(t_rn, "cvt.rn.tf32.f32") F2T(t_rz, "cvt.rz.tf32.f32")
F2T(t_rna_satfinite, "cvt.rna.satfinite.tf32.f32")
H2F(f_from_h, "cvt.f32.f16") H2F(f_from_b, "cvt.f32.bf16")

// o16: 16 per thread; o32: 8 per thread (tf32 bits x4, f16->f32, bf16->f32, f16->f64 as two words).
KERNEL void cvt_f2h(const float* a, const double* d, const uint16_t* h, const uint16_t* b, uint16_t* o16,
                    uint32_t* o32) {
    unsigned i = gtid();
    float x = a[i];
    double y = d[i];
    uint16_t* p = o16 + i * 16;
    p[0] = h_rn(x); p[1] = h_rz(x); p[2] = h_rm(x); p[3] = h_rp(x);
    p[4] = h_rn_relu(x); p[5] = h_rn_satfinite(x);
    p[6] = b_rn(x); p[7] = b_rz(x); p[8] = b_rm(x); p[9] = b_rp(x);
    p[10] = b_rn_relu(x); p[11] = b_rn_satfinite(x);
    p[12] = hd_rn(y); p[13] = hd_rz(y); p[14] = bd_rn(y); p[15] = bd_rp(y);
    uint32_t* q = o32 + i * 8;
    q[0] = t_rna(x); q[1] = t_rn(x); q[2] = t_rz(x); q[3] = t_rna_satfinite(x);
    q[4] = f2u(f_from_h(h[i]));
    q[5] = f2u(f_from_b(b[i]));
    double e;
    asm("cvt.f64.f16 %0, %1;" : "=d"(e) : "h"(h[i]));
    uint64_t eb = __double_as_longlong(e);
    q[6] = (uint32_t)eb;
    q[7] = (uint32_t)(eb >> 32);
}
