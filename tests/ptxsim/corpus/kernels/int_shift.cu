// Shifts with amounts past the register width (PTX clamps them), arithmetic shifts, funnel shifts.
// corpus-arch: sm_89
#include "common.cuh"

U32_BIN(shl_b32, "shl.b32")
U32_BIN(shr_u32, "shr.u32")
U32_BIN(shr_s32, "shr.s32")
U32_TER(shf_l_wrap, "shf.l.wrap.b32")
U32_TER(shf_r_wrap, "shf.r.wrap.b32")
U32_TER(shf_l_clamp, "shf.l.clamp.b32")
U32_TER(shf_r_clamp, "shf.r.clamp.b32")

__device__ __forceinline__ uint64_t shl_b64(uint64_t a, uint32_t s) {
    uint64_t r; asm("shl.b64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(s)); return r;
}
__device__ __forceinline__ uint64_t shr_u64(uint64_t a, uint32_t s) {
    uint64_t r; asm("shr.u64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(s)); return r;
}
__device__ __forceinline__ uint64_t shr_s64(uint64_t a, uint32_t s) {
    uint64_t r; asm("shr.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"(s)); return r;
}

// s holds shift amounts in 0..80 (plus full-range values). out32: 7 per thread; out64: 3 per thread.
KERNEL void int_shift(const uint32_t* a, const uint32_t* b, const uint32_t* s, const uint64_t* x,
                      uint32_t* out32, uint64_t* out64) {
    unsigned i = gtid();
    uint32_t va = a[i], vb = b[i], vs = s[i];
    uint32_t* o = out32 + i * 7;
    o[0] = shl_b32(va, vs);
    o[1] = shr_u32(va, vs);
    o[2] = shr_s32(va, vs);
    o[3] = shf_l_wrap(va, vb, vs);
    o[4] = shf_r_wrap(va, vb, vs);
    o[5] = shf_l_clamp(va, vb, vs);
    o[6] = shf_r_clamp(va, vb, vs);
    uint64_t* p = out64 + i * 3;
    p[0] = shl_b64(x[i], vs);
    p[1] = shr_u64(x[i], vs);
    p[2] = shr_s64(x[i], vs);
}
