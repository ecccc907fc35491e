// d4r NGX shim, D3D12: which data path a feature's frame takes.
//
// Promise: `ChosenPath` is the feature's DataPath; each frame goes to the mapped path (d3d12/mapped_path.h) when it
// can, else to the host path (d3d12/host_path.h), each made on first use and kept. The mapped path is refused, with
// the reason said once per reason in the log, when D4R_SHIM_VRAM_INTEROP=0 asks for no shared memory, when the CUDA
// driver lacks the functions to map host memory (mapped_unavailable), when the shim's CPU passes (motion dilation,
// watermark) are on, or for good once the mapped path's `prepare` refuses (ErrorCode::Unsupported: CUDA cannot map the
// memory, or the GPU format conversions cannot load; the frame that found out goes to the host path). Planes in other
// formats or rows than the core's take the mapped path too, converted on the GPU. `name()` is the path the last frame
// took ("mapped" or "host"; before any frame, the one a frame would take).
#pragma once

#include <memory>
#include <string>

#include "shim/cuda_worker.h"
#include "shim/d3d12/submit.h"
#include "shim/data_path.h"
#include "shim/host_staging.h"

namespace d4r::shim::d3d12 {

class MappedPath;

class ChosenPath final : public DataPath {
public:
    ChosenPath(Submitter& submitter, CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options);
    ~ChosenPath() override;
    const char* name() const override { return m_last; }
    Status evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) override;

private:
    Submitter& m_submitter;
    CudaWorker& m_worker;
    const upscaler::CudaFunctions& m_cuda;
    HostOptions m_options;
    std::string m_feature_refusal; // why no frame of this feature takes the mapped path, or empty
    std::unique_ptr<MappedPath> m_mapped;
    std::unique_ptr<DataPath> m_host;
    const char* m_last = "mapped";
};

} // namespace d4r::shim::d3d12
