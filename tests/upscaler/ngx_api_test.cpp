// The NGX CUDA API contract of d4r's open core: state before Init, the Init forms, parameter maps,
// create validation, the feature lifecycle (create → evaluate → release), reset, render-size and
// missing-input errors, handle validation, and the shared library's exports. The core runs on d4r's
// own libcuda (build/lib/libcuda.so.1) with the cpu backend.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "abi/ngx.h"
#include "core/env.h"
#include "core/log.h"
#include "test_support.h"
#include "upscaler/cuda_functions.h"
#include "upscaler/ngx/core.h"
#include "upscaler/ngx/parameters.h"

namespace {

using namespace d4r::abi;
using d4r::upscaler::CudaFunctions;
using d4r::upscaler::ngx::Core;
using d4r::upscaler::ngx::ParameterObject;

const std::string kLibDir = D4R_NGX_TEST_LIB_DIR;

// d4r's libcuda on the cpu backend, for the core (D4R_NGX_CUDA_LIBRARY) and for the test's buffers.
const CudaFunctions* cuda_or_null() {
    static const CudaFunctions* fns = [] {
        d4r::set_env("D4R_CUDA_BACKEND", "cpu");
        d4r::set_env("D4R_NGX_CUDA_LIBRARY", kLibDir + "/libcuda.so.1");
        auto loaded = d4r::upscaler::load_cuda_functions(kLibDir + "/libcuda.so.1");
        if (!loaded) {
            ADD_FAILURE() << loaded.error().text();
            return static_cast<const CudaFunctions*>(nullptr);
        }
        return static_cast<const CudaFunctions*>(new CudaFunctions(*loaded));
    }();
    return fns;
}

void ensure_shut_down() {
    if (Core::instance().initialized()) {
        EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_Success);
    }
}

uint16_t to_half(float f) { // normal numbers and zero only (all this test needs)
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) == 0) return static_cast<uint16_t>(x >> 16);
    uint32_t sign = (x >> 16) & 0x8000, exp = ((x >> 23) & 0xff) - 127 + 15, mant = (x >> 13) & 0x3ff;
    return static_cast<uint16_t>(sign | (exp << 10) | mant);
}

float from_half(uint16_t h) {
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float sign = (h & 0x8000) ? -1.0f : 1.0f;
    if (exp == 0) return sign * std::ldexp(static_cast<float>(mant), -24);
    if (exp == 31) return mant ? NAN : sign * INFINITY;
    return sign * std::ldexp(1.0f + mant / 1024.0f, exp - 15);
}

class NgxApi : public ::testing::Test {
protected:
    void SetUp() override {
        m_cuda = cuda_or_null();
        ASSERT_NE(m_cuda, nullptr);
        ensure_shut_down();
        ASSERT_EQ(NVSDK_NGX_CUDA_Init(1, L".", nullptr, NVSDK_NGX_Version_API), NVSDK_NGX_Result_Success);
    }
    void TearDown() override { ensure_shut_down(); }

    // Valid create parameters: 32x16 → 64x32, motion vectors at render resolution.
    static void set_create(NVSDK_NGX_Parameter* p, unsigned w = 32, unsigned h = 16, unsigned ow = 64, unsigned oh = 32,
                           int flags = NVSDK_NGX_DLSS_Feature_Flags_MVLowRes) {
        NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_Width, w);
        NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_Height, h);
        NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_OutWidth, ow);
        NVSDK_NGX_Parameter_SetUI(p, NVSDK_NGX_Parameter_OutHeight, oh);
        NVSDK_NGX_Parameter_SetI(p, NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags, flags);
        NVSDK_NGX_Parameter_SetI(p, NVSDK_NGX_Parameter_PerfQualityValue, NVSDK_NGX_PerfQuality_Value_MaxPerf);
    }

    const CudaFunctions* m_cuda = nullptr;
};

