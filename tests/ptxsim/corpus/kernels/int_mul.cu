// Integer multiplies: lo/hi/wide, 24-bit forms, mad with hi/sat, 64-bit hi.
// corpus-arch: sm_89
#include "common.cuh"

U32_BIN(mul_hi_u32, "mul.hi.u32")
U32_BIN(mul_hi_s32, "mul.hi.s32")
U32_BIN(mul24_lo_u32, "mul24.lo.u32")
U32_BIN(mul24_hi_u32, "mul24.hi.u32")
U32_BIN(mul24_hi_s32, "mul24.hi.s32")
U32_TER(mad_hi_u32, "mad.hi.u32")
U32_TER(mad_hi_sat_s32, "mad.hi.sat.s32")
U32_TER(mad24_lo_s32, "mad24.lo.s32")
U32_TER(mad24_hi_u32, "mad24.hi.u32")
U64_BIN(mul_hi_u64, "mul.hi.u64")
U64_BIN(mul_hi_s64, "mul.hi.s64")
U64_TER(mad_hi_u64, "mad.hi.u64")

// out32: 10 words per thread; out64: 8 words per thread.
KERNEL void int_mul(const uint32_t* a, const uint32_t* b, const uint32_t* c, const uint64_t* x,
                    const uint64_t* y, uint32_t* out32, uint64_t* out64) {
    unsigned i = gtid();
    uint32_t va = a[i], vb = b[i], vc = c[i];
    uint32_t* o = out32 + i * 10;
    o[0] = va * vb;
    o[1] = mul_hi_u32(va, vb);
    o[2] = mul_hi_s32(va, vb);
    o[3] = mul24_lo_u32(va, vb);
    o[4] = mul24_hi_u32(va, vb);
    o[5] = mul24_hi_s32(va, vb);
    o[6] = mad_hi_u32(va, vb, vc);
    o[7] = mad_hi_sat_s32(va, vb, vc);
    o[8] = mad24_lo_s32(va, vb, vc);
    o[9] = mad24_hi_u32(va, vb, vc);

    uint64_t vx = x[i], vy = y[i];
    uint64_t* p = out64 + i * 8;
    uint64_t w;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(w) : "r"(va), "r"(vb));
    p[0] = w;
    asm("mul.wide.s32 %0, %1, %2;" : "=l"(w) : "r"(va), "r"(vb));
    p[1] = w;
    asm("mad.wide.s32 %0, %1, %2, %3;" : "=l"(w) : "r"(va), "r"(vb), "l"(vx));
    p[2] = w;
    asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(w) : "r"(va), "r"(vc), "l"(vy));
    p[3] = w;
    p[4] = vx * vy;
    p[5] = mul_hi_u64(vx, vy);
    p[6] = mul_hi_s64(vx, vy);
    p[7] = mad_hi_u64(vx, vy, vx ^ vy);
}
