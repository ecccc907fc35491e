// NGX parameter maps: typed set/get through the C accessors, the C++ spelling and the raw MSVC-ordered
// table; conversions; missing names; Reset; capability values and the optimal-settings callback.
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "abi/ngx.h"
#include "upscaler/ngx/parameters.h"

namespace {

using namespace d4r::abi;
using d4r::upscaler::ngx::ParameterObject;
using d4r::upscaler::ngx::ValueType;

TEST(NgxParameters, EveryTypeRoundTripsThroughTheCAccessors) {
    ParameterObject object;
    NVSDK_NGX_Parameter* p = &object;
    int d3d11_dummy = 0, d3d12_dummy = 0, void_dummy = 0;
    auto* d3d11 = reinterpret_cast<ID3D11Resource*>(&d3d11_dummy);
    auto* d3d12 = reinterpret_cast<ID3D12Resource*>(&d3d12_dummy);

    NVSDK_NGX_Parameter_SetULL(p, "ull", 0x123456789abcdefull);
    NVSDK_NGX_Parameter_SetF(p, "f", 1.5f);
    NVSDK_NGX_Parameter_SetD(p, "d", -2.25);
    NVSDK_NGX_Parameter_SetUI(p, "ui", 4000000000u);
    NVSDK_NGX_Parameter_SetI(p, "i", -7);
    NVSDK_NGX_Parameter_SetD3d11Resource(p, "d3d11", d3d11);
    NVSDK_NGX_Parameter_SetD3d12Resource(p, "d3d12", d3d12);
    NVSDK_NGX_Parameter_SetVoidPointer(p, "void", &void_dummy);

    unsigned long long ull = 0;
    float f = 0;
    double d = 0;
    unsigned int ui = 0;
    int i = 0;
    ID3D11Resource* r11 = nullptr;
    ID3D12Resource* r12 = nullptr;
    void* v = nullptr;
    EXPECT_EQ(NVSDK_NGX_Parameter_GetULL(p, "ull", &ull), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ull, 0x123456789abcdefull);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetF(p, "f", &f), NVSDK_NGX_Result_Success);
    EXPECT_EQ(f, 1.5f);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetD(p, "d", &d), NVSDK_NGX_Result_Success);
    EXPECT_EQ(d, -2.25);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetUI(p, "ui", &ui), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ui, 4000000000u);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(p, "i", &i), NVSDK_NGX_Result_Success);
    EXPECT_EQ(i, -7);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetD3d11Resource(p, "d3d11", &r11), NVSDK_NGX_Result_Success);
    EXPECT_EQ(r11, d3d11);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetD3d12Resource(p, "d3d12", &r12), NVSDK_NGX_Result_Success);
    EXPECT_EQ(r12, d3d12);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetVoidPointer(p, "void", &v), NVSDK_NGX_Result_Success);
    EXPECT_EQ(v, &void_dummy);
    EXPECT_EQ(object.store.size(), 8u);
}

TEST(NgxParameters, MissingNamesAndNullArgumentsFailWithoutTouchingTheOutput) {
    ParameterObject object;
    NVSDK_NGX_Parameter* p = &object;
    int i = 42;
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(p, "Width", &i), NVSDK_NGX_Result_Fail);
    EXPECT_EQ(i, 42);
    void* v = &i;
    EXPECT_EQ(NVSDK_NGX_Parameter_GetVoidPointer(p, "Color", &v), NVSDK_NGX_Result_Fail);
    EXPECT_EQ(v, &i);
    NVSDK_NGX_Parameter_SetI(p, "Width", 3);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(p, "Width", nullptr), NVSDK_NGX_Result_Fail);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(p, nullptr, &i), NVSDK_NGX_Result_Fail);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(nullptr, "Width", &i), NVSDK_NGX_Result_Fail);
    NVSDK_NGX_Parameter_SetI(nullptr, "Width", 5); // no crash
    NVSDK_NGX_Parameter_SetI(p, nullptr, 5);       // ignored
    EXPECT_EQ(object.store.size(), 1u);
    // Names are case-sensitive.
    EXPECT_EQ(NVSDK_NGX_Parameter_GetI(p, "width", &i), NVSDK_NGX_Result_Fail);
}

