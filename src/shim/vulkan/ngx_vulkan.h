/* d4r NGX shim: NGX's Vulkan entry points and its Vulkan resource description, declared by d4r from public facts
 * (exported names, parameter lists, structure layouts and numeric values as the DLSS SDK documents them; no NVIDIA
 * header).
 *
 * Promise: the shim's Vulkan front end (libd4r_nvngx.so on Linux; d4r_nvngx.dll under Proton) exports exactly these
 * names with these parameter lists, and a game or test program calls it through these types. NGX's own types come
 * from abi/ngx.h, Vulkan's from <vulkan/vulkan.h>. A game passes each image as a pointer to an
 * NVSDK_NGX_Resource_VK, set with the parameter object's `Set(name, void*)` under the same names as for D3D12
 * ("Color", "Depth", "MotionVectors", "Output", "ExposureTexture"). The layouts are checked below. */
#pragma once

#include <vulkan/vulkan.h>

#include "abi/ngx.h"

extern "C" {

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

typedef enum NVSDK_NGX_Resource_VK_Type {
    NVSDK_NGX_RESOURCE_VK_TYPE_VK_IMAGEVIEW = 0,
    NVSDK_NGX_RESOURCE_VK_TYPE_VK_BUFFER = 1,
} NVSDK_NGX_Resource_VK_Type;

/* An image view and the image under it; Width and Height are the texels the game means (its render or output
 * size), which may be smaller than the image. */
typedef struct NVSDK_NGX_ImageViewInfo_VK {
    VkImageView ImageView;
    VkImage Image;
    VkImageSubresourceRange SubresourceRange;
    VkFormat Format;
    unsigned int Width;
    unsigned int Height;
} NVSDK_NGX_ImageViewInfo_VK;

typedef struct NVSDK_NGX_BufferInfo_VK {
    VkBuffer Buffer;
    unsigned int SizeInBytes;
} NVSDK_NGX_BufferInfo_VK;

typedef struct NVSDK_NGX_Resource_VK {
    union {
        NVSDK_NGX_ImageViewInfo_VK ImageViewInfo;
        NVSDK_NGX_BufferInfo_VK BufferInfo;
    } Resource;
    NVSDK_NGX_Resource_VK_Type Type;
    bool ReadWrite; /* the image has STORAGE usage (the output must) */
} NVSDK_NGX_Resource_VK;

/* x86-64: handles are 8 bytes, the union 48, Type at 48, ReadWrite at 52, 56 in all. */
static_assert(sizeof(NVSDK_NGX_ImageViewInfo_VK) == 48, "NVSDK_NGX_ImageViewInfo_VK layout");
static_assert(offsetof(NVSDK_NGX_ImageViewInfo_VK, SubresourceRange) == 16, "SubresourceRange offset");
static_assert(offsetof(NVSDK_NGX_ImageViewInfo_VK, Format) == 36, "Format offset");
static_assert(offsetof(NVSDK_NGX_Resource_VK, Type) == 48, "NVSDK_NGX_Resource_VK::Type offset");
static_assert(offsetof(NVSDK_NGX_Resource_VK, ReadWrite) == 52, "NVSDK_NGX_Resource_VK::ReadWrite offset");
static_assert(sizeof(NVSDK_NGX_Resource_VK) == 56, "NVSDK_NGX_Resource_VK layout");

NVSDK_NGX_Result NVSDK_NGX_VULKAN_RequiredExtensions(unsigned int* OutInstanceExtCount, const char*** OutInstanceExts,
                                                     unsigned int* OutDeviceExtCount, const char*** OutDeviceExts);
NVSDK_NGX_Result
NVSDK_NGX_VULKAN_GetFeatureInstanceExtensionRequirements(const NVSDK_NGX_FeatureDiscoveryInfo* FeatureDiscoveryInfo,
                                                         uint32_t* OutExtensionCount,
                                                         VkExtensionProperties** OutExtensionProperties);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetFeatureDeviceExtensionRequirements(
    VkInstance Instance, VkPhysicalDevice PhysicalDevice, const NVSDK_NGX_FeatureDiscoveryInfo* FeatureDiscoveryInfo,
    uint32_t* OutExtensionCount, VkExtensionProperties** OutExtensionProperties);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetFeatureRequirements(VkInstance Instance, VkPhysicalDevice PhysicalDevice,
                                                         const NVSDK_NGX_FeatureDiscoveryInfo* FeatureDiscoveryInfo,
                                                         NVSDK_NGX_FeatureRequirement* OutSupported);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_Init(unsigned long long InApplicationId, const wchar_t* InApplicationDataPath,
                                       VkInstance InInstance, VkPhysicalDevice InPD, VkDevice InDevice,
                                       PFN_vkGetInstanceProcAddr InGIPA, PFN_vkGetDeviceProcAddr InGDPA,
                                       const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
                                       NVSDK_NGX_Version InSDKVersion);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_Init_with_ProjectID(const char* InProjectId, NVSDK_NGX_EngineType InEngineType,
                                                      const char* InEngineVersion, const wchar_t* InApplicationDataPath,
                                                      VkInstance InInstance, VkPhysicalDevice InPD, VkDevice InDevice,
                                                      PFN_vkGetInstanceProcAddr InGIPA, PFN_vkGetDeviceProcAddr InGDPA,
                                                      const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
                                                      NVSDK_NGX_Version InSDKVersion);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_Shutdown(void);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_Shutdown1(VkDevice InDevice);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetParameters(NVSDK_NGX_Parameter** OutParameters);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_AllocateParameters(NVSDK_NGX_Parameter** OutParameters);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetCapabilityParameters(NVSDK_NGX_Parameter** OutParameters);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_DestroyParameters(NVSDK_NGX_Parameter* InParameters);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetScratchBufferSize(NVSDK_NGX_Feature InFeatureId,
                                                       const NVSDK_NGX_Parameter* InParameters, size_t* OutSizeInBytes);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_CreateFeature(VkCommandBuffer InCmdBuffer, NVSDK_NGX_Feature InFeatureID,
                                                NVSDK_NGX_Parameter* InParameters, NVSDK_NGX_Handle** OutHandle);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_CreateFeature1(VkDevice InDevice, VkCommandBuffer InCmdList,
                                                 NVSDK_NGX_Feature InFeatureID, NVSDK_NGX_Parameter* InParameters,
                                                 NVSDK_NGX_Handle** OutHandle);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_ReleaseFeature(NVSDK_NGX_Handle* InHandle);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_EvaluateFeature(VkCommandBuffer InCmdList, const NVSDK_NGX_Handle* InFeatureHandle,
                                                  const NVSDK_NGX_Parameter* InParameters,
                                                  PFN_NVSDK_NGX_ProgressCallback InCallback);
NVSDK_NGX_Result NVSDK_NGX_VULKAN_EvaluateFeature_C(VkCommandBuffer InCmdList, const NVSDK_NGX_Handle* InFeatureHandle,
                                                    const NVSDK_NGX_Parameter* InParameters,
                                                    PFN_NVSDK_NGX_ProgressCallback_C InCallback);

} /* extern "C" */
