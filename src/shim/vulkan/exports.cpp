// NGX's Vulkan entry points, exported by the shim's Vulkan front end (vulkan/ngx_vulkan.h; the parameter C accessors
// are in parameter_exports.cpp). Each entry point nulls its out-parameters, checks its arguments (refusals at debug
// level), forwards to the Shim and catches every exception (entry.h): nothing a game does through this API may crash
// it. The extension queries answer what the VRAM data path needs: VK_KHR_external_memory_fd on the device (Vulkan 1.1
// has the rest in its core), nothing on the instance; the Windows DLL asks for nothing (a Windows program's memory
// cannot be shared as a file descriptor: it has the host path only, docs/vulkan.md).
#include <cstring>
#include <memory>

#include "core/log.h"
#include "shim/entry.h"
#include "shim/shim.h"
#include "shim/vulkan/device.h"
#include "shim/vulkan/ngx_vulkan.h"
#include "shim/vulkan/resources.h"

using namespace d4r::abi;
using d4r::shim::Shim;
using d4r::shim::entry::guarded;
using d4r::shim::entry::null_out;
using d4r::shim::entry::refuse;
namespace dlog = d4r::log;
namespace vk = d4r::shim::vulkan;

namespace {

const char* const kDeviceExtensionNames[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
#if defined(_WIN32)
constexpr uint32_t kDeviceExtensionCount = 0;
#else
constexpr uint32_t kDeviceExtensionCount = 1;
#endif

NVSDK_NGX_Result init(const char* entry, VkInstance instance, VkPhysicalDevice physical, VkDevice device,
                      PFN_vkGetInstanceProcAddr gipa, PFN_vkGetDeviceProcAddr gdpa, const wchar_t* data_path,
                      int sdk_version) {
    return guarded(entry, [&] {
        if (instance == VK_NULL_HANDLE) return refuse(entry, "InInstance is null");
        if (physical == VK_NULL_HANDLE) return refuse(entry, "InPD is null");
        if (device == VK_NULL_HANDLE) return refuse(entry, "InDevice is null");
        dlog::info("shim: {}: SDK version {:#x}", entry, sdk_version);
        auto opened = vk::Device::open(instance, physical, device, gipa, gdpa);
        if (!opened) {
            dlog::error("shim: {}: {}", entry, opened.error().text());
            return NVSDK_NGX_Result_FAIL_PlatformError;
        }
        Shim::DeviceUuid uuid{};
        std::memcpy(uuid.data(), (*opened)->context().uuid, uuid.size());
        auto made = std::make_shared<std::unique_ptr<vk::Device>>(std::move(*opened));
        return Shim::instance().init(
            entry, [made]() -> std::unique_ptr<d4r::shim::ApiDevice> { return std::move(*made); }, data_path, uuid);
    });
}

NVSDK_NGX_Result evaluate(const char* entry, VkCommandBuffer list, const NVSDK_NGX_Handle* handle,
                          const NVSDK_NGX_Parameter* params) {
    return guarded(entry, [&] {
        if (list == VK_NULL_HANDLE) return refuse(entry, "InCmdList is null");
        if (handle == nullptr) return refuse(entry, "InFeatureHandle is null");
        if (params == nullptr) return refuse(entry, "InParameters is null");
        return Shim::instance().evaluate_feature(vk::handle(list), handle, params);
    });
}

NVSDK_NGX_Result create(const char* entry, VkCommandBuffer list, NVSDK_NGX_Feature feature, NVSDK_NGX_Parameter* params,
                        NVSDK_NGX_Handle** out) {
    null_out(out);
    return guarded(entry, [&] {
        if (out == nullptr) return refuse(entry, "OutHandle is null");
        if (params == nullptr) return refuse(entry, "InParameters is null");
        return Shim::instance().create_feature(vk::handle(list), feature, params, out);
    });
}

// The extension list as NGX hands it out: a count and a pointer to an array the library owns.
NVSDK_NGX_Result extensions(const char* entry, bool device, uint32_t* count, VkExtensionProperties** properties) {
    if (properties != nullptr) *properties = nullptr;
    return guarded(entry, [&] {
        if (count == nullptr) return refuse(entry, "OutExtensionCount is null");
        static VkExtensionProperties device_list[1] = {};
        if (device_list[0].extensionName[0] == '\0') {
            std::strncpy(device_list[0].extensionName, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                         VK_MAX_EXTENSION_NAME_SIZE - 1);
            device_list[0].specVersion = VK_KHR_EXTERNAL_MEMORY_FD_SPEC_VERSION;
        }
        *count = device ? kDeviceExtensionCount : 0;
        if (properties != nullptr) *properties = device && kDeviceExtensionCount ? device_list : nullptr;
        return NVSDK_NGX_Result_Success;
    });
}

} // namespace

extern "C" {

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_RequiredExtensions(unsigned int* OutInstanceExtCount,
                                                                     const char*** OutInstanceExts,
                                                                     unsigned int* OutDeviceExtCount,
                                                                     const char*** OutDeviceExts) {
    constexpr const char* entry = "NVSDK_NGX_VULKAN_RequiredExtensions";
    null_out(OutInstanceExts);
    null_out(OutDeviceExts);
    return guarded(entry, [&] {
        if (!OutInstanceExtCount || !OutInstanceExts || !OutDeviceExtCount || !OutDeviceExts)
            return refuse(entry, "an out-parameter is null");
        static const char* device_names[1] = {kDeviceExtensionNames[0]};
        *OutInstanceExtCount = 0;
        *OutDeviceExtCount = kDeviceExtensionCount;
        *OutDeviceExts = kDeviceExtensionCount ? device_names : nullptr;
        return NVSDK_NGX_Result_Success;
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetFeatureInstanceExtensionRequirements(
    const NVSDK_NGX_FeatureDiscoveryInfo* FeatureDiscoveryInfo, uint32_t* OutExtensionCount,
    VkExtensionProperties** OutExtensionProperties) {
    return extensions("NVSDK_NGX_VULKAN_GetFeatureInstanceExtensionRequirements", false, OutExtensionCount,
                      OutExtensionProperties);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetFeatureDeviceExtensionRequirements(
    VkInstance Instance, VkPhysicalDevice PhysicalDevice, const NVSDK_NGX_FeatureDiscoveryInfo* FeatureDiscoveryInfo,
    uint32_t* OutExtensionCount, VkExtensionProperties** OutExtensionProperties) {
    return extensions("NVSDK_NGX_VULKAN_GetFeatureDeviceExtensionRequirements", true, OutExtensionCount,
                      OutExtensionProperties);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetFeatureRequirements(
    VkInstance Instance, VkPhysicalDevice PhysicalDevice, const NVSDK_NGX_FeatureDiscoveryInfo* FeatureDiscoveryInfo,
    NVSDK_NGX_FeatureRequirement* OutSupported) {
    return d4r::shim::entry::feature_requirements("NVSDK_NGX_VULKAN_GetFeatureRequirements", FeatureDiscoveryInfo,
                                                  OutSupported);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_Init(unsigned long long InApplicationId,
                                                       const wchar_t* InApplicationDataPath, VkInstance InInstance,
                                                       VkPhysicalDevice InPD, VkDevice InDevice,
                                                       PFN_vkGetInstanceProcAddr InGIPA, PFN_vkGetDeviceProcAddr InGDPA,
                                                       const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
                                                       NVSDK_NGX_Version InSDKVersion) {
    return init("NVSDK_NGX_VULKAN_Init", InInstance, InPD, InDevice, InGIPA, InGDPA, InApplicationDataPath,
                InSDKVersion);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_Init_with_ProjectID(
    const char* InProjectId, NVSDK_NGX_EngineType InEngineType, const char* InEngineVersion,
    const wchar_t* InApplicationDataPath, VkInstance InInstance, VkPhysicalDevice InPD, VkDevice InDevice,
    PFN_vkGetInstanceProcAddr InGIPA, PFN_vkGetDeviceProcAddr InGDPA, const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo,
    NVSDK_NGX_Version InSDKVersion) {
    constexpr const char* entry = "NVSDK_NGX_VULKAN_Init_with_ProjectID";
    return guarded(entry, [&] {
        if (InProjectId == nullptr) return refuse(entry, "InProjectId is null");
        dlog::info("shim: {}: project {}, engine version {}", entry, InProjectId,
                   InEngineVersion ? InEngineVersion : "-");
        return init(entry, InInstance, InPD, InDevice, InGIPA, InGDPA, InApplicationDataPath, InSDKVersion);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_Shutdown(void) {
    return guarded("NVSDK_NGX_VULKAN_Shutdown", [] { return Shim::instance().shutdown(); });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_Shutdown1(VkDevice InDevice) {
    return guarded("NVSDK_NGX_VULKAN_Shutdown1", [] { return Shim::instance().shutdown(); });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetParameters(NVSDK_NGX_Parameter** OutParameters) {
    null_out(OutParameters);
    return guarded("NVSDK_NGX_VULKAN_GetParameters", [&] {
        if (OutParameters == nullptr) return refuse("NVSDK_NGX_VULKAN_GetParameters", "OutParameters is null");
        return Shim::instance().get_parameters(OutParameters);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_AllocateParameters(NVSDK_NGX_Parameter** OutParameters) {
    null_out(OutParameters);
    return guarded("NVSDK_NGX_VULKAN_AllocateParameters", [&] {
        if (OutParameters == nullptr) return refuse("NVSDK_NGX_VULKAN_AllocateParameters", "OutParameters is null");
        return Shim::instance().allocate_parameters(OutParameters, false);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetCapabilityParameters(NVSDK_NGX_Parameter** OutParameters) {
    null_out(OutParameters);
    return guarded("NVSDK_NGX_VULKAN_GetCapabilityParameters", [&] {
        if (OutParameters == nullptr)
            return refuse("NVSDK_NGX_VULKAN_GetCapabilityParameters", "OutParameters is null");
        return Shim::instance().allocate_parameters(OutParameters, true);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_DestroyParameters(NVSDK_NGX_Parameter* InParameters) {
    return guarded("NVSDK_NGX_VULKAN_DestroyParameters", [&] {
        if (InParameters == nullptr) return refuse("NVSDK_NGX_VULKAN_DestroyParameters", "InParameters is null");
        return Shim::instance().destroy_parameters(InParameters);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_GetScratchBufferSize(NVSDK_NGX_Feature InFeatureId,
                                                                       const NVSDK_NGX_Parameter* InParameters,
                                                                       size_t* OutSizeInBytes) {
    if (OutSizeInBytes != nullptr) *OutSizeInBytes = 0;
    return guarded("NVSDK_NGX_VULKAN_GetScratchBufferSize", [&] {
        if (OutSizeInBytes == nullptr) return refuse("NVSDK_NGX_VULKAN_GetScratchBufferSize", "OutSizeInBytes is null");
        return NVSDK_NGX_Result_Success; // the shim and its cores need no scratch buffer from the game
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_CreateFeature(VkCommandBuffer InCmdBuffer,
                                                                NVSDK_NGX_Feature InFeatureID,
                                                                NVSDK_NGX_Parameter* InParameters,
                                                                NVSDK_NGX_Handle** OutHandle) {
    return create("NVSDK_NGX_VULKAN_CreateFeature", InCmdBuffer, InFeatureID, InParameters, OutHandle);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_CreateFeature1(VkDevice InDevice, VkCommandBuffer InCmdList,
                                                                 NVSDK_NGX_Feature InFeatureID,
                                                                 NVSDK_NGX_Parameter* InParameters,
                                                                 NVSDK_NGX_Handle** OutHandle) {
    return create("NVSDK_NGX_VULKAN_CreateFeature1", InCmdList, InFeatureID, InParameters, OutHandle);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_ReleaseFeature(NVSDK_NGX_Handle* InHandle) {
    return guarded("NVSDK_NGX_VULKAN_ReleaseFeature", [&] {
        if (InHandle == nullptr) return refuse("NVSDK_NGX_VULKAN_ReleaseFeature", "InHandle is null");
        return Shim::instance().release_feature(InHandle);
    });
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_EvaluateFeature(VkCommandBuffer InCmdList,
                                                                  const NVSDK_NGX_Handle* InFeatureHandle,
                                                                  const NVSDK_NGX_Parameter* InParameters,
                                                                  PFN_NVSDK_NGX_ProgressCallback InCallback) {
    return evaluate("NVSDK_NGX_VULKAN_EvaluateFeature", InCmdList, InFeatureHandle, InParameters);
}

D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_VULKAN_EvaluateFeature_C(VkCommandBuffer InCmdList,
                                                                    const NVSDK_NGX_Handle* InFeatureHandle,
                                                                    const NVSDK_NGX_Parameter* InParameters,
                                                                    PFN_NVSDK_NGX_ProgressCallback_C InCallback) {
    return evaluate("NVSDK_NGX_VULKAN_EvaluateFeature_C", InCmdList, InFeatureHandle, InParameters);
}

} // extern "C"
