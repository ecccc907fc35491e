/* A CUDA driver API program as applications write them: primary context, module from PTX text,
 * buffers, launches with kernelParams and with `extra`, a stream, events, module globals, and a
 * launch fault. Usage: vector_add KERNELS.ptx. Prints "vector_add: ok" and exits 0 on success. */
#include <math.h>
#include <string.h>

#include "program_util.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: vector_add KERNELS.ptx\n");
        return 2;
    }
    char* ptx = read_text_file(argv[1]);

    CHECK(cuInit(0));
    int version = 0;
    CHECK(cuDriverGetVersion(&version));
    EXPECT(version >= 12000);
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    CUmodule module;
    CHECK(cuModuleLoadData(&module, ptx));
    CUfunction add, saxpy, probe;
    CHECK(cuModuleGetFunction(&add, module, "vector_add"));
    CHECK(cuModuleGetFunction(&saxpy, module, "saxpy"));
    CHECK(cuModuleGetFunction(&probe, module, "shape_probe"));
    CUfunction missing;
    EXPECT_RESULT(cuModuleGetFunction(&missing, module, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);

    /* c = a + b over a size that is not a multiple of the block. */
    enum { N = 1000 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; ++i) {
        a[i] = (float)i * 0.5f - 100.25f;
        b[i] = (float)(i * i % 97) + 0.125f;
        c[i] = -1.0f;
    }
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    CHECK(cuMemsetD32(dc, 0x7fc00001u, N)); /* poison */
    int n = N;
    void* params[] = {&da, &db, &dc, &n};
    CHECK(cuLaunchKernel(add, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < N; ++i) EXPECT(c[i] == a[i] + b[i]);
    dump_output("vector_add", c, sizeof c);

    /* saxpy through `extra` (a packed parameter block), on a stream, timed by events. */
    struct {
        long long n;
        float a;
        int pad;
        CUdeviceptr x, y;
    } block = {N, 2.5f, 0, da, dc};
    size_t block_size = sizeof block;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &block, CU_LAUNCH_PARAM_BUFFER_SIZE, &block_size,
                     CU_LAUNCH_PARAM_END};
    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CUevent start, stop;
    CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    CHECK(cuEventRecord(start, stream));
    CHECK(cuLaunchKernel(saxpy, (N + 63) / 64, 1, 1, 64, 1, 1, 0, stream, NULL, extra));
    CHECK(cuEventRecord(stop, stream));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuEventSynchronize(stop));
    float ms = -1.0f;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0.0f);
    float y[N];
    CHECK(cuMemcpyDtoHAsync(y, dc, sizeof y, stream));
    CHECK(cuStreamSynchronize(stream));
    for (int i = 0; i < N; ++i) EXPECT(y[i] == fmaf(2.5f, a[i], c[i])); /* the kernel is one fma.rn.f32 */
    dump_output("saxpy", y, sizeof y);

    /* A 3D launch shape, a module global counting launches. */
    CUdeviceptr shape;
    CHECK(cuMemAlloc(&shape, 7 * sizeof(unsigned int)));
    void* probe_params[] = {&shape};
    CHECK(cuLaunchKernel(probe, 3, 2, 2, 4, 3, 2, 0, NULL, probe_params, NULL));
    CHECK(cuLaunchKernel(probe, 5, 1, 1, 32, 1, 1, 0, NULL, probe_params, NULL));
    unsigned int s[7];
    CHECK(cuMemcpyDtoH(s, shape, sizeof s));
    EXPECT(s[0] == 32 && s[1] == 1 && s[2] == 1 && s[3] == 5 && s[4] == 1 && s[5] == 1 && s[6] == 1);
    CUdeviceptr counter;
    size_t counter_bytes = 0;
    CHECK(cuModuleGetGlobal(&counter, &counter_bytes, module, "launches_seen"));
    EXPECT(counter_bytes == 4);
    unsigned int seen = 0;
    CHECK(cuMemcpyDtoH(&seen, counter, 4));
    EXPECT(seen == 2);

    /* Bad launch shapes are refused before anything runs. */
    EXPECT_RESULT(cuLaunchKernel(add, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RESULT(cuLaunchKernel(add, 0, 1, 1, 32, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);

    /* Last, so that the launches before keep their numbers in profiles and dumps: the first launch
     * again, through the CUDA 1.0 execution-control API: block shape, parameter buffer
     * (vector_add(u64 a, u64 b, u64 c, u32 n) at offsets 0, 8, 16, 24), grid. NVIDIA's cuda.h marks
     * these deprecated, which is the point: old programs still call them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    CHECK(cuMemsetD32(dc, 0x7fc00001u, N));
    CHECK(cuFuncSetBlockShape(add, 128, 1, 1));
    CHECK(cuFuncSetSharedSize(add, 0));
    CHECK(cuParamSetv(add, 0, &da, sizeof da));
    CHECK(cuParamSetv(add, 8, &db, sizeof db));
    CHECK(cuParamSetv(add, 16, &dc, sizeof dc));
    CHECK(cuParamSeti(add, 24, (unsigned int)N));
    CHECK(cuParamSetSize(add, 28));
    CHECK(cuLaunchGrid(add, (N + 127) / 128, 1));
#pragma GCC diagnostic pop
    CHECK(cuCtxSynchronize());
    float legacy[N];
    CHECK(cuMemcpyDtoH(legacy, dc, sizeof legacy));
    EXPECT(memcmp(legacy, c, sizeof c) == 0);

    CHECK(cuEventDestroy(start));
    CHECK(cuEventDestroy(stop));
    CHECK(cuStreamDestroy(stream));
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(db));
    CHECK(cuMemFree(dc));
    CHECK(cuMemFree(shape));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(ptx);
    printf("vector_add: ok\n");
    return 0;
}
