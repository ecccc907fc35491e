/* The fake HIP runtime (see fake_hip.h). Handles are small heap records so that a hipFunction_t is
 * never mistaken for a CUfunction. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/hip.h"
#include "fake_hip.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_RECORDS 4096

struct d4r_hip_function {
    CUfunction function;
    char name[64];
    struct d4r_hip_function* next; /* the module's functions, freed with it */
};
struct d4r_hip_module {
    CUmodule module;
    struct d4r_hip_function* functions;
};

static FakeHipCuda g_cuda;
static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static FakeHipLaunch g_launches[MAX_RECORDS];
static int g_launch_count;
static FakeHipMemset g_memsets[MAX_RECORDS];
static int g_memset_count;
static int g_load_count;
static CUmodule g_last_module;

EXPORT void fake_hip_bind(const FakeHipCuda* cuda) { g_cuda = *cuda; }

/* FAKE_HIP_LOG: one line per launch and per slot write, written at exit. */
static void write_log(void) {
    const char* path = getenv("FAKE_HIP_LOG");
    FILE* f = path ? fopen(path, "w") : NULL;
    if (!f) return;
    fprintf(f, "loads %d\n", g_load_count);
    for (int i = 0; i < g_launch_count; ++i) {
        const FakeHipLaunch* l = &g_launches[i];
        fprintf(f, "launch %s grid %u %u %u block %u %u %u stream %p extra %d\n", l->name, l->grid[0], l->grid[1],
                l->grid[2], l->block[0], l->block[1], l->block[2], l->stream, l->used_extra);
    }
    for (int i = 0; i < g_memset_count; ++i)
        fprintf(f, "memset %d stream %p\n", g_memsets[i].value, g_memsets[i].stream);
    fclose(f);
}

/* Without fake_hip_bind (a whole program, not a unit test), FAKE_HIP_CUDA_LIBRARY names the CUDA driver
 * library whose memory and streams this HIP shares, as ZLUDA's HIP shares the GPU's. */
__attribute__((constructor)) static void bind_from_environment(void) {
    if (getenv("FAKE_HIP_LOG")) atexit(write_log);
    const char* path = getenv("FAKE_HIP_CUDA_LIBRARY");
    void* h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (!h && path) h = dlopen(path, RTLD_NOW);
    if (!h) return;
    g_cuda.module_load_data = (CUresult(*)(CUmodule*, const void*))dlsym(h, "cuModuleLoadData");
    g_cuda.module_unload = (CUresult(*)(CUmodule))dlsym(h, "cuModuleUnload");
    g_cuda.module_get_function = (CUresult(*)(CUfunction*, CUmodule, const char*))dlsym(h, "cuModuleGetFunction");
    g_cuda.module_get_global =
        (CUresult(*)(CUdeviceptr*, size_t*, CUmodule, const char*))dlsym(h, "cuModuleGetGlobal_v2");
    g_cuda.launch_kernel = (CUresult(*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, CUstream, void**, void**))dlsym(h, "cuLaunchKernel");
    g_cuda.memcpy_dtoh = (CUresult(*)(void*, CUdeviceptr, size_t))dlsym(h, "cuMemcpyDtoH_v2");
    g_cuda.memset_d32_async = (CUresult(*)(CUdeviceptr, unsigned int, size_t, CUstream))dlsym(h, "cuMemsetD32Async");
}

EXPORT void fake_hip_reset(void) {
    pthread_mutex_lock(&g_mutex);
    g_launch_count = g_memset_count = g_load_count = 0;
    pthread_mutex_unlock(&g_mutex);
}

EXPORT int fake_hip_launch_count(void) { return g_launch_count; }
EXPORT const FakeHipLaunch* fake_hip_launch(int i) { return i >= 0 && i < g_launch_count ? &g_launches[i] : NULL; }
EXPORT int fake_hip_memset_count(void) { return g_memset_count; }
EXPORT const FakeHipMemset* fake_hip_memset(int i) { return i >= 0 && i < g_memset_count ? &g_memsets[i] : NULL; }
EXPORT int fake_hip_load_count(void) { return g_load_count; }

EXPORT int fake_hip_global_u32(const char* name, unsigned index, unsigned* value) {
    CUdeviceptr p = 0;
    size_t bytes = 0;
    if (!g_last_module || g_cuda.module_get_global(&p, &bytes, g_last_module, name) != CUDA_SUCCESS) return 1;
    if ((index + 1) * 4 > bytes) return 1;
    return g_cuda.memcpy_dtoh(value, p + index * 4, 4) != CUDA_SUCCESS;
}

static hipError_t from_cuda(CUresult r) {
    return r == CUDA_SUCCESS           ? D4R_HIP_SUCCESS
           : r == CUDA_ERROR_NOT_FOUND ? D4R_HIP_ERROR_NOT_FOUND
                                       : D4R_HIP_ERROR_INVALID_VALUE;
}

