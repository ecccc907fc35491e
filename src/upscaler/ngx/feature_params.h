// d4r open NGX core: DLSS's create and evaluate parameters read into the pipeline's terms.
//
// Promise: pure functions of a parameter map (read through its table, so any NVSDK_NGX_Parameter
// works, not only the core's own). A rejection comes back as the NGX result the API returns plus one
// line naming the parameter and its value; nothing is logged here.
#pragma once

#include <string>

#include "abi/ngx.h"
#include "upscaler/pipeline.h"

namespace d4r::upscaler::ngx {

// The largest width or height the core accepts (DLSS's own limit is 16K as well).
inline constexpr unsigned int kMaxDimension = 16384;

struct Rejection {
    abi::NVSDK_NGX_Result result = abi::NVSDK_NGX_Result_Success;
    std::string message; // "Width 0: must be 1..16384"
    bool ok() const { return result == abi::NVSDK_NGX_Result_Success; }
};

struct CreateRequest {
    PipelineConfig config;
    int perf_quality = 0;
    unsigned int flags = 0;
    unsigned int ignored_flags = 0; // bits the core does not know (logged, then ignored)
    // DLSS.Hint.Render.Preset.{DLAA,Quality,Balanced,Performance,UltraPerformance,UltraQuality}: read
    // and logged; the open core has one model, so they change nothing.
    unsigned int presets[6] = {};
    bool network = true; // D4R.Network: false = no refinement network for this feature
};

// Width/Height (render), OutWidth/OutHeight (output), DLSS.Feature.Create.Flags, PerfQualityValue.
// Missing or out-of-range sizes, an output smaller than the render size, or the IsInvalid flag give
// FAIL_InvalidParameter.
Rejection read_create(const abi::NVSDK_NGX_Parameter& params, CreateRequest& out);

// Color, Depth, MotionVectors, Output (void* holding a CUdeviceptr; missing or null gives
// FAIL_MissingInput), ExposureTexture (optional), jitter, MV scale, sharpness, reset, exposure values,
// subrects and d4r's pitches. A render size (subrect dimensions, else the created size) above the
// created size gives FAIL_InvalidParameter, as does a non-finite jitter, scale or exposure.
Rejection read_evaluate(const abi::NVSDK_NGX_Parameter& params, const PipelineConfig& config, FrameParams& out);

} // namespace d4r::upscaler::ngx
