// DLSS create/evaluate parameters read into PipelineConfig / FrameParams (no CUDA needed).
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "abi/ngx.h"
#include "upscaler/ngx/feature_params.h"
#include "upscaler/ngx/parameters.h"

namespace {

using namespace d4r::abi;
using d4r::upscaler::FrameParams;
using d4r::upscaler::PipelineConfig;
using d4r::upscaler::ngx::CreateRequest;
using d4r::upscaler::ngx::ParameterObject;
using d4r::upscaler::ngx::read_create;
using d4r::upscaler::ngx::read_evaluate;

void* fake_ptr(uintptr_t v) { return reinterpret_cast<void*>(v); }

PipelineConfig config_32x16() {
    PipelineConfig c;
    c.render_width = 32;
    c.render_height = 16;
    c.output_width = 64;
    c.output_height = 32;
    return c;
}

void set_buffers(ParameterObject& p) {
    p.Set(NVSDK_NGX_Parameter_Color, fake_ptr(0x1000));
    p.Set(NVSDK_NGX_Parameter_Depth, fake_ptr(0x2000));
    p.Set(NVSDK_NGX_Parameter_MotionVectors, fake_ptr(0x3000));
    p.Set(NVSDK_NGX_Parameter_Output, fake_ptr(0x4000));
}

TEST(NgxFeatureParams, CreateReadsEveryFieldAndPreset) {
    ParameterObject p;
    p.Set(NVSDK_NGX_Parameter_Width, 960u);
    p.Set(NVSDK_NGX_Parameter_Height, 540);        // as int: converts
    p.Set(NVSDK_NGX_Parameter_OutWidth, 1920.0f);  // as float: converts
    p.Set(NVSDK_NGX_Parameter_OutHeight, 1080ull); // as ull: converts
    p.Set(NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags,
          NVSDK_NGX_DLSS_Feature_Flags_AutoExposure | NVSDK_NGX_DLSS_Feature_Flags_MVLowRes | (1 << 12));
    p.Set(NVSDK_NGX_Parameter_PerfQualityValue, static_cast<int>(NVSDK_NGX_PerfQuality_Value_Balanced));
    p.Set(NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Quality, 5u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_UltraQuality, 11u);
    CreateRequest r;
    auto rejected = read_create(p, r);
    ASSERT_TRUE(rejected.ok()) << rejected.message;
    EXPECT_EQ(r.config.render_width, 960u);
    EXPECT_EQ(r.config.render_height, 540u);
    EXPECT_EQ(r.config.output_width, 1920u);
    EXPECT_EQ(r.config.output_height, 1080u);
    EXPECT_TRUE(r.config.auto_exposure);
    EXPECT_TRUE(r.config.mv_low_res);
    EXPECT_FALSE(r.config.hdr);
    EXPECT_EQ(r.ignored_flags, 1u << 12);
    EXPECT_EQ(r.perf_quality, 1);
    EXPECT_EQ(r.presets[0], 0u);  // DLAA unset
    EXPECT_EQ(r.presets[1], 5u);  // Quality
    EXPECT_EQ(r.presets[5], 11u); // UltraQuality
}

TEST(NgxFeatureParams, CreateAcceptsDlaaAndRejectsNonFiniteSizes) {
    ParameterObject p;
    p.Set(NVSDK_NGX_Parameter_Width, 64u);
    p.Set(NVSDK_NGX_Parameter_Height, 64u);
    p.Set(NVSDK_NGX_Parameter_OutWidth, 64u);
    p.Set(NVSDK_NGX_Parameter_OutHeight, 64u);
    CreateRequest r;
    EXPECT_TRUE(read_create(p, r).ok()); // same size (DLAA) is allowed
    EXPECT_EQ(r.flags, 0u);
    p.Set(NVSDK_NGX_Parameter_Height, NAN);
    auto rejected = read_create(p, r);
    EXPECT_EQ(rejected.result, NVSDK_NGX_Result_FAIL_InvalidParameter);
    EXPECT_NE(rejected.message.find("Height"), std::string::npos) << rejected.message;
}

TEST(NgxFeatureParams, EvaluateDefaults) {
    ParameterObject p;
    set_buffers(p);
    FrameParams f;
    auto rejected = read_evaluate(p, config_32x16(), f);
    ASSERT_TRUE(rejected.ok()) << rejected.message;
    EXPECT_EQ(f.color, 0x1000u);
    EXPECT_EQ(f.depth, 0x2000u);
    EXPECT_EQ(f.motion, 0x3000u);
    EXPECT_EQ(f.output, 0x4000u);
    EXPECT_EQ(f.exposure, 0u);
    EXPECT_EQ(f.render_width, 32u); // the created size
    EXPECT_EQ(f.render_height, 16u);
    EXPECT_EQ(f.mv_scale_x, 1.0f);
    EXPECT_EQ(f.mv_scale_y, 1.0f);
    EXPECT_EQ(f.jitter_x, 0.0f);
    EXPECT_EQ(f.pre_exposure, 1.0f);
    EXPECT_EQ(f.exposure_scale, 1.0f);
    EXPECT_EQ(f.sharpness, 0.0f);
    EXPECT_FALSE(f.reset);
    EXPECT_EQ(f.color_pitch, 0u);
    EXPECT_EQ(f.output_base.x, 0u);
}

TEST(NgxFeatureParams, EvaluateReadsEveryField) {
    ParameterObject p;
    set_buffers(p);
    p.Set(NVSDK_NGX_Parameter_ExposureTexture, 0x5000ull); // a CUdeviceptr set as unsigned long long
    p.Set(NVSDK_NGX_Parameter_Jitter_Offset_X, -0.25f);
    p.Set(NVSDK_NGX_Parameter_Jitter_Offset_Y, 0.125f);
    p.Set(NVSDK_NGX_Parameter_MV_Scale_X, -32.0f);
    p.Set(NVSDK_NGX_Parameter_MV_Scale_Y, 16.0f);
    p.Set(NVSDK_NGX_Parameter_Sharpness, 0.5f);
    p.Set(NVSDK_NGX_Parameter_Reset, 1);
    p.Set(NVSDK_NGX_Parameter_DLSS_Pre_Exposure, 2.0f);
    p.Set(NVSDK_NGX_Parameter_DLSS_Exposure_Scale, 0.0f); // unset by the game: 1
    p.Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, 24u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, 12u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_X, 4u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_Y, 2u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Input_Depth_Subrect_Base_X, 3u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Input_MV_SubrectBase_Y, 1u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_X, 8u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_Y, 6u);
    p.Set(D4R_NGX_Parameter_Color_Pitch, 512u);
    p.Set(D4R_NGX_Parameter_Output_Pitch, 1024ull);
    FrameParams f;
    auto rejected = read_evaluate(p, config_32x16(), f);
    ASSERT_TRUE(rejected.ok()) << rejected.message;
    EXPECT_EQ(f.exposure, 0x5000u);
    EXPECT_EQ(f.jitter_x, -0.25f);
    EXPECT_EQ(f.jitter_y, 0.125f);
    EXPECT_EQ(f.mv_scale_x, -32.0f);
    EXPECT_EQ(f.mv_scale_y, 16.0f);
    EXPECT_EQ(f.sharpness, 0.5f);
    EXPECT_TRUE(f.reset);
    EXPECT_EQ(f.pre_exposure, 2.0f);
    EXPECT_EQ(f.exposure_scale, 1.0f);
    EXPECT_EQ(f.render_width, 24u);
    EXPECT_EQ(f.render_height, 12u);
    EXPECT_EQ(f.color_base.x, 4u);
    EXPECT_EQ(f.color_base.y, 2u);
    EXPECT_EQ(f.depth_base.x, 3u);
    EXPECT_EQ(f.motion_base.y, 1u);
    EXPECT_EQ(f.output_base.x, 8u);
    EXPECT_EQ(f.output_base.y, 6u);
    EXPECT_EQ(f.color_pitch, 512u);
    EXPECT_EQ(f.output_pitch, 1024u);
    EXPECT_EQ(f.depth_pitch, 0u);
}

