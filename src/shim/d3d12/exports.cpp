// NGX's D3D12 entry points, exported by d4r_nvngx.dll (d3d12/ngx_d3d12.h; the parameter C accessors are in
// parameter_exports.cpp). Each entry point nulls its out-parameters, checks its arguments (refusals at debug level),
// forwards to the Shim and catches every exception (entry.h): nothing a game does through this API may crash it.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/log.h"
#include "shim/d3d12/device.h"
#include "shim/d3d12/ngx_d3d12.h"
#include "shim/d3d12/resources.h"
#include "shim/entry.h"
#include "shim/shim.h"

using namespace d4r::abi;
using d4r::shim::Shim;
namespace dlog = d4r::log;

// The parameter object's table as a game compiled with MSVC calls it (abi/ngx.h): Set overloads in slots 0-7
// (void*, ID3D12Resource*, ID3D11Resource*, int, unsigned int, double, float, unsigned long long), the Get
// overloads in the same order in slots 8-15, Reset in slot 16, the table pointer first in the object.
// Checked here, in the Windows build, slot by slot.
#define D4R_SHIM_SLOT(member, slot) static_assert(offsetof(NVSDK_NGX_Parameter_Vtbl, member) == (slot) * sizeof(void*))
D4R_SHIM_SLOT(SetVoidPointer, 0);
D4R_SHIM_SLOT(SetD3d12Resource, 1);
D4R_SHIM_SLOT(SetD3d11Resource, 2);
D4R_SHIM_SLOT(SetI, 3);
D4R_SHIM_SLOT(SetUI, 4);
D4R_SHIM_SLOT(SetD, 5);
D4R_SHIM_SLOT(SetF, 6);
D4R_SHIM_SLOT(SetULL, 7);
D4R_SHIM_SLOT(GetVoidPointer, 8);
D4R_SHIM_SLOT(GetD3d12Resource, 9);
D4R_SHIM_SLOT(GetD3d11Resource, 10);
D4R_SHIM_SLOT(GetI, 11);
D4R_SHIM_SLOT(GetUI, 12);
D4R_SHIM_SLOT(GetD, 13);
D4R_SHIM_SLOT(GetF, 14);
D4R_SHIM_SLOT(GetULL, 15);
D4R_SHIM_SLOT(Reset, 16);
#undef D4R_SHIM_SLOT
static_assert(sizeof(NVSDK_NGX_Parameter_Vtbl) == D4R_NGX_PARAMETER_VTBL_SLOTS * sizeof(void*));
static_assert(offsetof(NVSDK_NGX_Parameter, vtbl) == 0);

namespace {

using d4r::shim::entry::guarded;
using d4r::shim::entry::null_out;
using d4r::shim::entry::refuse;

NVSDK_NGX_Result init(const char* entry, ID3D12Device* device, const wchar_t* data_path, int sdk_version) {
    return guarded(entry, [&] {
        if (device == nullptr) return refuse(entry, "InDevice is null");
        dlog::info("shim: {}: SDK version {:#x}", entry, sdk_version);
        return Shim::instance().init(
            entry, [device] { return std::make_unique<d4r::shim::d3d12::Device>(device); }, data_path);
    });
}

NVSDK_NGX_Result init_project(const char* entry, const char* project, const char* engine_version,
                              const wchar_t* data_path, ID3D12Device* device, int sdk_version) {
    return guarded(entry, [&] {
        if (project == nullptr) return refuse(entry, "InProjectId is null");
        dlog::info("shim: {}: project {}, engine version {}", entry, project, engine_version ? engine_version : "-");
        return init(entry, device, data_path, sdk_version);
    });
}

NVSDK_NGX_Result evaluate(const char* entry, ID3D12GraphicsCommandList* list, const NVSDK_NGX_Handle* handle,
                          const NVSDK_NGX_Parameter* params) {
    return guarded(entry, [&] {
        if (list == nullptr) return refuse(entry, "InCmdList is null");
        if (handle == nullptr) return refuse(entry, "InFeatureHandle is null");
        if (params == nullptr) return refuse(entry, "InParameters is null");
        return Shim::instance().evaluate_feature(d4r::shim::d3d12::handle(list), handle, params);
    });
}

} // namespace

