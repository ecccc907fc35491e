// d4r NGX shim, Vulkan: the VRAM data path (data_path.h) — the frame stays in memory that Vulkan and CUDA share, and
// the game's command buffer waits for the evaluation, so the result is in the output image in the same frame.
//
// Promise: each plane lives in a VkBuffer whose memory is exported as an OPAQUE_FD and imported into CUDA
// (cuImportExternalMemory, cuExternalMemoryGetMappedBuffer): the core reads and writes that memory itself, with no
// copy on the CUDA side (on d4r's cpu backend with lavapipe the CUDA pointers alias the very pages Vulkan wrote).
// `evaluate` only records, into the game's command buffer: the input images' regions copied into the plane buffers
// (inputs expected in VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL and put back there), a `ready` event set, a wait for
// a `done` event that the host sets, and the output buffer copied into the output image's region (expected in
// VK_IMAGE_LAYOUT_GENERAL, left there). It then posts a task on the CUDA worker and returns: the task waits (up to
// kGpuWaitMs) until the GPU has set `ready` (the game has submitted the command buffer and the copies are done),
// evaluates the core, waits for CUDA (core_wait.h), and sets `done`; it sets `done` on every failure too, so the game's
// queue never waits forever (that frame's output is then left as it was, and the failure logged). Only formats whose
// texels are the canonical bytes are taken (vulkan/resources.h: vram_accepts); the shim's CPU passes (motion
// dilation, watermark) do not run on this path (vulkan/path_choice.h sends such features to the host path). Buffers are
// grown when a frame needs more; events are made per evaluation and destroyed two evaluations later. The game must have
// finished every command buffer that used the feature before it releases the feature (as NGX requires of every resource
// it was given).
#pragma once

#include <memory>

#include "shim/cuda_worker.h"
#include "shim/data_path.h"
#include "shim/host_staging.h"
#include "shim/vulkan/device.h"
#include "upscaler/cuda_functions.h"

namespace d4r::shim::vulkan {

// Why the VRAM path cannot serve the device (no VK_KHR_external_memory_fd, a CUDA driver without external memory),
// or empty.
std::string vram_unavailable(const Context& context, const std::string& cuda_library);

class VramPath final : public DataPath {
public:
    VramPath(const Context& context, CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options);
    ~VramPath() override;
    const char* name() const override { return "vram"; }
    bool asynchronous() const override { return true; }
    Status evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) override;

    struct Shared; // plane buffers and events, shared with the worker's tasks

private:
    Status ensure_planes(const GameFrame& frame);
    Status ensure_conversions(const GameFrame& frame);

    CudaWorker& m_worker;
    std::shared_ptr<Shared> m_shared;
};

} // namespace d4r::shim::vulkan
