// The NGX parameters of an evaluation (evaluation_request.h).
#include "shim/evaluation_request.h"

#include <type_traits>

#include <fmt/format.h>

namespace d4r::shim {

using namespace abi;

namespace {

using R = EvaluationRequest;

// The one list of what an evaluation reads. Defaults as the shim has always used them: no jitter, motion
// vectors scaled by 1, no sharpening, exposure values 0 (the core's "not given"), no reset.
constexpr EvaluationParameter kParameters[] = {
    {NVSDK_NGX_Parameter_Color, &R::color, 0, true, false},
    {NVSDK_NGX_Parameter_Depth, &R::depth, 0, true, false},
    {NVSDK_NGX_Parameter_MotionVectors, &R::motion, 0, true, false},
    {NVSDK_NGX_Parameter_Output, &R::output, 0, true, false},
    {NVSDK_NGX_Parameter_ExposureTexture, &R::exposure, 0, false, false},
    {NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, &R::render_width, 0, false, true},
    {NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, &R::render_height, 0, false, true},
    {NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_X, &R::color_x, 0, false, false},
    {NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_Y, &R::color_y, 0, false, false},
    {NVSDK_NGX_Parameter_DLSS_Input_Depth_Subrect_Base_X, &R::depth_x, 0, false, false},
    {NVSDK_NGX_Parameter_DLSS_Input_Depth_Subrect_Base_Y, &R::depth_y, 0, false, false},
    {NVSDK_NGX_Parameter_DLSS_Input_MV_SubrectBase_X, &R::motion_x, 0, false, false},
    {NVSDK_NGX_Parameter_DLSS_Input_MV_SubrectBase_Y, &R::motion_y, 0, false, false},
    {NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_X, &R::output_x, 0, false, false},
    {NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_Y, &R::output_y, 0, false, false},
    {NVSDK_NGX_Parameter_Jitter_Offset_X, &R::jitter_x, 0, false, true},
    {NVSDK_NGX_Parameter_Jitter_Offset_Y, &R::jitter_y, 0, false, true},
    {NVSDK_NGX_Parameter_MV_Scale_X, &R::mv_scale_x, 1, false, true},
    {NVSDK_NGX_Parameter_MV_Scale_Y, &R::mv_scale_y, 1, false, true},
    {NVSDK_NGX_Parameter_Sharpness, &R::sharpness, 0, false, true},
    {NVSDK_NGX_Parameter_DLSS_Pre_Exposure, &R::pre_exposure, 0, false, true},
    {NVSDK_NGX_Parameter_DLSS_Exposure_Scale, &R::exposure_scale, 0, false, true},
    {NVSDK_NGX_Parameter_FrameTimeDeltaInMsec, &R::frame_time_ms, 0, false, true},
    {NVSDK_NGX_Parameter_Reset, &R::reset, 0, false, true},
};

// Whether NAME holds anything at all (read as the widest types NGX converts between).
bool present(const NVSDK_NGX_Parameter& p, const char* name) {
    void* pointer = nullptr;
    double number = 0;
    return p.Get(name, &pointer) == NVSDK_NGX_Result_Success || p.Get(name, &number) == NVSDK_NGX_Result_Success;
}

template <typename T>
void read_number(const NVSDK_NGX_Parameter& p, const EvaluationParameter& e, T R::* member, R& out) {
    T value{};
    if (p.Get(e.name, &value) == NVSDK_NGX_Result_Success) {
        out.*member = value;
        return;
    }
    out.*member = static_cast<T>(e.fallback);
    if (present(p, e.name)) out.defaulted.emplace_back(e.name);
}

Status read_resource(const NVSDK_NGX_Parameter& p, const EvaluationParameter& e, ResourceHandle R::* member, R& out) {
    void* pointer = nullptr;
    if (p.Get(e.name, &pointer) != NVSDK_NGX_Result_Success) pointer = nullptr;
    out.*member = static_cast<ResourceHandle>(pointer);
    if (pointer || !e.required) return {};
    double number = 0;
    if (p.Get(e.name, &number) == NVSDK_NGX_Result_Success)
        return make_error(ErrorCode::NotFound, "{} is missing (it holds the number {}, not a resource)", e.name,
                          number);
    return make_error(ErrorCode::NotFound, "{} is missing", e.name);
}

} // namespace

std::span<const EvaluationParameter> evaluation_parameters() { return kParameters; }

Expected<EvaluationRequest> parse_evaluation_request(const NVSDK_NGX_Parameter& params, const CreateInfo& info) {
    EvaluationRequest request;
    for (const EvaluationParameter& e : kParameters) {
        if (auto* resource = std::get_if<ResourceHandle R::*>(&e.member)) {
            D4R_TRY(read_resource(params, e, *resource, request));
            continue;
        }
        std::visit(
            [&](auto member) {
                using T = std::remove_reference_t<decltype(request.*member)>;
                if constexpr (!std::is_same_v<T, ResourceHandle>) read_number(params, e, member, request);
            },
            e.member);
    }
    if (request.render_width == 0) request.render_width = info.width;
    if (request.render_height == 0) request.render_height = info.height;
    if (request.render_width > info.width || request.render_height > info.height)
        return make_error(ErrorCode::Invalid, "render size {}x{} ({}, {}) exceeds the created size {}x{}",
                          request.render_width, request.render_height,
                          NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width,
                          NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, info.width, info.height);
    return request;
}

void apply_to_core(const EvaluationRequest& request, NVSDK_NGX_Parameter& core_params) {
    for (const EvaluationParameter& e : kParameters) {
        if (!e.to_core) continue;
        std::visit(
            [&](auto member) {
                using T = std::remove_cv_t<std::remove_reference_t<decltype(request.*member)>>;
                if constexpr (!std::is_same_v<T, ResourceHandle>) core_params.Set(e.name, request.*member);
            },
            e.member);
    }
}

GameFrame frame_geometry(const EvaluationRequest& request, const CreateInfo& info) {
    GameFrame frame;
    const unsigned int w = request.render_width, h = request.render_height;
    const bool mv_low_res = (unsigned(info.flags) & NVSDK_NGX_DLSS_Feature_Flags_MVLowRes) != 0;
    frame.color.resource = request.color;
    frame.depth.resource = request.depth;
    frame.motion.resource = request.motion;
    frame.output.resource = request.output;
    frame.exposure.resource = request.exposure;
    frame.color.region = Region{request.color_x, request.color_y, w, h};
    frame.depth.region = Region{request.depth_x, request.depth_y, w, h};
    frame.motion.region =
        Region{request.motion_x, request.motion_y, mv_low_res ? w : info.out_width, mv_low_res ? h : info.out_height};
    frame.output.region = Region{request.output_x, request.output_y, info.out_width, info.out_height};
    frame.exposure.region = Region{0, 0, 1, 1};
    // The core reads its inputs in rows as wide as the created sizes, whatever this frame's render size.
    frame.color.row_texels = frame.depth.row_texels = info.width;
    frame.motion.row_texels = mv_low_res ? info.width : info.out_width;
    frame.output.row_texels = info.out_width;
    return frame;
}

NVSDK_NGX_Result ngx_result_of(const Error& error) {
    switch (error.code()) {
    case ErrorCode::NotFound:
        return NVSDK_NGX_Result_FAIL_MissingInput;
    case ErrorCode::Invalid:
        return NVSDK_NGX_Result_FAIL_InvalidParameter;
    default:
        return NVSDK_NGX_Result_Fail;
    }
}

} // namespace d4r::shim
