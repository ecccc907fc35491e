// d4r NGX shim, Vulkan: the transfer buffers both Vulkan data paths keep (the VRAM path's exportable plane buffers,
// the host path's mapped staging buffers), each with memory of its own.
//
// Promise: `make_buffer` creates a VkBuffer of BYTES for transfers (TRANSFER_SRC | TRANSFER_DST), allocates memory of
// the first type the buffer allows that has every flag of REQUIRE (of those, one that also has every flag of PREFER
// when there is one), exportable as EXPORT's handle types when EXPORT is nonzero, and binds it. On failure nothing
// is left behind and the error names the step and its VkResult.
#pragma once

#include "core/status.h"
#include "shim/vulkan/device.h"

namespace d4r::shim::vulkan {

struct OwnBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize allocated = 0; // the memory's size (the buffer's requirements: at least BYTES)
};

Expected<OwnBuffer> make_buffer(const Context& vk, VkDeviceSize bytes, VkMemoryPropertyFlags require,
                                VkMemoryPropertyFlags prefer, VkExternalMemoryHandleTypeFlags export_types);

} // namespace d4r::shim::vulkan
