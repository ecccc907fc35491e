// d4r NGX shim: the NGX parameters of one evaluation, parsed into a request, and the request's frame geometry.
//
// Promise: pure code with no Windows or graphics-API dependency (unit-tested on Linux). One table
// (evaluation_parameters()) names every NGX parameter an evaluation reads, its type, its default and whether it
// is passed on to the core; `parse_evaluation_request` reads them all from the game's map and
// `apply_to_core` writes the passed-on ones into the core's map, so no parameter is spelled twice.
//   * the resources (Color, Depth, MotionVectors, Output; ExposureTexture optional) are opaque handles —
//     whatever pointer the game stored (an ID3D12Resource* for D3D12); a missing required one, or one that
//     holds a number instead of a pointer, is an error naming the parameter (ErrorCode::NotFound);
//   * the render size (DLSS.Render.Subrect.Dimensions.*) is 0 or absent for the created size; larger than the
//     created size is an error naming it (ErrorCode::Invalid);
//   * every other value missing or of a type NGX cannot convert keeps its default (as NGX does); `defaulted`
//     names those that were present but unreadable, for the log.
// `frame_geometry` turns a request into the regions and row widths the data path uses (data_path.h):
// colour and depth at the render size, motion vectors at the render size with MVLowRes and the output size
// without, the output at the output size, the exposure one texel; rows as wide as the created sizes.
// `ngx_result_of` maps a parse error to the NGX result the game gets.
#pragma once

#include <span>
#include <string>
#include <variant>
#include <vector>

#include "abi/ngx.h"
#include "core/status.h"
#include "shim/core_feature.h"
#include "shim/data_path.h"

namespace d4r::shim {

struct EvaluationRequest {
    // Inputs and output, as the game stored them (opaque here; the API's part checks them).
    ResourceHandle color = nullptr, depth = nullptr, motion = nullptr, output = nullptr, exposure = nullptr;
    // The top-left corners of the regions the game asks for.
    unsigned int color_x = 0, color_y = 0, depth_x = 0, depth_y = 0, motion_x = 0, motion_y = 0, output_x = 0,
                 output_y = 0;
    // Passed on to the core.
    float jitter_x = 0, jitter_y = 0, mv_scale_x = 1, mv_scale_y = 1, sharpness = 0, pre_exposure = 0,
          exposure_scale = 0, frame_time_ms = 0;
    int reset = 0;
    unsigned int render_width = 0, render_height = 0; // after parsing: never 0 (the created size by default)
    // Names of parameters present but not readable as their type (their default was used).
    std::vector<std::string> defaulted;
};

// One evaluation parameter: the member it fills (its type says the NGX type read), its default, whether it
// must be there (resources) and whether it is passed on to the core.
using RequestMember = std::variant<ResourceHandle EvaluationRequest::*, float EvaluationRequest::*,
                                   int EvaluationRequest::*, unsigned int EvaluationRequest::*>;
struct EvaluationParameter {
    const char* name;
    RequestMember member;
    double fallback; // resources: none (null)
    bool required;
    bool to_core;
};

// The table, in the order the parameters are read (missing resources are reported in this order).
std::span<const EvaluationParameter> evaluation_parameters();

// Reads PARAMS for a feature created with INFO.
Expected<EvaluationRequest> parse_evaluation_request(const abi::NVSDK_NGX_Parameter& params, const CreateInfo& info);

// Writes the request's passed-on values into the core's map (on the CUDA worker, before its EvaluateFeature).
void apply_to_core(const EvaluationRequest& request, abi::NVSDK_NGX_Parameter& core_params);

// The frame's resources, regions and row widths (formats are left 0 for the API's validation).
GameFrame frame_geometry(const EvaluationRequest& request, const CreateInfo& info);

// NotFound: FAIL_MissingInput; Invalid: FAIL_InvalidParameter; anything else: Fail.
abi::NVSDK_NGX_Result ngx_result_of(const Error& error);

} // namespace d4r::shim
