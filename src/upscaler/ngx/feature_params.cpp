// DLSS create/evaluate parameters → PipelineConfig / FrameParams.
#include "upscaler/ngx/feature_params.h"

#include <cmath>
#include <optional>

#include <fmt/format.h>

namespace d4r::upscaler::ngx {

using namespace abi;

namespace {

template <typename T>
std::optional<T> read(const NVSDK_NGX_Parameter& p, const char* name) {
    T value{};
    if (p.Get(name, &value) != NVSDK_NGX_Result_Success) return std::nullopt;
    return value;
}

Rejection reject(NVSDK_NGX_Result result, std::string message) { return Rejection{result, std::move(message)}; }

// A required size in 1..kMaxDimension. Read as double, which holds every int and unsigned int exactly,
// so that a negative int is reported as such instead of wrapping into a huge unsigned number.
Rejection read_size(const NVSDK_NGX_Parameter& p, const char* name, uint32_t& out) {
    auto value = read<double>(p, name);
    if (!value) return reject(NVSDK_NGX_Result_FAIL_InvalidParameter, fmt::format("{} is missing", name));
    if (!(*value >= 1 && *value <= kMaxDimension))
        return reject(NVSDK_NGX_Result_FAIL_InvalidParameter,
                      fmt::format("{} {}: must be 1..{}", name, *value, kMaxDimension));
    out = static_cast<uint32_t>(*value);
    return {};
}

// An optional finite float with a default.
Rejection read_float(const NVSDK_NGX_Parameter& p, const char* name, float fallback, float& out) {
    auto value = read<float>(p, name);
    out = value.value_or(fallback);
    if (!std::isfinite(out))
        return reject(NVSDK_NGX_Result_FAIL_InvalidParameter, fmt::format("{} {}: must be finite", name, out));
    return {};
}

// An optional unsigned coordinate (subrect base); negative values are rejected.
Rejection read_coord(const NVSDK_NGX_Parameter& p, const char* name, uint32_t& out) {
    auto value = read<double>(p, name).value_or(0);
    if (!(value >= 0 && value <= kMaxDimension))
        return reject(NVSDK_NGX_Result_FAIL_InvalidParameter,
                      fmt::format("{} {}: must be 0..{}", name, value, kMaxDimension));
    out = static_cast<uint32_t>(value);
    return {};
}

Rejection read_buffer(const NVSDK_NGX_Parameter& p, const char* name, bool required, CUdeviceptr& out) {
    void* ptr = nullptr;
    if (p.Get(name, &ptr) != NVSDK_NGX_Result_Success || ptr == nullptr) {
        out = 0;
        if (required)
            return reject(NVSDK_NGX_Result_FAIL_MissingInput,
                          fmt::format("{} is missing (a CUdeviceptr as void*)", name));
        return {};
    }
    out = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
    return {};
}

Rejection read_pitch(const NVSDK_NGX_Parameter& p, const char* name, size_t& out) {
    auto value = read<unsigned long long>(p, name).value_or(0);
    if (value > (1ull << 32))
        return reject(NVSDK_NGX_Result_FAIL_InvalidParameter, fmt::format("{} {}: too large", name, value));
    out = static_cast<size_t>(value);
    return {};
}

#define D4R_NGX_CHECK(expr)      \
    do {                         \
        Rejection r_ = (expr);   \
        if (!r_.ok()) return r_; \
    } while (0)

constexpr unsigned int kKnownFlags =
    NVSDK_NGX_DLSS_Feature_Flags_IsHDR | NVSDK_NGX_DLSS_Feature_Flags_MVLowRes |
    NVSDK_NGX_DLSS_Feature_Flags_MVJittered | NVSDK_NGX_DLSS_Feature_Flags_DepthInverted |
    NVSDK_NGX_DLSS_Feature_Flags_DoSharpening | NVSDK_NGX_DLSS_Feature_Flags_AutoExposure;

} // namespace

Rejection read_create(const NVSDK_NGX_Parameter& p, CreateRequest& out) {
    out = CreateRequest{};
    PipelineConfig& c = out.config;
    D4R_NGX_CHECK(read_size(p, NVSDK_NGX_Parameter_Width, c.render_width));
    D4R_NGX_CHECK(read_size(p, NVSDK_NGX_Parameter_Height, c.render_height));
    D4R_NGX_CHECK(read_size(p, NVSDK_NGX_Parameter_OutWidth, c.output_width));
    D4R_NGX_CHECK(read_size(p, NVSDK_NGX_Parameter_OutHeight, c.output_height));
    if (c.output_width < c.render_width || c.output_height < c.render_height)
        return reject(NVSDK_NGX_Result_FAIL_InvalidParameter,
                      fmt::format("OutWidth x OutHeight {}x{} is smaller than Width x Height {}x{}", c.output_width,
                                  c.output_height, c.render_width, c.render_height));

    // Games set the flags as int; bit 31 (IsInvalid) makes the value negative there.
    auto flags = read<int>(p, NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags);
    out.flags = flags ? static_cast<unsigned int>(*flags) : 0u;
    if (out.flags & NVSDK_NGX_DLSS_Feature_Flags_IsInvalid)
        return reject(NVSDK_NGX_Result_FAIL_InvalidParameter,
                      fmt::format("DLSS.Feature.Create.Flags {:#x}: the IsInvalid bit is set", out.flags));
    out.ignored_flags = out.flags & ~kKnownFlags;
    c.hdr = out.flags & NVSDK_NGX_DLSS_Feature_Flags_IsHDR;
    c.mv_low_res = out.flags & NVSDK_NGX_DLSS_Feature_Flags_MVLowRes;
    c.mv_jittered = out.flags & NVSDK_NGX_DLSS_Feature_Flags_MVJittered;
    c.depth_inverted = out.flags & NVSDK_NGX_DLSS_Feature_Flags_DepthInverted;
    c.sharpening = out.flags & NVSDK_NGX_DLSS_Feature_Flags_DoSharpening;
    c.auto_exposure = out.flags & NVSDK_NGX_DLSS_Feature_Flags_AutoExposure;

    out.perf_quality = read<int>(p, NVSDK_NGX_Parameter_PerfQualityValue).value_or(0);
    const char* const preset_names[6] = {NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_DLAA,
                                         NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Quality,
                                         NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Balanced,
                                         NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Performance,
                                         NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_UltraPerformance,
                                         NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_UltraQuality};
    for (int k = 0; k < 6; ++k) out.presets[k] = read<unsigned int>(p, preset_names[k]).value_or(0);
    out.network = read<int>(p, D4R_NGX_Parameter_Network).value_or(1) != 0;
    return {};
}

Rejection read_evaluate(const NVSDK_NGX_Parameter& p, const PipelineConfig& config, FrameParams& out) {
    out = FrameParams{};
    D4R_NGX_CHECK(read_buffer(p, NVSDK_NGX_Parameter_Color, true, out.color));
    D4R_NGX_CHECK(read_buffer(p, NVSDK_NGX_Parameter_Depth, true, out.depth));
    D4R_NGX_CHECK(read_buffer(p, NVSDK_NGX_Parameter_MotionVectors, true, out.motion));
    D4R_NGX_CHECK(read_buffer(p, NVSDK_NGX_Parameter_Output, true, out.output));
    D4R_NGX_CHECK(read_buffer(p, NVSDK_NGX_Parameter_ExposureTexture, false, out.exposure));

    // This frame's render size: the subrect dimensions when given (dynamic resolution), else the
    // created size. Larger than the created size is the "invalid parameter" the shim reacts to by
    // recreating the feature.
    double sub_w = read<double>(p, NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width).value_or(0);
    double sub_h = read<double>(p, NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height).value_or(0);
    double w = sub_w > 0 ? sub_w : config.render_width;
    double h = sub_h > 0 ? sub_h : config.render_height;
    if (!(sub_w >= 0 && sub_h >= 0))
        return reject(NVSDK_NGX_Result_FAIL_InvalidParameter,
                      fmt::format("DLSS.Render.Subrect.Dimensions {}x{}: negative", sub_w, sub_h));
    if (w > config.render_width || h > config.render_height)
        return reject(NVSDK_NGX_Result_FAIL_InvalidParameter,
                      fmt::format("render size {}x{} (DLSS.Render.Subrect.Dimensions) exceeds the created size "
                                  "Width x Height {}x{}",
                                  w, h, config.render_width, config.render_height));
    out.render_width = static_cast<uint32_t>(w);
    out.render_height = static_cast<uint32_t>(h);

    D4R_NGX_CHECK(read_coord(p, NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_X, out.color_base.x));
    D4R_NGX_CHECK(read_coord(p, NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_Y, out.color_base.y));
    D4R_NGX_CHECK(read_coord(p, NVSDK_NGX_Parameter_DLSS_Input_Depth_Subrect_Base_X, out.depth_base.x));
    D4R_NGX_CHECK(read_coord(p, NVSDK_NGX_Parameter_DLSS_Input_Depth_Subrect_Base_Y, out.depth_base.y));
    D4R_NGX_CHECK(read_coord(p, NVSDK_NGX_Parameter_DLSS_Input_MV_SubrectBase_X, out.motion_base.x));
    D4R_NGX_CHECK(read_coord(p, NVSDK_NGX_Parameter_DLSS_Input_MV_SubrectBase_Y, out.motion_base.y));
    D4R_NGX_CHECK(read_coord(p, NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_X, out.output_base.x));
    D4R_NGX_CHECK(read_coord(p, NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_Y, out.output_base.y));

    D4R_NGX_CHECK(read_pitch(p, D4R_NGX_Parameter_Color_Pitch, out.color_pitch));
    D4R_NGX_CHECK(read_pitch(p, D4R_NGX_Parameter_Depth_Pitch, out.depth_pitch));
    D4R_NGX_CHECK(read_pitch(p, D4R_NGX_Parameter_MotionVectors_Pitch, out.motion_pitch));
    D4R_NGX_CHECK(read_pitch(p, D4R_NGX_Parameter_Output_Pitch, out.output_pitch));

    D4R_NGX_CHECK(read_float(p, NVSDK_NGX_Parameter_Jitter_Offset_X, 0.0f, out.jitter_x));
    D4R_NGX_CHECK(read_float(p, NVSDK_NGX_Parameter_Jitter_Offset_Y, 0.0f, out.jitter_y));
    D4R_NGX_CHECK(read_float(p, NVSDK_NGX_Parameter_MV_Scale_X, 1.0f, out.mv_scale_x));
    D4R_NGX_CHECK(read_float(p, NVSDK_NGX_Parameter_MV_Scale_Y, 1.0f, out.mv_scale_y));
    D4R_NGX_CHECK(read_float(p, NVSDK_NGX_Parameter_Sharpness, 0.0f, out.sharpness));
    D4R_NGX_CHECK(read_float(p, NVSDK_NGX_Parameter_DLSS_Pre_Exposure, 1.0f, out.pre_exposure));
    D4R_NGX_CHECK(read_float(p, NVSDK_NGX_Parameter_DLSS_Exposure_Scale, 1.0f, out.exposure_scale));
    // DLSS treats an unset (0) exposure value as "not given"; so does d4r.
    if (out.pre_exposure == 0.0f) out.pre_exposure = 1.0f;
    if (out.exposure_scale == 0.0f) out.exposure_scale = 1.0f;
    if (out.sharpness < -1.0f || out.sharpness > 1.0f)
        return reject(NVSDK_NGX_Result_FAIL_InvalidParameter,
                      fmt::format("Sharpness {}: must be -1..1", out.sharpness));
    out.reset = read<int>(p, NVSDK_NGX_Parameter_Reset).value_or(0) != 0;
    return {};
}

} // namespace d4r::upscaler::ngx
