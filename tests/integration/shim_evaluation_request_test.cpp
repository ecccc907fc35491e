// The shim's parse of an evaluation's NGX parameters (src/shim/evaluation_request.h): defaults, the values
// passed on to the core, missing and mistyped resources, the render size, and the frame geometry.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "shim/evaluation_request.h"
#include "upscaler/ngx/parameters.h"

using namespace d4r;
using namespace d4r::abi;
using namespace d4r::shim;
using d4r::upscaler::ngx::ParameterObject;

namespace {

int g_texture[5]; // stand-ins for the game's resources: only their addresses matter here

void* texture(int i) { return &g_texture[i]; }

CreateInfo created(int flags = 0) {
    CreateInfo c;
    c.width = 32;
    c.height = 18;
    c.out_width = 64;
    c.out_height = 36;
    c.flags = flags;
    return c;
}

// A map with the four required resources.
void set_resources(ParameterObject& p) {
    p.Set(NVSDK_NGX_Parameter_Color, texture(0));
    p.Set(NVSDK_NGX_Parameter_Depth, texture(1));
    p.Set(NVSDK_NGX_Parameter_MotionVectors, texture(2));
    p.Set(NVSDK_NGX_Parameter_Output, texture(3));
}

} // namespace

TEST(ShimEvaluationRequest, TableNamesEachParameterOnce) {
    std::set<std::string> names;
    for (const EvaluationParameter& e : evaluation_parameters()) EXPECT_TRUE(names.insert(e.name).second) << e.name;
    // The eleven values NGX cores read besides the resources, each passed on.
    int to_core = 0;
    for (const EvaluationParameter& e : evaluation_parameters()) to_core += e.to_core ? 1 : 0;
    EXPECT_EQ(to_core, 11);
}

TEST(ShimEvaluationRequest, Defaults) {
    ParameterObject p;
    set_resources(p);
    auto r = parse_evaluation_request(p, created());
    ASSERT_TRUE(r) << r.error().text();
    EXPECT_EQ(static_cast<void*>(r->color), texture(0));
    EXPECT_EQ(static_cast<void*>(r->output), texture(3));
    EXPECT_EQ(r->exposure, nullptr);
    EXPECT_EQ(r->render_width, 32u); // the created size
    EXPECT_EQ(r->render_height, 18u);
    EXPECT_EQ(r->mv_scale_x, 1.0f);
    EXPECT_EQ(r->mv_scale_y, 1.0f);
    EXPECT_EQ(r->jitter_x, 0.0f);
    EXPECT_EQ(r->reset, 0);
    EXPECT_TRUE(r->defaulted.empty());
}

TEST(ShimEvaluationRequest, ValuesReadWithNgxConversions) {
    ParameterObject p;
    set_resources(p);
    p.Set(NVSDK_NGX_Parameter_ExposureTexture, texture(4));
    p.Set(NVSDK_NGX_Parameter_Jitter_Offset_X, -0.25f);
    p.Set(NVSDK_NGX_Parameter_Jitter_Offset_Y, 0.5); // a double, read as float
    p.Set(NVSDK_NGX_Parameter_MV_Scale_X, -32.0f);
    p.Set(NVSDK_NGX_Parameter_Reset, 1u); // unsigned, read as int
    p.Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, 16u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, 9);
    p.Set(NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_X, 4u);
    auto r = parse_evaluation_request(p, created());
    ASSERT_TRUE(r) << r.error().text();
    EXPECT_EQ(static_cast<void*>(r->exposure), texture(4));
    EXPECT_EQ(r->jitter_x, -0.25f);
    EXPECT_EQ(r->jitter_y, 0.5f);
    EXPECT_EQ(r->mv_scale_x, -32.0f);
    EXPECT_EQ(r->reset, 1);
    EXPECT_EQ(r->render_width, 16u);
    EXPECT_EQ(r->render_height, 9u);
    EXPECT_EQ(r->output_x, 4u);
}

TEST(ShimEvaluationRequest, MissingResourceNamed) {
    const char* const required[] = {NVSDK_NGX_Parameter_Color, NVSDK_NGX_Parameter_Depth,
                                    NVSDK_NGX_Parameter_MotionVectors, NVSDK_NGX_Parameter_Output};
    for (const char* name : required) {
        ParameterObject p;
        set_resources(p);
        p.Set(name, static_cast<void*>(nullptr));
        auto r = parse_evaluation_request(p, created());
        ASSERT_FALSE(r) << name;
        EXPECT_EQ(r.error().message(), std::string(name) + " is missing");
        EXPECT_EQ(ngx_result_of(r.error()), NVSDK_NGX_Result_FAIL_MissingInput);
    }
    // Absent altogether: the first missing one in the table's order.
    ParameterObject empty;
    auto r = parse_evaluation_request(empty, created());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message(), "Color is missing");
}

