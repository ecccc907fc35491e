// d4r NGX shim, Vulkan: the Vulkan part of one NGX device (api_device.h) — the game's instance, physical device and
// device with the functions the front end calls on them, validation of Vulkan resources (vulkan/resources.h) and
// the data paths (vulkan/path_choice.h).
//
// Promise: `Device::open` loads the functions (vulkan/functions.h), naming the first one missing; a device without
// VK_KHR_external_memory_fd is served by the host path only (vulkan/path_choice.h says so). Each feature's data
// path is a ChosenPath. The game's objects are used, never destroyed.
#pragma once

#include <memory>

#include "shim/api_device.h"
#include "shim/vulkan/functions.h"

namespace d4r::shim::vulkan {

// What a data path needs of the game's Vulkan device.
struct Context {
    Functions vk;
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties memory{};
    uint8_t uuid[VK_UUID_SIZE] = {}; // the physical device's deviceUUID (what CUDA calls the device's UUID)
};

class Device final : public ApiDevice {
public:
    static Expected<std::unique_ptr<Device>> open(VkInstance instance, VkPhysicalDevice physical, VkDevice device,
                                                  PFN_vkGetInstanceProcAddr gipa, PFN_vkGetDeviceProcAddr gdpa);
    std::optional<Refusal> validate(GameFrame& frame) const override;
    std::unique_ptr<DataPath> make_data_path(CudaWorker& worker, const upscaler::CudaFunctions& cuda,
                                             const HostOptions& options) override;
    const Context& context() const { return m_context; }

private:
    explicit Device(Context context) : m_context(context) {}
    Context m_context;
};

} // namespace d4r::shim::vulkan
