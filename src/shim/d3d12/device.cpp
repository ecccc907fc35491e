// The D3D12 part of an NGX device (d3d12/device.h).
#include "shim/d3d12/device.h"

#include "shim/d3d12/path_choice.h"
#include "shim/d3d12/resources.h"

namespace d4r::shim::d3d12 {

std::optional<Refusal> Device::validate(GameFrame& frame) const { return validate_frame(frame); }

std::unique_ptr<DataPath> Device::make_data_path(CudaWorker& worker, const upscaler::CudaFunctions& cuda,
                                                 const HostOptions& options) {
    return std::make_unique<ChosenPath>(m_submitter, worker, cuda, options);
}

} // namespace d4r::shim::d3d12
