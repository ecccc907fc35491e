// Barriers: bar.sync 0, barrier reductions (popc/and/or), named barriers with thread counts for
// two independent warp pairs, and a producer/consumer pair using bar.arrive + bar.sync.
// Block size must be 128 (4 warps).
// corpus-arch: sm_89
#include "common.cuh"

// in: full range. out: 7 words per thread.
KERNEL void barrier(const uint32_t* in, uint32_t* out) {
    __shared__ uint32_t s[128];
    __shared__ uint32_t pair0[64];
    __shared__ uint32_t pair1[64];
    __shared__ uint32_t handoff[64];
    unsigned t = threadIdx.x, i = gtid(), warp = t / 32;
    uint32_t v = in[i];
    s[t] = v;
    __syncthreads();
    uint32_t r0 = s[(t + 37) % 128];
    int cnt = __syncthreads_count(v & 1);
    int all = __syncthreads_and(v > 0x1000u);
    int any = __syncthreads_or((v & 0xff) == 0x7f);
    uint32_t r1;
    if (warp < 2) {
        pair0[t] = v * 3u;
        asm volatile("bar.sync 1, 64;" ::: "memory");
        r1 = pair0[63 - t];
    } else {
        pair1[t - 64] = v * 5u;
        asm volatile("bar.sync 2, 64;" ::: "memory");
        r1 = pair1[127 - t];
    }
    uint32_t r2;
    if (warp < 2) {
        handoff[t] = v ^ r1;
        asm volatile("bar.arrive 3, 128;" ::: "memory");
        r2 = 0xA11u;
    } else {
        asm volatile("bar.sync 3, 128;" ::: "memory");
        r2 = handoff[t - 64] + 1u;
    }
    __syncwarp();
    uint32_t* o = out + i * 7;
    o[0] = r0;
    o[1] = (uint32_t)cnt;
    o[2] = (uint32_t)all;
    o[3] = (uint32_t)any;
    o[4] = r1;
    o[5] = r2;
    o[6] = warp;
}
