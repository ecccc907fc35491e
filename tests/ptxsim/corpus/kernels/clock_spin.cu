// The SM clock: every thread spins until %clock64 has advanced by `cycles` and writes flags that hold on any
// GPU (the counts themselves depend on the clock frequency and scheduling): the spin reached its count, every
// %clock64 read was larger than the one before, %clock and %clock_hi are the halves of the counter read just
// before, and %globaltimer advanced. Block size must be 64.
// corpus-arch: sm_89
#include "common.cuh"

__device__ __forceinline__ uint64_t clock64_reg() {
    uint64_t r;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(r));
    return r;
}
__device__ __forceinline__ uint32_t clock_lo_reg() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(r));
    return r;
}
__device__ __forceinline__ uint32_t clock_hi_reg() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(r));
    return r;
}
__device__ __forceinline__ uint64_t globaltimer_reg() {
    uint64_t r;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
    return r;
}

// cycles: one per thread (how long it spins). out: 4 words per thread, each 1 when its check held.
KERNEL void clock_spin(const uint32_t* cycles, uint32_t* out) {
    const unsigned i = gtid();
    const uint64_t target = cycles[i];
    const uint64_t t0 = globaltimer_reg();
    const uint64_t start = clock64_reg();
    uint64_t now = start, previous = start;
    uint32_t increasing = 1, halves = 1;
    while (now - start < target) {
        now = clock64_reg();
        const uint32_t lo = clock_lo_reg(), hi = clock_hi_reg();
        increasing &= now > previous;
        // Read after `now`: the same counter up to 2^26 cycles later (other warps may run in between).
        halves &= (lo - static_cast<uint32_t>(now)) < (1u << 26) && hi - static_cast<uint32_t>(now >> 32) <= 1u;
        previous = now;
    }
    const uint64_t t1 = globaltimer_reg();
    out[4 * i] = now - start >= target;
    out[4 * i + 1] = increasing;
    out[4 * i + 2] = halves;
    out[4 * i + 3] = t1 > t0;
}
