// Divergence: per-lane loop trip counts, data-dependent break, a dense switch (jump table), nested
// loops with lane-dependent bounds, and early return of some lanes.
// corpus-arch: sm_89
#include "common.cuh"

__device__ __forceinline__ uint32_t step(uint32_t h, uint32_t k) {
    h = h * 1664525u + 1013904223u;
    return (h & 0x100) ? (h ^ (h >> 7)) : (h + k * 3u);
}

// An indirect branch through a branch-target table (brx.idx), taken with a different index per lane.
__device__ __forceinline__ uint32_t jump_table(uint32_t sel, uint32_t h) {
    uint32_t r;
    asm("{\n\t"
        "ts_ctrl: .branchtargets Lj0, Lj1, Lj2, Lj3;\n\t"
        "brx.idx %1, ts_ctrl;\n"
        "Lj0: mul.lo.u32 %0, %2, 3;\n\t"
        "bra.uni Ljend;\n"
        "Lj1: xor.b32 %0, %2, 0x1234;\n\t"
        "bra.uni Ljend;\n"
        "Lj2: shr.u32 %0, %2, 5;\n\t"
        "bra.uni Ljend;\n"
        "Lj3: add.u32 %0, %2, 99;\n"
        "Ljend:\n\t"
        "}"
        : "=r"(r) : "r"(sel & 3u), "r"(h));
    return r;
}

// trips: 0..100; seed: full range. out: 5 words per thread.
KERNEL void ctrl_loop(const uint32_t* trips, const uint32_t* seed, uint32_t* out) {
    unsigned i = gtid();
    uint32_t n = trips[i], h = seed[i], steps = 0;
    for (uint32_t k = 0; k < n; ++k) {
        h = step(h, k);
        if ((h & 0xff) == 0x5a) break;
        ++steps;
    }
    uint32_t* o = out + i * 5;
    o[0] = h;
    o[1] = steps;
    uint32_t sw;
    switch (h % 11) {
        case 0: sw = h * 3u; break;
        case 1: sw = h ^ 0xdeadu; break;
        case 2: sw = h >> 3; break;
        case 3: sw = h + 77u; break;
        case 4: sw = ~h; break;
        case 5: sw = h * h; break;
        case 6: sw = h | 0x1001u; break;
        case 7: sw = h & 0xf0f0f0f0u; break;
        case 8: sw = (h << 9) | (h >> 23); break;
        case 9: sw = h - 12345u; break;
        default: sw = 42u; break;
    }
    o[2] = sw ^ jump_table(h >> 5, seed[i]);
    if (seed[i] & 1) {
        o[3] = 0x0dd0dd;
        o[4] = steps * 2u;
        return;
    }
    uint32_t acc = 0;
    for (uint32_t a = 0; a < (n & 7); ++a)
        for (uint32_t b = 0; b < (h & 3) + a; ++b) acc += (a * b) ^ h;
    o[3] = acc;
    uint32_t w = seed[i];
    while (w > 1 && acc < 1000000u) {  // Collatz-style walk, lane-dependent length
        w = (w & 1) ? 3u * w + 1u : w >> 1;
        acc += 1;
    }
    o[4] = acc;
}
