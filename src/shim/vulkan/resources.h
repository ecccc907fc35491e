// d4r NGX shim, Vulkan: the Vulkan meaning of the common part's opaque handles, and the frame's resources checked
// against what the game says about them.
//
// Promise: a ResourceHandle is the game's `NVSDK_NGX_Resource_VK*` (set with `Set(name, void*)`), a
// CommandListHandle its VkCommandBuffer. `dxgi_of` maps the VkFormats that have a DXGI twin the shim knows
// (formats.h) and gives Dxgi::Unknown otherwise. `validate_frame` fills each present resource's format and refuses,
// with a message naming the plane, its size and format: a buffer or anything but an image view of one mip level and
// one layer (FAIL_UnsupportedInputFormat), a format the plane does not accept (formats.h; FAIL_UnsupportedFormat), a
// region outside the resource's Width x Height (FAIL_InvalidParameter). Vulkan cannot be asked an image's size or
// samples, so Width/Height are the game's word, as for NVIDIA's NGX. Planes are checked in the order colour, depth,
// motion, output, exposure; the first refusal is returned.
#pragma once

#include <optional>

#include "shim/api_device.h"
#include "shim/data_path.h"
#include "shim/formats.h"
#include "shim/vulkan/ngx_vulkan.h"

namespace d4r::shim::vulkan {

inline const NVSDK_NGX_Resource_VK* resource(ResourceHandle handle) {
    return reinterpret_cast<const NVSDK_NGX_Resource_VK*>(handle);
}
inline VkCommandBuffer command_buffer(CommandListHandle handle) { return reinterpret_cast<VkCommandBuffer>(handle); }
inline CommandListHandle handle(VkCommandBuffer buffer) { return reinterpret_cast<CommandListHandle>(buffer); }

Dxgi dxgi_of(VkFormat format);
// Whether the VRAM path takes FORMAT for PLANE: every format with a DXGI twin the plane accepts (formats.h); the
// VRAM path converts those that are not canonical on the GPU (gpu_convert.h).
bool vram_accepts(Plane plane, VkFormat format);

std::optional<Refusal> validate_frame(GameFrame& frame);

} // namespace d4r::shim::vulkan
