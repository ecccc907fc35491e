// d4r NGX shim, Vulkan: which data path a feature's frame takes.
//
// Promise: `ChosenPath` is the feature's DataPath; each frame goes to the VRAM path (vulkan/vram_path.h) when it
// can, else to the host path (vulkan/host_path.h), each made on first use and kept. The VRAM path is refused, with
// the reason said once per reason in the log, when D4R_SHIM_VRAM_INTEROP=0 asks for no VRAM path, when the device or
// the CUDA driver cannot share memory (vram_unavailable), when the shim's CPU passes (motion dilation, watermark) are
// on, or when a plane's format is not one the VRAM path takes (vram_accepts: every format the shim accepts; those
// not canonical are converted on the GPU, gpu_convert.h). A frame the VRAM path refuses before recording anything
// (ErrorCode::Unsupported: the GPU conversions cannot be loaded) goes to the host path, the reason said once.
// `name()` is the path the last frame took ("vram" or "host"; before any frame, the one a frame would take).
#pragma once

#include <memory>
#include <string>

#include "shim/cuda_worker.h"
#include "shim/data_path.h"
#include "shim/host_staging.h"
#include "shim/vulkan/device.h"

namespace d4r::shim::vulkan {

class ChosenPath final : public DataPath {
public:
    ChosenPath(const Context& context, CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options);
    ~ChosenPath() override;
    const char* name() const override { return m_last; }
    bool asynchronous() const override { return true; }
    Status evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) override;

    // Why FRAME cannot take the VRAM path, or empty (the per-frame part of the choice).
    static std::string frame_refuses_vram(const GameFrame& frame);

private:
    const Context& m_context;
    CudaWorker& m_worker;
    const upscaler::CudaFunctions& m_cuda;
    HostOptions m_options;
    std::string m_device_refusal; // why the VRAM path cannot serve this feature at all, or empty
    std::unique_ptr<DataPath> m_vram, m_host;
    const char* m_last = "vram";
};

} // namespace d4r::shim::vulkan