EXPORT hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
    pthread_mutex_lock(&g_mutex);
    g_load_count++;
    pthread_mutex_unlock(&g_mutex);
    size_t magic = strlen(FAKE_HSACO_MAGIC);
    if (!module || !image || strncmp((const char*)image, FAKE_HSACO_MAGIC, magic) != 0)
        return D4R_HIP_ERROR_INVALID_IMAGE;
    struct d4r_hip_module* m = calloc(1, sizeof *m);
    CUresult r = g_cuda.module_load_data(&m->module, (const char*)image + magic);
    if (r != CUDA_SUCCESS) {
        free(m);
        return D4R_HIP_ERROR_INVALID_IMAGE;
    }
    g_last_module = m->module;
    *module = m;
    return D4R_HIP_SUCCESS;
}

EXPORT hipError_t hipModuleUnload(hipModule_t module) {
    if (!module) return D4R_HIP_ERROR_INVALID_VALUE;
    hipError_t e = from_cuda(g_cuda.module_unload(module->module));
    while (module->functions) {
        struct d4r_hip_function* next = module->functions->next;
        free(module->functions);
        module->functions = next;
    }
    free(module);
    return e;
}

EXPORT hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name) {
    if (!function || !module || !name || strlen(name) >= 64) return D4R_HIP_ERROR_INVALID_VALUE;
    CUfunction f = NULL;
    if (g_cuda.module_get_function(&f, module->module, name) != CUDA_SUCCESS) return D4R_HIP_ERROR_NOT_FOUND;
    struct d4r_hip_function* record = calloc(1, sizeof *record);
    record->function = f;
    strcpy(record->name, name);
    record->next = module->functions; /* functions live as long as their module (hipModuleUnload frees them) */
    module->functions = record;
    *function = record;
    return D4R_HIP_SUCCESS;
}

EXPORT hipError_t hipModuleGetGlobal(hipDeviceptr_t* address, size_t* bytes, hipModule_t module, const char* name) {
    if (!address || !module || !name) return D4R_HIP_ERROR_INVALID_VALUE;
    CUdeviceptr p = 0;
    size_t size = 0;
    if (g_cuda.module_get_global(&p, &size, module->module, name) != CUDA_SUCCESS) return D4R_HIP_ERROR_NOT_FOUND;
    *address = (hipDeviceptr_t)p;
    if (bytes) *bytes = size;
    return D4R_HIP_SUCCESS;
}

EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                        unsigned by, unsigned bz, unsigned shared, hipStream_t stream, void** params,
                                        void** extra) {
    if (!f) return D4R_HIP_ERROR_INVALID_VALUE;
    void* cuda_extra[5] = {0};
    int n = 0;
    if (extra) {
        /* HIP's keys only: a CUDA END (0) before HIP's END is a bad key, as it is to HIP. */
        for (int i = 0;; i += 2) {
            if (extra[i] == D4R_HIP_LAUNCH_PARAM_END) break;
            if (i >= 4 ||
                (extra[i] != D4R_HIP_LAUNCH_PARAM_BUFFER_POINTER && extra[i] != D4R_HIP_LAUNCH_PARAM_BUFFER_SIZE))
                return D4R_HIP_ERROR_INVALID_VALUE;
            cuda_extra[n++] = extra[i];
            cuda_extra[n++] = extra[i + 1];
        }
        cuda_extra[n] = D4R_CU_LAUNCH_PARAM_END;
    }
    pthread_mutex_lock(&g_mutex);
    if (g_launch_count < MAX_RECORDS) {
        FakeHipLaunch* l = &g_launches[g_launch_count++];
        strcpy(l->name, f->name);
        l->grid[0] = gx, l->grid[1] = gy, l->grid[2] = gz;
        l->block[0] = bx, l->block[1] = by, l->block[2] = bz;
        l->shared = shared;
        l->stream = stream;
        l->used_extra = extra != NULL;
    }
    pthread_mutex_unlock(&g_mutex);
    return from_cuda(g_cuda.launch_kernel(f->function, gx, gy, gz, bx, by, bz, shared, (CUstream)stream, params,
                                          extra ? cuda_extra : NULL));
}

EXPORT hipError_t hipMemcpyDtoH(void* destination, hipDeviceptr_t source, size_t bytes) {
    return from_cuda(g_cuda.memcpy_dtoh(destination, (CUdeviceptr)source, bytes));
}

EXPORT hipError_t hipMemsetD32Async(hipDeviceptr_t destination, int value, size_t count, hipStream_t stream) {
    pthread_mutex_lock(&g_mutex);
    if (g_memset_count < MAX_RECORDS) {
        FakeHipMemset* m = &g_memsets[g_memset_count++];
        m->address = (unsigned long long)destination;
        m->value = value;
        m->count = count;
        m->stream = stream;
    }
    pthread_mutex_unlock(&g_mutex);
    return from_cuda(g_cuda.memset_d32_async((CUdeviceptr)destination, (unsigned)value, count, (CUstream)stream));
}

EXPORT const char* hipGetErrorName(hipError_t e) {
    switch (e) {
    case D4R_HIP_SUCCESS:
        return "hipSuccess";
    case D4R_HIP_ERROR_INVALID_VALUE:
        return "hipErrorInvalidValue";
    case D4R_HIP_ERROR_INVALID_IMAGE:
        return "hipErrorInvalidImage";
    case D4R_HIP_ERROR_NOT_FOUND:
        return "hipErrorNotFound";
    default:
        return "hipErrorUnknown";
    }
}