TEST(NgxApiState, CallsBeforeInitReportNotInitialized) {
    ASSERT_NE(cuda_or_null(), nullptr);
    ensure_shut_down();
    int dummy = 0;
    NVSDK_NGX_Parameter* params = reinterpret_cast<NVSDK_NGX_Parameter*>(&dummy); // must be overwritten
    EXPECT_EQ(NVSDK_NGX_CUDA_AllocateParameters(&params), NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(params, nullptr);
    params = reinterpret_cast<NVSDK_NGX_Parameter*>(&dummy);
    EXPECT_EQ(NVSDK_NGX_CUDA_GetCapabilityParameters(&params), NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(params, nullptr);
    EXPECT_EQ(NVSDK_NGX_CUDA_GetParameters(&params), NVSDK_NGX_Result_FAIL_NotInitialized);
    size_t size = 99;
    EXPECT_EQ(NVSDK_NGX_CUDA_GetScratchBufferSize(NVSDK_NGX_Feature_SuperSampling, nullptr, &size),
              NVSDK_NGX_Result_FAIL_NotInitialized);
    ParameterObject local;
    NVSDK_NGX_Handle* handle = reinterpret_cast<NVSDK_NGX_Handle*>(&dummy);
    EXPECT_EQ(NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, &local, &handle),
              NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(handle, nullptr);
    NVSDK_NGX_Handle fake{1};
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(&fake, &local, nullptr), NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature_C(&fake, &local, nullptr), NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(NVSDK_NGX_CUDA_ReleaseFeature(&fake), NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_FAIL_NotInitialized);
}

TEST(NgxApiState, EveryInitFormSucceedsAndShutsDown) {
    ASSERT_NE(cuda_or_null(), nullptr);
    ensure_shut_down();
    NVSDK_NGX_FeatureCommonInfo info{};
    EXPECT_EQ(NVSDK_NGX_CUDA_Init(7, L"/tmp", &info, NVSDK_NGX_Version_API), NVSDK_NGX_Result_Success);
    EXPECT_TRUE(Core::instance().initialized());
    EXPECT_EQ(NVSDK_NGX_CUDA_Init(7, L"/tmp", &info, NVSDK_NGX_Version_API), NVSDK_NGX_Result_Success); // again
    EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_Success);
    EXPECT_FALSE(Core::instance().initialized());

    // Both forms report the version they were given (a null FeatureCommonInfo is the SDK form).
    d4r::test::TempDir dir;
    std::string log_path = (dir.path() / "init.log").string();
    auto saved_level = d4r::log::level();
    d4r::log::set_level(d4r::log::Level::Info);
    ASSERT_TRUE(d4r::log::set_file(log_path).ok());
    EXPECT_EQ(NVSDK_NGX_CUDA_Init(7, L"/tmp", nullptr, static_cast<NVSDK_NGX_Version>(0x14)), NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_Success);
    using DriverInit = NVSDK_NGX_Result (*)(unsigned long long, const wchar_t*, int);
    auto driver_init = reinterpret_cast<DriverInit>(reinterpret_cast<void*>(&NVSDK_NGX_CUDA_Init));
    EXPECT_EQ(driver_init(7, L"/tmp", 0x13), NVSDK_NGX_Result_Success);
    d4r::log::set_stderr();
    d4r::log::set_level(saved_level);
    std::string text = d4r::test::read_file_text(log_path);
    EXPECT_NE(text.find("SDK version 0x14"), std::string::npos) << text;
    EXPECT_NE(text.find("SDK version 0x13"), std::string::npos) << text;
    EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_Success);

    // The NGX core DLL's form: (id, path, version), as a caller with that prototype makes the call.
    EXPECT_EQ(driver_init(7, L"/tmp", 0x15), NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown1(nullptr), NVSDK_NGX_Result_Success);

    EXPECT_EQ(NVSDK_NGX_CUDA_Init_Ext(7, L"/tmp", NVSDK_NGX_Version_API, &info), NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_Init_ProjectID("a0f57b54-1daf-4934-90ae-c4035c19df04", NVSDK_NGX_ENGINE_TYPE_CUSTOM, "1.0",
                                            L"/tmp", NVSDK_NGX_Version_API, &info),
              NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_Init_ProjectID(nullptr, NVSDK_NGX_ENGINE_TYPE_CUSTOM, "1.0", L"/tmp",
                                            NVSDK_NGX_Version_API, &info),
              NVSDK_NGX_Result_FAIL_InvalidParameter);
    EXPECT_FALSE(Core::instance().initialized());
}

TEST_F(NgxApi, ParameterMapsAndCapabilities) {
    NVSDK_NGX_Parameter* caps = nullptr;
    ASSERT_EQ(NVSDK_NGX_CUDA_GetCapabilityParameters(&caps), NVSDK_NGX_Result_Success);
    ASSERT_NE(caps, nullptr);
    int available = 0;
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(caps, NVSDK_NGX_Parameter_SuperSampling_Available, &available),
              NVSDK_NGX_Result_Success);
    EXPECT_EQ(available, 1);
    int result = 0;
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(caps, NVSDK_NGX_Parameter_SuperSampling_FeatureInitResult, &result),
              NVSDK_NGX_Result_Success);
    EXPECT_EQ(result, static_cast<int>(NVSDK_NGX_Result_Success));
    EXPECT_EQ(NVSDK_NGX_CUDA_DestroyParameters(caps), NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_DestroyParameters(caps), NVSDK_NGX_Result_FAIL_InvalidParameter); // twice
    EXPECT_EQ(NVSDK_NGX_CUDA_DestroyParameters(nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter);

    NVSDK_NGX_Parameter* empty = nullptr;
    ASSERT_EQ(NVSDK_NGX_CUDA_AllocateParameters(&empty), NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(empty, NVSDK_NGX_Parameter_SuperSampling_Available, &available),
              NVSDK_NGX_Result_Fail);
    EXPECT_EQ(NVSDK_NGX_CUDA_AllocateParameters(nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter);

    NVSDK_NGX_Parameter* shared1 = nullptr;
    NVSDK_NGX_Parameter* shared2 = nullptr;
    ASSERT_EQ(NVSDK_NGX_CUDA_GetParameters(&shared1), NVSDK_NGX_Result_Success);
    ASSERT_EQ(NVSDK_NGX_CUDA_GetParameters(&shared2), NVSDK_NGX_Result_Success);
    EXPECT_EQ(shared1, shared2); // owned by the core
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(shared1, NVSDK_NGX_Parameter_SuperSampling_Available, &available),
              NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_DestroyParameters(shared1), NVSDK_NGX_Result_FAIL_InvalidParameter);

    // A parameter map outlives Shutdown and can still be destroyed.
    EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_DestroyParameters(empty), NVSDK_NGX_Result_Success);
}

