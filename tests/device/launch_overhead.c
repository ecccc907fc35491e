/* Launch overhead of libd4rcuda's driver backend against NVIDIA's libcuda, measured in one process:
 * both libraries are dlopen()ed (libd4rcuda forwards to the same NVIDIA library, so both share one
 * driver, one context and the same handles), the module and function are obtained through libd4rcuda
 * (so its override layer has seen them), and rounds of N empty-kernel launches alternate between
 * NVIDIA's cuLaunchKernel and libd4rcuda's. Prints the median time per launch of each and the median
 * of the per-pair ratios. Built on the device machine by runtime.sh against NVIDIA's cuda.h (types
 * only). Usage: launch_overhead LIBD4RCUDA.so [N] [PAIRS]. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char kPtx[] = ".version 7.0\n.target sm_52\n.address_size 64\n"
                           ".visible .entry empty(.param .u64 p)\n{\n\tret;\n}\n";

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void**, void**);

#define CHECK(call)                                             \
    do {                                                        \
        CUresult r_ = (call);                                   \
        if (r_ != CUDA_SUCCESS) {                               \
            fprintf(stderr, "%s failed: %d\n", #call, (int)r_); \
            return 1;                                           \
        }                                                       \
    } while (0)

static void* sym(void* lib, const char* name) {
    void* p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "missing %s\n", name);
        exit(1);
    }
    return p;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: launch_overhead LIBD4RCUDA.so [N] [PAIRS]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 200000;
    int pairs = argc > 3 ? atoi(argv[3]) : 15;
    if (pairs > 64) pairs = 64;
    void* nv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    void* d4r = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!nv || !d4r) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    if (nv == d4r) {
        fprintf(stderr, "libcuda.so.1 resolved to libd4rcuda: run without LD_LIBRARY_PATH\n");
        return 1;
    }
    CUresult (*init)(unsigned) = sym(d4r, "cuInit");
    CUresult (*dev_get)(CUdevice*, int) = sym(d4r, "cuDeviceGet");
    CUresult (*retain)(CUcontext*, CUdevice) = sym(d4r, "cuDevicePrimaryCtxRetain");
    CUresult (*set_current)(CUcontext) = sym(d4r, "cuCtxSetCurrent");
    CUresult (*load)(CUmodule*, const void*) = sym(d4r, "cuModuleLoadData");
    CUresult (*get_function)(CUfunction*, CUmodule, const char*) = sym(d4r, "cuModuleGetFunction");
    CUresult (*stream_create)(CUstream*, unsigned) = sym(d4r, "cuStreamCreate");
    CUresult (*sync)(CUstream) = sym(d4r, "cuStreamSynchronize");
    launch_fn launch[2] = {(launch_fn)sym(nv, "cuLaunchKernel"), (launch_fn)sym(d4r, "cuLaunchKernel")};
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f;
    CUstream s;
    CHECK(init(0));
    CHECK(dev_get(&dev, 0));
    CHECK(retain(&ctx, dev));
    CHECK(set_current(ctx));
    CHECK(load(&mod, kPtx));
    CHECK(get_function(&f, mod, "empty"));
    CHECK(stream_create(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr arg = 0;
    void* params[] = {&arg};
    for (int w = 0; w < 2; ++w) {
        for (int i = 0; i < 2000; ++i) CHECK(launch[w](f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
        CHECK(sync(s));
    }
    double us[2][64], ratio[64];
    for (int p = 0; p < pairs; ++p) {
        for (int w = 0; w < 2; ++w) {
            double t0 = now();
            for (long i = 0; i < n; ++i) CHECK(launch[w](f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
            CHECK(sync(s));
            us[w][p] = (now() - t0) * 1e6 / (double)n;
        }
        ratio[p] = us[1][p] / us[0][p];
        printf("pair %d: direct %.4f us/launch, libd4rcuda %.4f us/launch, ratio %.4f\n", p + 1, us[0][p], us[1][p],
               ratio[p]);
    }
    qsort(us[0], pairs, sizeof(double), cmp);
    qsort(us[1], pairs, sizeof(double), cmp);
    qsort(ratio, pairs, sizeof(double), cmp);
    printf("launches=%ld pairs=%d median direct=%.4f us libd4rcuda=%.4f us; median ratio libd4rcuda/direct=%.4f\n", n,
           pairs, us[0][pairs / 2], us[1][pairs / 2], ratio[pairs / 2]);
    return 0;
}
