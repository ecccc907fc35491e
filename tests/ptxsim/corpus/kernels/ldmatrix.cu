// ldmatrix.sync m8n8 .b16 in x1, x2, x4 and their .trans forms, with per-lane row addresses taken
// from data (any of 128 16-byte rows of the warp's shared tile). Block size must be 128.
// corpus-arch: sm_89
#include "common.cuh"

// src: 512 words per warp; rows: any value (row = value % 128). out: 14 words per lane.
KERNEL void ldmatrix(const uint32_t* src, const uint32_t* rows, uint32_t* out) {
    __shared__ __align__(16) uint32_t sm[4][512];
    unsigned g = gtid(), w = threadIdx.x / 32, lane = lane_id();
    unsigned warp_global = g / 32;
    for (unsigned k = 0; k < 16; ++k) sm[w][lane * 16 + k] = src[warp_global * 512 + lane * 16 + k];
    __syncwarp();
    unsigned addr = (unsigned)__cvta_generic_to_shared(&sm[w][(rows[g] % 128u) * 4]);
    uint32_t* o = out + g * 14;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(o[0]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(o[1]), "=r"(o[2]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(o[3]), "=r"(o[4]), "=r"(o[5]), "=r"(o[6]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(o[7]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(o[8]), "=r"(o[9]) : "r"(addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(o[10]), "=r"(o[11]), "=r"(o[12]), "=r"(o[13]) : "r"(addr));
}
