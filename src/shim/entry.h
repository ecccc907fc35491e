// d4r NGX shim: what every exported NGX entry point does around its body, for every graphics API's exports.
//
// Promise: `guarded` runs a body with logging set up (D4R_LOG, once) and turns any exception into
// NVSDK_NGX_Result_Fail and one error line naming the entry point: nothing escapes into the game. `refuse` says why an
// argument was refused at debug level and returns the result (FAIL_InvalidParameter by default); `null_out` nulls an
// out-parameter before anything else. `feature_requirements` answers GetFeatureRequirements from what the shim
// implements, without Init and without touching the device: Super Resolution runs anywhere (architecture 0, no OS
// minimum), every other feature is not implemented. D4R_SHIM_EXPORT marks an exported function.
#pragma once

#include <exception>

#include "abi/ngx.h"
#include "core/log.h"

#if defined(_WIN32)
#define D4R_SHIM_EXPORT __declspec(dllexport)
#else
#define D4R_SHIM_EXPORT __attribute__((visibility("default")))
#endif

namespace d4r::shim::entry {

inline void init_logging() {
    static bool done = [] {
        log::init_from_env();
        return true;
    }();
    (void)done;
}

template <typename F>
abi::NVSDK_NGX_Result guarded(const char* entry, F&& body) {
    try {
        init_logging();
        return body();
    } catch (const std::exception& e) {
        log::error("shim: {}: internal error: {}", entry, e.what());
    } catch (...) {
        log::error("shim: {}: internal error (unknown exception)", entry);
    }
    return abi::NVSDK_NGX_Result_Fail;
}

inline abi::NVSDK_NGX_Result refuse(const char* entry, const char* why,
                                    abi::NVSDK_NGX_Result result = abi::NVSDK_NGX_Result_FAIL_InvalidParameter) {
    log::debug("shim: {}: {}", entry, why);
    return result;
}

template <typename T>
void null_out(T** out) {
    if (out != nullptr) *out = nullptr;
}

inline abi::NVSDK_NGX_Result feature_requirements(const char* entry, const abi::NVSDK_NGX_FeatureDiscoveryInfo* info,
                                                  abi::NVSDK_NGX_FeatureRequirement* out) {
    if (out != nullptr) *out = abi::NVSDK_NGX_FeatureRequirement{};
    return guarded(entry, [&] {
        if (out == nullptr) return refuse(entry, "OutSupported is null");
        if (info == nullptr) return refuse(entry, "InFeatureDiscoveryInfo is null");
        if (info->FeatureID != abi::NVSDK_NGX_Feature_SuperSampling) {
            out->FeatureSupported = abi::NVSDK_NGX_FeatureSupportResult_NotImplemented;
            log::debug("shim: {}: feature {} is not implemented (only 1, SuperSampling, is): NotImplemented", entry,
                       static_cast<int>(info->FeatureID));
            return abi::NVSDK_NGX_Result_FAIL_FeatureNotSupported;
        }
        log::info("shim: {}: SuperSampling supported (SDK version {:#x})", entry, static_cast<int>(info->SDKVersion));
        out->FeatureSupported = abi::NVSDK_NGX_FeatureSupportResult_Supported;
        return abi::NVSDK_NGX_Result_Success;
    });
}

} // namespace d4r::shim::entry