TEST(NgxParameters, SetReplacesValueAndType) {
    ParameterObject object;
    object.Set("x", 1.75f);
    object.Set("x", 9u);
    ASSERT_NE(object.store.find("x"), nullptr);
    EXPECT_EQ(object.store.find("x")->type, ValueType::UInt);
    float f = 0;
    EXPECT_EQ(object.Get("x", &f), NVSDK_NGX_Result_Success);
    EXPECT_EQ(f, 9.0f);
}

TEST(NgxParameters, NumbersConvertLikeCCastsWithClampedFloats) {
    ParameterObject object;
    object.Set("f", 2.75f);
    object.Set("neg", -3.5);
    object.Set("huge", 1e30);
    object.Set("nan", std::numeric_limits<float>::quiet_NaN());
    object.Set("i", -1);
    object.Set("ull", 5ull);

    int i = 0;
    unsigned int ui = 0;
    double d = 0;
    unsigned long long ull = 0;
    EXPECT_EQ(object.Get("f", &i), NVSDK_NGX_Result_Success);
    EXPECT_EQ(i, 2); // truncation, as a C cast
    EXPECT_EQ(object.Get("neg", &i), NVSDK_NGX_Result_Success);
    EXPECT_EQ(i, -3);
    EXPECT_EQ(object.Get("neg", &ui), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ui, 0u); // clamped into unsigned range instead of undefined behaviour
    EXPECT_EQ(object.Get("huge", &i), NVSDK_NGX_Result_Success);
    EXPECT_EQ(i, std::numeric_limits<int>::max());
    EXPECT_EQ(object.Get("nan", &i), NVSDK_NGX_Result_Success);
    EXPECT_EQ(i, 0);
    EXPECT_EQ(object.Get("i", &ui), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ui, 0xFFFFFFFFu); // modular, as a C cast
    EXPECT_EQ(object.Get("i", &d), NVSDK_NGX_Result_Success);
    EXPECT_EQ(d, -1.0);
    EXPECT_EQ(object.Get("ull", &d), NVSDK_NGX_Result_Success);
    EXPECT_EQ(d, 5.0);
    EXPECT_EQ(object.Get("f", &ull), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ull, 2ull);
}

TEST(NgxParameters, PointersAndDevicePointersConvert) {
    ParameterObject object;
    int dummy = 0;
    // A CUdeviceptr may arrive either as void* or as unsigned long long.
    object.Set("ptr", static_cast<void*>(&dummy));
    object.Set("devptr", 0x7f0000001000ull);
    object.Set("int", 5);

    unsigned long long ull = 0;
    EXPECT_EQ(object.Get("ptr", &ull), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ull, reinterpret_cast<uintptr_t>(&dummy));
    void* v = nullptr;
    EXPECT_EQ(object.Get("devptr", &v), NVSDK_NGX_Result_Success);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v), 0x7f0000001000ull);
    ID3D12Resource* r12 = nullptr;
    EXPECT_EQ(object.Get("ptr", &r12), NVSDK_NGX_Result_Success);
    EXPECT_EQ(static_cast<void*>(r12), static_cast<void*>(&dummy));

    // Small numbers are not pointers, and pointers are not floats or ints.
    v = &dummy;
    EXPECT_EQ(object.Get("int", &v), NVSDK_NGX_Result_Fail);
    EXPECT_EQ(v, &dummy);
    float f = 0;
    EXPECT_EQ(object.Get("ptr", &f), NVSDK_NGX_Result_Fail);
    int i = 0;
    EXPECT_EQ(object.Get("ptr", &i), NVSDK_NGX_Result_Fail);
}

