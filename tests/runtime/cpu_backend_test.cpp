// cpu backend: initialisation, device queries, error texts, primary and ordinary contexts.
#include <unistd.h>

#include <cstring>
#include <thread>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

// Captured before main() (before any test can call cuInit): what the backend answers uninitialised.
struct BeforeInit {
    CUresult count, get, ctx_create, alloc, version, error_name;
    int driver_version = 0;
    BeforeInit() {
        int n = 0;
        CUdevice d = 0;
        CUcontext c = nullptr;
        CUdeviceptr p = 0;
        const char* s = nullptr;
        count = api().cuDeviceGetCount(&n);
        get = api().cuDeviceGet(&d, 0);
        ctx_create = api().cuCtxCreate_v2(&c, 0, 0);
        alloc = api().cuMemAlloc_v2(&p, 16);
        version = api().cuDriverGetVersion(&driver_version);
        error_name = api().cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s);
    }
};
const BeforeInit g_before_init;

TEST(CpuBackendInit, EverythingButVersionsAndErrorTextsNeedsCuInit) {
    // Another test binary part may have run cuInit in a static constructor only if it shares this process;
    // nothing in d4r_runtime_tests does, so these are the uninitialised answers.
    EXPECT_EQ(g_before_init.count, CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(g_before_init.get, CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(g_before_init.ctx_create, CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(g_before_init.alloc, CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(g_before_init.version, CUDA_SUCCESS);
    EXPECT_EQ(g_before_init.driver_version, 13000);
    EXPECT_EQ(g_before_init.error_name, CUDA_SUCCESS);
}

TEST(CpuBackendInit, NameAndFlags) {
    auto b = make_cpu_backend();
    ASSERT_TRUE(b);
    EXPECT_EQ((*b)->name(), "cpu");
    const ApiTable& t = (*b)->table();
    EXPECT_EQ(t.cuInit(1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(t.cuInit(0), CUDA_SUCCESS);
    // Every entry is set (fill_missing), and two backend objects share one table, whose calls act on the
    // State of the newest one alive (cpu_state.h): the second starts uninitialised.
    auto b2 = make_cpu_backend();
    ASSERT_TRUE(b2);
    EXPECT_EQ((*b2)->table().cuInit, t.cuInit);
    int count = 0;
    EXPECT_EQ((*b2)->table().cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ((*b2)->table().cuInit(0), CUDA_SUCCESS);
    EXPECT_EQ((*b2)->table().cuDeviceGetCount(&count), CUDA_SUCCESS);
    EXPECT_EQ(count, 1);
}

// Each backend object owns its state (issue 28, item 4): a backend made after another was destroyed shares
// none of its contexts, graphs, streams or sticky faults.
TEST(CpuBackendState, AFreshBackendSharesNothingWithADestroyedOne) {
    CUcontext old_ctx = nullptr;
    CUgraph old_graph = nullptr;
    CUstream old_stream = nullptr;
    {
        auto b = make_cpu_backend();
        ASSERT_TRUE(b);
        const ApiTable& t = (*b)->table();
        ASSERT_EQ(t.cuInit(0), CUDA_SUCCESS);
        ASSERT_EQ(t.cuCtxCreate_v2(&old_ctx, 0, 0), CUDA_SUCCESS);
        ASSERT_EQ(t.cuStreamCreate(&old_stream, 0), CUDA_SUCCESS);
        ASSERT_EQ(t.cuGraphCreate(&old_graph, 0), CUDA_SUCCESS);
        CUmodule m = nullptr;
        ASSERT_EQ(t.cuModuleLoadData(&m, kTestPtx), CUDA_SUCCESS);
        CUfunction f = nullptr;
        ASSERT_EQ(t.cuModuleGetFunction(&f, m, "store_at"), CUDA_SUCCESS);
        uint64_t target = 0x10; // nothing owns it: the launch faults and the context's error becomes sticky
        uint32_t value = 1;
        void* params[] = {&target, &value};
        ASSERT_EQ(t.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
        EXPECT_EQ(t.cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
        CUdeviceptr p = 0;
        EXPECT_EQ(t.cuMemAlloc_v2(&p, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
        CUcontext popped = nullptr;
        ASSERT_EQ(t.cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS); // left alive: the backend's end destroys it
        EXPECT_EQ(popped, old_ctx);
    }
    auto b2 = make_cpu_backend();
    ASSERT_TRUE(b2);
    const ApiTable& t = (*b2)->table();
    int count = 0;
    EXPECT_EQ(t.cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    ASSERT_EQ(t.cuInit(0), CUDA_SUCCESS);
    EXPECT_EQ(t.cuCtxPushCurrent_v2(old_ctx), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_EQ(t.cuGraphDestroy(old_graph), CUDA_ERROR_INVALID_VALUE);
    CUcontext ctx = nullptr;
    ASSERT_EQ(t.cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(t.cuStreamQuery(old_stream), CUDA_ERROR_INVALID_HANDLE);
    CUdeviceptr p = 0;
    EXPECT_EQ(t.cuMemAlloc_v2(&p, 16), CUDA_SUCCESS); // no sticky fault carried over
    EXPECT_EQ(t.cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(t.cuMemFree_v2(p), CUDA_SUCCESS);
    EXPECT_EQ(t.cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
}

TEST(CpuBackendInit, ErrorTexts) {
    const char* s = nullptr;
    EXPECT_EQ(api().cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s), CUDA_SUCCESS);
    EXPECT_STREQ(s, "CUDA_ERROR_ILLEGAL_ADDRESS");
    EXPECT_EQ(api().cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
    EXPECT_STREQ(s, "out of memory");
    EXPECT_EQ(api().cuGetErrorName(static_cast<CUresult>(555), &s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuGetErrorName(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST(CpuBackendDevice, Queries) {
    ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS);
    CUdevice d = -1;
    EXPECT_EQ(api().cuDeviceGet(&d, 0), CUDA_SUCCESS);
    EXPECT_EQ(d, 0);
    EXPECT_EQ(api().cuDeviceGet(&d, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_EQ(api().cuDeviceGet(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuDeviceGetCount(nullptr), CUDA_ERROR_INVALID_VALUE);

    char name[64];
    EXPECT_EQ(api().cuDeviceGetName(name, sizeof name, 0), CUDA_SUCCESS);
    EXPECT_STREQ(name, "d4r CPU (ptxsim)");
    char shortname[4];
    EXPECT_EQ(api().cuDeviceGetName(shortname, sizeof shortname, 0), CUDA_SUCCESS);
    EXPECT_STREQ(shortname, "d4r");
    EXPECT_EQ(api().cuDeviceGetName(name, sizeof name, 3), CUDA_ERROR_INVALID_DEVICE);

    CUuuid a, b;
    EXPECT_EQ(api().cuDeviceGetUuid(&a, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDeviceGetUuid_v2(&b, 0), CUDA_SUCCESS);
    EXPECT_EQ(std::memcmp(a.bytes, b.bytes, 16), 0);
    EXPECT_EQ(a.bytes[6] & 0xf0, 0x40); // version 4
    EXPECT_EQ(api().cuDeviceGetUuid(nullptr, 0), CUDA_ERROR_INVALID_VALUE);

    size_t total = 0;
    EXPECT_EQ(api().cuDeviceTotalMem_v2(&total, 0), CUDA_SUCCESS);
    EXPECT_EQ(total, size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGE_SIZE)));

    int major = 0, minor = -1;
    EXPECT_EQ(api().cuDeviceComputeCapability(&major, &minor, 0), CUDA_SUCCESS);
    EXPECT_EQ(major, 9);
    EXPECT_EQ(minor, 0);
    int can = -1;
    EXPECT_EQ(api().cuDeviceCanAccessPeer(&can, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(can, 0);
    EXPECT_EQ(api().cuDeviceCanAccessPeer(&can, 0, 1), CUDA_ERROR_INVALID_DEVICE);
}

TEST(CpuBackendDevice, Attributes) {
    ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS);
    auto attr = [](int a) {
        int v = -12345;
        EXPECT_EQ(api().cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(a), 0), CUDA_SUCCESS) << a;
        return v;
    };
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), 9);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), 0);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z), 64);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), 2147483647);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y), 65535);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK), 48 * 1024);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 227 * 1024);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK), 65536);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING), 1);
    EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), static_cast<int>(std::thread::hardware_concurrency()));
    EXPECT_GT(attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH), 0);
    EXPECT_GT(attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT), 0);
    int v = 0;
    EXPECT_EQ(api().cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(0), 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(200), 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(CpuBackendTest, ContextStack) {
    CUcontext cur = nullptr;
    EXPECT_EQ(api().cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    EXPECT_EQ(cur, m_ctx); // cuCtxCreate makes the new context current

    CUcontext second = nullptr;
    ASSERT_EQ(api().cuCtxCreate_v2(&second, CU_CTX_SCHED_BLOCKING_SYNC, 0), CUDA_SUCCESS);
    EXPECT_NE(second, m_ctx);
    EXPECT_EQ(api().cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    EXPECT_EQ(cur, second);
    unsigned flags = 99;
    EXPECT_EQ(api().cuCtxGetFlags(&flags), CUDA_SUCCESS);
    EXPECT_EQ(flags, unsigned(CU_CTX_SCHED_BLOCKING_SYNC));

    CUcontext popped = nullptr;
    EXPECT_EQ(api().cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
    EXPECT_EQ(popped, second);
    EXPECT_EQ(api().cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    EXPECT_EQ(cur, m_ctx);
    EXPECT_EQ(api().cuCtxPushCurrent_v2(second), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    EXPECT_EQ(cur, second);
    // SetCurrent replaces the top; SetCurrent(NULL) pops.
    EXPECT_EQ(api().cuCtxSetCurrent(m_ctx), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    EXPECT_EQ(cur, m_ctx);
    EXPECT_EQ(api().cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    EXPECT_EQ(cur, m_ctx); // the stack was [m_ctx, m_ctx]

    // Each thread has its own stack.
    std::thread([&] {
        CUcontext c = reinterpret_cast<CUcontext>(0x1);
        EXPECT_EQ(api().cuCtxGetCurrent(&c), CUDA_SUCCESS);
        EXPECT_EQ(c, nullptr);
        CUdeviceptr p = 0;
        EXPECT_EQ(api().cuMemAlloc_v2(&p, 64), CUDA_ERROR_INVALID_CONTEXT);
        EXPECT_EQ(api().cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
        EXPECT_EQ(api().cuCtxPopCurrent_v2(&c), CUDA_ERROR_INVALID_CONTEXT);
        EXPECT_EQ(api().cuCtxPushCurrent_v2(second), CUDA_SUCCESS);
        CUdevice d = -1;
        EXPECT_EQ(api().cuCtxGetDevice(&d), CUDA_SUCCESS);
        EXPECT_EQ(d, 0);
    }).join();

    EXPECT_EQ(api().cuCtxDestroy_v2(second), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxDestroy_v2(second), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_EQ(api().cuCtxPushCurrent_v2(second), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_EQ(api().cuCtxSetCurrent(second), CUDA_ERROR_INVALID_CONTEXT);
    unsigned version = 0;
    EXPECT_EQ(api().cuCtxGetApiVersion(second, &version), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_EQ(api().cuCtxGetApiVersion(m_ctx, &version), CUDA_SUCCESS);
    EXPECT_EQ(version, 3020u);
    EXPECT_EQ(api().cuCtxCreate_v2(&second, 0x100, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuCtxCreate_v2(&second, 0, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_EQ(api().cuCtxCreate_v2(nullptr, 0, 0), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(CpuBackendTest, DestroyedCurrentContextIsInvalid) {
    CUcontext other = nullptr;
    ASSERT_EQ(api().cuCtxCreate_v2(&other, 0, 0), CUDA_SUCCESS);
    // Destroy it from another thread: this thread's stack still names it.
    std::thread([&] { EXPECT_EQ(api().cuCtxDestroy_v2(other), CUDA_SUCCESS); }).join();
    CUdeviceptr p = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
    CUcontext popped = nullptr;
    EXPECT_EQ(api().cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
    EXPECT_EQ(popped, other);
    EXPECT_EQ(api().cuMemAlloc_v2(&p, 16), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(p), CUDA_SUCCESS);
}

TEST(CpuBackendPrimary, RetainReleaseState) {
    ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS); // whatever earlier tests left
    unsigned flags = 99;
    int active = -1;
    EXPECT_EQ(api().cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
    EXPECT_EQ(active, 0);
    EXPECT_EQ(api().cuDevicePrimaryCtxSetFlags_v2(0, CU_CTX_SCHED_BLOCKING_SYNC), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDevicePrimaryCtxSetFlags_v2(0, 0x1000), CUDA_ERROR_INVALID_VALUE);
    CUcontext a = nullptr, b = nullptr;
    ASSERT_EQ(api().cuDevicePrimaryCtxRetain(&a, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuDevicePrimaryCtxRetain(&b, 0), CUDA_SUCCESS);
    EXPECT_EQ(a, b);
    EXPECT_EQ(api().cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
    EXPECT_EQ(active, 1);
    EXPECT_EQ(flags, unsigned(CU_CTX_SCHED_BLOCKING_SYNC));
    // Usable as any context, but cuCtxDestroy does not apply to it.
    ASSERT_EQ(api().cuCtxSetCurrent(a), CUDA_SUCCESS);
    unsigned ctx_flags = 0;
    EXPECT_EQ(api().cuCtxGetFlags(&ctx_flags), CUDA_SUCCESS);
    EXPECT_EQ(ctx_flags, unsigned(CU_CTX_SCHED_BLOCKING_SYNC));
    CUdeviceptr p = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&p, 256), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxDestroy_v2(a), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_EQ(api().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
    EXPECT_EQ(active, 1);
    EXPECT_EQ(api().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
    EXPECT_EQ(active, 0);
    EXPECT_EQ(api().cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);
    // The released context's memory went with it; the stale current context is rejected.
    EXPECT_EQ(api().cuMemFree_v2(p), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_EQ(api().cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
    // Reset destroys an active primary context whatever its count.
    ASSERT_EQ(api().cuDevicePrimaryCtxRetain(&a, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
    EXPECT_EQ(active, 0);
    EXPECT_EQ(api().cuDevicePrimaryCtxSetFlags_v2(0, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDevicePrimaryCtxRetain(&a, 1), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(CpuBackendTest, LimitsCacheConfigPriorities) {
    size_t v = 0;
    EXPECT_EQ(api().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(v, 4096u);
    EXPECT_EQ(api().cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 1 << 24), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(v, size_t(1) << 24);
    EXPECT_EQ(api().cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE), CUDA_SUCCESS);
    EXPECT_GT(v, 0u);
    EXPECT_EQ(api().cuCtxGetLimit(&v, static_cast<CUlimit>(7)), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuCtxGetLimit(nullptr, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_VALUE);

    CUfunc_cache c = CU_FUNC_CACHE_PREFER_EQUAL;
    EXPECT_EQ(api().cuCtxGetCacheConfig(&c), CUDA_SUCCESS);
    EXPECT_EQ(c, CU_FUNC_CACHE_PREFER_NONE);
    EXPECT_EQ(api().cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxGetCacheConfig(&c), CUDA_SUCCESS);
    EXPECT_EQ(c, CU_FUNC_CACHE_PREFER_L1);

    int least = 9, greatest = 9;
    EXPECT_EQ(api().cuCtxGetStreamPriorityRange(&least, &greatest), CUDA_SUCCESS);
    EXPECT_EQ(least, 0);
    EXPECT_EQ(greatest, -5);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
