// Hostile-input cases of issue 14, run the same way on NVIDIA's driver and on libd4rcuda, so their
// answers can be compared (tests/device/hostile.sh). Built with the CUDA toolkit's cuda.h (not in the
// repository) and linked to libcuda.so.1, which LD_LIBRARY_PATH picks: NVIDIA's or d4r's.
//   gcc -O1 -I/usr/local/cuda/include hostile_cases.c -o hostile_cases -L/usr/local/cuda/lib64/stubs -lcuda
// Each case runs in a child process of its own (NVIDIA's driver crashes or hangs on some), with a fresh
// primary context; the line it prints is "case: answers", or "case: killed by signal N" / "case: no
// answer within 20 s". `hostile_cases NAME` runs one case; no argument runs all.
#include <cuda.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char* name_of(CUresult r) {
    const char* s = NULL;
    if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s) return "?";
    return s;
}

static CUcontext g_ctx;

static int setup(void) {
    CUdevice dev;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&g_ctx, dev) || cuCtxSetCurrent(g_ctx)) {
        printf("setup failed\n");
        return 1;
    }
    return 0;
}

#define SAY(...) printf(__VA_ARGS__)

static const char* kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

static CUresult load(CUmodule* m, const char* body, int with_header) {
    static char text[65536];
    snprintf(text, sizeof text, "%s%s", with_header ? kHeader : "", body);
    return cuModuleLoadData(m, text);
}

// ---- PTX that NVIDIA's assembler refuses (item 17) ----
static void ptx_case(const char* text, int with_header) {
    CUmodule m = NULL;
    SAY("%s", name_of(load(&m, text, with_header)));
}
static void ptx_version_99(void) {
    ptx_case(".version 99.9\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n", 0);
}
static void ptx_target_sm100(void) {
    ptx_case(".version 8.0\n.target sm_100\n.address_size 64\n.visible .entry k() { ret; }\n", 0);
}
static void ptx_address_size_32(void) {
    ptx_case(".version 8.0\n.target sm_90\n.address_size 32\n.visible .entry k() { ret; }\n", 0);
}
static void ptx_maxntid_0(void) { ptx_case(".visible .entry k() .maxntid 0, 1, 1 { ret; }\n", 1); }
static void ptx_duplicate_reg(void) {
    ptx_case(".visible .entry k() { .reg .b32 %r<2>; .reg .b32 %r<2>; mov.b32 %r1, 1; ret; }\n", 1);
}
static void ptx_ld_size_mismatch(void) {
    ptx_case(".visible .entry k(.param .u64 p) { .reg .b32 %r<2>; .reg .b64 %rd<2>; ld.param.u64 %rd1, [p];"
             " ld.global.u64 %r1, [%rd1]; st.global.u32 [%rd1], %r1; ret; }\n",
             1);
}
static void ptx_cvt_size_mismatch(void) {
    ptx_case(".visible .entry k(.param .u64 p) { .reg .b32 %r<2>; .reg .b64 %rd<3>; ld.param.u64 %rd1, [p];"
             " ld.global.u32 %r1, [%rd1]; cvt.rn.f32.s32 %rd2, %r1; st.global.u64 [%rd1], %rd2; ret; }\n",
             1);
}
static void ptx_params_over_limit(void) { ptx_case(".visible .entry k(.param .align 4 .b8 p[40000]) { ret; }\n", 1); }

// ---- limits and allocations (item 19) ----
static void limit_stack_1tib(void) { SAY("%s", name_of(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, (size_t)1 << 40))); }
static void limit_heap_max(void) { SAY("%s", name_of(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, SIZE_MAX))); }
static void alloc_host_zero(void) {
    void* p = (void*)1;
    CUresult r = cuMemAllocHost(&p, 0);
    SAY("%s pointer %s", name_of(r), p ? "non-null" : "null");
}
static void memcpy2d_array_unaligned(void) {
    CUDA_ARRAY_DESCRIPTOR d = {16, 16, CU_AD_FORMAT_FLOAT, 1};
    CUarray a;
    CUresult r = cuArrayCreate(&a, &d);
    if (r) {
        SAY("array: %s", name_of(r));
        return;
    }
    float host[256] = {0};
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = 64;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a;
    c.dstXInBytes = 2;
    c.WidthInBytes = 8;
    c.Height = 2;
    SAY("%s", name_of(cuMemcpy2D(&c)));
}
static void launch_cluster_not_dividing(void) {
    CUmodule m;
    CUfunction f;
    CUresult r = load(&m, ".visible .entry k() { ret; }\n", 1);
    if (!r) r = cuModuleGetFunction(&f, m, "k");
    if (r) {
        SAY("load: %s", name_of(r));
        return;
    }
    CUlaunchAttribute at;
    memset(&at, 0, sizeof at);
    at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    at.value.clusterDim.x = 2;
    at.value.clusterDim.y = 1;
    at.value.clusterDim.z = 1;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 3;
    cfg.gridDimY = 1;
    cfg.gridDimZ = 1;
    cfg.blockDimX = 32;
    cfg.blockDimY = 1;
    cfg.blockDimZ = 1;
    cfg.attrs = &at;
    cfg.numAttrs = 1;
    r = cuLaunchKernelEx(&cfg, f, NULL, NULL);
    SAY("launch %s sync %s", name_of(r), name_of(cuCtxSynchronize()));
}

