// d4r NGX shim: what the common part (shim.h) needs from a graphics API's part (d3d12/, vulkan/) for one
// NGX device: the frame's resources checked against the API, and a data path for a feature.
//
// Promise: an ApiDevice is made at Init (after CUDA and the core are ready) and lives until Shutdown; the
// shim calls it under its lock. `validate` fills each present resource's format (formats.h) and refuses what
// the data path cannot take, with the NGX result and a message for the log; `make_data_path` gives a feature
// its data path (D3D12: the host path; Vulkan: the VRAM path).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "abi/ngx.h"
#include "shim/cuda_worker.h"
#include "shim/data_path.h"
#include "shim/formats.h"
#include "shim/host_staging.h"
#include "upscaler/cuda_functions.h"

namespace d4r::shim {

struct Refusal {
    abi::NVSDK_NGX_Result result = abi::NVSDK_NGX_Result_Fail;
    std::string message;
};

// Runs CHECK on each present resource of FRAME in the order colour, depth, motion, output, exposure (what every API's
// `validate` does) and gives the first refusal.
inline std::optional<Refusal> check_planes(GameFrame& frame,
                                           const std::function<std::optional<Refusal>(Plane, GameResource&)>& check) {
    const Plane planes[5] = {Plane::Color, Plane::Depth, Plane::Motion, Plane::Output, Plane::Exposure};
    GameResource* targets[5] = {&frame.color, &frame.depth, &frame.motion, &frame.output, &frame.exposure};
    for (int i = 0; i < 5; ++i) {
        if (!targets[i]->resource) continue;
        if (auto refusal = check(planes[i], *targets[i])) return refusal;
    }
    return std::nullopt;
}

class ApiDevice {
public:
    virtual ~ApiDevice() = default;
    virtual std::optional<Refusal> validate(GameFrame& frame) const = 0;
    virtual std::unique_ptr<DataPath> make_data_path(CudaWorker& worker, const upscaler::CudaFunctions& cuda,
                                                     const HostOptions& options) = 0;
};

} // namespace d4r::shim