// Issue 14, item 6: the GetParameters map outlives Shutdown in the game's hands. Its table stays valid
// and answers FAIL_NotInitialized (Set and Reset do nothing) instead of being called through freed
// memory; after a new Init, GetParameters gives the same map back with fresh capabilities.
TEST_F(NgxApi, GetParametersMapUsedAfterShutdownAnswersNotInitialized) {
    NVSDK_NGX_Parameter* shared = nullptr;
    ASSERT_EQ(NVSDK_NGX_CUDA_GetParameters(&shared), NVSDK_NGX_Result_Success);
    ASSERT_NE(shared, nullptr);
    NVSDK_NGX_Parameter_SetI(shared, "d4r.test.value", 7);
    ASSERT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_Success);

    // Fill the heap the way a game would between Shutdown and its last use of the map.
    std::vector<std::unique_ptr<std::string>> churn;
    for (int i = 0; i < 256; ++i) churn.push_back(std::make_unique<std::string>(200, 'x'));
    int value = -1;
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(shared, NVSDK_NGX_Parameter_SuperSampling_Available, &value),
              NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(shared, "d4r.test.value", &value), NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(value, -1); // untouched
    NVSDK_NGX_Parameter_SetI(shared, "d4r.test.value", 8);
    shared->Reset();
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(shared, "d4r.test.value", &value), NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(NVSDK_NGX_CUDA_DestroyParameters(shared), NVSDK_NGX_Result_FAIL_InvalidParameter);

    ASSERT_EQ(NVSDK_NGX_CUDA_Init(1, L".", nullptr, NVSDK_NGX_Version_API), NVSDK_NGX_Result_Success);
    NVSDK_NGX_Parameter* again = nullptr;
    ASSERT_EQ(NVSDK_NGX_CUDA_GetParameters(&again), NVSDK_NGX_Result_Success);
    EXPECT_EQ(again, shared);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(shared, NVSDK_NGX_Parameter_SuperSampling_Available, &value),
              NVSDK_NGX_Result_Success);
    EXPECT_EQ(value, 1);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(shared, "d4r.test.value", &value), NVSDK_NGX_Result_Fail); // not kept
}

TEST_F(NgxApi, ScratchBufferIsNotNeeded) {
    size_t size = 123;
    EXPECT_EQ(NVSDK_NGX_CUDA_GetScratchBufferSize(NVSDK_NGX_Feature_SuperSampling, nullptr, &size),
              NVSDK_NGX_Result_Success);
    EXPECT_EQ(size, 0u);
    EXPECT_EQ(NVSDK_NGX_CUDA_GetScratchBufferSize(NVSDK_NGX_Feature_SuperSampling, nullptr, nullptr),
              NVSDK_NGX_Result_FAIL_InvalidParameter);
    EXPECT_EQ(NVSDK_NGX_CUDA_GetScratchBufferSize(NVSDK_NGX_Feature_ImageSuperResolution, nullptr, &size),
              NVSDK_NGX_Result_FAIL_FeatureNotSupported);
}

TEST_F(NgxApi, CreateRejectsOtherFeatures) {
    ParameterObject p;
    set_create(&p);
    NVSDK_NGX_Handle* handle = nullptr;
    EXPECT_EQ(NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_ImageSuperResolution, &p, &handle),
              NVSDK_NGX_Result_FAIL_FeatureNotSupported);
    EXPECT_EQ(NVSDK_NGX_CUDA_CreateFeature(static_cast<NVSDK_NGX_Feature>(999), &p, &handle),
              NVSDK_NGX_Result_FAIL_FeatureNotSupported);
    EXPECT_EQ(handle, nullptr);
    EXPECT_EQ(NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, nullptr, &handle),
              NVSDK_NGX_Result_FAIL_InvalidParameter);
    EXPECT_EQ(NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, &p, nullptr),
              NVSDK_NGX_Result_FAIL_InvalidParameter);
    EXPECT_EQ(Core::instance().feature_count(), 0u);
}

