// Bit-field extract/insert, population count, leading zeros, bit reverse, bfind, fns.
// corpus-arch: sm_89
#include "common.cuh"

U32_TER(bfe_u32, "bfe.u32")
U32_TER(bfe_s32, "bfe.s32")
U32_UN(popc_b32, "popc.b32")
U32_UN(clz_b32, "clz.b32")
U32_UN(brev_b32, "brev.b32")
U32_UN(bfind_u32, "bfind.u32")
U32_UN(bfind_s32, "bfind.s32")
U32_UN(bfind_shiftamt_u32, "bfind.shiftamt.u32")
U64_UN(brev_b64, "brev.b64")

__device__ __forceinline__ uint32_t bfi_b32(uint32_t a, uint32_t b, uint32_t pos, uint32_t len) {
    uint32_t r; asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(pos), "r"(len)); return r;
}
__device__ __forceinline__ uint64_t bfi_b64(uint64_t a, uint64_t b, uint32_t pos, uint32_t len) {
    uint64_t r; asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(r) : "l"(a), "l"(b), "r"(pos), "r"(len)); return r;
}
__device__ __forceinline__ uint64_t bfe_u64(uint64_t a, uint32_t pos, uint32_t len) {
    uint64_t r; asm("bfe.u64 %0, %1, %2, %3;" : "=l"(r) : "l"(a), "r"(pos), "r"(len)); return r;
}
__device__ __forceinline__ uint64_t bfe_s64(uint64_t a, uint32_t pos, uint32_t len) {
    uint64_t r; asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"(a), "r"(pos), "r"(len)); return r;
}
__device__ __forceinline__ uint32_t popc_b64(uint64_t a) { uint32_t r; asm("popc.b64 %0, %1;" : "=r"(r) : "l"(a)); return r; }
__device__ __forceinline__ uint32_t clz_b64(uint64_t a) { uint32_t r; asm("clz.b64 %0, %1;" : "=r"(r) : "l"(a)); return r; }
__device__ __forceinline__ uint32_t bfind_s64(uint64_t a) { uint32_t r; asm("bfind.s64 %0, %1;" : "=r"(r) : "l"(a)); return r; }
__device__ __forceinline__ uint32_t fns_b32(uint32_t mask, uint32_t base, uint32_t off) {
    uint32_t r; asm("fns.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(mask), "r"(base), "r"(off)); return r;
}

// pos/len: 0..300 (only the low 8 bits count). out32: 13 per thread; out64: 4 per thread.
KERNEL void int_bits(const uint32_t* a, const uint32_t* b, const uint32_t* pos, const uint32_t* len,
                     const uint64_t* x, const uint64_t* y, uint32_t* out32, uint64_t* out64) {
    unsigned i = gtid();
    uint32_t va = a[i], vb = b[i], vp = pos[i], vl = len[i];
    uint32_t* o = out32 + i * 13;
    o[0] = bfe_u32(va, vp, vl);
    o[1] = bfe_s32(va, vp, vl);
    o[2] = bfi_b32(va, vb, vp, vl);
    o[3] = popc_b32(va);
    o[4] = clz_b32(va);
    o[5] = brev_b32(va);
    o[6] = bfind_u32(va);
    o[7] = bfind_s32(va);
    o[8] = bfind_shiftamt_u32(va);
    o[9] = popc_b64(x[i]);
    o[10] = clz_b64(x[i]);
    o[11] = bfind_s64(x[i]);
    o[12] = fns_b32(va, vp & 31, (int)(vl & 63) - 32);
    uint64_t* p = out64 + i * 4;
    p[0] = bfe_u64(x[i], vp, vl);
    p[1] = bfe_s64(x[i], vp, vl);
    p[2] = bfi_b64(x[i], y[i], vp, vl);
    p[3] = brev_b64(x[i]);
}
