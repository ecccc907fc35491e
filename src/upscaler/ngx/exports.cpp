// The NGX CUDA API and the parameter C accessors, exported by libd4r_ngx.so (every other symbol of the
// library is hidden). Each entry point nulls its out-parameters, checks its arguments and forwards to
// the Core.
#include <cstdint>
#include <exception>
#include <new>
#include <string>

#include "core/log.h"
#include "upscaler/ngx/core.h"

#if defined(_WIN32)
#define D4R_NGX_EXPORT __declspec(dllexport)
#else
#define D4R_NGX_EXPORT __attribute__((visibility("default")))
#endif

using namespace d4r::abi;
using d4r::upscaler::ngx::Core;
namespace dlog = d4r::log;

namespace {

// The SDK's Init and the core DLL's Init share one name but not one parameter list (abi/ngx.h); a
// version is a small non-zero number, a FeatureCommonInfo pointer is null or large.
bool looks_like_version(const void* value) {
    auto v = reinterpret_cast<uintptr_t>(value);
    return v != 0 && v < 0x10000;
}

NVSDK_NGX_Result init(const char* entry, unsigned long long app_id, const char* project, int sdk_version) {
    NVSDK_NGX_Result r = Core::instance().init(entry);
    if (project != nullptr)
        dlog::info("ngx: {}: project {}, SDK version {:#x} -> {:#x}", entry, project, sdk_version,
                   static_cast<unsigned>(r));
    else
        dlog::info("ngx: {}: application {}, SDK version {:#x} -> {:#x}", entry, app_id, sdk_version,
                   static_cast<unsigned>(r));
    return r;
}

// The exception barrier of every export: nothing thrown below reaches the game. std::bad_alloc answers
// FAIL_OutOfGPUMemory, anything else FAIL_PlatformError; each is logged once per entry point.
template <typename F>
NVSDK_NGX_Result guarded(const char* entry, F&& body) noexcept {
    NVSDK_NGX_Result result = NVSDK_NGX_Result_FAIL_PlatformError;
    std::string what = "an unknown exception";
    try {
        return body();
    } catch (const std::bad_alloc&) {
        result = NVSDK_NGX_Result_FAIL_OutOfGPUMemory;
        what = "out of memory (std::bad_alloc)";
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
    }
    try {
        if (dlog::once(std::string("ngx-exception-") + entry))
            dlog::error("ngx: {}: stopped by an internal exception: {}; it answers {:#x} (logged once)", entry, what,
                        static_cast<unsigned>(result));
    } catch (...) {
    }
    return result;
}

template <typename T>
void null_out(T** out) {
    if (out != nullptr) *out = nullptr;
}

} // namespace

