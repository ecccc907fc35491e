// The Vulkan data paths' transfer buffers (vulkan/buffers.h).
#include "shim/vulkan/buffers.h"

namespace d4r::shim::vulkan {

Expected<OwnBuffer> make_buffer(const Context& vk, VkDeviceSize bytes, VkMemoryPropertyFlags require,
                                VkMemoryPropertyFlags prefer, VkExternalMemoryHandleTypeFlags export_types) {
    const Functions& f = vk.vk;
    VkExternalMemoryBufferCreateInfo external{};
    external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
    external.handleTypes = export_types;
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.pNext = export_types ? &external : nullptr;
    info.size = bytes;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    OwnBuffer b;
    VkResult r = f.vkCreateBuffer(vk.device, &info, nullptr, &b.buffer);
    if (r != VK_SUCCESS) return make_error(ErrorCode::Io, "vkCreateBuffer of {} bytes: VkResult {}", bytes, int(r));
    VkMemoryRequirements req{};
    f.vkGetBufferMemoryRequirements(vk.device, b.buffer, &req);
    uint32_t type = UINT32_MAX;
    for (VkMemoryPropertyFlags want : {require | prefer, require})
        for (uint32_t t = 0; t < vk.memory.memoryTypeCount && type == UINT32_MAX; ++t)
            if ((req.memoryTypeBits & (1u << t)) && (vk.memory.memoryTypes[t].propertyFlags & want) == want) type = t;
    VkExportMemoryAllocateInfo export_info{};
    export_info.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
    export_info.handleTypes = export_types;
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.pNext = export_types ? &export_info : nullptr;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    const char* step = "no memory type of the buffer's has the properties asked for";
    r = VK_ERROR_FEATURE_NOT_PRESENT;
    if (type != UINT32_MAX) {
        step = "vkAllocateMemory";
        r = f.vkAllocateMemory(vk.device, &alloc, nullptr, &b.memory);
    }
    if (r == VK_SUCCESS) {
        step = "vkBindBufferMemory";
        r = f.vkBindBufferMemory(vk.device, b.buffer, b.memory, 0);
    }
    if (r != VK_SUCCESS) {
        if (b.memory) f.vkFreeMemory(vk.device, b.memory, nullptr);
        f.vkDestroyBuffer(vk.device, b.buffer, nullptr);
        return make_error(ErrorCode::Io, "{} bytes of memory{} for a buffer: {}: VkResult {}", req.size,
                          export_types ? " to export" : "", step, int(r));
    }
    b.allocated = req.size;
    return b;
}

} // namespace d4r::shim::vulkan