TEST_F(NgxApi, CreateRejectsBadSizesAndNamesTheParameter) {
    struct Case {
        const char* what;
        void (*edit)(NVSDK_NGX_Parameter*);
        const char* logged;
    };
    const Case cases[] = {
        {"zero width", [](NVSDK_NGX_Parameter* p) { NVSDK_NGX_Parameter_SetUI(p, "Width", 0); }, "Width 0"},
        {"negative height", [](NVSDK_NGX_Parameter* p) { NVSDK_NGX_Parameter_SetI(p, "Height", -16); }, "Height -16"},
        {"huge output", [](NVSDK_NGX_Parameter* p) { NVSDK_NGX_Parameter_SetUI(p, "OutWidth", 100000); },
         "OutWidth 100000"},
        {"everything missing", [](NVSDK_NGX_Parameter* p) { p->Reset(); }, "Width is missing"},
        {"output smaller than input", [](NVSDK_NGX_Parameter* p) { NVSDK_NGX_Parameter_SetUI(p, "OutWidth", 16); },
         "smaller than Width x Height"},
    };
    d4r::test::TempDir dir;
    std::string log_path = (dir.path() / "ngx.log").string();
    ASSERT_TRUE(d4r::log::set_file(log_path).ok());
    for (const Case& c : cases) {
        ParameterObject p;
        set_create(&p);
        c.edit(&p);
        NVSDK_NGX_Handle* handle = nullptr;
        EXPECT_EQ(NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, &p, &handle),
                  NVSDK_NGX_Result_FAIL_InvalidParameter)
            << c.what;
        EXPECT_EQ(handle, nullptr) << c.what;
    }
    d4r::log::set_stderr();
    std::string text = d4r::test::read_file_text(log_path);
    for (const Case& c : cases) EXPECT_NE(text.find(c.logged), std::string::npos) << c.what << "\n" << text;
    EXPECT_EQ(Core::instance().feature_count(), 0u);
}

TEST_F(NgxApi, CreateRejectsTheInvalidFlag) {
    ParameterObject p;
    set_create(&p, 32, 16, 64, 32, static_cast<int>(NVSDK_NGX_DLSS_Feature_Flags_IsInvalid));
    NVSDK_NGX_Handle* handle = nullptr;
    EXPECT_EQ(NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, &p, &handle),
              NVSDK_NGX_Result_FAIL_InvalidParameter);
    EXPECT_EQ(handle, nullptr);
}

// ---- With a CUDA context (d4r's cpu backend) -------------------------------------------------------

class DeviceBuffer {
public:
    DeviceBuffer(const CudaFunctions& cuda, size_t bytes) : m_cuda(cuda), m_bytes(bytes) {
        EXPECT_EQ(cuda.cuMemAlloc_v2(&m_ptr, bytes), CUDA_SUCCESS);
    }
    ~DeviceBuffer() {
        if (m_ptr) m_cuda.cuMemFree_v2(m_ptr);
    }
    template <typename T>
    void fill(T value) {
        std::vector<T> host(m_bytes / sizeof(T), value);
        EXPECT_EQ(m_cuda.cuMemcpyHtoD_v2(m_ptr, host.data(), m_bytes), CUDA_SUCCESS);
    }
    template <typename T>
    std::vector<T> read() const {
        std::vector<T> host(m_bytes / sizeof(T));
        EXPECT_EQ(m_cuda.cuMemcpyDtoH_v2(host.data(), m_ptr, m_bytes), CUDA_SUCCESS);
        return host;
    }
    void* as_param() const { return reinterpret_cast<void*>(static_cast<uintptr_t>(m_ptr)); }

private:
    const CudaFunctions& m_cuda;
    size_t m_bytes;
    CUdeviceptr m_ptr = 0;
};

class NgxFeature : public NgxApi {
protected:
    static constexpr unsigned kW = 32, kH = 16, kOW = 64, kOH = 32;

    void SetUp() override {
        NgxApi::SetUp();
        if (HasFatalFailure()) return;
        ASSERT_EQ(m_cuda->cuInit(0), CUDA_SUCCESS);
        ASSERT_EQ(m_cuda->cuDeviceGet(&m_device, 0), CUDA_SUCCESS);
        ASSERT_EQ(m_cuda->cuDevicePrimaryCtxRetain(&m_context, m_device), CUDA_SUCCESS);
        ASSERT_EQ(m_cuda->cuCtxSetCurrent(m_context), CUDA_SUCCESS);
        m_color = std::make_unique<DeviceBuffer>(*m_cuda, kW * kH * 8);
        m_depth = std::make_unique<DeviceBuffer>(*m_cuda, kW * kH * 4);
        m_motion = std::make_unique<DeviceBuffer>(*m_cuda, kW * kH * 4);
        m_exposure = std::make_unique<DeviceBuffer>(*m_cuda, 4);
        m_output = std::make_unique<DeviceBuffer>(*m_cuda, kOW * kOH * 8);
        m_color->fill<uint16_t>(to_half(0.5f));
        m_depth->fill<float>(0.5f);
        m_motion->fill<uint16_t>(0);
        m_exposure->fill<float>(1.0f);
        m_output->fill<uint16_t>(to_half(-7.0f)); // a value the upscaler cannot produce from the inputs
    }
    void TearDown() override {
        NgxApi::TearDown(); // releases features while their context is alive
        m_color.reset();
        m_depth.reset();
        m_motion.reset();
        m_exposure.reset();
        m_output.reset();
        if (m_context) {
            m_cuda->cuCtxSetCurrent(nullptr);
            m_cuda->cuDevicePrimaryCtxRelease_v2(m_device);
        }
    }

