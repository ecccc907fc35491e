// Probe of f64 NaN operand selection on NVIDIA hardware (docs/ptxsim.md, "Measured on the H200"): every
// pair (and, for fma, triple) of quiet and signaling NaNs of both signs with distinct payloads, 1.0, inf
// and 0 through add/sub/mul/div/min/fma, and sqrt/rcp/rsqrt of each. Build and run on a GPU machine:
//   nvcc -arch=sm_90 -O2 -o f64_nan_probe tests/ptxsim/kernels/f64_nan_probe.cu && ./f64_nan_probe
// Result on the H200 (driver 580.159): add/sub/mul return b, else a; fma b, else c, else a; div a, else
// b; min/max the second of two NaNs; sqrt/rcp/rsqrt the input; always quieted, sign and payload kept.
#include <cstdint>
#include <cstdio>

__device__ double D(uint64_t b) { return __longlong_as_double(b); }
__device__ unsigned long long B(double d) { return (unsigned long long)__double_as_longlong(d); }

__global__ void probe(const uint64_t* v, int n) {
    if (threadIdx.x) return;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double x = D(v[i]), y = D(v[j]), r1, r2, r3, r4, r5, r6;
            asm volatile("add.rn.f64 %0, %1, %2;" : "=d"(r1) : "d"(x), "d"(y));
            asm volatile("sub.rn.f64 %0, %1, %2;" : "=d"(r2) : "d"(x), "d"(y));
            asm volatile("mul.rn.f64 %0, %1, %2;" : "=d"(r3) : "d"(x), "d"(y));
            asm volatile("div.rn.f64 %0, %1, %2;" : "=d"(r4) : "d"(x), "d"(y));
            asm volatile("min.f64 %0, %1, %2;" : "=d"(r5) : "d"(x), "d"(y));
            asm volatile("div.rz.f64 %0, %1, %2;" : "=d"(r6) : "d"(x), "d"(y));
            printf("bin %016llx %016llx add %016llx sub %016llx mul %016llx div %016llx min %016llx divrz %016llx\n",
                   (unsigned long long)v[i], (unsigned long long)v[j], B(r1), B(r2), B(r3), B(r4), B(r5), B(r6));
            for (int k = 0; k < n; ++k) {
                double z = D(v[k]), f;
                asm volatile("fma.rn.f64 %0, %1, %2, %3;" : "=d"(f) : "d"(x), "d"(y), "d"(z));
                printf("fma %016llx %016llx %016llx = %016llx\n", (unsigned long long)v[i], (unsigned long long)v[j],
                       (unsigned long long)v[k], B(f));
            }
        }
    for (int i = 0; i < n; ++i) {
        double x = D(v[i]), s, r, rz, ra;
        asm volatile("sqrt.rn.f64 %0, %1;" : "=d"(s) : "d"(x));
        asm volatile("rcp.rn.f64 %0, %1;" : "=d"(r) : "d"(x));
        asm volatile("rcp.rz.f64 %0, %1;" : "=d"(rz) : "d"(x));
        asm volatile("rsqrt.approx.f64 %0, %1;" : "=d"(ra) : "d"(x));
        printf("un %016llx sqrt %016llx rcp %016llx rcprz %016llx rsqrt %016llx\n", (unsigned long long)v[i], B(s),
               B(r), B(rz), B(ra));
    }
}

int main() {
    const uint64_t h[] = {0x7ff8000000000aaaull, 0xfff80000000000bbull, 0x7ff0000000000a01ull, 0xfff00000000000b2ull,
                          0x3ff0000000000000ull, 0x7ff0000000000000ull, 0x0000000000000000ull};
    const int n = sizeof h / sizeof h[0];
    uint64_t* d;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    probe<<<1, 32>>>(d, n);
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("done %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
