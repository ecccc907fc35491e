// Generic addressing: one generic pointer that points to global, shared or local memory depending
// on data, isspacep for each window, and cvta round trips (shared offsets reported relative to the
// array base, since absolute placement is up to ptxas). Block size must be 128.
// corpus-arch: sm_89
#include "common.cuh"

__device__ __forceinline__ uint32_t space_bits(const void* p) {
    uint32_t r;
    asm("{ .reg .pred g, s, l;\n\t"
        "isspacep.global g, %1;\n\t"
        "isspacep.shared s, %1;\n\t"
        "isspacep.local l, %1;\n\t"
        "selp.u32 %0, 1, 0, g;\n\t"
        "@s or.b32 %0, %0, 2;\n\t"
        "@l or.b32 %0, %0, 4; }"
        : "=r"(r) : "l"(p));
    return r;
}

// in: full range. out: 4 words per thread.
KERNEL void generic_addr(const uint32_t* in, uint32_t* out) {
    __shared__ uint32_t s[128];
    uint32_t loc[8];
    unsigned t = threadIdx.x, i = gtid(), n = gridDim.x * blockDim.x;
    s[t] = in[i] ^ 0x55u;
    for (uint32_t k = 0; k < 8; ++k) loc[k] = in[i] + k * 0x100u;
    __syncthreads();
    const uint32_t* p;
    uint32_t sel = in[i] % 3;
    if (sel == 0)
        p = &in[(i + 1) % n];
    else if (sel == 1)
        p = &s[(t + 1) % 128];
    else
        p = &loc[in[i] & 7];
    uint32_t v = *p;
    uint32_t* o = out + i * 4;
    o[0] = v;
    o[1] = space_bits(p) | space_bits(in) << 4 | space_bits(&s[t]) << 8;
    uint64_t g;
    asm("cvta.to.global.u64 %0, %1;" : "=l"(g) : "l"(in));
    const uint32_t* back;
    asm("cvta.global.u64 %0, %1;" : "=l"(back) : "l"(g + 4ull * ((i + 2) % n)));
    o[2] = *back;
    uint32_t base = (uint32_t)__cvta_generic_to_shared(&s[0]);
    uint32_t mine = (uint32_t)__cvta_generic_to_shared(&s[t]);
    uint32_t via;
    asm("ld.shared.u32 %0, [%1];" : "=r"(via) : "r"(base + 4u * ((t + 5) % 128)));
    o[3] = (mine - base) ^ via;
}