    NVSDK_NGX_Handle* create(int flags = NVSDK_NGX_DLSS_Feature_Flags_MVLowRes) {
        ParameterObject p;
        set_create(&p, kW, kH, kOW, kOH, flags);
        NVSDK_NGX_Handle* handle = nullptr;
        EXPECT_EQ(NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, &p, &handle), NVSDK_NGX_Result_Success);
        return handle;
    }
    void set_inputs(NVSDK_NGX_Parameter* p, bool reset) {
        NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Color, m_color->as_param());
        NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Depth, m_depth->as_param());
        NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_MotionVectors, m_motion->as_param());
        NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_Output, m_output->as_param());
        NVSDK_NGX_Parameter_SetVoidPointer(p, NVSDK_NGX_Parameter_ExposureTexture, m_exposure->as_param());
        NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_Jitter_Offset_X, 0.25f);
        NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_Jitter_Offset_Y, -0.25f);
        NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_MV_Scale_X, 1.0f);
        NVSDK_NGX_Parameter_SetF(p, NVSDK_NGX_Parameter_MV_Scale_Y, 1.0f);
        NVSDK_NGX_Parameter_SetI(p, NVSDK_NGX_Parameter_Reset, reset ? 1 : 0);
    }
    // Every output pixel's RGB, after the evaluation finished.
    std::vector<float> output_rgb() {
        EXPECT_EQ(m_cuda->cuCtxSynchronize(), CUDA_SUCCESS);
        std::vector<float> rgb;
        auto half = m_output->read<uint16_t>();
        for (size_t i = 0; i < half.size(); ++i)
            if (i % 4 != 3) rgb.push_back(from_half(half[i]));
        return rgb;
    }

    CUdevice m_device = 0;
    CUcontext m_context = nullptr;
    std::unique_ptr<DeviceBuffer> m_color, m_depth, m_motion, m_exposure, m_output;
};

TEST_F(NgxFeature, CreateReadsSizesAndFlags) {
    int flags = NVSDK_NGX_DLSS_Feature_Flags_IsHDR | NVSDK_NGX_DLSS_Feature_Flags_DepthInverted |
                NVSDK_NGX_DLSS_Feature_Flags_DoSharpening | NVSDK_NGX_DLSS_Feature_Flags_MVJittered;
    NVSDK_NGX_Handle* handle = create(flags);
    ASSERT_NE(handle, nullptr);
    auto config = Core::instance().feature_config(handle);
    ASSERT_TRUE(config.has_value());
    EXPECT_EQ(config->render_width, kW);
    EXPECT_EQ(config->render_height, kH);
    EXPECT_EQ(config->output_width, kOW);
    EXPECT_EQ(config->output_height, kOH);
    EXPECT_TRUE(config->hdr);
    EXPECT_TRUE(config->depth_inverted);
    EXPECT_TRUE(config->sharpening);
    EXPECT_TRUE(config->mv_jittered);
    EXPECT_FALSE(config->mv_low_res); // not set: motion vectors at output resolution
    EXPECT_FALSE(config->auto_exposure);
    EXPECT_EQ(NVSDK_NGX_CUDA_ReleaseFeature(handle), NVSDK_NGX_Result_Success);
}

TEST_F(NgxFeature, LifecycleCreateEvaluateRelease) {
    NVSDK_NGX_Handle* handle = create();
    ASSERT_NE(handle, nullptr);
    EXPECT_EQ(Core::instance().feature_count(), 1u);
    ParameterObject p;
    set_inputs(&p, true);
    ASSERT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_Success);
    // A flat field upscales to the same flat field, whatever the jitter.
    for (float v : output_rgb()) ASSERT_NEAR(v, 0.5f, 0.01f);
    // The C entry point is the same evaluation.
    set_inputs(&p, false);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature_C(handle, &p, nullptr), NVSDK_NGX_Result_Success);
    for (float v : output_rgb()) ASSERT_NEAR(v, 0.5f, 0.01f);

    EXPECT_EQ(NVSDK_NGX_CUDA_ReleaseFeature(handle), NVSDK_NGX_Result_Success);
    EXPECT_EQ(Core::instance().feature_count(), 0u);
    EXPECT_EQ(NVSDK_NGX_CUDA_ReleaseFeature(handle), NVSDK_NGX_Result_FAIL_FeatureNotFound);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_FAIL_FeatureNotFound);
    // A new feature never gets the released handle back.
    NVSDK_NGX_Handle* again = create();
    ASSERT_NE(again, nullptr);
    EXPECT_NE(again, handle);
    EXPECT_NE(again->Id, handle->Id);
}