// ---- recursion under the stack limit (item 18) ----
static const char* kRecursion =
    ".func (.param .b32 ret) down(.param .b32 n)\n{\n"
    "    .local .align 4 .b8 buf[512];\n    .reg .pred %p<2>;\n    .reg .b32 %r<6>;\n    .reg .b64 %rd<3>;\n"
    "    ld.param.b32 %r1, [n];\n    mov.u64 %rd1, buf;\n    st.local.u32 [%rd1], %r1;\n    st.local.u32 [%rd1+508], %r1;\n"
    "    setp.eq.s32 %p1, %r1, 0;\n    mov.b32 %r5, 0;\n    @%p1 bra DONE;\n    sub.s32 %r2, %r1, 1;\n"
    "    {\n    .param .b32 a;\n    st.param.b32 [a], %r2;\n    .param .b32 r;\n    call (r), down, (a);\n"
    "    ld.param.b32 %r3, [r];\n    }\n    ld.local.u32 %r4, [%rd1+508];\n    add.s32 %r5, %r3, %r4;\n"
    "DONE:\n    st.param.b32 [ret], %r5;\n    ret;\n}\n"
    ".visible .entry rec(.param .u64 out, .param .u32 n)\n{\n    .reg .b32 %r<3>;\n    .reg .b64 %rd<2>;\n"
    "    ld.param.u64 %rd1, [out];\n    ld.param.u32 %r1, [n];\n"
    "    {\n    .param .b32 a;\n    st.param.b32 [a], %r1;\n    .param .b32 r;\n    call (r), down, (a);\n"
    "    ld.param.b32 %r2, [r];\n    }\n    st.global.u32 [%rd1], %r2;\n    ret;\n}\n";
static void recursion(unsigned depth, size_t stack) {
    CUmodule m;
    CUfunction f;
    CUresult r = load(&m, kRecursion, 1);
    if (!r) r = cuModuleGetFunction(&f, m, "rec");
    if (r) {
        SAY("load: %s", name_of(r));
        return;
    }
    if (stack) {
        r = cuCtxSetLimit(CU_LIMIT_STACK_SIZE, stack);
        if (r) {
            SAY("limit: %s ", name_of(r));
        }
    }
    CUdeviceptr out;
    cuMemAlloc(&out, 4);
    cuMemsetD32(out, 0, 1);
    void* args[] = {&out, &depth};
    r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    CUresult s = cuCtxSynchronize();
    unsigned v = 0;
    CUresult c = cuMemcpyDtoH(&v, out, 4);
    SAY("launch %s sync %s result %u (copy %s)", name_of(r), name_of(s), v, name_of(c));
}
static void recursion_10_default_stack(void) { recursion(10, 0); }
static void recursion_10_64k_stack(void) { recursion(10, 65536); }

// ---- a sticky fault (item 15) ----
static void sticky_after_fault(void) {
    CUmodule m;
    CUfunction f;
    CUresult r = load(&m,
                      ".visible .entry bad() { .reg .b64 %rd<2>; .reg .b32 %r<2>; mov.u64 %rd1, 16;"
                      " mov.b32 %r1, 1; st.global.u32 [%rd1], %r1; ret; }\n",
                      1);
    if (!r) r = cuModuleGetFunction(&f, m, "bad");
    if (r) {
        SAY("load: %s", name_of(r));
        return;
    }
    CUevent e;
    cuEventCreate(&e, 0);
    r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
    CUresult s = cuCtxSynchronize();
    CUdeviceptr p;
    CUresult a = cuMemAlloc(&p, 64);
    CUfunction g;
    CUresult gf = cuModuleGetFunction(&g, m, "bad");
    CUresult er = cuEventRecord(e, NULL);
    CUresult eq = cuEventQuery(e);
    CUresult sy = cuCtxSynchronize();
    SAY("launch %s sync %s alloc %s get_function %s event_record %s event_query %s sync_again %s", name_of(r),
        name_of(s), name_of(a), name_of(gf), name_of(er), name_of(eq), name_of(sy));
}

