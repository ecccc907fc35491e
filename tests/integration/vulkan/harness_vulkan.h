// The Vulkan functions the Vulkan harness (../vulkan_harness.cpp) calls, loaded at run time from the system's Vulkan
// loader (libvulkan.so.1 on Linux, vulkan-1.dll on Windows and under Wine), so that the same source builds natively
// and with mingw (which has no Vulkan import library). Each function is a global pointer with the function's own
// name: the harness's calls read as a Vulkan program's. Include this before any other Vulkan header.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

// clang-format off
#define HARNESS_VK_GLOBAL(X) X(vkCreateInstance)
#define HARNESS_VK_INSTANCE(X) \
    X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties) \
    X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) \
    X(vkGetPhysicalDeviceImageFormatProperties) X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice) \
    X(vkGetDeviceProcAddr) X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkDeviceWaitIdle) X(vkQueueSubmit) \
    X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers) X(vkResetCommandBuffer) \
    X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCreateFence) X(vkDestroyFence) X(vkResetFences) \
    X(vkWaitForFences) X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkBindBufferMemory) \
    X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements) X(vkBindImageMemory) X(vkCreateImageView) \
    X(vkDestroyImageView) X(vkAllocateMemory) X(vkFreeMemory) X(vkMapMemory) X(vkUnmapMemory) \
    X(vkCmdPipelineBarrier) X(vkCmdCopyBufferToImage) X(vkCmdCopyImageToBuffer) X(vkCreateQueryPool) \
    X(vkDestroyQueryPool) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp) X(vkGetQueryPoolResults)
// clang-format on

#define HARNESS_VK_DECLARE(name) inline PFN_##name name = nullptr;
inline PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
HARNESS_VK_GLOBAL(HARNESS_VK_DECLARE)
HARNESS_VK_INSTANCE(HARNESS_VK_DECLARE)
#undef HARNESS_VK_DECLARE

// Loads the system's Vulkan loader and the global functions; an empty string, or why not.
std::string harness_load_vulkan();
// The instance's functions (after vkCreateInstance); an empty string, or the first one missing.
std::string harness_load_instance_functions(VkInstance instance);
// The shim library PATH (dlopen / LoadLibrary) and a symbol of it; null with WHY set when it cannot be loaded.
void* harness_open_library(const std::string& path, std::string& why);
void* harness_symbol(void* library, const char* name);
