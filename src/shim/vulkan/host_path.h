// d4r NGX shim, Vulkan: the host data path (data_path.h) — the frame's texels go through host memory and the shim's
// CPU conversions, as on the D3D12 front end's host path; what every Vulkan device and format can do.
//
// Promise: `evaluate` records the round trip (vulkan/round_trip.h) into the program's command buffer with staging
// buffers in host-visible, host-coherent memory (each region in the game's own format, rows packed) and returns;
// its own thread then waits (up to kGpuWaitMs) until the GPU has set `ready`, converts the inputs and evaluates
// through the host staging (host_staging.h: the shim's passes, the upload, the core on the CUDA worker, the
// download), converts the output into the game's format in its staging buffer, and sets `done`; `done` is set on
// every failure too, the failure logged and that frame's output left as it was. Staging buffers are kept and grown;
// events are destroyed two evaluations later. Accepts every format formats.h accepts (depth images are read through
// their DEPTH aspect). The program must have finished every command buffer that used the feature before it
// releases the feature.
#pragma once

#include <memory>

#include "shim/cuda_worker.h"
#include "shim/data_path.h"
#include "shim/host_staging.h"
#include "shim/vulkan/device.h"

namespace d4r::shim::vulkan {

class HostPath final : public DataPath {
public:
    HostPath(const Context& context, CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options);
    ~HostPath() override;
    const char* name() const override { return "host"; }
    bool asynchronous() const override { return true; }
    Status evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) override;

    struct State; // staging buffers, the host staging and the thread, shared with the thread

private:
    std::shared_ptr<State> m_state;
};

} // namespace d4r::shim::vulkan