extern "C" {

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_Init(unsigned long long InApplicationId,
                                                      const wchar_t* InApplicationDataPath, ID3D12Device* InDevice,
                                                      const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
                                                      NVSDK_NGX_Version InSDKVersion) {
    return init("NVSDK_NGX_D3D12_Init", InDevice, InApplicationDataPath, InSDKVersion);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_Init_Ext(unsigned long long InApplicationId,
                                                          const wchar_t* InApplicationDataPath, ID3D12Device* InDevice,
                                                          NVSDK_NGX_Version InSDKVersion,
                                                          const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo) {
    return init("NVSDK_NGX_D3D12_Init_Ext", InDevice, InApplicationDataPath, InSDKVersion);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result
NVSDK_NGX_D3D12_Init_ProjectID(const char* InProjectId, NVSDK_NGX_EngineType InEngineType, const char* InEngineVersion,
                               const wchar_t* InApplicationDataPath, ID3D12Device* InDevice,
                               const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo, NVSDK_NGX_Version InSDKVersion) {
    return init_project("NVSDK_NGX_D3D12_Init_ProjectID", InProjectId, InEngineVersion, InApplicationDataPath, InDevice,
                        InSDKVersion);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_Init_with_ProjectID(
    const char* InProjectId, NVSDK_NGX_EngineType InEngineType, const char* InEngineVersion,
    const wchar_t* InApplicationDataPath, ID3D12Device* InDevice, const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
    NVSDK_NGX_Version InSDKVersion) {
    return init_project("NVSDK_NGX_D3D12_Init_with_ProjectID", InProjectId, InEngineVersion, InApplicationDataPath,
                        InDevice, InSDKVersion);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_Shutdown(void) {
    return guarded("NVSDK_NGX_D3D12_Shutdown", [] { return Shim::instance().shutdown(); });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_Shutdown1(ID3D12Device* InDevice) {
    return guarded("NVSDK_NGX_D3D12_Shutdown1", [] { return Shim::instance().shutdown(); });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_GetParameters(NVSDK_NGX_Parameter** OutParameters) {
    null_out(OutParameters);
    return guarded("NVSDK_NGX_D3D12_GetParameters", [&] {
        if (OutParameters == nullptr) return refuse("NVSDK_NGX_D3D12_GetParameters", "OutParameters is null");
        return Shim::instance().get_parameters(OutParameters);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_AllocateParameters(NVSDK_NGX_Parameter** OutParameters) {
    null_out(OutParameters);
    return guarded("NVSDK_NGX_D3D12_AllocateParameters", [&] {
        if (OutParameters == nullptr) return refuse("NVSDK_NGX_D3D12_AllocateParameters", "OutParameters is null");
        return Shim::instance().allocate_parameters(OutParameters, false);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_GetCapabilityParameters(NVSDK_NGX_Parameter** OutParameters) {
    null_out(OutParameters);
    return guarded("NVSDK_NGX_D3D12_GetCapabilityParameters", [&] {
        if (OutParameters == nullptr) return refuse("NVSDK_NGX_D3D12_GetCapabilityParameters", "OutParameters is null");
        return Shim::instance().allocate_parameters(OutParameters, true);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_DestroyParameters(NVSDK_NGX_Parameter* InParameters) {
    return guarded("NVSDK_NGX_D3D12_DestroyParameters", [&] {
        if (InParameters == nullptr) return refuse("NVSDK_NGX_D3D12_DestroyParameters", "InParameters is null");
        return Shim::instance().destroy_parameters(InParameters);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_GetScratchBufferSize(NVSDK_NGX_Feature InFeatureId,
                                                                      const NVSDK_NGX_Parameter* InParameters,
                                                                      size_t* OutSizeInBytes) {
    if (OutSizeInBytes != nullptr) *OutSizeInBytes = 0;
    return guarded("NVSDK_NGX_D3D12_GetScratchBufferSize", [&] {
        if (OutSizeInBytes == nullptr) return refuse("NVSDK_NGX_D3D12_GetScratchBufferSize", "OutSizeInBytes is null");
        return NVSDK_NGX_Result_Success; // the shim and its cores need no scratch buffer from the game
    });
}

// Answered without Init and without touching the adapter (under Wine it is vkd3d's, not an NVIDIA GPU): entry.h.
D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_GetFeatureRequirements(
    IDXGIAdapter* InAdapter, const NVSDK_NGX_FeatureDiscoveryInfo* InFeatureDiscoveryInfo,
    NVSDK_NGX_FeatureRequirement* OutSupported) {
    return d4r::shim::entry::feature_requirements("NVSDK_NGX_D3D12_GetFeatureRequirements", InFeatureDiscoveryInfo,
                                                  OutSupported);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_CreateFeature(ID3D12GraphicsCommandList* InCmdList,
                                                               NVSDK_NGX_Feature InFeatureID,
                                                               NVSDK_NGX_Parameter* InParameters,
                                                               NVSDK_NGX_Handle** OutHandle) {
    null_out(OutHandle);
    return guarded("NVSDK_NGX_D3D12_CreateFeature", [&] {
        if (OutHandle == nullptr) return refuse("NVSDK_NGX_D3D12_CreateFeature", "OutHandle is null");
        if (InParameters == nullptr) return refuse("NVSDK_NGX_D3D12_CreateFeature", "InParameters is null");
        return Shim::instance().create_feature(d4r::shim::d3d12::handle(InCmdList), InFeatureID, InParameters,
                                               OutHandle);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_ReleaseFeature(NVSDK_NGX_Handle* InHandle) {
    return guarded("NVSDK_NGX_D3D12_ReleaseFeature", [&] {
        if (InHandle == nullptr) return refuse("NVSDK_NGX_D3D12_ReleaseFeature", "InHandle is null");
        return Shim::instance().release_feature(InHandle);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_EvaluateFeature(ID3D12GraphicsCommandList* InCmdList,
                                                                 const NVSDK_NGX_Handle* InFeatureHandle,
                                                                 const NVSDK_NGX_Parameter* InParameters,
                                                                 PFN_NVSDK_NGX_ProgressCallback InCallback) {
    return evaluate("NVSDK_NGX_D3D12_EvaluateFeature", InCmdList, InFeatureHandle, InParameters);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_D3D12_EvaluateFeature_C(ID3D12GraphicsCommandList* InCmdList,
                                                                   const NVSDK_NGX_Handle* InFeatureHandle,
                                                                   const NVSDK_NGX_Parameter* InParameters,
                                                                   PFN_NVSDK_NGX_ProgressCallback_C InCallback) {
    return evaluate("NVSDK_NGX_D3D12_EvaluateFeature_C", InCmdList, InFeatureHandle, InParameters);
}

} // extern "C"
