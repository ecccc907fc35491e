// Memory instruction forms: vector loads/stores (v2/v4 of 8..64-bit elements), ld.global.nc,
// ld.volatile, ld.relaxed/acquire and st.release at gpu scope, fence/membar, 8/16-bit loads with
// sign extension, and a warp-to-warp flag handoff inside a block (warp 1 spins until warp 0 has
// published; the spin is bounded so a scheduler that never runs warp 0 gives a wrong answer, not a
// hang). Block size must be 64.
// corpus-arch: sm_89
#include "common.cuh"

// v: 4 words per thread (16-byte aligned groups); out: 10 words per thread.
KERNEL void mem_ops(const uint32_t* v, uint32_t* out, uint32_t* flags) {
    __shared__ uint32_t data[32];
    __shared__ volatile uint32_t ready;
    unsigned i = gtid(), t = threadIdx.x, lane = lane_id();
    uint32_t a, b, c, d;
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(v + i * 4));
    uint32_t* o = out + i * 10;
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" :: "l"(o), "r"(d), "r"(c) : "memory");
    uint64_t w;
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(w) : "l"(v + (i ^ 1) * 4 + 2));
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" :: "l"(o + 2), "r"((uint32_t)(w >> 32)), "r"((uint32_t)w) : "memory");
    int16_t s16;
    asm volatile("ld.global.s16 %0, [%1];" : "=h"(s16) : "l"(reinterpret_cast<const uint16_t*>(v + i * 4) + 1));
    int32_t s8;
    asm volatile("ld.global.s8 %0, [%1];" : "=r"(s8) : "l"(reinterpret_cast<const uint8_t*>(v + i * 4) + 3));
    o[4] = (uint32_t)(int32_t)s16;
    o[5] = (uint32_t)s8;
    uint32_t r;
    asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(r) : "l"(v + i * 4 + 1));
    o[6] = r;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(r) : "l"(v + i * 4 + 2));
    o[7] = r;
    // Flag handoff between the two warps of the block.
    if (t == 0) ready = 0;
    __syncthreads();
    if (t < 32) {
        data[lane] = a * 3u + b;
        asm volatile("fence.acq_rel.cta;" ::: "memory");
        __syncwarp();
        if (lane == 0) ready = 1;
        o[8] = 0x600du;
    } else {
        uint32_t spins = 0;
        while (ready == 0 && spins < (1u << 24)) ++spins;
        asm volatile("membar.cta;" ::: "memory");
        o[8] = ready ? data[lane] : 0xBADu;
    }
    // Release/acquire through a global flag owned by this thread.
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(flags + i), "r"(a ^ d) : "memory");
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(r) : "l"(flags + i));
    asm volatile("membar.gl;" ::: "memory");
    o[9] = r;
}
