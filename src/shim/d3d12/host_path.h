// d4r NGX shim: the host data path for D3D12 (data_path.h) — the inputs read back to the CPU through D3D12
// readback buffers and the output copied in through an upload buffer; the conversions, the shim's passes and
// the CUDA side are the API-independent host staging (host_staging.h).
//
// Promise: works on any D3D12 implementation. The copies out of the game's resources are recorded into the
// game's command list, which is then split (d3d12/submit.h) so that they run after what the game recorded
// before the evaluation; the output copy runs on the shim's queue and is finished before evaluate returns,
// so everything the game records afterwards sees the result in the same frame. Inputs are expected in the
// shader-resource states (NON_PIXEL_SHADER_RESOURCE | PIXEL_SHADER_RESOURCE) and the output in
// UNORDERED_ACCESS, as for DLSS; each is put back in that state. D3D12 staging buffers are kept for the next
// frame and grown when a frame needs more. Either way `evaluate` returns only after the output is in the
// game's texture.
#pragma once

#include <d3d12.h>

#include <memory>

#include "shim/d3d12/staging_buffers.h"
#include "shim/d3d12/submit.h"
#include "shim/data_path.h"
#include "shim/host_staging.h"

namespace d4r::shim::d3d12 {

class HostPath final : public DataPath {
public:
    HostPath(Submitter& submitter, CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options);
    ~HostPath() override;
    const char* name() const override { return "host"; }
    Status evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) override;

    struct Staging; // D3D12 buffers, per plane

private:
    Status read_back(ID3D12GraphicsCommandList* list, const GameFrame& frame);
    Status upload_output(const GameResource& output);

    Submitter& m_submitter;
    std::unique_ptr<Staging> m_staging;
    HostStaging m_host;
};

} // namespace d4r::shim::d3d12
