// The Vulkan part of an NGX device (vulkan/device.h).
#include "shim/vulkan/device.h"

#include <cstring>

#include "core/log.h"
#include "shim/vulkan/path_choice.h"
#include "shim/vulkan/resources.h"

namespace d4r::shim::vulkan {

Expected<std::unique_ptr<Device>> Device::open(VkInstance instance, VkPhysicalDevice physical, VkDevice device,
                                               PFN_vkGetInstanceProcAddr gipa, PFN_vkGetDeviceProcAddr gdpa) {
    Context c;
    c.vk = D4R_TRY(load_functions(instance, device, gipa, gdpa));
    c.instance = instance;
    c.physical = physical;
    c.device = device;
    c.vk.vkGetPhysicalDeviceMemoryProperties(physical, &c.memory);
    VkPhysicalDeviceIDProperties id{};
    id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 properties{};
    properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties.pNext = &id;
    c.vk.vkGetPhysicalDeviceProperties2(physical, &properties);
    std::memcpy(c.uuid, id.deviceUUID, VK_UUID_SIZE);
    log::info("shim: Vulkan device '{}' (API {}.{})", properties.properties.deviceName,
              VK_API_VERSION_MAJOR(properties.properties.apiVersion),
              VK_API_VERSION_MINOR(properties.properties.apiVersion));
    return std::unique_ptr<Device>(new Device(c));
}

std::optional<Refusal> Device::validate(GameFrame& frame) const { return validate_frame(frame); }

std::unique_ptr<DataPath> Device::make_data_path(CudaWorker& worker, const upscaler::CudaFunctions& cuda,
                                                 const HostOptions& options) {
    return std::make_unique<ChosenPath>(m_context, worker, cuda, options);
}

} // namespace d4r::shim::vulkan
