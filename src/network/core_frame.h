// d4r refine network, refine-v2: the open core's frame that refine-v2's pixel kernels read, made reproducibly for
// checks (d4r kernels check, the AMD results on rocjitsu; docs/network.md, "Checking native kernels").
//
// Promise: with_core_frame() runs the open core (upscaler::Pipeline) in the current context for three frames of a
// synthetic scene at half of WIDTH x HEIGHT (colour from nettest::test_image, a depth slope, a constant motion, a
// jitter sequence; the same bytes for the same SEED on every backend that runs the core's PTX exactly), keeping its
// accumulate terms and render geometry as the NGX core does for refine-v2 (PipelineConfig::keep_network_inputs), and
// hands USE the parameter block of the third while every buffer it points to is alive; the buffers are freed however it
// ends. copy_core_frame() copies each allocation a pointer of that block lies in, whole, to the host: what a job
// file needs (job_file.h: refine_job_after_core).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/status.h"
#include "kernels/upscaler/ptx/upscaler_math.h"
#include "upscaler/cuda_functions.h"

namespace d4r::network {

// The pointer fields of the core's parameter block, every one a device address (0 when unused).
inline constexpr std::array<uint64_t upscaler::math::Params::*, 13> kCoreBufferFields{
    &upscaler::math::Params::color,        &upscaler::math::Params::depth,         &upscaler::math::Params::motion,
    &upscaler::math::Params::exposure_tex, &upscaler::math::Params::output,        &upscaler::math::Params::prep_color,
    &upscaler::math::Params::motion_cur,   &upscaler::math::Params::motion_prev,   &upscaler::math::Params::history_in,
    &upscaler::math::Params::history_out,  &upscaler::math::Params::exposure_auto, &upscaler::math::Params::terms,
    &upscaler::math::Params::geometry};

Status with_core_frame(const upscaler::CudaFunctions& cuda, uint32_t width, uint32_t height, uint64_t seed,
                       const std::function<Status(const upscaler::math::Params&)>& use);

// The core's frame on the host: its parameter block (device addresses as the core had them) and the allocations
// they lie in, each once, by base address.
struct CoreFrame {
    struct Buffer {
        uint64_t address = 0;
        std::vector<uint8_t> bytes;
    };
    upscaler::math::Params params{};
    std::vector<Buffer> buffers;
};

Expected<CoreFrame> copy_core_frame(const upscaler::CudaFunctions& cuda, const upscaler::math::Params& params);

} // namespace d4r::network
