// d4r refine network, fast sm_90 set: refine-v2's pixel kernels (d4r_nn_pixel_features, d4r_nn_pixel_blend). The
// work is pixel_inputs.h's, one thread a pixel as in the PTX, with the sRGB curve's powers taken from the
// special-function unit (D4R_REFINE_FAST_POWERS) instead of fixed Newton iterations with IEEE divisions, which made
// d4r_nn_pixel_features the largest kernel of a 4K frame (docs/performance.md). Within 60 dB of the PTX path
// (tests/network/refine_v2_test.cpp), not its bytes.
#define D4R_REFINE_FAST_POWERS 1
#include "kernels/refine/ptx/pixel_inputs.h"

using namespace d4r::refine::pixel;

extern "C" __global__ void d4r_nn_pixel_features(PixelParams p) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.grid_w * p.grid_h * kPatchPixels) features_at(p, i);
}

extern "C" __global__ void d4r_nn_pixel_blend(PixelParams p) {
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < p.core.output_w && y < p.core.output_h) blend_at(p, x, y);
}
