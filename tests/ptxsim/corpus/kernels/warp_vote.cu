// vote.sync all/any/uni/ballot with full and partial masks under divergence, and activemask at
// two levels of divergence. Block size must be 128.
// corpus-arch: sm_89
#include "common.cuh"

__device__ __forceinline__ uint32_t vote_uni(uint32_t mask, uint32_t pred) {
    uint32_t r;
    asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %2, 0; vote.sync.uni.pred q, p, %1; selp.u32 %0, 1, 0, q; }"
                 : "=r"(r) : "r"(mask), "r"(pred));
    return r;
}

// v: full range. out: 8 words per thread.
KERNEL void warp_vote(const uint32_t* v, uint32_t* out) {
    unsigned i = gtid(), lane = lane_id(), warp = threadIdx.x / 32;
    uint32_t x = v[i];
    uint32_t* o = out + i * 8;
    const uint32_t full = 0xffffffffu;
    // Warp 3 votes on a predicate that is uniform by construction.
    uint32_t pa = warp == 3 ? 1u : (x & 3u) != 0u;
    o[0] = __ballot_sync(full, x & 1) ;
    o[1] = __all_sync(full, pa) | __any_sync(full, (x & 0xffu) == 0x11u) << 1 | vote_uni(full, pa) << 2 |
           vote_uni(full, x & 0x100u) << 3;
    if (x & 2) {
        uint32_t m = __activemask();
        o[2] = m;
        o[3] = __ballot_sync(m, x & 4) ^ (__all_sync(m, x & 8) << 31);
        if (lane < 20) {
            uint32_t m2 = __activemask();
            o[4] = m2 ^ __ballot_sync(m2, x & 16);
        } else {
            o[4] = 0x5a5a0000u | lane;
        }
    } else {
        uint32_t m = __activemask();
        o[2] = ~m;
        o[3] = __ballot_sync(m, x & 32) ^ (__any_sync(m, x & 64) << 30);
        o[4] = vote_uni(m, x & 128);
    }
    // Fixed partial masks: first 8 lanes, and every fourth lane.
    if (lane < 8) o[5] = __ballot_sync(0xffu, x & 1) | (__all_sync(0xffu, x & 2) << 31);
    else o[5] = 0x11110000u | lane;
    if ((lane & 3) == 0) o[6] = __ballot_sync(0x11111111u, x & 2) ^ vote_uni(0x11111111u, x & 4);
    else o[6] = 0x22220000u | lane;
    o[7] = __activemask();
}
