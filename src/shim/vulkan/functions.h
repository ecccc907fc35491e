// d4r NGX shim, Vulkan: the Vulkan functions the front end calls on the game's instance and device.
//
// Promise: `load_functions` resolves every function below through the game's vkGetInstanceProcAddr /
// vkGetDeviceProcAddr (NVSDK_NGX_VULKAN_Init's InGIPA/InGDPA) or, when the game passes none, through the Vulkan
// loader of the system (libvulkan.so.1 / vulkan-1.dll), and names the first one that is missing. Device functions
// come from the device (no loader trampoline). vkGetMemoryFdKHR needs VK_KHR_external_memory_fd on the device
// (what NVSDK_NGX_VULKAN_GetFeatureDeviceExtensionRequirements asks for); without it the table has it null.
#pragma once

#include <vulkan/vulkan.h>

#include "core/status.h"

namespace d4r::shim::vulkan {

// clang-format off
#define D4R_SHIM_VK_INSTANCE_FUNCTIONS(X) \
    X(vkGetPhysicalDeviceMemoryProperties) X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFormatProperties)
#define D4R_SHIM_VK_DEVICE_FUNCTIONS(X) \
    X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) \
    X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory) X(vkCreateEvent) X(vkDestroyEvent) X(vkGetEventStatus) X(vkSetEvent) \
    X(vkCmdSetEvent) X(vkCmdWaitEvents) X(vkCmdResetEvent) X(vkCmdPipelineBarrier) X(vkCmdCopyImageToBuffer) \
    X(vkCmdCopyBufferToImage)
#define D4R_SHIM_VK_OPTIONAL_DEVICE_FUNCTIONS(X) X(vkGetMemoryFdKHR)
// clang-format on

struct Functions {
#define D4R_SHIM_VK_MEMBER(name) PFN_##name name = nullptr;
    D4R_SHIM_VK_INSTANCE_FUNCTIONS(D4R_SHIM_VK_MEMBER)
    D4R_SHIM_VK_DEVICE_FUNCTIONS(D4R_SHIM_VK_MEMBER)
    D4R_SHIM_VK_OPTIONAL_DEVICE_FUNCTIONS(D4R_SHIM_VK_MEMBER)
#undef D4R_SHIM_VK_MEMBER
};

Expected<Functions> load_functions(VkInstance instance, VkDevice device, PFN_vkGetInstanceProcAddr gipa,
                                   PFN_vkGetDeviceProcAddr gdpa);

} // namespace d4r::shim::vulkan
