// d4r refine network, version 2 (docs/network.md, "refine-v2"): the kernels between the core and the network and
// between the network and the image: each pixel's features and candidates from the core's buffers, and the blend
// of the candidates by the network's answer; and d4r_nn_linear_wide, refine.cu's linear (linear_mma.cuh) under a
// name of its own for the layers with more than kMaxChannels inputs, which the native sets' d4r_nn_linear does not
// take (their kernels are made for refine-v1's shapes). The math is pixel_inputs.h (shared with the C++ reference and
// the CPU kernels); the network's layers in between are refine.cu's. A module of its own (refine_v2.ptx, sm_80), so
// that refine.ptx and everything made from it stay as they are for refine-v1.
#include "linear_mma.cuh"
#include "pixel_inputs.h"

using namespace d4r::refine::pixel;

extern "C" __global__ void d4r_nn_pixel_features(PixelParams p) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.grid_w * p.grid_h * kPatchPixels) features_at(p, i);
}

extern "C" __global__ void d4r_nn_linear_wide(LinearParams p) { linear_warp(p); }

extern "C" __global__ void d4r_nn_pixel_blend(PixelParams p) {
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < p.core.output_w && y < p.core.output_h) blend_at(p, x, y);
}
