// f32 -> integer cvt for every destination width with .rni/.rzi/.rmi/.rpi (float-to-integer cvt
// saturates; NaN gives 0), plus .ftz and an explicit .sat spelling.
// corpus-arch: sm_89
#include "common.cuh"

#define F2I32(name, instr) \
    __device__ __forceinline__ uint32_t name(float a) { uint32_t r; asm(instr " %0, %1;" : "=r"(r) : "f"(a)); return r; }
#define F2I64(name, instr) \
    __device__ __forceinline__ uint64_t name(float a) { uint64_t r; asm(instr " %0, %1;" : "=l"(r) : "f"(a)); return r; }
#define F2I16(name, instr) \
    __device__ __forceinline__ uint16_t name(float a) { uint16_t r; asm(instr " %0, %1;" : "=h"(r) : "f"(a)); return r; }

F2I32(s32_rni, "cvt.rni.s32.f32") F2I32(s32_rzi, "cvt.rzi.s32.f32")
F2I32(s32_rmi, "cvt.rmi.s32.f32") F2I32(s32_rpi, "cvt.rpi.s32.f32")
F2I32(u32_rni, "cvt.rni.u32.f32") F2I32(u32_rzi, "cvt.rzi.u32.f32")
F2I32(u32_rmi, "cvt.rmi.u32.f32") F2I32(u32_rpi, "cvt.rpi.u32.f32")
F2I32(s32_rzi_ftz, "cvt.rzi.ftz.s32.f32") F2I32(s32_rni_sat, "cvt.rni.sat.s32.f32")
F2I64(s64_rni, "cvt.rni.s64.f32") F2I64(s64_rzi, "cvt.rzi.s64.f32")
F2I64(s64_rmi, "cvt.rmi.s64.f32") F2I64(s64_rpi, "cvt.rpi.s64.f32")
F2I64(u64_rni, "cvt.rni.u64.f32") F2I64(u64_rzi, "cvt.rzi.u64.f32")
F2I64(u64_rmi, "cvt.rmi.u64.f32") F2I64(u64_rpi, "cvt.rpi.u64.f32")
F2I16(s16_rni, "cvt.rni.s16.f32") F2I16(s16_rzi, "cvt.rzi.s16.f32")
F2I16(u16_rmi, "cvt.rmi.u16.f32") F2I16(u16_rpi, "cvt.rpi.u16.f32")
F2I16(s8_rni, "cvt.rni.s8.f32") F2I16(s8_rzi, "cvt.rzi.s8.f32")
F2I16(u8_rni, "cvt.rni.u8.f32") F2I16(u8_rpi, "cvt.rpi.u8.f32")

// o32: 10 per thread; o64: 8 per thread; o16: 8 per thread.
KERNEL void cvt_f2i(const float* a, uint32_t* o32, uint64_t* o64, uint16_t* o16) {
    unsigned i = gtid();
    float x = a[i];
    uint32_t* p = o32 + i * 10;
    p[0] = s32_rni(x); p[1] = s32_rzi(x); p[2] = s32_rmi(x); p[3] = s32_rpi(x);
    p[4] = u32_rni(x); p[5] = u32_rzi(x); p[6] = u32_rmi(x); p[7] = u32_rpi(x);
    p[8] = s32_rzi_ftz(x); p[9] = s32_rni_sat(x);
    uint64_t* q = o64 + i * 8;
    q[0] = s64_rni(x); q[1] = s64_rzi(x); q[2] = s64_rmi(x); q[3] = s64_rpi(x);
    q[4] = u64_rni(x); q[5] = u64_rzi(x); q[6] = u64_rmi(x); q[7] = u64_rpi(x);
    uint16_t* h = o16 + i * 8;
    h[0] = s16_rni(x); h[1] = s16_rzi(x); h[2] = u16_rmi(x); h[3] = u16_rpi(x);
    h[4] = s8_rni(x); h[5] = s8_rzi(x); h[6] = u8_rni(x); h[7] = u8_rpi(x);
}
