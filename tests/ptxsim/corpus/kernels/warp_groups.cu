// Warp collectives executed together by lanes naming different member masks (what
// cooperative_groups::labeled_partition produces): a converged warp splits into groups by a label (match.any),
// then runs one redux.sync / shfl.sync / vote.sync / match.all.sync / bar.warp.sync in which each lane's member
// mask is its own group's. Each group is its own collective. The same inside a branch that leaves out the
// lanes with label 0 (their masks exclude those lanes). Block size must be 128.
// corpus-arch: sm_89
#include "common.cuh"

__device__ __forceinline__ uint32_t redux_max_s32(uint32_t mask, uint32_t v) {
    uint32_t r;
    asm volatile("redux.sync.max.s32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    return r;
}
__device__ __forceinline__ uint32_t redux_add_u32(uint32_t mask, uint32_t v) {
    uint32_t r;
    asm volatile("redux.sync.add.u32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    return r;
}
__device__ __forceinline__ uint32_t match_all_pred(uint32_t mask, uint32_t v) {
    uint32_t r, p;
    asm volatile("{ .reg .pred q; match.all.sync.b32 %0|q, %2, %3; selp.u32 %1, 0x80000000, 0, q; }"
                 : "=r"(r), "=r"(p) : "r"(v), "r"(mask));
    return r | p;
}

// v: full range. out: 8 words per thread.
KERNEL void warp_groups(const uint32_t* v, uint32_t* out) {
    const unsigned i = gtid(), lane = lane_id();
    const uint32_t x = v[i];
    uint32_t* o = out + i * 8;
    const uint32_t label = (x >> 5) % 4u;
    const uint32_t group = __match_any_sync(0xffffffffu, label);
    const uint32_t leader = __ffs(group) - 1;
    o[0] = redux_max_s32(group, x);
    o[1] = __shfl_sync(group, x, leader);
    o[2] = __ballot_sync(group, x & 1u);
    o[3] = match_all_pred(group, x >> 30);
    __syncwarp(group);
    o[4] = __shfl_sync(group, x, 31 - __clz(group)) ^ lane;
    const uint32_t nonzero = __ballot_sync(0xffffffffu, label != 0);
    if (label != 0) {
        const uint32_t sub = __match_any_sync(nonzero, x % 3u);
        o[5] = sub;
        o[6] = redux_add_u32(sub, x);
        o[7] = __shfl_sync(sub, x, 31 - __clz(sub));
    } else {
        o[5] = 0x5a5a0000u | lane;
        o[6] = redux_add_u32(group, x);
        o[7] = __reduce_min_sync(group, x);
    }
}
