// d4r kernels check, refine-v2: what a network that reads the core's frame needs to be checked (docs/network.md,
// "Checking native kernels").
//
// Promise: `trace_after_core` traces MODEL's pass (network::trace_forward_after_core) over the core frame
// network::with_core_frame makes in the current context (three frames of a synthetic scene at half of WIDTH x HEIGHT).
// `network_only_root` copies the refine family's kernels of a kernel root, and nothing else, into DST with their
// manifests (every set folder, accuracy sets with their markers), so that a native run serves the network's kernels
// while the core runs from PTX as in the PTX run: both network passes read the same frame.
#pragma once

#include <filesystem>

#include "core/status.h"
#include "network/layer_trace.h"
#include "network/model_file.h"
#include "upscaler/cuda_functions.h"

namespace d4r::cli {

Expected<network::LayerTrace> trace_after_core(const upscaler::CudaFunctions& cuda, const network::Model& model,
                                               uint32_t width, uint32_t height, uint64_t seed,
                                               network::PlanOptions options = {});

Status network_only_root(const std::filesystem::path& root, const std::filesystem::path& dst);

} // namespace d4r::cli
