/* d4r NGX shim: NGX's D3D12 entry points, declared by d4r from public facts (exported names, parameter
 * lists and numeric values as the DLSS SDK documents them and as NGX DLLs export them; no NVIDIA header).
 *
 * Promise: d4r_nvngx.dll exports exactly these names with these parameter lists (Windows x64 convention),
 * and a game or test program calls it through these types. NGX's own types come from abi/ngx.h; the D3D12
 * interfaces from the Windows SDK's (here mingw-w64's) d3d12.h. NVSDK_NGX_D3D12_Init_with_ProjectID is the
 * SDK's name for the entry point the NGX DLLs export as NVSDK_NGX_D3D12_Init_ProjectID; the shim exports
 * both. */
#pragma once

#include <d3d12.h>
#include <dxgi.h>

#include "abi/ngx.h"

extern "C" {

using d4r::abi::NGSDK_NGX_LoggingInfo;
using d4r::abi::NVSDK_NGX_EngineType;
using d4r::abi::NVSDK_NGX_Feature;
using d4r::abi::NVSDK_NGX_FeatureCommonInfo;
using d4r::abi::NVSDK_NGX_FeatureDiscoveryInfo;
using d4r::abi::NVSDK_NGX_FeatureRequirement;
using d4r::abi::NVSDK_NGX_Handle;
using d4r::abi::NVSDK_NGX_Parameter;
using d4r::abi::NVSDK_NGX_Result;
using d4r::abi::NVSDK_NGX_Version;
using d4r::abi::PFN_NVSDK_NGX_ProgressCallback;
using d4r::abi::PFN_NVSDK_NGX_ProgressCallback_C;

NVSDK_NGX_Result NVSDK_NGX_D3D12_Init(unsigned long long InApplicationId, const wchar_t* InApplicationDataPath,
                                      ID3D12Device* InDevice, const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
                                      NVSDK_NGX_Version InSDKVersion);
NVSDK_NGX_Result NVSDK_NGX_D3D12_Init_Ext(unsigned long long InApplicationId, const wchar_t* InApplicationDataPath,
                                          ID3D12Device* InDevice, NVSDK_NGX_Version InSDKVersion,
                                          const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo);
NVSDK_NGX_Result NVSDK_NGX_D3D12_Init_ProjectID(const char* InProjectId, NVSDK_NGX_EngineType InEngineType,
                                                const char* InEngineVersion, const wchar_t* InApplicationDataPath,
                                                ID3D12Device* InDevice,
                                                const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
                                                NVSDK_NGX_Version InSDKVersion);
NVSDK_NGX_Result NVSDK_NGX_D3D12_Init_with_ProjectID(const char* InProjectId, NVSDK_NGX_EngineType InEngineType,
                                                     const char* InEngineVersion, const wchar_t* InApplicationDataPath,
                                                     ID3D12Device* InDevice,
                                                     const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
                                                     NVSDK_NGX_Version InSDKVersion);
NVSDK_NGX_Result NVSDK_NGX_D3D12_Shutdown(void);
NVSDK_NGX_Result NVSDK_NGX_D3D12_Shutdown1(ID3D12Device* InDevice);
NVSDK_NGX_Result NVSDK_NGX_D3D12_GetParameters(NVSDK_NGX_Parameter** OutParameters);
NVSDK_NGX_Result NVSDK_NGX_D3D12_AllocateParameters(NVSDK_NGX_Parameter** OutParameters);
NVSDK_NGX_Result NVSDK_NGX_D3D12_GetCapabilityParameters(NVSDK_NGX_Parameter** OutParameters);
NVSDK_NGX_Result NVSDK_NGX_D3D12_DestroyParameters(NVSDK_NGX_Parameter* InParameters);
NVSDK_NGX_Result NVSDK_NGX_D3D12_GetScratchBufferSize(NVSDK_NGX_Feature InFeatureId,
                                                      const NVSDK_NGX_Parameter* InParameters, size_t* OutSizeInBytes);
/* Whether InFeatureDiscoveryInfo->FeatureID can run on InAdapter, asked before Init or CreateFeature. */
NVSDK_NGX_Result NVSDK_NGX_D3D12_GetFeatureRequirements(IDXGIAdapter* InAdapter,
                                                        const NVSDK_NGX_FeatureDiscoveryInfo* InFeatureDiscoveryInfo,
                                                        NVSDK_NGX_FeatureRequirement* OutSupported);
NVSDK_NGX_Result NVSDK_NGX_D3D12_CreateFeature(ID3D12GraphicsCommandList* InCmdList, NVSDK_NGX_Feature InFeatureID,
                                               NVSDK_NGX_Parameter* InParameters, NVSDK_NGX_Handle** OutHandle);
NVSDK_NGX_Result NVSDK_NGX_D3D12_ReleaseFeature(NVSDK_NGX_Handle* InHandle);
NVSDK_NGX_Result NVSDK_NGX_D3D12_EvaluateFeature(ID3D12GraphicsCommandList* InCmdList,
                                                 const NVSDK_NGX_Handle* InFeatureHandle,
                                                 const NVSDK_NGX_Parameter* InParameters,
                                                 PFN_NVSDK_NGX_ProgressCallback InCallback);
NVSDK_NGX_Result NVSDK_NGX_D3D12_EvaluateFeature_C(ID3D12GraphicsCommandList* InCmdList,
                                                   const NVSDK_NGX_Handle* InFeatureHandle,
                                                   const NVSDK_NGX_Parameter* InParameters,
                                                   PFN_NVSDK_NGX_ProgressCallback_C InCallback);

} /* extern "C" */
