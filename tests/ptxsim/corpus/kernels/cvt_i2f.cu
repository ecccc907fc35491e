// integer -> float cvt: 32/64-bit signed and unsigned (and 16/8-bit sources) to f32 and f64 in
// every rounding mode, and integers to f16.
// corpus-arch: sm_89
#include "common.cuh"

#define I2F(name, instr) \
    __device__ __forceinline__ float name(uint32_t a) { float r; asm(instr " %0, %1;" : "=f"(r) : "r"(a)); return r; }
#define L2F(name, instr) \
    __device__ __forceinline__ float name(uint64_t a) { float r; asm(instr " %0, %1;" : "=f"(r) : "l"(a)); return r; }
#define L2D(name, instr) \
    __device__ __forceinline__ double name(uint64_t a) { double r; asm(instr " %0, %1;" : "=d"(r) : "l"(a)); return r; }
#define I2D(name, instr) \
    __device__ __forceinline__ double name(uint32_t a) { double r; asm(instr " %0, %1;" : "=d"(r) : "r"(a)); return r; }
#define I2H(name, instr) \
    __device__ __forceinline__ uint16_t name(uint32_t a) { uint16_t r; asm(instr " %0, %1;" : "=h"(r) : "r"(a)); return r; }
I2F(s32_rn, "cvt.rn.f32.s32") I2F(s32_rz, "cvt.rz.f32.s32") I2F(s32_rm, "cvt.rm.f32.s32") I2F(s32_rp, "cvt.rp.f32.s32")
I2F(u32_rn, "cvt.rn.f32.u32") I2F(u32_rz, "cvt.rz.f32.u32") I2F(u32_rm, "cvt.rm.f32.u32") I2F(u32_rp, "cvt.rp.f32.u32")
L2F(s64_rn, "cvt.rn.f32.s64") L2F(s64_rz, "cvt.rz.f32.s64") L2F(s64_rm, "cvt.rm.f32.s64") L2F(s64_rp, "cvt.rp.f32.s64")
L2F(u64_rn, "cvt.rn.f32.u64") L2F(u64_rp, "cvt.rp.f32.u64")
L2D(d_s64_rn, "cvt.rn.f64.s64") L2D(d_s64_rz, "cvt.rz.f64.s64") L2D(d_s64_rm, "cvt.rm.f64.s64")
L2D(d_u64_rn, "cvt.rn.f64.u64") L2D(d_u64_rp, "cvt.rp.f64.u64")
I2D(d_s32_rn, "cvt.rn.f64.s32") I2D(d_u32_rn, "cvt.rn.f64.u32")
I2H(h_s32_rn, "cvt.rn.f16.s32") I2H(h_u32_rz, "cvt.rz.f16.u32") I2H(h_s32_rm, "cvt.rm.f16.s32")

__device__ __forceinline__ float s16_rn(uint32_t a) {
    float r; asm("{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.rn.f32.s16 %0, h; }" : "=f"(r) : "r"(a)); return r;
}
__device__ __forceinline__ float u8_rn(uint32_t a) {
    float r; asm("{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.rn.f32.u8 %0, h; }" : "=f"(r) : "r"(a)); return r;
}

// of: 16 per thread; od: 7 per thread; oh: 4 per thread (3 results and padding copy).
KERNEL void cvt_i2f(const uint32_t* a, const uint64_t* x, float* of, double* od, uint16_t* oh) {
    unsigned i = gtid();
    uint32_t v = a[i];
    uint64_t w = x[i];
    float* p = of + i * 16;
    p[0] = s32_rn(v); p[1] = s32_rz(v); p[2] = s32_rm(v); p[3] = s32_rp(v);
    p[4] = u32_rn(v); p[5] = u32_rz(v); p[6] = u32_rm(v); p[7] = u32_rp(v);
    p[8] = s64_rn(w); p[9] = s64_rz(w); p[10] = s64_rm(w); p[11] = s64_rp(w);
    p[12] = u64_rn(w); p[13] = u64_rp(w); p[14] = s16_rn(v); p[15] = u8_rn(v);
    double* q = od + i * 7;
    q[0] = d_s64_rn(w); q[1] = d_s64_rz(w); q[2] = d_s64_rm(w); q[3] = d_u64_rn(w); q[4] = d_u64_rp(w);
    q[5] = d_s32_rn(v); q[6] = d_u32_rn(v);
    uint16_t* h = oh + i * 4;
    h[0] = h_s32_rn(v >> 12 ^ v);  // mostly in and partly beyond the f16 range
    h[1] = h_u32_rz(v >> 15);
    h[2] = h_s32_rm(v);
    h[3] = h_s32_rn(v);
}