TEST_F(NgxFeature, ResetDropsTheHistory) {
    NVSDK_NGX_Handle* handle = create();
    ASSERT_NE(handle, nullptr);
    ParameterObject p;
    set_inputs(&p, true);
    ASSERT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_Success);
    for (float v : output_rgb()) ASSERT_NEAR(v, 0.5f, 0.01f);
    // The scene changes completely (a cut): with Reset the output is the new frame alone.
    m_color->fill<uint16_t>(to_half(0.875f));
    set_inputs(&p, true);
    ASSERT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_Success);
    for (float v : output_rgb()) ASSERT_NEAR(v, 0.875f, 0.01f);
}

TEST_F(NgxFeature, HdrFlagKeepsValuesAboveOne) {
    // Without IsHDR colour is LDR ([0,1]); with it a flat HDR field of 4 stays 4.
    NVSDK_NGX_Handle* handle = create(NVSDK_NGX_DLSS_Feature_Flags_MVLowRes | NVSDK_NGX_DLSS_Feature_Flags_IsHDR);
    ASSERT_NE(handle, nullptr);
    m_color->fill<uint16_t>(to_half(4.0f));
    ParameterObject p;
    set_inputs(&p, true);
    ASSERT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_Success);
    for (float v : output_rgb()) ASSERT_NEAR(v, 4.0f, 0.05f);
}

TEST_F(NgxFeature, RenderSizeAboveTheCreatedSizeIsAnInvalidParameter) {
    NVSDK_NGX_Handle* handle = create();
    ASSERT_NE(handle, nullptr);
    ParameterObject p;
    set_inputs(&p, true);
    NVSDK_NGX_Parameter_SetUI(&p, NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, kW + 1);
    NVSDK_NGX_Parameter_SetUI(&p, NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, kH);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter);
    // Smaller (dynamic resolution) is fine.
    NVSDK_NGX_Parameter_SetUI(&p, NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, kW / 2);
    NVSDK_NGX_Parameter_SetUI(&p, NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, kH / 2);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_Success);
    for (float v : output_rgb()) ASSERT_NEAR(v, 0.5f, 0.01f);
}

// Unusable resources are refused before anything is queued, and the context stays usable (issue 14,
// item 16: they returned Success and then poisoned the game's whole CUDA context).
TEST_F(NgxFeature, UnusableResourcesAreInvalidAndLeaveTheContextUsable) {
    NVSDK_NGX_Handle* handle = create();
    ASSERT_NE(handle, nullptr);
    DeviceBuffer tiny(*m_cuda, 16);
    std::vector<uint8_t> host_array(kW * kH * 8);
    CUdeviceptr freed = 0;
    ASSERT_EQ(m_cuda->cuMemAlloc_v2(&freed, kW * kH * 8), CUDA_SUCCESS);
    ASSERT_EQ(m_cuda->cuMemFree_v2(freed), CUDA_SUCCESS);
    struct Case {
        const char* what;
        const char* name;
        void* value;
    };
    const Case cases[] = {
        {"a 16-byte colour buffer", NVSDK_NGX_Parameter_Color, tiny.as_param()},
        {"a 16-byte output buffer", NVSDK_NGX_Parameter_Output, tiny.as_param()},
        {"a host array as colour", NVSDK_NGX_Parameter_Color, host_array.data()},
        {"a freed buffer as depth", NVSDK_NGX_Parameter_Depth, reinterpret_cast<void*>(uintptr_t(freed))},
        {"a bogus motion pointer", NVSDK_NGX_Parameter_MotionVectors, reinterpret_cast<void*>(uintptr_t(0x10))},
        {"a 1-byte-short exposure texture", NVSDK_NGX_Parameter_ExposureTexture,
         reinterpret_cast<void*>(uintptr_t(reinterpret_cast<uintptr_t>(m_exposure->as_param()) + 1))},
    };
    for (const Case& c : cases) {
        ParameterObject p;
        set_inputs(&p, true);
        NVSDK_NGX_Parameter_SetVoidPointer(&p, c.name, c.value);
        EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter)
            << c.what;
    }
    {
        ParameterObject p; // a pitch that runs the rows past the colour allocation
        set_inputs(&p, true);
        NVSDK_NGX_Parameter_SetULL(&p, D4R_NGX_Parameter_Color_Pitch, 1u << 20);
        EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter);
    }
    {
        ParameterObject p; // an output subrect that ends past the output buffer
        set_inputs(&p, true);
        NVSDK_NGX_Parameter_SetUI(&p, NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_Y, kOH);
        EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter);
    }
    // Nothing ran: the context has no sticky error, and a good evaluation works.
    EXPECT_EQ(m_cuda->cuCtxSynchronize(), CUDA_SUCCESS);
    ParameterObject good;
    set_inputs(&good, true);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &good, nullptr), NVSDK_NGX_Result_Success);
    for (float v : output_rgb()) ASSERT_NEAR(v, 0.5f, 0.01f);
}

