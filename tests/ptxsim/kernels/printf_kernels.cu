// Device printf kernels for tests/ptxsim/printf_test.cpp. The PTX next to this file is ours, compiled
// from this source and committed; regenerate it with:
//   /usr/local/cuda/bin/nvcc -ptx -arch=sm_89 -O3 -o tests/ptxsim/kernels/printf_kernels.ptx \
//       tests/ptxsim/kernels/printf_kernels.cu
#include <cstdio>

extern "C" __global__ void printf_ints(const int* v, const char* name) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    int r = printf("b%u t%d v=%d u=%u x=%x X=%#X o=%o c=%c s=%s [%5d|%-5d|%05d|%+d]\n", blockIdx.x, t, v[t],
                   (unsigned)v[t], v[t], v[t], v[t], 'A' + t, name, t, t, t, t);
    if (r != 13) printf("unexpected return %d\n", r);
}

extern "C" __global__ void printf_floats(float f, double d) {
    printf("f=%f e=%.3e g=%g G=%G w=[%8.2f] a=%a %%\n", f, d, d * 1e10, d * 1e-10, f, 1.0);
}

extern "C" __global__ void printf_wide(long long a, unsigned long long b, const void* p) {
    printf("ld=%ld lld=%lld llu=%llu lx=%lx lli=%lli p=%p hx=%hx s=[%.3s]\n", (long)a, a, b, (unsigned long)b, a, p,
           (unsigned short)b, "abcdef");
}

extern "C" __global__ void printf_string(const char* s) { printf("s=%s\n", s); }

extern "C" __global__ void printf_plain() {
    printf("hello from %s\n", "ptxsim");
    printf("no arguments\n");
}

extern "C" __global__ void printf_divergent() {
    if (threadIdx.x & 1)
        printf("odd %d\n", threadIdx.x);
    else
        printf("even %d\n", threadIdx.x);
}