extern "C" {

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_Init(unsigned long long InApplicationId,
                                                    const wchar_t* InApplicationDataPath,
                                                    const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
                                                    NVSDK_NGX_Version InSDKVersion) {
    return guarded("NVSDK_NGX_CUDA_Init", [&]() -> NVSDK_NGX_Result {
        int version = InSDKVersion;
        // Driver form (id, path, version): the version arrives where the SDK form has the pointer, and the
        // fourth argument is whatever its register held, so it is not read.
        if (looks_like_version(InFeatureInfo)) version = static_cast<int>(reinterpret_cast<uintptr_t>(InFeatureInfo));
        return init("NVSDK_NGX_CUDA_Init", InApplicationId, nullptr, version);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_Init_Ext(unsigned long long InApplicationId,
                                                        const wchar_t* InApplicationDataPath,
                                                        NVSDK_NGX_Version InSDKVersion,
                                                        const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo) {
    return guarded("NVSDK_NGX_CUDA_Init_Ext", [&]() -> NVSDK_NGX_Result {
        return init("NVSDK_NGX_CUDA_Init_Ext", InApplicationId, nullptr, InSDKVersion);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_Init_ProjectID(const char* InProjectId,
                                                              NVSDK_NGX_EngineType InEngineType,
                                                              const char* InEngineVersion,
                                                              const wchar_t* InApplicationDataPath,
                                                              NVSDK_NGX_Version InSDKVersion,
                                                              const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo) {
    return guarded("NVSDK_NGX_CUDA_Init_ProjectID", [&]() -> NVSDK_NGX_Result {
        if (InProjectId == nullptr) {
            dlog::warn("ngx: NVSDK_NGX_CUDA_Init_ProjectID: the project id is null");
            return NVSDK_NGX_Result_FAIL_InvalidParameter;
        }
        return init("NVSDK_NGX_CUDA_Init_ProjectID", 0, InProjectId, InSDKVersion);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_Shutdown(void) {
    return guarded("NVSDK_NGX_CUDA_Shutdown", [&]() -> NVSDK_NGX_Result { return Core::instance().shutdown(); });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_Shutdown1(NVSDK_NGX_CUDADevice* InDevice) {
    return guarded("NVSDK_NGX_CUDA_Shutdown1", [&]() -> NVSDK_NGX_Result { return Core::instance().shutdown(); });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_GetParameters(NVSDK_NGX_Parameter** OutParameters) {
    return guarded("NVSDK_NGX_CUDA_GetParameters", [&]() -> NVSDK_NGX_Result {
        null_out(OutParameters);
        if (OutParameters == nullptr) return NVSDK_NGX_Result_FAIL_InvalidParameter;
        return Core::instance().get_parameters(OutParameters);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_AllocateParameters(NVSDK_NGX_Parameter** OutParameters) {
    return guarded("NVSDK_NGX_CUDA_AllocateParameters", [&]() -> NVSDK_NGX_Result {
        null_out(OutParameters);
        if (OutParameters == nullptr) return NVSDK_NGX_Result_FAIL_InvalidParameter;
        return Core::instance().allocate_parameters(OutParameters, false);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_GetCapabilityParameters(NVSDK_NGX_Parameter** OutParameters) {
    return guarded("NVSDK_NGX_CUDA_GetCapabilityParameters", [&]() -> NVSDK_NGX_Result {
        null_out(OutParameters);
        if (OutParameters == nullptr) return NVSDK_NGX_Result_FAIL_InvalidParameter;
        return Core::instance().allocate_parameters(OutParameters, true);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_DestroyParameters(NVSDK_NGX_Parameter* InParameters) {
    return guarded("NVSDK_NGX_CUDA_DestroyParameters",
                   [&]() -> NVSDK_NGX_Result { return Core::instance().destroy_parameters(InParameters); });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_GetScratchBufferSize(NVSDK_NGX_Feature InFeatureId,
                                                                    const NVSDK_NGX_Parameter* InParameters,
                                                                    size_t* OutSizeInBytes) {
    return guarded("NVSDK_NGX_CUDA_GetScratchBufferSize", [&]() -> NVSDK_NGX_Result {
        if (OutSizeInBytes == nullptr) return NVSDK_NGX_Result_FAIL_InvalidParameter;
        *OutSizeInBytes = 0;
        return Core::instance().scratch_buffer_size(InFeatureId, OutSizeInBytes);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature InFeatureID,
                                                             const NVSDK_NGX_Parameter* InParameters,
                                                             NVSDK_NGX_Handle** OutHandle) {
    return guarded("NVSDK_NGX_CUDA_CreateFeature", [&]() -> NVSDK_NGX_Result {
        null_out(OutHandle);
        if (OutHandle == nullptr || InParameters == nullptr) {
            dlog::warn("ngx: CreateFeature: {} is null", OutHandle == nullptr ? "OutHandle" : "InParameters");
            return Core::instance().initialized() ? NVSDK_NGX_Result_FAIL_InvalidParameter
                                                  : NVSDK_NGX_Result_FAIL_NotInitialized;
        }
        return Core::instance().create_feature(InFeatureID, InParameters, OutHandle);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_ReleaseFeature(NVSDK_NGX_Handle* InHandle) {
    return guarded("NVSDK_NGX_CUDA_ReleaseFeature", [&]() -> NVSDK_NGX_Result {
        if (InHandle == nullptr)
            return Core::instance().initialized() ? NVSDK_NGX_Result_FAIL_InvalidParameter
                                                  : NVSDK_NGX_Result_FAIL_NotInitialized;
        return Core::instance().release_feature(InHandle);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_EvaluateFeature(const NVSDK_NGX_Handle* InFeatureHandle,
                                                               const NVSDK_NGX_Parameter* InParameters,
                                                               PFN_NVSDK_NGX_ProgressCallback InCallback) {
    return guarded("NVSDK_NGX_CUDA_EvaluateFeature", [&]() -> NVSDK_NGX_Result {
        if (InFeatureHandle == nullptr || InParameters == nullptr)
            return Core::instance().initialized() ? NVSDK_NGX_Result_FAIL_InvalidParameter
                                                  : NVSDK_NGX_Result_FAIL_NotInitialized;
        return Core::instance().evaluate_feature(InFeatureHandle, InParameters);
    });
}

D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_CUDA_EvaluateFeature_C(const NVSDK_NGX_Handle* InFeatureHandle,
                                                                 const NVSDK_NGX_Parameter* InParameters,
                                                                 PFN_NVSDK_NGX_ProgressCallback_C InCallback) {
    return guarded("NVSDK_NGX_CUDA_EvaluateFeature_C", [&]() -> NVSDK_NGX_Result {
        return NVSDK_NGX_CUDA_EvaluateFeature(InFeatureHandle, InParameters, nullptr);
    });
}

// ---- C accessors: through the object's table, so they work on any parameter object ----------------

#define D4R_NGX_SETTER(Suffix, Type)                                                                          \
    D4R_NGX_EXPORT void NVSDK_NGX_Parameter_Set##Suffix(NVSDK_NGX_Parameter* InParameter, const char* InName, \
                                                        Type InValue) {                                       \
        (void)guarded("NVSDK_NGX_Parameter_Set" #Suffix, [&] {                                                \
            if (InParameter != nullptr && InName != nullptr)                                                  \
                InParameter->vtbl->Set##Suffix(InParameter, InName, InValue);                                 \
            return NVSDK_NGX_Result_Success;                                                                  \
        });                                                                                                   \
    }
#define D4R_NGX_GETTER(Suffix, Type)                                                                          \
    D4R_NGX_EXPORT NVSDK_NGX_Result NVSDK_NGX_Parameter_Get##Suffix(NVSDK_NGX_Parameter* InParameter,         \
                                                                    const char* InName, Type* OutValue) {     \
        if (InParameter == nullptr || InName == nullptr || OutValue == nullptr) return NVSDK_NGX_Result_Fail; \
        return guarded("NVSDK_NGX_Parameter_Get" #Suffix,                                                     \
                       [&] { return InParameter->vtbl->Get##Suffix(InParameter, InName, OutValue); });        \
    }

D4R_NGX_SETTER(ULL, unsigned long long)
D4R_NGX_SETTER(F, float)
D4R_NGX_SETTER(D, double)
D4R_NGX_SETTER(UI, unsigned int)
D4R_NGX_SETTER(I, int)
D4R_NGX_SETTER(D3d11Resource, ID3D11Resource*)
D4R_NGX_SETTER(D3d12Resource, ID3D12Resource*)
D4R_NGX_SETTER(VoidPointer, void*)
D4R_NGX_GETTER(ULL, unsigned long long)
D4R_NGX_GETTER(F, float)
D4R_NGX_GETTER(D, double)
D4R_NGX_GETTER(UI, unsigned int)
D4R_NGX_GETTER(I, int)
D4R_NGX_GETTER(D3d11Resource, ID3D11Resource*)
D4R_NGX_GETTER(D3d12Resource, ID3D12Resource*)
D4R_NGX_GETTER(VoidPointer, void*)

} // extern "C"