TEST(NgxParameters, ResetRemovesEveryValue) {
    ParameterObject object;
    NVSDK_NGX_Parameter* p = &object;
    NVSDK_NGX_Parameter_SetUI(p, "Width", 64);
    NVSDK_NGX_Parameter_SetF(p, "Sharpness", 0.5f);
    p->Reset();
    unsigned int ui = 0;
    EXPECT_EQ(NVSDK_NGX_Parameter_GetUI(p, "Width", &ui), NVSDK_NGX_Result_Fail);
    EXPECT_EQ(object.store.size(), 0u);
    NVSDK_NGX_Parameter_SetUI(p, "Width", 8);
    EXPECT_EQ(NVSDK_NGX_Parameter_GetUI(p, "Width", &ui), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ui, 8u);
}

// The table is laid out as MSVC lays out the SDK's declaration (each overload group reversed, KB
// Q131104). This calls raw slots by index, as an MSVC-compiled game does, and checks which type each
// slot stores: written out here from that rule, independently of the table's definition.
TEST(NgxParameters, RawSlotsFollowMsvcOverloadOrder) {
    ParameterObject object;
    NVSDK_NGX_Parameter* p = &object;
    void* const* slots = reinterpret_cast<void* const*>(*reinterpret_cast<void* const*>(p));
    ASSERT_EQ(static_cast<const void*>(slots), static_cast<const void*>(p->vtbl));
    int dummy = 0;

    using SetPtr = void (*)(NVSDK_NGX_Parameter*, const char*, void*);
    using SetInt = void (*)(NVSDK_NGX_Parameter*, const char*, int);
    using SetUInt = void (*)(NVSDK_NGX_Parameter*, const char*, unsigned int);
    using SetDouble = void (*)(NVSDK_NGX_Parameter*, const char*, double);
    using SetFloat = void (*)(NVSDK_NGX_Parameter*, const char*, float);
    using SetULL = void (*)(NVSDK_NGX_Parameter*, const char*, unsigned long long);
    reinterpret_cast<SetPtr>(slots[0])(p, "s0", &dummy);
    reinterpret_cast<SetPtr>(slots[1])(p, "s1", &dummy);
    reinterpret_cast<SetPtr>(slots[2])(p, "s2", &dummy);
    reinterpret_cast<SetInt>(slots[3])(p, "s3", -3);
    reinterpret_cast<SetUInt>(slots[4])(p, "s4", 4u);
    reinterpret_cast<SetDouble>(slots[5])(p, "s5", 5.5);
    reinterpret_cast<SetFloat>(slots[6])(p, "s6", 6.5f);
    reinterpret_cast<SetULL>(slots[7])(p, "s7", 7ull);
    const ValueType expected[8] = {ValueType::Pointer, ValueType::D3D12,  ValueType::D3D11, ValueType::Int,
                                   ValueType::UInt,    ValueType::Double, ValueType::Float, ValueType::ULL};
    for (int k = 0; k < 8; ++k) {
        std::string name = "s" + std::to_string(k);
        const auto* value = object.store.find(name.c_str());
        ASSERT_NE(value, nullptr) << name;
        EXPECT_EQ(value->type, expected[k]) << "slot " << k;
    }
    EXPECT_EQ(object.store.find("s3")->i, -3);
    EXPECT_EQ(object.store.find("s5")->d, 5.5);
    EXPECT_EQ(object.store.find("s6")->f, 6.5f);

    // Get slots 8..15 write the type of their position; each reads back the value set above.
    using GetPtr = NVSDK_NGX_Result (*)(const NVSDK_NGX_Parameter*, const char*, void**);
    using GetInt = NVSDK_NGX_Result (*)(const NVSDK_NGX_Parameter*, const char*, int*);
    using GetUInt = NVSDK_NGX_Result (*)(const NVSDK_NGX_Parameter*, const char*, unsigned int*);
    using GetDouble = NVSDK_NGX_Result (*)(const NVSDK_NGX_Parameter*, const char*, double*);
    using GetFloat = NVSDK_NGX_Result (*)(const NVSDK_NGX_Parameter*, const char*, float*);
    using GetULL = NVSDK_NGX_Result (*)(const NVSDK_NGX_Parameter*, const char*, unsigned long long*);
    void* v = nullptr;
    EXPECT_EQ(reinterpret_cast<GetPtr>(slots[8])(p, "s0", &v), NVSDK_NGX_Result_Success);
    EXPECT_EQ(v, &dummy);
    v = nullptr;
    EXPECT_EQ(reinterpret_cast<GetPtr>(slots[9])(p, "s1", &v), NVSDK_NGX_Result_Success);
    EXPECT_EQ(v, &dummy);
    v = nullptr;
    EXPECT_EQ(reinterpret_cast<GetPtr>(slots[10])(p, "s2", &v), NVSDK_NGX_Result_Success);
    EXPECT_EQ(v, &dummy);
    int i = 0;
    EXPECT_EQ(reinterpret_cast<GetInt>(slots[11])(p, "s3", &i), NVSDK_NGX_Result_Success);
    EXPECT_EQ(i, -3);
    // An int slot must not be an unsigned one: a negative double reads as -5 through slot 11 but would
    // clamp to 0 through an unsigned slot.
    object.Set("neg", -5.0);
    EXPECT_EQ(reinterpret_cast<GetInt>(slots[11])(p, "neg", &i), NVSDK_NGX_Result_Success);
    EXPECT_EQ(i, -5);
    unsigned int ui = 1;
    EXPECT_EQ(reinterpret_cast<GetUInt>(slots[12])(p, "neg", &ui), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ui, 0u);
    EXPECT_EQ(reinterpret_cast<GetUInt>(slots[12])(p, "s4", &ui), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ui, 4u);
    double d = 0;
    EXPECT_EQ(reinterpret_cast<GetDouble>(slots[13])(p, "s5", &d), NVSDK_NGX_Result_Success);
    EXPECT_EQ(d, 5.5);
    float f = 0;
    EXPECT_EQ(reinterpret_cast<GetFloat>(slots[14])(p, "s6", &f), NVSDK_NGX_Result_Success);
    EXPECT_EQ(f, 6.5f);
    unsigned long long ull = 0;
    EXPECT_EQ(reinterpret_cast<GetULL>(slots[15])(p, "s7", &ull), NVSDK_NGX_Result_Success);
    EXPECT_EQ(ull, 7ull);

    using ResetFn = void (*)(NVSDK_NGX_Parameter*);
    reinterpret_cast<ResetFn>(slots[16])(p);
    EXPECT_EQ(object.store.size(), 0u);
}

