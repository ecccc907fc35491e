// The copies and the handshake around a host-side evaluation (vulkan/round_trip.h).
#include "shim/vulkan/round_trip.h"

#include <chrono>
#include <thread>
#include <vector>

#include "shim/vulkan/resources.h"

namespace d4r::shim::vulkan {

namespace {

VkImageAspectFlags copy_aspect(VkFormat format) {
    switch (format) {
    case VK_FORMAT_D32_SFLOAT:
    case VK_FORMAT_D16_UNORM:
    case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D32_SFLOAT_S8_UINT:
        return VK_IMAGE_ASPECT_DEPTH_BIT;
    default:
        return VK_IMAGE_ASPECT_COLOR_BIT;
    }
}

VkBufferImageCopy region_copy(const GameResource& g, uint32_t row_texels) {
    const NVSDK_NGX_ImageViewInfo_VK& v = resource(g.resource)->Resource.ImageViewInfo;
    VkBufferImageCopy c{};
    c.bufferRowLength = row_texels ? row_texels : g.region.width;
    c.imageSubresource.aspectMask = copy_aspect(v.Format);
    c.imageSubresource.mipLevel = v.SubresourceRange.baseMipLevel;
    c.imageSubresource.baseArrayLayer = v.SubresourceRange.baseArrayLayer;
    c.imageSubresource.layerCount = 1;
    c.imageOffset = {int32_t(g.region.x), int32_t(g.region.y), 0};
    c.imageExtent = {g.region.width, g.region.height, 1};
    return c;
}

} // namespace

Expected<EventPair> make_events(const Context& vk) {
    EventPair e;
    VkEventCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO;
    VkResult r = vk.vk.vkCreateEvent(vk.device, &info, nullptr, &e.ready);
    if (r == VK_SUCCESS) r = vk.vk.vkCreateEvent(vk.device, &info, nullptr, &e.done);
    if (r != VK_SUCCESS) {
        destroy_events(vk, e);
        return make_error(ErrorCode::Io, "vkCreateEvent: VkResult {}", int(r));
    }
    return e;
}

void destroy_events(const Context& vk, const EventPair& e) {
    if (e.ready) vk.vk.vkDestroyEvent(vk.device, e.ready, nullptr);
    if (e.done) vk.vk.vkDestroyEvent(vk.device, e.done, nullptr);
}

void record_round_trip(const Context& vk, VkCommandBuffer cmd, const GameFrame& frame, const RoundTrip& trip,
                       const EventPair& events) {
    const Functions& f = vk.vk;
    const GameResource* inputs[4] = {&frame.color, &frame.depth, &frame.motion, &frame.exposure};

    // Inputs: SHADER_READ_ONLY_OPTIMAL -> TRANSFER_SRC_OPTIMAL, copied into their buffers, and back.
    std::vector<VkImageMemoryBarrier> to_src, back;
    for (const GameResource* g : inputs) {
        if (!g->resource) continue;
        const NVSDK_NGX_ImageViewInfo_VK& v = resource(g->resource)->Resource.ImageViewInfo;
        VkImageMemoryBarrier b{};
        b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
        b.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
        b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
        b.oldLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.image = v.Image;
        b.subresourceRange = v.SubresourceRange;
        // A layout change of a depth-stencil image covers both aspects (without separateDepthStencilLayouts).
        if (v.Format == VK_FORMAT_D24_UNORM_S8_UINT || v.Format == VK_FORMAT_D32_SFLOAT_S8_UINT ||
            v.Format == VK_FORMAT_D16_UNORM_S8_UINT)
            b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
        to_src.push_back(b);
        b.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
        b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
        std::swap(b.oldLayout, b.newLayout);
        back.push_back(b);
    }
    f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                           nullptr, uint32_t(to_src.size()), to_src.data());
    for (int i = 0; i < 4; ++i) {
        if (!inputs[i]->resource) continue;
        const VkImage image = resource(inputs[i]->resource)->Resource.ImageViewInfo.Image;
        const VkBufferImageCopy c = region_copy(*inputs[i], trip.inputs[i].row_texels);
        f.vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, trip.inputs[i].buffer, 1, &c);
    }
    f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0,
                           nullptr, uint32_t(back.size()), back.data());

    // The copies made visible to the host, then `ready`; the GPU waits for `done` before the output copy.
    VkMemoryBarrier to_host{};
    to_host.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr,
                           0, nullptr);
    f.vkCmdSetEvent(cmd, events.ready, VK_PIPELINE_STAGE_TRANSFER_BIT);
    VkMemoryBarrier from_host{};
    from_host.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    from_host.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT;
    from_host.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    f.vkCmdWaitEvents(cmd, 1, &events.done, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 1, &from_host,
                      0, nullptr, 0, nullptr);

    // The output: GENERAL throughout; earlier uses finished before the copy, the copy before later uses.
    const GameResource& out = frame.output;
    const NVSDK_NGX_ImageViewInfo_VK& ov = resource(out.resource)->Resource.ImageViewInfo;
    VkImageMemoryBarrier ob{};
    ob.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    ob.srcAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    ob.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    ob.oldLayout = ob.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    ob.srcQueueFamilyIndex = ob.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ob.image = ov.Image;
    ob.subresourceRange = ov.SubresourceRange;
    f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                           nullptr, 1, &ob);
    const VkBufferImageCopy oc = region_copy(out, trip.output.row_texels);
    f.vkCmdCopyBufferToImage(cmd, trip.output.buffer, ov.Image, VK_IMAGE_LAYOUT_GENERAL, 1, &oc);
    ob.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    ob.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    f.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0,
                           nullptr, 1, &ob);
}

namespace {

bool wait_until_set(const Context& vk, VkEvent event, unsigned limit_ms) {
    const auto start = std::chrono::steady_clock::now();
    for (unsigned spin = 0;; ++spin) {
        const VkResult status = vk.vk.vkGetEventStatus(vk.device, event);
        if (status == VK_EVENT_SET) return true;
        if (status != VK_EVENT_RESET) return false; // a lost device
        if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(limit_ms)) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(spin < 100 ? 20 : 500));
    }
}

} // namespace

Status host_side(const Context& vk, const EventPair& events, const std::vector<EventPair>& old,
                 const std::function<Status()>& work) {
    const bool ready = wait_until_set(vk, events.ready, kGpuWaitMs);
    Status result = ready ? work()
                          : make_error(ErrorCode::Io,
                                       "the command buffer the evaluation was recorded into did not reach it within "
                                       "{} ms (not submitted, or the device was lost): the frame's output is left as "
                                       "it was",
                                       kGpuWaitMs);
    vk.vk.vkSetEvent(vk.device, events.done);
    if (ready)
        for (const EventPair& e : old) destroy_events(vk, e);
    return result;
}

} // namespace d4r::shim::vulkan
