// cp.async global->shared: .ca with 4/8 bytes, .cg with 16 bytes, src-size smaller than the copy
// (zero fill), two commit groups, wait_group 1 / wait_group 0 / wait_all, then a barrier and reads
// of another thread's copy. Block size must be 128.
// corpus-arch: sm_89
#include "common.cuh"

// src: 8 words per thread; sizes: any value. out: 9 words per thread.
KERNEL void cp_async(const uint32_t* src, const uint32_t* sizes, uint32_t* out) {
    __shared__ __align__(16) uint32_t sm[128 * 8];
    unsigned t = threadIdx.x, g = gtid();
    for (unsigned k = 0; k < 8; ++k) sm[t * 8 + k] = 0xdeadbeefu;
    __syncthreads();
    const uint32_t* gs = src + g * 8;
    unsigned sa = (unsigned)__cvta_generic_to_shared(&sm[t * 8]);
    uint32_t ssz = sizes[g] % 17u;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sa), "l"(gs) : "memory");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(sa + 4), "l"(gs + 1), "r"(ssz & 4u) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(sa + 8), "l"(gs + 2), "r"(ssz & 8u) : "memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(sa + 16), "l"(gs + 4), "r"(ssz) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    uint32_t first = sm[t * 8] ^ sm[t * 8 + 1];
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    uint32_t second = sm[t * 8 + 2] + sm[t * 8 + 7];
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sa + 12), "l"(gs + 6) : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    uint32_t* o = out + g * 9;
    unsigned n = (t + 1) % 128;
    for (unsigned k = 0; k < 8; ++k) o[k] = sm[n * 8 + k];
    o[8] = first ^ second;
}
