// The NGX core's feature, on the CUDA worker (core_feature.h).
#include "shim/core_feature.h"

namespace d4r::shim {

using namespace abi;

NVSDK_NGX_Result create_core_feature(const CoreFunctions& core, CoreFeature& feature) {
    if (!feature.params) {
        NVSDK_NGX_Result r = core.NVSDK_NGX_CUDA_AllocateParameters(&feature.params);
        if (NVSDK_NGX_FAILED(r) || !feature.params) {
            feature.params = nullptr;
            return NVSDK_NGX_FAILED(r) ? r : NVSDK_NGX_Result_Fail;
        }
    }
    NVSDK_NGX_Parameter& p = *feature.params;
    const CreateInfo& c = feature.info;
    p.Set(NVSDK_NGX_Parameter_Width, c.width);
    p.Set(NVSDK_NGX_Parameter_Height, c.height);
    p.Set(NVSDK_NGX_Parameter_OutWidth, c.out_width);
    p.Set(NVSDK_NGX_Parameter_OutHeight, c.out_height);
    p.Set(NVSDK_NGX_Parameter_PerfQualityValue, c.perf_quality);
    p.Set(NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags, c.flags);
    for (int k = 0; k < 6; ++k) p.Set(kPresetNames[k], c.presets[k]);
    feature.handle = nullptr;
    return core.NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature_SuperSampling, &p, &feature.handle);
}

CoreOutcome evaluate_core(const CoreFunctions& core, CoreFeature& feature) {
    CoreOutcome out;
    out.first = out.result = feature.handle
                                 ? core.NVSDK_NGX_CUDA_EvaluateFeature(feature.handle, feature.params, nullptr)
                                 : NVSDK_NGX_Result_FAIL_InvalidParameter;
    if (out.first != NVSDK_NGX_Result_FAIL_InvalidParameter) return out;
    out.recreated = true;
    if (feature.handle) core.NVSDK_NGX_CUDA_ReleaseFeature(feature.handle);
    feature.handle = nullptr;
    out.recreate = create_core_feature(core, feature);
    if (NVSDK_NGX_FAILED(out.recreate)) {
        feature.handle = nullptr;
        out.result = out.recreate;
        return out;
    }
    feature.params->Set(NVSDK_NGX_Parameter_Reset, 1);
    out.result = core.NVSDK_NGX_CUDA_EvaluateFeature(feature.handle, feature.params, nullptr);
    return out;
}

void release_core_feature(const CoreFunctions& core, CoreFeature& feature) {
    if (feature.handle) core.NVSDK_NGX_CUDA_ReleaseFeature(feature.handle);
    if (feature.params) core.NVSDK_NGX_CUDA_DestroyParameters(feature.params);
    feature.handle = nullptr;
    feature.params = nullptr;
}

} // namespace d4r::shim