TEST(NgxParameters, CppSpellingPicksTheOverloadOfTheArgumentType) {
    ParameterObject object;
    NVSDK_NGX_Parameter* p = &object;
    p->Set("a", 1u);
    p->Set("b", 1);
    p->Set("c", 1.0f);
    p->Set("d", 1.0);
    p->Set("e", 1ull);
    EXPECT_EQ(object.store.find("a")->type, ValueType::UInt);
    EXPECT_EQ(object.store.find("b")->type, ValueType::Int);
    EXPECT_EQ(object.store.find("c")->type, ValueType::Float);
    EXPECT_EQ(object.store.find("d")->type, ValueType::Double);
    EXPECT_EQ(object.store.find("e")->type, ValueType::ULL);
}

TEST(NgxParameters, CapabilitiesSayDlssIsAvailable) {
    ParameterObject object;
    d4r::upscaler::ngx::set_capabilities(object);
    int available = 0, needs_driver = 1, major = -1, minor = -1;
    EXPECT_EQ(object.Get(NVSDK_NGX_Parameter_SuperSampling_Available, &available), NVSDK_NGX_Result_Success);
    EXPECT_EQ(available, 1);
    EXPECT_EQ(object.Get(NVSDK_NGX_Parameter_SuperSampling_NeedsUpdatedDriver, &needs_driver),
              NVSDK_NGX_Result_Success);
    EXPECT_EQ(needs_driver, 0);
    EXPECT_EQ(object.Get(NVSDK_NGX_Parameter_SuperSampling_MinDriverVersionMajor, &major), NVSDK_NGX_Result_Success);
    EXPECT_EQ(object.Get(NVSDK_NGX_Parameter_SuperSampling_MinDriverVersionMinor, &minor), NVSDK_NGX_Result_Success);
    EXPECT_EQ(major, 0);
    EXPECT_EQ(minor, 0);
    unsigned int init_result = 0;
    EXPECT_EQ(object.Get(NVSDK_NGX_Parameter_SuperSampling_FeatureInitResult, &init_result), NVSDK_NGX_Result_Success);
    EXPECT_TRUE(NVSDK_NGX_SUCCEED(init_result));
    EXPECT_EQ(init_result, 1u);
}

