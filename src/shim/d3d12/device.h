// d4r NGX shim: the D3D12 part of one NGX device (api_device.h) — the game's ID3D12Device, the shim's own
// queues on it (d3d12/submit.h), validation of D3D12 resources (d3d12/resources.h) and the D3D12 data paths
// (d3d12/path_choice.h).
#pragma once

#include <d3d12.h>

#include <memory>

#include "shim/api_device.h"
#include "shim/d3d12/submit.h"

namespace d4r::shim::d3d12 {

class Device final : public ApiDevice {
public:
    explicit Device(ID3D12Device* device) : m_submitter(device) {}
    std::optional<Refusal> validate(GameFrame& frame) const override;
    std::unique_ptr<DataPath> make_data_path(CudaWorker& worker, const upscaler::CudaFunctions& cuda,
                                             const HostOptions& options) override;

private:
    Submitter m_submitter;
};

} // namespace d4r::shim::d3d12
