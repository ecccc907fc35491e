// d4r refine network: the C++ reference of the forward pass (docs/network.md), on host memory.
//
// Promise: refine_reference() runs the launches of plan_forward() with the host kernels (host_kernels.h), so
// its bytes are the PTX path's bytes for the same model and image.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "network/model_file.h"

namespace d4r::network {

// Refines the width x height RGBA16F image at `rgba` (row pitch in bytes; 0 = packed) in place.
Status refine_reference(const Model& model, uint16_t* rgba, uint32_t width, uint32_t height, size_t pitch = 0,
                        unsigned threads = 0);

} // namespace d4r::network
