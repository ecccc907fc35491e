// d4r NGX shim: one feature of the NGX core (the CUDA-side feature behind a game's NGX handle).
//
// Promise: everything here runs on the CUDA worker (cuda_worker.h) and only there, so a CoreFeature needs no
// lock: the shim shares it with its worker tasks through a shared pointer, and a task the stall watchdog
// gave up on still finds it alive. `create_core_feature` allocates the core's parameter map once (kept for
// every later call) and creates the feature from `info`; `evaluate_core` evaluates with what the caller set
// in `params` and, when the core answers NVSDK_NGX_Result_FAIL_InvalidParameter, releases the core's
// feature, creates it again from the same creation parameters and evaluates once more with Reset (the new
// feature has no history): the second answer is the result. `release_core_feature` frees both.
#pragma once

#include "abi/ngx.h"
#include "shim/ngx_core.h"

namespace d4r::shim {

// The six preset hint parameters, in the order of CreateInfo::presets (DLAA, Quality, Balanced,
// Performance, UltraPerformance, UltraQuality).
inline const char* const kPresetNames[6] = {NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_DLAA,
                                            NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Quality,
                                            NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Balanced,
                                            NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Performance,
                                            NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_UltraPerformance,
                                            NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_UltraQuality};

// The creation parameters the shim reads and passes on to the core.
struct CreateInfo {
    unsigned int width = 0, height = 0, out_width = 0, out_height = 0;
    int perf_quality = 0;
    int flags = 0;
    unsigned int presets[6] = {};
};

struct CoreFeature {
    CreateInfo info;
    abi::NVSDK_NGX_Handle* handle = nullptr;
    abi::NVSDK_NGX_Parameter* params = nullptr;
};

// What `evaluate_core` did, for the shim's log.
struct CoreOutcome {
    abi::NVSDK_NGX_Result first = abi::NVSDK_NGX_Result_Success;    // the core's first answer
    bool recreated = false;                                         // the feature was created again
    abi::NVSDK_NGX_Result recreate = abi::NVSDK_NGX_Result_Success; // that CreateFeature's answer
    abi::NVSDK_NGX_Result result = abi::NVSDK_NGX_Result_Success;   // the answer that counts
};

abi::NVSDK_NGX_Result create_core_feature(const CoreFunctions& core, CoreFeature& feature);
CoreOutcome evaluate_core(const CoreFunctions& core, CoreFeature& feature);
void release_core_feature(const CoreFunctions& core, CoreFeature& feature);

} // namespace d4r::shim
