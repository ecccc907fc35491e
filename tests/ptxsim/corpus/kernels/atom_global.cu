// Global atomics designed so the final memory does not depend on thread order: integer add/min/
// max/and/or/xor/inc/dec on shared counters (each counter updated by 32 threads), f32/f64 adds of
// values on a 2^-4 grid (every partial sum is exact), a CAS-loop f32 max, and per-thread slots
// for exch/cas/add whose returned old values are deterministic. Launch 1024 threads.
// corpus-arch: sm_89
#include "common.cuh"

__device__ __forceinline__ float atomic_max_f32(float* addr, float v) {
    uint32_t* p = reinterpret_cast<uint32_t*>(addr);
    uint32_t old = *p, assumed;
    do {
        assumed = old;
        if (!(u2f(assumed) < v)) break;
        old = atomicCAS(p, assumed, f2u(v));
    } while (old != assumed);
    return u2f(old);
}

// c32: 256 counters (8 groups of 32), c64: 96 (3 groups of 32), cf: 32 f32 (+32 for CAS max),
// cd: 32 f64, slots: 3 words per thread (inout), olds: 3 words per thread (out).
KERNEL void atom_global(const uint32_t* v, const uint64_t* w, const float* fv, uint32_t* c32, uint64_t* c64,
                        float* cf, double* cd, uint32_t* slots, uint32_t* olds) {
    unsigned i = gtid();
    uint32_t x = v[i];
    unsigned k = (i * 7u + (i >> 5)) & 31u;
    atomicAdd(&c32[k], x);
    atomicMin(&c32[32 + k], x);
    atomicMax(reinterpret_cast<int*>(&c32[64 + k]), (int)x);
    atomicAnd(&c32[96 + k], x | 0x00ff00ffu);
    atomicOr(&c32[128 + k], x & 0x11111111u);
    atomicXor(&c32[160 + k], x);
    atomicInc(&c32[192 + k], 1000u + k * 37u);
    atomicDec(&c32[224 + k], 5000u + k);
    uint64_t y = w[i];
    atomicAdd(reinterpret_cast<unsigned long long*>(&c64[k]), (unsigned long long)y);
    atomicMin(reinterpret_cast<long long*>(&c64[32 + k]), (long long)y);
    atomicMax(reinterpret_cast<unsigned long long*>(&c64[64 + k]), (unsigned long long)y);
    float f = fv[i] * 0.0625f;
    atomicAdd(&cf[k], f);
    atomic_max_f32(&cf[32 + k], fv[i]);
    atomicAdd(&cd[k], (double)f * 3.0);
    uint32_t* s = slots + i * 3;
    uint32_t* o = olds + i * 3;
    o[0] = atomicExch(&s[0], x);
    uint32_t cur = s[1];
    o[1] = atomicCAS(&s[1], (x & 1) ? cur : cur ^ 1u, x ^ 0xffffu);
    o[2] = atomicAdd(&s[2], x);
}
