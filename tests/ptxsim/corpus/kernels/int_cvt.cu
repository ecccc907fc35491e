// Integer-to-integer cvt: truncation, sign/zero extension, and .sat narrowing between every width.
// corpus-arch: sm_89
#include "common.cuh"

#define CVT32(name, instr) U32_UN(name, instr)
CVT32(cvt_s32_s8, "cvt.s32.s8")
CVT32(cvt_u32_u8, "cvt.u32.u8")
CVT32(cvt_s32_s16, "cvt.s32.s16")
CVT32(cvt_u32_u16, "cvt.u32.u16")
CVT32(cvt_sat_s8_s32, "cvt.sat.s8.s32")
CVT32(cvt_sat_u8_s32, "cvt.sat.u8.s32")
CVT32(cvt_sat_s8_u32, "cvt.sat.s8.u32")
CVT32(cvt_sat_u8_u32, "cvt.sat.u8.u32")
CVT32(cvt_sat_s16_s32, "cvt.sat.s16.s32")
CVT32(cvt_sat_u16_s32, "cvt.sat.u16.s32")
CVT32(cvt_sat_s16_u32, "cvt.sat.s16.u32")
CVT32(cvt_sat_s32_u32, "cvt.sat.s32.u32")
CVT32(cvt_sat_u32_s32, "cvt.sat.u32.s32")
CVT32(cvt_s8_s32, "cvt.s8.s32")
CVT32(cvt_u16_u32, "cvt.u16.u32")

__device__ __forceinline__ uint32_t cvt_sat_s32_s64(uint64_t a) { uint32_t r; asm("cvt.sat.s32.s64 %0, %1;" : "=r"(r) : "l"(a)); return r; }
__device__ __forceinline__ uint32_t cvt_sat_u32_s64(uint64_t a) { uint32_t r; asm("cvt.sat.u32.s64 %0, %1;" : "=r"(r) : "l"(a)); return r; }
__device__ __forceinline__ uint32_t cvt_sat_s32_u64(uint64_t a) { uint32_t r; asm("cvt.sat.s32.u64 %0, %1;" : "=r"(r) : "l"(a)); return r; }
__device__ __forceinline__ uint32_t cvt_u32_u64(uint64_t a) { uint32_t r; asm("cvt.u32.u64 %0, %1;" : "=r"(r) : "l"(a)); return r; }
__device__ __forceinline__ uint64_t cvt_s64_s32(uint32_t a) { uint64_t r; asm("cvt.s64.s32 %0, %1;" : "=l"(r) : "r"(a)); return r; }
__device__ __forceinline__ uint64_t cvt_s64_s16(uint32_t a) {
    uint64_t r; asm("{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.s64.s16 %0, h; }" : "=l"(r) : "r"(a)); return r;
}
__device__ __forceinline__ uint64_t cvt_sat_u64_s64(uint64_t a) { uint64_t r; asm("cvt.sat.u64.s64 %0, %1;" : "=l"(r) : "l"(a)); return r; }

// out32: 19 per thread; out64: 4 per thread.
KERNEL void int_cvt(const uint32_t* a, const uint64_t* x, uint32_t* out32, uint64_t* out64) {
    unsigned i = gtid();
    uint32_t va = a[i];
    uint64_t vx = x[i];
    uint32_t* o = out32 + i * 19;
    o[0] = cvt_s32_s8(va);
    o[1] = cvt_u32_u8(va);
    o[2] = cvt_s32_s16(va);
    o[3] = cvt_u32_u16(va);
    o[4] = cvt_sat_s8_s32(va);
    o[5] = cvt_sat_u8_s32(va);
    o[6] = cvt_sat_s8_u32(va);
    o[7] = cvt_sat_u8_u32(va);
    o[8] = cvt_sat_s16_s32(va);
    o[9] = cvt_sat_u16_s32(va);
    o[10] = cvt_sat_s16_u32(va);
    o[11] = cvt_sat_s32_u32(va);
    o[12] = cvt_sat_u32_s32(va);
    o[13] = cvt_s8_s32(va);
    o[14] = cvt_u16_u32(va);
    o[15] = cvt_sat_s32_s64(vx);
    o[16] = cvt_sat_u32_s64(vx);
    o[17] = cvt_sat_s32_u64(vx);
    o[18] = cvt_u32_u64(vx);
    uint64_t* p = out64 + i * 4;
    p[0] = cvt_s64_s32(va);
    p[1] = cvt_s64_s16(va);
    p[2] = cvt_sat_u64_s64(vx);
    p[3] = (uint64_t)(int64_t)(int8_t)(va >> 8);
}
