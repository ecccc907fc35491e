/* An nvJitLink program as NVIDIA's jitLto sample writes it: two translation units compiled by NVRTC to LTO IR
 * (-dlto), linked by nvJitLink with -lto for the device's own sm_XY (machine code only), loaded with
 * cuModuleLoadData and launched. Built against NVIDIA's own cuda.h, nvrtc.h and nvJitLink.h, unchanged; on d4r's
 * cpu backend it needs the companion libnvJitLink.so.13 (docs/companions.md). One unit calls a device function
 * the other defines, so the link is a real one. Prints "nvjitlink_twin: PASS" and exits 0, or names what failed
 * and exits 1. */
#include <nvJitLink.h>
#include <string.h>

#define PROGRAM "nvjitlink_twin"
#include "twin_check.h"

#define CHECK_LINK(h, call)                                                          \
    do {                                                                             \
        nvJitLinkResult r_ = (call);                                                 \
        if (r_ != NVJITLINK_SUCCESS) FAIL("%s: nvJitLinkResult %d", #call, (int)r_); \
    } while (0)

static const char* kCaller = "extern __device__ float combine(float a, float x, float y);\n"
                             "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, int n) {\n"
                             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                             "    if (i < n) y[i] = combine(a, x[i], y[i]);\n"
                             "}\n";
static const char* kCallee = "__device__ float combine(float a, float x, float y) { return a * x + y; }\n";

/* LTO IR of SOURCE; *SIZE its bytes. */
static char* lto_ir(const char* source, const char* name, size_t* size) {
    nvrtcProgram prog;
    CHECK_RTC(nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL));
    const char* options[] = {"-dlto", "--relocatable-device-code=true"};
    nvrtcResult compiled = nvrtcCompileProgram(prog, 2, options);
    if (compiled != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char* log = malloc(n + 1);
        nvrtcGetProgramLog(prog, log);
        FAIL("compile %s (%s):\n%s", name, nvrtcGetErrorString(compiled), log);
    }
    CHECK_RTC(nvrtcGetLTOIRSize(prog, size));
    char* ir = malloc(*size);
    CHECK_RTC(nvrtcGetLTOIR(prog, ir));
    CHECK_RTC(nvrtcDestroyProgram(&prog));
    return ir;
}

int main(void) {
    enum { N = 777 };
    CUdevice dev;
    CUcontext ctx;
    int major = 0, minor = 0;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));

    size_t caller_size = 0, callee_size = 0;
    char* caller = lto_ir(kCaller, "caller.cu", &caller_size);
    char* callee = lto_ir(kCallee, "callee.cu", &callee_size);
    char arch[32];
    snprintf(arch, sizeof arch, "-arch=sm_%d%d", major, minor);
    const char* link_options[] = {"-lto", arch};
    nvJitLinkHandle link;
    CHECK_LINK(NULL, nvJitLinkCreate(&link, 2, link_options));
    CHECK_LINK(link, nvJitLinkAddData(link, NVJITLINK_INPUT_LTOIR, caller, caller_size, "caller"));
    CHECK_LINK(link, nvJitLinkAddData(link, NVJITLINK_INPUT_LTOIR, callee, callee_size, "callee"));
    CHECK_LINK(link, nvJitLinkComplete(link));
    size_t cubin_size = 0;
    CHECK_LINK(link, nvJitLinkGetLinkedCubinSize(link, &cubin_size));
    char* cubin = malloc(cubin_size);
    CHECK_LINK(link, nvJitLinkGetLinkedCubin(link, cubin));
    CHECK_LINK(link, nvJitLinkDestroy(&link));

    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, dev));
    CUmodule module;
    CHECK_CU(cuModuleLoadData(&module, cubin));
    CUfunction saxpy;
    CHECK_CU(cuModuleGetFunction(&saxpy, module, "saxpy"));
    float x[N], y[N];
    for (int i = 0; i < N; ++i) x[i] = (float)i, y[i] = 1.0f;
    CUdeviceptr dx, dy;
    CHECK_CU(cuMemAlloc(&dx, sizeof x));
    CHECK_CU(cuMemAlloc(&dy, sizeof y));
    CHECK_CU(cuMemcpyHtoD(dx, x, sizeof x));
    CHECK_CU(cuMemcpyHtoD(dy, y, sizeof y));
    float a = 3.0f;
    int n = N;
    void* args[] = {&a, &dx, &dy, &n};
    CHECK_CU(cuLaunchKernel(saxpy, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CHECK_CU(cuMemcpyDtoH(y, dy, sizeof y));
    for (int i = 0; i < N; ++i)
        if (y[i] != 3.0f * (float)i + 1.0f) FAIL("at %d: %g, want %g", i, y[i], 3.0f * (float)i + 1.0f);
    CHECK_CU(cuMemFree(dx));
    CHECK_CU(cuMemFree(dy));
    CHECK_CU(cuModuleUnload(module));
    CHECK_CU(cuCtxDestroy(ctx));
    free(caller);
    free(callee);
    free(cubin);
    printf("nvjitlink_twin: PASS (%zu bytes of sm_%d%d machine code)\n", cubin_size, major, minor);
    return 0;
}
