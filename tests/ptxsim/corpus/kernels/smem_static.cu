// Static shared memory: tree reductions (f32 sum in a fixed order, u32 max/xor) and a padded
// transpose through a 2D shared tile. Block size must be 256.
// corpus-arch: sm_89
#include "common.cuh"

// a: f32, u: u32. of: 2 floats per thread; ou: 3 words per thread.
KERNEL void smem_static(const float* a, const uint32_t* u, float* of, uint32_t* ou) {
    __shared__ float sf[256];
    __shared__ uint32_t su[256];
    __shared__ uint32_t tile[16][17];
    unsigned t = threadIdx.x, i = gtid();
    sf[t] = a[i];
    su[t] = u[i];
    tile[t % 16][t / 16] = u[i] ^ 0x5555u;
    __syncthreads();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (t < s) {
            sf[t] = sf[t] + sf[t + s];
            su[t] = max(su[t], su[t + s]) ^ (s << 20);
        }
        __syncthreads();
    }
    of[i * 2 + 0] = sf[0];
    of[i * 2 + 1] = sf[t];
    ou[i * 3 + 0] = su[0];
    ou[i * 3 + 1] = su[t];
    ou[i * 3 + 2] = tile[t / 16][t % 16];
}
