// match.sync (any/all, b32 and b64) and redux.sync (add/min/max u32/s32, and/or/xor) with full
// and partial member masks. Block size must be 128.
// corpus-arch: sm_89
#include "common.cuh"

__device__ __forceinline__ uint32_t match_all(uint32_t mask, uint32_t v, uint32_t& pred) {
    uint32_t r, p;
    asm volatile("{ .reg .pred q; match.all.sync.b32 %0|q, %2, %3; selp.u32 %1, 1, 0, q; }"
                 : "=r"(r), "=r"(p) : "r"(v), "r"(mask));
    pred = p;
    return r;
}
#define REDUX(name, op) \
    __device__ __forceinline__ uint32_t name(uint32_t mask, uint32_t v) { \
        uint32_t r; asm volatile("redux.sync." op " %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask)); return r; }
REDUX(r_add, "add.u32")
REDUX(r_min_u, "min.u32")
REDUX(r_max_s, "max.s32")
REDUX(r_min_s, "min.s32")
REDUX(r_and, "and.b32")
REDUX(r_or, "or.b32")
REDUX(r_xor, "xor.b32")

// v, w: full range. out: 12 words per thread.
KERNEL void warp_match_redux(const uint32_t* v, const uint64_t* w, uint32_t* out) {
    unsigned i = gtid(), lane = lane_id(), warp = threadIdx.x / 32;
    uint32_t x = v[i];
    uint32_t* o = out + i * 12;
    const uint32_t full = 0xffffffffu;
    o[0] = __match_any_sync(full, x % 5u);
    o[1] = __match_any_sync(full, w[i] % 3ull);
    uint32_t pred;
    uint32_t key = (warp & 1) ? 7u : x % 2u;  // odd warps match all
    o[2] = match_all(full, key, pred);
    o[3] = pred;
    if (lane < 20) o[4] = __match_any_sync(0xfffffu, x % 3u);
    else o[4] = 0x33330000u | lane;
    o[5] = r_add(full, x);
    o[6] = r_min_u(full, x) ^ r_max_s(full, x);
    o[7] = r_and(full, x | 0x01010101u) ^ r_or(full, x & 0x80808080u);
    o[8] = r_xor(full, x);
    if (lane & 1) {
        o[9] = r_add(0xaaaaaaaau, x);
        o[10] = r_min_s(0xaaaaaaaau, x);
    } else {
        o[9] = r_xor(0x55555555u, x);
        o[10] = r_max_s(0x55555555u, x);
    }
    o[11] = lane < 24 ? r_or(0x00ffffffu, x >> lane) : r_and(0xff000000u, x);
}
