// cpu backend: the UUID of the CPU Vulkan device, so that Vulkan programs find the cpu backend's device.
//
// Promise: the CUDA programming guide's Vulkan interop recipe picks the CUDA device whose cuDeviceGetUuid equals
// the Vulkan physical device's VkPhysicalDeviceIDProperties::deviceUUID. On the cpu backend the memory such a
// program shares comes from a CPU Vulkan driver (lavapipe), so the cpu device answers with that driver's device
// UUID: cpu_vulkan_device_uuid() returns the deviceUUID of the first physical device of type
// VK_PHYSICAL_DEVICE_TYPE_CPU, found through a Vulkan instance of its own, made once per process and only when the
// process has already loaded libvulkan.so.1 (a program that never loads Vulkan pays nothing and needs no match).
// Nothing when Vulkan is not loaded yet (asked again next time), when no CPU device exists, or when the probe
// fails (both remembered, logged once with the reason).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace d4r::runtime::cpu {

std::optional<std::array<uint8_t, 16>> cpu_vulkan_device_uuid();

} // namespace d4r::runtime::cpu
