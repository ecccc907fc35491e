// f64 -> integer cvt (32 and 64 bit, signed and unsigned) with .rni/.rzi/.rmi/.rpi.
// corpus-arch: sm_89
#include "common.cuh"

#define D2I32(name, instr) \
    __device__ __forceinline__ uint32_t name(double a) { uint32_t r; asm(instr " %0, %1;" : "=r"(r) : "d"(a)); return r; }
#define D2I64(name, instr) \
    __device__ __forceinline__ uint64_t name(double a) { uint64_t r; asm(instr " %0, %1;" : "=l"(r) : "d"(a)); return r; }
D2I32(s32_rni, "cvt.rni.s32.f64") D2I32(s32_rzi, "cvt.rzi.s32.f64")
D2I32(s32_rmi, "cvt.rmi.s32.f64") D2I32(s32_rpi, "cvt.rpi.s32.f64")
D2I32(u32_rni, "cvt.rni.u32.f64") D2I32(u32_rzi, "cvt.rzi.u32.f64")
D2I32(u32_rmi, "cvt.rmi.u32.f64") D2I32(u32_rpi, "cvt.rpi.u32.f64")
D2I64(s64_rni, "cvt.rni.s64.f64") D2I64(s64_rzi, "cvt.rzi.s64.f64")
D2I64(s64_rmi, "cvt.rmi.s64.f64") D2I64(s64_rpi, "cvt.rpi.s64.f64")
D2I64(u64_rni, "cvt.rni.u64.f64") D2I64(u64_rzi, "cvt.rzi.u64.f64")
D2I64(u64_rmi, "cvt.rmi.u64.f64") D2I64(u64_rpi, "cvt.rpi.u64.f64")

// o32: 8 per thread; o64: 8 per thread.
KERNEL void cvt_d2i(const double* a, uint32_t* o32, uint64_t* o64) {
    unsigned i = gtid();
    double x = a[i];
    uint32_t* p = o32 + i * 8;
    p[0] = s32_rni(x); p[1] = s32_rzi(x); p[2] = s32_rmi(x); p[3] = s32_rpi(x);
    p[4] = u32_rni(x); p[5] = u32_rzi(x); p[6] = u32_rmi(x); p[7] = u32_rpi(x);
    uint64_t* q = o64 + i * 8;
    q[0] = s64_rni(x); q[1] = s64_rzi(x); q[2] = s64_rmi(x); q[3] = s64_rpi(x);
    q[4] = u64_rni(x); q[5] = u64_rzi(x); q[6] = u64_rmi(x); q[7] = u64_rpi(x);
}
