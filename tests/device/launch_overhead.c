/* Launch overhead: N launches of an empty kernel on one stream, then one synchronize; prints
 * "launches=N seconds=S us_per_launch=U". Built on the device machine against NVIDIA's cuda.h and
 * run twice by runtime.sh: on NVIDIA's libcuda directly, and through libd4rcuda's driver backend
 * (LD_LIBRARY_PATH=build/lib). Usage: launch_overhead [N] [ROUNDS]: the best of ROUNDS rounds. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char kPtx[] =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry empty(.param .u64 p)\n{\n\tret;\n}\n";

#define CHECK(call)                                                                             \
    do {                                                                                        \
        CUresult r_ = (call);                                                                   \
        if (r_ != CUDA_SUCCESS) {                                                               \
            fprintf(stderr, "%s failed: %d\n", #call, (int)r_);                                 \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f;
    CUstream s;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&mod, kPtx));
    CHECK(cuModuleGetFunction(&f, mod, "empty"));
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr arg = 0;
    void* params[] = {&arg};
    for (int i = 0; i < 1000; ++i) CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL)); /* warm-up */
    CHECK(cuStreamSynchronize(s));
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
        double t0 = now();
        for (long i = 0; i < n; ++i) CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
        CHECK(cuStreamSynchronize(s));
        double t = now() - t0;
        if (t < best) best = t;
    }
    printf("launches=%ld seconds=%.6f us_per_launch=%.4f\n", n, best, best * 1e6 / (double)n);
    return 0;
}
