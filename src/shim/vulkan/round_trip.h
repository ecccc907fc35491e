// d4r NGX shim, Vulkan: what both Vulkan data paths record into the program's command buffer around an evaluation
// that runs on the host, and the host's side of the handshake.
//
// Promise: `record_round_trip` records: each present input image's region copied into its buffer (the image moved
// from VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL to TRANSFER_SRC_OPTIMAL and back; the DEPTH aspect for depth
// formats, so D24S8 lands as 32-bit words with the depth in the low 24 bits), a barrier that makes the copies
// visible to the host, `vkCmdSetEvent(ready)`, `vkCmdWaitEvents(done)` with the host as the source stage, and the
// output buffer copied into the output image's region (VK_IMAGE_LAYOUT_GENERAL throughout, with barriers before and
// after). Buffers hold their region at offset 0 in rows of `row_texels` texels. `wait_until_set` polls an event
// until it is set (true) or LIMIT_MS have passed (false). Events are created host-settable (no DEVICE_ONLY flag).
#pragma once

#include "core/status.h"
#include "shim/data_path.h"
#include "shim/vulkan/device.h"

namespace d4r::shim::vulkan {

struct EventPair {
    VkEvent ready = VK_NULL_HANDLE; // set by the GPU once the inputs are in their buffers
    VkEvent done = VK_NULL_HANDLE;  // set by the host once the output is in its buffer
};

struct Transfer {
    VkBuffer buffer = VK_NULL_HANDLE;
    uint32_t row_texels = 0;
};

// INPUTS in the order colour, depth, motion, exposure (absent resources are skipped).
struct RoundTrip {
    Transfer inputs[4];
    Transfer output;
};

Expected<EventPair> make_events(const Context& vk);
void destroy_events(const Context& vk, const EventPair& events);
void record_round_trip(const Context& vk, VkCommandBuffer cmd, const GameFrame& frame, const RoundTrip& trip,
                       const EventPair& events);
bool wait_until_set(const Context& vk, VkEvent event, unsigned limit_ms);

} // namespace d4r::shim::vulkan