TEST(ShimEvaluationRequest, NumberWhereResourceExpected) {
    ParameterObject p;
    set_resources(p);
    p.Set(NVSDK_NGX_Parameter_Depth, 7);
    auto r = parse_evaluation_request(p, created());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message(), "Depth is missing (it holds the number 7, not a resource)");
    EXPECT_EQ(ngx_result_of(r.error()), NVSDK_NGX_Result_FAIL_MissingInput);
}

TEST(ShimEvaluationRequest, RenderSizeAboveCreatedRefused) {
    ParameterObject p;
    set_resources(p);
    p.Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, 33u);
    auto r = parse_evaluation_request(p, created());
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("render size 33x18"), std::string::npos) << r.error().message();
    EXPECT_NE(r.error().message().find(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width), std::string::npos);
    EXPECT_NE(r.error().message().find("created size 32x18"), std::string::npos);
    EXPECT_EQ(ngx_result_of(r.error()), NVSDK_NGX_Result_FAIL_InvalidParameter);
}

TEST(ShimEvaluationRequest, UnreadableValueKeepsDefaultAndIsNamed) {
    ParameterObject p;
    set_resources(p);
    p.Set(NVSDK_NGX_Parameter_MV_Scale_X, texture(4)); // a pointer where a float belongs
    auto r = parse_evaluation_request(p, created());
    ASSERT_TRUE(r) << r.error().text();
    EXPECT_EQ(r->mv_scale_x, 1.0f);
    ASSERT_EQ(r->defaulted.size(), 1u);
    EXPECT_EQ(r->defaulted[0], NVSDK_NGX_Parameter_MV_Scale_X);
}

TEST(ShimEvaluationRequest, ApplyToCoreWritesThePassedOnValues) {
    ParameterObject p;
    set_resources(p);
    p.Set(NVSDK_NGX_Parameter_Jitter_Offset_X, 0.125f);
    p.Set(NVSDK_NGX_Parameter_Sharpness, 0.5f);
    p.Set(NVSDK_NGX_Parameter_Reset, 1);
    auto r = parse_evaluation_request(p, created());
    ASSERT_TRUE(r) << r.error().text();
    ParameterObject core;
    apply_to_core(*r, core);
    float f = 0;
    ASSERT_EQ(core.Get(NVSDK_NGX_Parameter_Jitter_Offset_X, &f), NVSDK_NGX_Result_Success);
    EXPECT_EQ(f, 0.125f);
    ASSERT_EQ(core.Get(NVSDK_NGX_Parameter_Sharpness, &f), NVSDK_NGX_Result_Success);
    EXPECT_EQ(f, 0.5f);
    ASSERT_EQ(core.Get(NVSDK_NGX_Parameter_MV_Scale_Y, &f), NVSDK_NGX_Result_Success);
    EXPECT_EQ(f, 1.0f); // defaults are passed on too
    int reset = 0;
    ASSERT_EQ(core.Get(NVSDK_NGX_Parameter_Reset, &reset), NVSDK_NGX_Result_Success);
    EXPECT_EQ(reset, 1);
    unsigned int w = 0;
    ASSERT_EQ(core.Get(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, &w), NVSDK_NGX_Result_Success);
    EXPECT_EQ(w, 32u); // the resolved render size, not the game's 0
    // Resources and region corners are the data path's business, not the core's.
    void* pointer = nullptr;
    EXPECT_NE(core.Get(NVSDK_NGX_Parameter_Color, &pointer), NVSDK_NGX_Result_Success);
    EXPECT_NE(core.Get(NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_X, &w), NVSDK_NGX_Result_Success);
}

TEST(ShimEvaluationRequest, FrameGeometry) {
    ParameterObject p;
    set_resources(p);
    p.Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, 16u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, 9u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_X, 2u);
    p.Set(NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_Y, 3u);
    auto r = parse_evaluation_request(p, created());
    ASSERT_TRUE(r) << r.error().text();

    GameFrame f = frame_geometry(*r, created());
    EXPECT_EQ(static_cast<void*>(f.color.resource), texture(0));
    EXPECT_EQ(f.color.region.x, 2u);
    EXPECT_EQ(f.color.region.y, 3u);
    EXPECT_EQ(f.color.region.width, 16u);
    EXPECT_EQ(f.color.region.height, 9u);
    EXPECT_EQ(f.color.row_texels, 32u); // rows as wide as the created size
    EXPECT_EQ(f.depth.region.width, 16u);
    EXPECT_EQ(f.motion.region.width, 64u); // without MVLowRes: the output size
    EXPECT_EQ(f.motion.row_texels, 64u);
    EXPECT_EQ(f.output.region.width, 64u);
    EXPECT_EQ(f.output.region.height, 36u);
    EXPECT_EQ(f.exposure.region.width, 1u);

    GameFrame low = frame_geometry(*r, created(NVSDK_NGX_DLSS_Feature_Flags_MVLowRes));
    EXPECT_EQ(low.motion.region.width, 16u);
    EXPECT_EQ(low.motion.region.height, 9u);
    EXPECT_EQ(low.motion.row_texels, 32u);
}
