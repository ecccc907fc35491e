/* An NVRTC program as NVIDIA's samples write them (nvrtc_helper.h): the kernels are compiled for the device's
 * own sm_XY (machine code only), loaded with cuModuleLoadData and launched. Built against NVIDIA's own cuda.h
 * and nvrtc.h, unchanged; run on d4r's cpu backend it needs the companion libnvrtc.so.13 (docs/companions.md).
 * It uses a header given to NVRTC, a template kernel named through a name expression, and checks every result.
 * Prints "nvrtc_twin: PASS" and exits 0, or names what failed and exits 1. */
#define PROGRAM "nvrtc_twin"
#include "twin_check.h"

static const char* kHeader = "#pragma once\n__device__ inline float twice(float v) { return 2.0f * v; }\n";
static const char* kSource = "#include \"twice.h\"\n"
                             "extern \"C\" __global__ void scale(float* x, int n) {\n"
                             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n) x[i] = twice(x[i]) + 1.0f;\n"
                             "}\n"
                             "template <typename T> __global__ void fill(T* x, T v, int n) {\n"
                             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n) x[i] = v + (T)i;\n"
                             "}\n";

int main(void) {
    enum { N = 1000 };
    CUdevice dev;
    CUcontext ctx;
    int major = 0, minor = 0;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));

    nvrtcProgram prog;
    const char* headers[] = {kHeader};
    const char* names[] = {"twice.h"};
    CHECK_RTC(nvrtcCreateProgram(&prog, kSource, "nvrtc_twin.cu", 1, headers, names));
    CHECK_RTC(nvrtcAddNameExpression(prog, "fill<int>"));
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    const char* options[] = {arch, "--std=c++17"};
    nvrtcResult compiled = nvrtcCompileProgram(prog, 2, options);
    if (compiled != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char* log = malloc(n + 1);
        nvrtcGetProgramLog(prog, log);
        FAIL("compile (%s):\n%s", nvrtcGetErrorString(compiled), log);
    }
    size_t cubin_size = 0;
    CHECK_RTC(nvrtcGetCUBINSize(prog, &cubin_size));
    char* cubin = malloc(cubin_size);
    CHECK_RTC(nvrtcGetCUBIN(prog, cubin));
    const char* fill_name = NULL;
    CHECK_RTC(nvrtcGetLoweredName(prog, "fill<int>", &fill_name));

    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, dev));
    CUmodule module;
    CHECK_CU(cuModuleLoadData(&module, cubin));
    CUfunction scale, fill;
    CHECK_CU(cuModuleGetFunction(&scale, module, "scale"));
    CHECK_CU(cuModuleGetFunction(&fill, module, fill_name));
    CHECK_RTC(nvrtcDestroyProgram(&prog)); /* the lowered name lives as long as the program */

    float host_f[N];
    int host_i[N];
    for (int i = 0; i < N; ++i) host_f[i] = (float)i * 0.5f;
    CUdeviceptr df, di;
    CHECK_CU(cuMemAlloc(&df, sizeof host_f));
    CHECK_CU(cuMemAlloc(&di, sizeof host_i));
    CHECK_CU(cuMemcpyHtoD(df, host_f, sizeof host_f));
    int n = N, base = 7;
    void* scale_args[] = {&df, &n};
    void* fill_args[] = {&di, &base, &n};
    CHECK_CU(cuLaunchKernel(scale, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, scale_args, NULL));
    CHECK_CU(cuLaunchKernel(fill, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, fill_args, NULL));
    CHECK_CU(cuMemcpyDtoH(host_f, df, sizeof host_f));
    CHECK_CU(cuMemcpyDtoH(host_i, di, sizeof host_i));
    for (int i = 0; i < N; ++i) {
        if (host_f[i] != (float)i + 1.0f || host_i[i] != 7 + i) {
            FAIL("at %d: scale %g (want %g), fill %d (want %d)", i, host_f[i], (float)i + 1.0f, host_i[i], 7 + i);
        }
    }
    CHECK_CU(cuMemFree(df));
    CHECK_CU(cuMemFree(di));
    CHECK_CU(cuModuleUnload(module));
    CHECK_CU(cuCtxDestroy(ctx));
    free(cubin);
    printf("nvrtc_twin: PASS (%zu bytes of sm_%d%d machine code)\n", cubin_size, major, minor);
    return 0;
}