TEST(NgxFeatureParams, EvaluateRejections) {
    struct Case {
        const char* what;
        void (*edit)(ParameterObject&);
        NVSDK_NGX_Result result;
        const char* named;
    };
    const Case cases[] = {
        {"no depth", [](ParameterObject& p) { p.Set(NVSDK_NGX_Parameter_Depth, fake_ptr(0)); },
         NVSDK_NGX_Result_FAIL_MissingInput, "Depth"},
        {"depth as int", [](ParameterObject& p) { p.Set(NVSDK_NGX_Parameter_Depth, 5); },
         NVSDK_NGX_Result_FAIL_MissingInput, "Depth"},
        {"taller render",
         [](ParameterObject& p) { p.Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, 17u); },
         NVSDK_NGX_Result_FAIL_InvalidParameter, "exceeds the created size"},
        {"negative base", [](ParameterObject& p) { p.Set(NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_X, -1); },
         NVSDK_NGX_Result_FAIL_InvalidParameter, "DLSS.Output.Subrect.Base.X"},
        {"infinite mv scale", [](ParameterObject& p) { p.Set(NVSDK_NGX_Parameter_MV_Scale_Y, INFINITY); },
         NVSDK_NGX_Result_FAIL_InvalidParameter, "MV.Scale.Y"},
        {"sharpness 2", [](ParameterObject& p) { p.Set(NVSDK_NGX_Parameter_Sharpness, 2.0f); },
         NVSDK_NGX_Result_FAIL_InvalidParameter, "Sharpness"},
    };
    for (const Case& c : cases) {
        ParameterObject p;
        set_buffers(p);
        c.edit(p);
        FrameParams f;
        auto rejected = read_evaluate(p, config_32x16(), f);
        EXPECT_EQ(rejected.result, c.result) << c.what;
        EXPECT_NE(rejected.message.find(c.named), std::string::npos) << c.what << ": " << rejected.message;
    }
}

} // namespace
