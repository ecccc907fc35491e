// red (no return) and typed atomics: red.global add/min/max/and/or/xor, red.add.f32/f64, packed
// red.add.noftz.f16x2 / bf16x2 and scalar f16/bf16 red.add with exactly representable values,
// red.shared. 64 addresses, 16 contributions each. Launch 1024 threads, block 256.
// corpus-arch: sm_90
#include "common.cuh"

// u: full range; h: f16x2 words of small integers; bq: bf16x2 words of small integers.
// c32: 384 words (6 groups of 64), c64: 64 u64, cf: 64 f32, cd: 64 f64, ch: 64 f16x2 words,
// cb: 64 bf16x2 words, hs: 64 f16, bs: 64 bf16, out: 1 word per thread (shared red result).
KERNEL void atom_red(const uint32_t* u, const uint32_t* h, const uint32_t* bq, uint32_t* c32, uint64_t* c64,
                     float* cf, double* cd, uint32_t* ch, uint32_t* cb, uint16_t* hs, uint16_t* bs, uint32_t* out) {
    __shared__ uint32_t sh[64];
    unsigned i = gtid(), t = threadIdx.x;
    if (t < 64) sh[t] = t;
    __syncthreads();
    uint32_t x = u[i];
    unsigned k = (i * 13u) & 63u;
    asm volatile("red.global.add.u32 [%0], %1;" :: "l"(c32 + k), "r"(x) : "memory");
    asm volatile("red.global.min.s32 [%0], %1;" :: "l"(c32 + 64 + k), "r"(x) : "memory");
    asm volatile("red.global.max.u32 [%0], %1;" :: "l"(c32 + 128 + k), "r"(x) : "memory");
    asm volatile("red.global.and.b32 [%0], %1;" :: "l"(c32 + 192 + k), "r"(x | 0xf0f0f0f0u) : "memory");
    asm volatile("red.global.or.b32 [%0], %1;" :: "l"(c32 + 256 + k), "r"(x & 0x01020408u) : "memory");
    asm volatile("red.global.xor.b32 [%0], %1;" :: "l"(c32 + 320 + k), "r"(x) : "memory");
    asm volatile("red.global.max.s64 [%0], %1;" :: "l"(c64 + k), "l"((uint64_t)x * 0x100000001ull) : "memory");
    float f = (float)(int)(x % 2001u) - 1000.0f;
    asm volatile("red.global.add.f32 [%0], %1;" :: "l"(cf + k), "f"(f * 0.125f) : "memory");
    asm volatile("red.global.add.f64 [%0], %1;" :: "l"(cd + k), "d"((double)f * 0.001953125) : "memory");
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" :: "l"(ch + k), "r"(h[i]) : "memory");
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" :: "l"(cb + k), "r"(bq[i]) : "memory");
    uint16_t hl = (uint16_t)h[i], bl = (uint16_t)bq[i];
    asm volatile("red.global.add.noftz.f16 [%0], %1;" :: "l"(hs + k), "h"(hl) : "memory");
    asm volatile("red.global.add.noftz.bf16 [%0], %1;" :: "l"(bs + k), "h"(bl) : "memory");
    unsigned sa = (unsigned)__cvta_generic_to_shared(&sh[(t * 3u) & 63u]);
    asm volatile("red.shared.add.u32 [%0], %1;" :: "r"(sa), "r"(x & 0xffffu) : "memory");
    __syncthreads();
    out[i] = sh[t & 63];
}
