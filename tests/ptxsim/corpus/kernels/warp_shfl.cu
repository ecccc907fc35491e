// shfl.sync in all four modes with full and partial member masks, segment widths (the c operand),
// lane offsets past the segment, and the validity predicate. Partial masks are arranged so every
// source lane is a member (reading a non-member lane is undefined). Block size must be 128.
// corpus-arch: sm_89
#include "common.cuh"

#define SHFL(name, mode) \
    __device__ __forceinline__ uint32_t name(uint32_t v, uint32_t b, uint32_t c, uint32_t mask, uint32_t& pred) { \
        uint32_t r, p; \
        asm volatile("{ .reg .pred q; shfl.sync." mode ".b32 %0|q, %2, %3, %4, %5; selp.u32 %1, 1, 0, q; }" \
                     : "=r"(r), "=r"(p) : "r"(v), "r"(b), "r"(c), "r"(mask)); \
        pred = p; \
        return r; }
SHFL(shfl_idx, "idx")
SHFL(shfl_up, "up")
SHFL(shfl_down, "down")
SHFL(shfl_bfly, "bfly")

__device__ __forceinline__ uint32_t clamp_c(uint32_t width) { return ((32u - width) << 8) | 0x1fu; }
__device__ __forceinline__ uint32_t up_c(uint32_t width) { return (32u - width) << 8; }

// v: full range; b: 0..40. out: 13 words per thread (12 values, then the 12 predicates as bits).
KERNEL void warp_shfl(const uint32_t* v, const uint32_t* b, uint32_t* out) {
    unsigned i = gtid(), lane = lane_id();
    uint32_t x = v[i], s = b[i], p, bits = 0;
    uint32_t* o = out + i * 13;
    const uint32_t full = 0xffffffffu;
    o[0] = shfl_idx(x, s, clamp_c(32), full, p); bits |= p << 0;
    o[1] = shfl_idx(x, s, clamp_c(8), full, p); bits |= p << 1;
    o[2] = shfl_up(x, s, up_c(32), full, p); bits |= p << 2;
    o[3] = shfl_up(x, s & 15, up_c(16), full, p); bits |= p << 3;
    o[4] = shfl_down(x, s, clamp_c(32), full, p); bits |= p << 4;
    o[5] = shfl_down(x, s & 7, clamp_c(4), full, p); bits |= p << 5;
    o[6] = shfl_bfly(x, s & 31, clamp_c(32), full, p); bits |= p << 6;
    o[7] = shfl_bfly(x, s & 15, clamp_c(16), full, p); bits |= p << 7;
    // Two half-warp groups, each shuffling inside its own 16-lane segment.
    uint32_t half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    if (lane < 16) {
        o[8] = shfl_idx(x, s, clamp_c(16), half, p); bits |= p << 8;
        o[9] = shfl_down(x, s & 15, clamp_c(16), half, p); bits |= p << 9;
    } else {
        o[8] = shfl_up(x, s & 15, up_c(16), half, p); bits |= p << 8;
        o[9] = shfl_bfly(x, s & 15, clamp_c(16), half, p); bits |= p << 9;
    }
    // Odd and even lanes: xor by an even amount and idx to a lane of the same parity.
    uint32_t parity = (lane & 1) ? 0xaaaaaaaau : 0x55555555u;
    if (lane & 1) {
        o[10] = shfl_bfly(x, s & 30, clamp_c(32), parity, p); bits |= p << 10;
        o[11] = shfl_idx(x, (s * 2 + 1) & 31, clamp_c(32), parity, p); bits |= p << 11;
    } else {
        o[10] = shfl_idx(x, (s * 2) & 31, clamp_c(32), parity, p); bits |= p << 10;
        o[11] = shfl_bfly(x, s & 6, clamp_c(8), parity, p); bits |= p << 11;
    }
    o[12] = bits;
}