TEST_F(NgxFeature, MissingInputsAndBadValuesAreRejected) {
    NVSDK_NGX_Handle* handle = create();
    ASSERT_NE(handle, nullptr);
    for (const char* name : {NVSDK_NGX_Parameter_Color, NVSDK_NGX_Parameter_Depth, NVSDK_NGX_Parameter_MotionVectors,
                             NVSDK_NGX_Parameter_Output}) {
        ParameterObject p;
        set_inputs(&p, true);
        NVSDK_NGX_Parameter_SetVoidPointer(&p, name, nullptr);
        EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_FAIL_MissingInput) << name;
    }
    ParameterObject nan_jitter;
    set_inputs(&nan_jitter, true);
    NVSDK_NGX_Parameter_SetF(&nan_jitter, NVSDK_NGX_Parameter_Jitter_Offset_X, NAN);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &nan_jitter, nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter);
    // Nothing ran: the output still holds its sentinel.
    EXPECT_EQ(m_cuda->cuCtxSynchronize(), CUDA_SUCCESS);
    for (uint16_t h : m_output->read<uint16_t>()) ASSERT_EQ(h, to_half(-7.0f));
    // Without an exposure texture the evaluation still runs (exposure scale 1).
    ParameterObject no_exposure;
    set_inputs(&no_exposure, true);
    NVSDK_NGX_Parameter_SetVoidPointer(&no_exposure, NVSDK_NGX_Parameter_ExposureTexture, nullptr);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &no_exposure, nullptr), NVSDK_NGX_Result_Success);
}

TEST_F(NgxFeature, UnknownHandlesAreNotFound) {
    ParameterObject p;
    set_inputs(&p, true);
    NVSDK_NGX_Handle fake{1};
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(&fake, &p, nullptr), NVSDK_NGX_Result_FAIL_FeatureNotFound);
    EXPECT_EQ(NVSDK_NGX_CUDA_ReleaseFeature(&fake), NVSDK_NGX_Result_FAIL_FeatureNotFound);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(nullptr, &p, nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter);
    EXPECT_EQ(NVSDK_NGX_CUDA_ReleaseFeature(nullptr), NVSDK_NGX_Result_FAIL_InvalidParameter);
}

