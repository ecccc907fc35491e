// d4r NGX shim, Vulkan: what both Vulkan data paths record into the program's command buffer around an evaluation
// that runs on the host, and the host's side of the handshake.
//
// Promise: `record_round_trip` records: each present input image's region copied into its buffer (the image moved
// from VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL to TRANSFER_SRC_OPTIMAL and back; the DEPTH aspect for depth
// formats, so D24S8 lands as 32-bit words with the depth in the low 24 bits), a barrier that makes the copies
// visible to the host, `vkCmdSetEvent(ready)`, `vkCmdWaitEvents(done)` with the host as the source stage, and the
// output buffer copied into the output image's region (VK_IMAGE_LAYOUT_GENERAL throughout, with barriers before and
// after). Buffers hold their region at offset 0 in rows of `row_texels` texels. `host_side` is the host's part of one
// round trip: it waits (up to kGpuWaitMs) until the GPU has set `ready`, runs WORK if it did, then sets `done` —
// always, so that the program's queue never waits forever — and destroys OLD events once `ready` was seen (without
// it the GPU's progress is unknown, and they are left alive: a few handles). Its result is WORK's, or why `ready`
// never came. Events are created host-settable (no DEVICE_ONLY flag).
#pragma once

#include <functional>
#include <vector>

#include "core/status.h"
#include "shim/cuda_worker.h"
#include "shim/data_path.h"
#include "shim/vulkan/device.h"

namespace d4r::shim::vulkan {

// How long the host waits for the program to submit the command buffer an evaluation was recorded into.
inline constexpr unsigned kGpuWaitMs = kGiveUpMs;

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
Status host_side(const Context& vk, const EventPair& events, const std::vector<EventPair>& old,
                 const std::function<Status()>& work);

} // namespace d4r::shim::vulkan
