// Shared-memory atomics with order-independent final values (integer ops, inc/dec, exactly
// representable f32 sums, CAS-loop f32 min), then the shared state written out. Block size 256.
// corpus-arch: sm_89
#include "common.cuh"

// init: 128 words per block (initial counters); v: full range; fv: f32 integers in [-1024, 1024].
// out: 3 words per thread (the 160 counters + 32 f32 + 32 CAS-min + per-thread returned-old slots).
KERNEL void atom_shared(const uint32_t* init, const uint32_t* v, const float* fv, uint32_t* out) {
    __shared__ uint32_t c[160];
    __shared__ float cf[64];
    __shared__ uint32_t slot[256];
    unsigned t = threadIdx.x, i = gtid();
    if (t < 128) c[t] = init[blockIdx.x * 128 + t];
    if (t < 32) c[128 + t] = init[blockIdx.x * 128 + t] >> 20;
    if (t < 64) cf[t] = (float)(int)(init[blockIdx.x * 128 + t] % 64u) - 32.0f;
    slot[t] = t * 0x01010101u;
    __syncthreads();
    uint32_t x = v[i];
    unsigned k = (t * 5u + (t >> 3)) & 31u;
    atomicAdd(&c[k], x);
    atomicMax(&c[32 + k], x >> (t & 7));
    atomicMin(reinterpret_cast<int*>(&c[64 + k]), (int)x);
    atomicXor(&c[96 + k], x);
    atomicInc(&c[128 + k], 300u + k);
    atomicAdd(&cf[k], fv[i] * 0.25f);
    {
        uint32_t* p = reinterpret_cast<uint32_t*>(&cf[32 + k]);
        uint32_t old = *p, assumed;
        do {
            assumed = old;
            if (!(fv[i] < u2f(assumed))) break;
            old = atomicCAS(p, assumed, f2u(fv[i]));
        } while (old != assumed);
    }
    uint32_t old = atomicExch(&slot[t ^ 1], x);  // each slot written by exactly one thread
    __syncthreads();
    uint32_t* o = out + i * 3;
    o[0] = t < 160 ? c[t] : f2u(cf[t - 160 < 64 ? t - 160 : 0]);
    o[1] = old ^ slot[t];
    o[2] = atomicCAS(&slot[t], x, 0u);
}