TEST(NgxParameters, OptimalSettingsCallbackGivesRenderSizePerQuality) {
    ParameterObject caps;
    d4r::upscaler::ngx::set_capabilities(caps);
    void* fn = nullptr;
    ASSERT_EQ(caps.Get(NVSDK_NGX_Parameter_DLSSOptimalSettingsCallback, &fn), NVSDK_NGX_Result_Success);
    ASSERT_NE(fn, nullptr);
    auto callback = reinterpret_cast<PFN_NVSDK_NGX_DLSS_GetOptimalSettingsCallback>(fn);

    struct Case {
        int quality;
        unsigned int w, h;
    };
    // 3840x2160 output: performance renders half of each side, ultra performance a third, DLAA all.
    const Case cases[] = {{NVSDK_NGX_PerfQuality_Value_MaxPerf, 1920, 1080},
                          {NVSDK_NGX_PerfQuality_Value_UltraPerformance, 1280, 720},
                          {NVSDK_NGX_PerfQuality_Value_MaxQuality, 2560, 1440},
                          {NVSDK_NGX_PerfQuality_Value_DLAA, 3840, 2160}};
    for (const Case& c : cases) {
        ParameterObject p;
        p.Set(NVSDK_NGX_Parameter_Width, 3840u);
        p.Set(NVSDK_NGX_Parameter_Height, 2160u);
        p.Set(NVSDK_NGX_Parameter_PerfQualityValue, c.quality);
        ASSERT_EQ(callback(&p), NVSDK_NGX_Result_Success) << c.quality;
        unsigned int w = 0, h = 0, max_w = 0, min_w = 0;
        EXPECT_EQ(p.Get(NVSDK_NGX_Parameter_OutWidth, &w), NVSDK_NGX_Result_Success);
        EXPECT_EQ(p.Get(NVSDK_NGX_Parameter_OutHeight, &h), NVSDK_NGX_Result_Success);
        EXPECT_EQ(w, c.w) << c.quality;
        EXPECT_EQ(h, c.h) << c.quality;
        EXPECT_EQ(p.Get(NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Max_Render_Width, &max_w), NVSDK_NGX_Result_Success);
        EXPECT_EQ(p.Get(NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Min_Render_Width, &min_w), NVSDK_NGX_Result_Success);
        EXPECT_LE(min_w, w);
        EXPECT_GE(max_w, w);
    }
    ParameterObject bad;
    EXPECT_EQ(callback(&bad), NVSDK_NGX_Result_FAIL_InvalidParameter); // no output size
    bad.Set(NVSDK_NGX_Parameter_Width, 100u);
    bad.Set(NVSDK_NGX_Parameter_Height, 100u);
    bad.Set(NVSDK_NGX_Parameter_PerfQualityValue, 42);
    EXPECT_EQ(callback(&bad), NVSDK_NGX_Result_FAIL_UnsupportedParameter);
}

TEST(NgxParameters, ResultMacrosClassifyCodes) {
    EXPECT_TRUE(NVSDK_NGX_SUCCEED(NVSDK_NGX_Result_Success));
    EXPECT_TRUE(NVSDK_NGX_FAILED(NVSDK_NGX_Result_Fail));
    EXPECT_TRUE(NVSDK_NGX_FAILED(NVSDK_NGX_Result_FAIL_NotImplemented));
    EXPECT_EQ(static_cast<unsigned>(NVSDK_NGX_Result_FAIL_InvalidParameter), 0xBAD00005u);
    EXPECT_EQ(static_cast<unsigned>(NVSDK_NGX_Result_FAIL_NotImplemented), 0xBAD00012u);
    EXPECT_EQ(sizeof(NVSDK_NGX_Result), 4u);
    EXPECT_EQ(sizeof(NVSDK_NGX_Parameter), sizeof(void*));
}

} // namespace