TEST_F(NgxFeature, EvaluatesInTheFeaturesContextWhenNoneIsCurrent) {
    NVSDK_NGX_Handle* handle = create();
    ASSERT_NE(handle, nullptr);
    ASSERT_EQ(m_cuda->cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
    ParameterObject p;
    set_inputs(&p, true);
    EXPECT_EQ(NVSDK_NGX_CUDA_EvaluateFeature(handle, &p, nullptr), NVSDK_NGX_Result_Success);
    CUcontext current = reinterpret_cast<CUcontext>(0x1);
    EXPECT_EQ(m_cuda->cuCtxGetCurrent(&current), CUDA_SUCCESS);
    EXPECT_EQ(current, nullptr); // the core restored the caller's (empty) context
    ASSERT_EQ(m_cuda->cuCtxSetCurrent(m_context), CUDA_SUCCESS);
    for (float v : output_rgb()) ASSERT_NEAR(v, 0.5f, 0.01f);
}

TEST_F(NgxFeature, ShutdownReleasesFeatures) {
    NVSDK_NGX_Handle* a = create();
    NVSDK_NGX_Handle* b = create();
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(Core::instance().feature_count(), 2u);
    EXPECT_EQ(NVSDK_NGX_CUDA_Shutdown(), NVSDK_NGX_Result_Success);
    EXPECT_EQ(Core::instance().feature_count(), 0u);
    ASSERT_EQ(NVSDK_NGX_CUDA_Init(1, L".", nullptr, NVSDK_NGX_Version_API), NVSDK_NGX_Result_Success);
    EXPECT_EQ(NVSDK_NGX_CUDA_ReleaseFeature(a), NVSDK_NGX_Result_FAIL_FeatureNotFound);
}

// ---- Which libcuda, and the shared library ---------------------------------------------------------

TEST(NgxCudaLibrary, ChoosesEnvironmentThenBesideTheCoreThenTheSystem) {
    using d4r::upscaler::ngx::choose_cuda_library;
    d4r::test::TempDir dir;
    d4r::MapEnvironment env{{"D4R_NGX_CUDA_LIBRARY", "/opt/x/libcuda.so.1"}};
    EXPECT_EQ(choose_cuda_library(env, dir.path().string()).path, "/opt/x/libcuda.so.1");
    d4r::MapEnvironment empty;
    EXPECT_EQ(choose_cuda_library(empty, dir.path().string()).path, "libcuda.so.1"); // nothing beside
    dir.write("libcuda.so.1", "");
    EXPECT_EQ(choose_cuda_library(empty, dir.path().string()).path, (dir.path() / "libcuda.so.1").string());
    EXPECT_EQ(choose_cuda_library(empty, "").path, "libcuda.so.1");
}

TEST(NgxNetworkModel, ChoosesEnvironmentThenBesideTheCoreThenShare) {
    using d4r::upscaler::ngx::choose_model_path;
    d4r::test::TempDir dir;
    const std::string lib = dir.mkdir("prefix/lib").string();
    d4r::MapEnvironment env{{"D4R_NETWORK_MODEL", "/opt/m.d4rnet"}};
    EXPECT_EQ(choose_model_path(env, lib), "/opt/m.d4rnet");
    d4r::MapEnvironment empty;
    EXPECT_EQ(choose_model_path(empty, lib), (dir.path() / "prefix/share/d4r/models/refine-v2.d4rnet").string());
    dir.write("prefix/lib/refine-v2.d4rnet", "");
    EXPECT_EQ(choose_model_path(empty, lib), (dir.path() / "prefix/lib/refine-v2.d4rnet").string());
}

TEST(NgxSharedLibrary, ExportsTheApiAndFindsLibcudaBesideItself) {
    ASSERT_NE(cuda_or_null(), nullptr); // cpu backend selected for the process
    std::string path = kLibDir + "/libd4r_ngx.so";
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    for (const char* name :
         {"NVSDK_NGX_CUDA_Init", "NVSDK_NGX_CUDA_Init_Ext", "NVSDK_NGX_CUDA_Init_ProjectID", "NVSDK_NGX_CUDA_Shutdown",
          "NVSDK_NGX_CUDA_Shutdown1", "NVSDK_NGX_CUDA_GetParameters", "NVSDK_NGX_CUDA_AllocateParameters",
          "NVSDK_NGX_CUDA_GetCapabilityParameters", "NVSDK_NGX_CUDA_DestroyParameters",
          "NVSDK_NGX_CUDA_GetScratchBufferSize", "NVSDK_NGX_CUDA_CreateFeature", "NVSDK_NGX_CUDA_EvaluateFeature",
          "NVSDK_NGX_CUDA_EvaluateFeature_C", "NVSDK_NGX_CUDA_ReleaseFeature", "NVSDK_NGX_Parameter_SetUI",
          "NVSDK_NGX_Parameter_GetVoidPointer"})
        EXPECT_NE(dlsym(lib, name), nullptr) << name;
    // d4r's internals stay hidden (d4r::log::level() is linked in, but not exported).
    EXPECT_EQ(dlsym(lib, "_ZN3d4r3log5levelEv"), nullptr);

    // Its own Core, loading build/lib/libcuda.so.1 because it sits next to it.
    std::string saved = d4r::get_env("D4R_NGX_CUDA_LIBRARY").value_or("");
    d4r::unset_env("D4R_NGX_CUDA_LIBRARY");
    d4r::test::TempDir dir;
    std::string log_path = (dir.path() / "lib.log").string();
    d4r::set_env("D4R_LOG", "info");
    d4r::set_env("D4R_LOG_FILE", log_path);
    using Init =
        NVSDK_NGX_Result (*)(unsigned long long, const wchar_t*, const NVSDK_NGX_FeatureCommonInfo*, NVSDK_NGX_Version);
    using Shutdown = NVSDK_NGX_Result (*)();
    using Scratch = NVSDK_NGX_Result (*)(NVSDK_NGX_Feature, const NVSDK_NGX_Parameter*, size_t*);
    auto init = reinterpret_cast<Init>(dlsym(lib, "NVSDK_NGX_CUDA_Init"));
    auto shutdown = reinterpret_cast<Shutdown>(dlsym(lib, "NVSDK_NGX_CUDA_Shutdown"));
    auto scratch = reinterpret_cast<Scratch>(dlsym(lib, "NVSDK_NGX_CUDA_GetScratchBufferSize"));
    ASSERT_TRUE(init && shutdown && scratch);
    size_t size = 1;
    EXPECT_EQ(scratch(NVSDK_NGX_Feature_SuperSampling, nullptr, &size), NVSDK_NGX_Result_FAIL_NotInitialized);
    EXPECT_EQ(init(1, L".", nullptr, NVSDK_NGX_Version_API), NVSDK_NGX_Result_Success);
    EXPECT_EQ(shutdown(), NVSDK_NGX_Result_Success);
    d4r::unset_env("D4R_LOG");
    d4r::unset_env("D4R_LOG_FILE");
    if (!saved.empty()) d4r::set_env("D4R_NGX_CUDA_LIBRARY", saved);
    std::string text = d4r::test::read_file_text(log_path);
    EXPECT_NE(text.find(kLibDir + "/libcuda.so.1 (next to the NGX core)"), std::string::npos) << text;
    // The library stays loaded: its libcuda and logger live for the process, like a game's.
}

} // namespace

// Sanitizer builds: these tests (and the pipeline's) dlopen build/lib/libcuda.so.1, whose cpu backend
// runs kernels on threads of its own. GCC 12's LeakSanitizer crashes at exit ("Tracer caught signal
// 11") while scanning the dynamic TLS of such a thread (a dlopen'd library's thread_local blocks), so
// TLS is not scanned as a root here; leak checking itself stays on.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __lsan_default_options() { return "use_tls=0"; }
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
extern "C" const char* __lsan_default_options() { return "use_tls=0"; }
#endif
#endif
