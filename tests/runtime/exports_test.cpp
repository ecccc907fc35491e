// libd4rcuda's exported symbols, loaded as an application loads libcuda.so.1: every entry point NVIDIA
// exports is there (the unimplemented ones answer CUDA_ERROR_NOT_SUPPORTED instead of failing the
// program's start with "symbol lookup error"), per-thread default stream variants behave as their
// legacy-stream function, and an exception inside an entry point becomes an error code.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "abi/cuda.h"
#include "abi/cuda_api.h"
#include "abi/cuda_unimplemented.h"
#include "abi/d4r_extensions.h"
#include "core/env.h"
#include "runtime/entry_guard.h"

namespace {

using namespace d4r::abi;

class Exports : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        setenv("D4R_CUDA_BACKEND", "cpu", 1);
        s_lib = dlopen((std::string(D4R_TEST_LIB_DIR) + "/libd4rcuda.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    template <typename F>
    static F sym(const char* name) {
        return reinterpret_cast<F>(s_lib ? dlsym(s_lib, name) : nullptr);
    }
    static inline void* s_lib = nullptr;
};

TEST_F(Exports, EveryUnimplementedEntryPointAnswersNotSupported) {
    ASSERT_NE(s_lib, nullptr) << dlerror();
    int count = 0;
#define D4R_CALL_UNIMPLEMENTED(name)                                                         \
    {                                                                                        \
        auto f = sym<CUresult (*)(void*, void*, void*, void*)>(#name);                       \
        ASSERT_NE(f, nullptr) << #name;                                                      \
        EXPECT_EQ(f(nullptr, nullptr, nullptr, nullptr), CUDA_ERROR_NOT_SUPPORTED) << #name; \
        ++count;                                                                             \
    }
    D4R_CUDA_UNIMPLEMENTED(D4R_CALL_UNIMPLEMENTED)
#undef D4R_CALL_UNIMPLEMENTED
    EXPECT_GT(count, 100);
}

// d4r's own entry point (abi/d4r_extensions.h): the out-parameter is cleared and checked, the function too; a real
// function with no kernel set active is not native.
TEST_F(Exports, D4rFuncIsNativeAnswersForRealFunctionsAndRefusesNulls) {
    ASSERT_NE(s_lib, nullptr) << dlerror();
    auto is_native = sym<d4r::abi::PFN_d4rFuncIsNative>(d4r::abi::kFuncIsNative);
    ASSERT_NE(is_native, nullptr);
    int native = 7;
    EXPECT_EQ(is_native(nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(is_native(&native, nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(native, 0);
    auto init = sym<CUresult (*)(unsigned)>("cuInit");
    auto retain = sym<CUresult (*)(CUcontext*, CUdevice)>("cuDevicePrimaryCtxRetain");
    auto set = sym<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
    auto load = sym<CUresult (*)(CUmodule*, const void*)>("cuModuleLoadData");
    auto get = sym<CUresult (*)(CUfunction*, CUmodule, const char*)>("cuModuleGetFunction");
    ASSERT_EQ(init(0), CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    ASSERT_EQ(retain(&ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(set(ctx), CUDA_SUCCESS);
    const char* ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n";
    CUmodule module = nullptr;
    ASSERT_EQ(load(&module, ptx), CUDA_SUCCESS);
    CUfunction f = nullptr;
    ASSERT_EQ(get(&f, module, "k"), CUDA_SUCCESS);
    native = 7;
    EXPECT_EQ(is_native(&native, f), CUDA_SUCCESS);
    EXPECT_EQ(native, 0);
}

// Every entry point abi/d4r_extensions.h lists, which the Wine bridge exports and forwards by that list, is exported.
TEST_F(Exports, EveryListedD4rExtensionIsExported) {
    ASSERT_NE(s_lib, nullptr) << dlerror();
    int count = 0;
#define D4R_EXPECT_EXPORTED(name, params, args)       \
    EXPECT_NE(dlsym(s_lib, #name), nullptr) << #name; \
    ++count;
    D4R_EXTENSIONS(D4R_EXPECT_EXPORTED)
#undef D4R_EXPECT_EXPORTED
    EXPECT_GE(count, 1);
}

TEST_F(Exports, PerThreadVariantsAreTheLegacyFunctions) {
    ASSERT_NE(s_lib, nullptr) << dlerror();
    auto init = sym<CUresult (*)(unsigned)>("cuInit");
    auto retain = sym<CUresult (*)(CUcontext*, CUdevice)>("cuDevicePrimaryCtxRetain");
    auto set_current = sym<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
    auto alloc = sym<CUresult (*)(CUdeviceptr*, size_t)>("cuMemAlloc_v2");
    auto htod = sym<CUresult (*)(CUdeviceptr, const void*, size_t)>("cuMemcpyHtoD_v2_ptds");
    auto dtoh = sym<CUresult (*)(void*, CUdeviceptr, size_t)>("cuMemcpyDtoH_v2_ptds");
    auto sync = sym<CUresult (*)(CUstream)>("cuStreamSynchronize_ptsz");
    ASSERT_TRUE(init && retain && set_current && alloc && htod && dtoh && sync);
    EXPECT_EQ(dlsym(s_lib, "cuStreamSynchronize_ptsz"), dlsym(s_lib, "cuStreamSynchronize"));
    ASSERT_EQ(init(0), CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    ASSERT_EQ(retain(&ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(set_current(ctx), CUDA_SUCCESS);
    CUdeviceptr p = 0;
    ASSERT_EQ(alloc(&p, 64), CUDA_SUCCESS);
    const char text[] = "per-thread stream";
    ASSERT_EQ(htod(p, text, sizeof text), CUDA_SUCCESS);
    char back[sizeof text] = {};
    ASSERT_EQ(dtoh(back, p, sizeof back), CUDA_SUCCESS);
    EXPECT_EQ(sync(nullptr), CUDA_SUCCESS);
    EXPECT_STREQ(back, text);
}

TEST_F(Exports, CuGetProcAddressDoesNotHandOutUnimplementedOnes) {
    ASSERT_NE(s_lib, nullptr) << dlerror();
    auto proc = sym<CUresult (*)(const char*, void**, int, cuuint64_t)>("cuGetProcAddress");
    ASSERT_NE(proc, nullptr);
    void* fn = reinterpret_cast<void*>(1);
    EXPECT_EQ(proc("cuCheckpointProcessLock", &fn, 13000, 0), CUDA_ERROR_NOT_FOUND);
    EXPECT_EQ(fn, nullptr);
}

// Calls F with every argument zero (NULL pointers, 0 handles, zeroed structs).
template <typename... A>
CUresult call_with_zeros(CUresult (*f)(A...)) {
    return f(A{}...);
}

// Calls every exported entry point of the API list with zero arguments, naming each on stderr first so a
// crash shows where; a watchdog ends the process naming a call that does not return within 60 s.
int sweep_with_zeros(void* lib, const char* phase) {
    static std::atomic<const char*> current{nullptr};
    static std::atomic<uint64_t> calls{0};
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
        uint64_t seen = UINT64_MAX;
        auto last = std::chrono::steady_clock::now();
        while (!done) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (calls != seen) {
                seen = calls;
                last = std::chrono::steady_clock::now();
            } else if (std::chrono::steady_clock::now() - last > std::chrono::seconds(60)) {
                std::fprintf(stderr, "NULL sweep (%s): %s did not return within 60 s\n", phase, current.load());
                std::abort();
            }
        }
    });
    int count = 0;
#define D4R_SWEEP_ONE(exp, base, since, params, args)                                                                \
    if (std::strcmp(#exp, "cuDevicePrimaryCtxReset") != 0 && std::strcmp(#exp, "cuDevicePrimaryCtxReset_v2") != 0) { \
        auto f = reinterpret_cast<CUresult(*) params>(dlsym(lib, #exp));                                             \
        if (f) {                                                                                                     \
            current = #exp;                                                                                          \
            (void)call_with_zeros(f);                                                                                \
            ++calls;                                                                                                 \
            ++count;                                                                                                 \
        }                                                                                                            \
    }
    D4R_CUDA_API(D4R_SWEEP_ONE)
#undef D4R_SWEEP_ONE
    done = true;
    watchdog.join();
    return count;
}

// The NULL sweep: no entry point crashes or hangs on zero arguments, without a current context and with
// one. (cuDevicePrimaryCtxReset is left out: on zero arguments it legitimately resets device 0.)
TEST_F(Exports, EveryEntryPointSurvivesZeroArguments) {
    ASSERT_NE(s_lib, nullptr) << dlerror();
    auto init = sym<CUresult (*)(unsigned)>("cuInit");
    auto set_current = sym<CUresult (*)(CUcontext)>("cuCtxSetCurrent");
    auto retain = sym<CUresult (*)(CUcontext*, CUdevice)>("cuDevicePrimaryCtxRetain");
    ASSERT_EQ(init(0), CUDA_SUCCESS);
    ASSERT_EQ(set_current(nullptr), CUDA_SUCCESS);
    EXPECT_GT(sweep_with_zeros(s_lib, "no context"), 300);
    CUcontext ctx = nullptr;
    ASSERT_EQ(retain(&ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(set_current(ctx), CUDA_SUCCESS);
    EXPECT_GT(sweep_with_zeros(s_lib, "a current context"), 300);
}

TEST(EntryGuard, ExceptionsBecomeErrorCodes) {
    auto answer = [](auto thrower) {
        try {
            thrower();
        } catch (...) {
            return d4r::runtime::exception_result("cuTest");
        }
        return CUDA_SUCCESS;
    };
    EXPECT_EQ(answer([] { throw std::bad_alloc(); }), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(answer([] { throw std::runtime_error("boom"); }), CUDA_ERROR_UNKNOWN);
    EXPECT_EQ(answer([] { throw 42; }), CUDA_ERROR_UNKNOWN);
    EXPECT_EQ(d4r::runtime::unimplemented("cuTest"), CUDA_ERROR_NOT_SUPPORTED);
}

} // namespace
