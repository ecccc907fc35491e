// Module-scope data: __constant__ tables with initialisers, a __device__ array with an initialiser,
// and a __device__ scratch array written and read back by each thread. Launch with 1024 threads.
// corpus-arch: sm_89
#include "common.cuh"

__constant__ float k_table[16] = {1.0f, -2.5f, 3.25f, 1e-3f, 65504.0f, -0.0f, 1e30f, 3.4e38f,
                                  1.17549435e-38f, 7.0f, -8.125f, 0.1f, 0.2f, 0.3f, 1e-40f, 2.0f};
__constant__ uint32_t k_mix[8] = {0x9e3779b1u, 0x85ebca6bu, 0xc2b2ae35u, 0x27d4eb2fu,
                                  0x165667b1u, 0xd3a2646cu, 0xfd7046c5u, 0xb55a4f09u};
__device__ uint32_t g_init[4] = {11u, 22u, 33u, 0xffffffffu};
__device__ uint32_t g_scratch[1024];

// idx: full range. out: 3 words per thread.
KERNEL void const_global(const uint32_t* idx, uint32_t* out) {
    unsigned i = gtid();
    uint32_t k = idx[i];
    g_scratch[i] = k * k_mix[k & 7];
    __threadfence();
    float f = k_table[k & 15] * 2.0f;
    uint32_t* o = out + i * 3;
    o[0] = f2u(f);
    o[1] = g_scratch[i] + g_init[(k >> 3) & 3];
    o[2] = k_mix[(k >> 4) & 7] ^ f2u(k_table[(k >> 8) & 15]);
}
