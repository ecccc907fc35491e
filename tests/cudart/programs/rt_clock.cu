// Runtime API conformance: the SM clock. Kernels that spin until a number of clock64() cycles has passed
// (the way programs wait on a GPU without the host) finish in about the time the device's reported clock
// rate says; %clock and %clock_hi are the halves of the same counter, it strictly increases in a thread, and
// %globaltimer advances in nanoseconds alongside. The GPU's clock runs at whatever its current frequency
// is, so the checks allow a wide margin and the program prints only whether they held.
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "rt_check.h"

// The 32-bit %clock and %clock_hi registers (nvcc compiles clock() from %clock64).
__device__ unsigned clock_lo() {
    unsigned r;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(r));
    return r;
}
__device__ unsigned clock_hi() {
    unsigned r;
    asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(r));
    return r;
}

// Each thread spins CYCLES; out[4 t ..]: cycles it measured, globaltimer ns it measured, whether clock64
// and %clock always increased, whether %clock/%clock_hi agreed with clock64.
__global__ void spin(long long cycles, unsigned long long* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long t0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    const long long start = clock64();
    long long now = start, previous = start;
    unsigned previous32 = clock_lo();
    bool increasing = true, low_bits = true;
    while (now - start < cycles) {
        now = clock64();
        const unsigned now32 = clock_lo();
        const unsigned high = clock_hi();
        increasing = increasing && now > previous && now32 != previous32;
        // %clock and %clock_hi were read after clock64(): the same counter a little later (another warp
        // may run in between: up to 2^26 cycles, about 35 ms, are allowed).
        low_bits = low_bits && now32 - static_cast<unsigned>(now) < (1u << 26) &&
                   high - static_cast<unsigned>(static_cast<unsigned long long>(now) >> 32) <= 1u;
        previous = now;
        previous32 = now32;
    }
    unsigned long long t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    out[4 * t] = static_cast<unsigned long long>(now - start);
    out[4 * t + 1] = t1 - t0;
    out[4 * t + 2] = increasing;
    out[4 * t + 3] = low_bits;
}

int main() {
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    EXPECT(khz > 0, "clock rate %d kHz", khz);
    const int threads = 64;
    unsigned long long* out;
    CHECK(cudaMalloc(&out, 4 * threads * sizeof(unsigned long long)));
    spin<<<1, threads>>>(1000, out); // warm up: module load, first launch
    CHECK(cudaDeviceSynchronize());
    const double ms = 200;
    const long long cycles = static_cast<long long>(khz) * static_cast<long long>(ms);
    const auto start = std::chrono::steady_clock::now();
    spin<<<1, threads>>>(cycles, out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    unsigned long long host[4 * threads];
    CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    int short_spins = 0, monotonic = 0, low_bits = 0, timer_ok = 0;
    for (int t = 0; t < threads; ++t) {
        short_spins += host[4 * t] < static_cast<unsigned long long>(cycles);
        monotonic += host[4 * t + 2] == 1;
        low_bits += host[4 * t + 3] == 1;
        // The global timer saw the spin's wall time (the SM clock may run from 0.5x to 2x the reported rate).
        const double timer_ms = static_cast<double>(host[4 * t + 1]) / 1e6;
        timer_ok += timer_ms > ms / 2.5 && timer_ms < ms * 2.5;
    }
    EXPECT(short_spins == 0, "%d threads stopped before %lld cycles", short_spins, cycles);
    // The kernel took about CYCLES / rate: not far less, not far more (a CPU device gets a wider upper margin).
    const bool in_time = elapsed > ms / 2.5 && elapsed < ms * 4;
    EXPECT(in_time, "spinning %lld cycles at %d kHz took %.1f ms, expected about %.0f ms", cycles, khz, elapsed, ms);
    std::printf("spin of %.0f ms worth of cycles finished in about that time: %s\n", ms, in_time ? "yes" : "no");
    std::printf("clock64 and clock increase in every thread: %s\n", monotonic == threads ? "yes" : "no");
    std::printf("%%clock and %%clock_hi are the halves of %%clock64: %s\n", low_bits == threads ? "yes" : "no");
    std::printf("globaltimer measured the spin: %s\n", timer_ok == threads ? "yes" : "no");
    EXPECT(monotonic == threads && low_bits == threads && timer_ok == threads, "clock checks failed");
    return finish("rt_clock");
}