// ---- another context's objects (item 14) ----
static void other_context(void) {
    CUmodule m;
    CUfunction f;
    CUresult r = load(&m, ".visible .entry k() { ret; }\n", 1);
    if (!r) r = cuModuleGetFunction(&f, m, "k");
    if (r) {
        SAY("load: %s", name_of(r));
        return;
    }
    CUevent e;
    CUstream sa;
    CUdeviceptr p;
    cuEventCreate(&e, 0);
    cuStreamCreate(&sa, 0);
    cuMemAlloc(&p, 64);
    CUcontext b;
    CUdevice dev;
    cuDeviceGet(&dev, 0);
    r = cuCtxCreate(&b, NULL, 0, dev);
    if (r) {
        SAY("cuCtxCreate: %s", name_of(r));
        return;
    }
    CUstream sb;
    cuStreamCreate(&sb, 0);
    CUresult l0 = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
    CUresult la = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, sa, NULL, NULL);
    CUresult lb = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, sb, NULL, NULL);
    CUresult e0 = cuEventRecord(e, NULL);
    CUresult eb = cuEventRecord(e, sb);
    CUresult ea = cuEventRecord(e, sa);
    char host[64];
    CUresult ca = cuMemcpyHtoDAsync(p, host, 64, sa);
    CUresult s = cuCtxSynchronize();
    SAY("launch_null %s launch_own_stream %s launch_b_stream %s event_null %s event_b_stream %s event_own_stream %s "
        "copy_own_stream %s sync %s",
        name_of(l0), name_of(la), name_of(lb), name_of(e0), name_of(eb), name_of(ea), name_of(ca), name_of(s));
}

// ---- what NVIDIA's driver crashes on (items 1, 2), for the record ----
static void memset2d_wrapping_pitch(void) {
    CUdeviceptr p;
    cuMemAlloc(&p, 4096);
    SAY("%s", name_of(cuMemsetD2D8(p + 64, (size_t)1 << 63, 1, 4, 3)));
}
static void memcpy_wild(void) {
    char host[64];
    SAY("%s", name_of(cuMemcpy((CUdeviceptr)0x10, (CUdeviceptr)(uintptr_t)host, 64)));
}

struct Case {
    const char* name;
    void (*run)(void);
};
static const struct Case kCases[] = {
    {"ptx_version_99", ptx_version_99},
    {"ptx_target_sm100", ptx_target_sm100},
    {"ptx_address_size_32", ptx_address_size_32},
    {"ptx_maxntid_0", ptx_maxntid_0},
    {"ptx_duplicate_reg", ptx_duplicate_reg},
    {"ptx_ld_size_mismatch", ptx_ld_size_mismatch},
    {"ptx_cvt_size_mismatch", ptx_cvt_size_mismatch},
    {"ptx_params_over_limit", ptx_params_over_limit},
    {"limit_stack_1tib", limit_stack_1tib},
    {"limit_heap_max", limit_heap_max},
    {"alloc_host_zero", alloc_host_zero},
    {"memcpy2d_array_unaligned", memcpy2d_array_unaligned},
    {"launch_cluster_not_dividing", launch_cluster_not_dividing},
    {"recursion_10_default_stack", recursion_10_default_stack},
    {"recursion_10_64k_stack", recursion_10_64k_stack},
    {"sticky_after_fault", sticky_after_fault},
    {"other_context", other_context},
    {"memset2d_wrapping_pitch", memset2d_wrapping_pitch},
    {"memcpy_wild", memcpy_wild},
};

int main(int argc, char** argv) {
    int status = 0;
    for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) {
        if (argc > 1 && strcmp(argv[1], kCases[i].name)) continue;
        fflush(stdout);
        int fds[2];
        if (pipe(fds)) return 2;
        pid_t pid = fork();
        if (pid == 0) {
            dup2(fds[1], 1);
            close(fds[0]);
            alarm(20);
            if (setup()) _exit(1);
            kCases[i].run();
            printf("\n");
            fflush(stdout);
            _exit(0);
        }
        close(fds[1]);
        char buf[1024] = {0};
        ssize_t n = 0, got;
        while (n < (ssize_t)sizeof buf - 1 && (got = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0) n += got;
        close(fds[0]);
        int ws = 0;
        waitpid(pid, &ws, 0);
        char* nl = strchr(buf, '\n');
        if (nl) *nl = 0;
        if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGALRM)
            printf("%s: no answer within 20 s%s%s\n", kCases[i].name, buf[0] ? " after " : "", buf);
        else if (WIFSIGNALED(ws))
            printf("%s: killed by signal %d%s%s\n", kCases[i].name, WTERMSIG(ws), buf[0] ? " after " : "", buf);
        else
            printf("%s: %s\n", kCases[i].name, buf);
        if (!WIFEXITED(ws)) status = 1;
    }
    return status;
}
