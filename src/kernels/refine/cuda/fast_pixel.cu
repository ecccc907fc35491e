// d4r refine network, fast sm_90 set: refine-v2's unfused pixel kernels (d4r_nn_pixel_features, d4r_nn_pixel_blend).
// The work is pixel_inputs.h's, one thread a pixel as in the PTX, with the sRGB curve's powers taken from the
// special-function unit (D4R_REFINE_FAST_POWERS) instead of fixed Newton iterations with IEEE divisions, the core's
// accumulate terms as the fast d4r_up_accumulate computes them (FastTerms), and built with -use_fast_math (cmake:
// FAST_MATH). Within 60 dB of the PTX path (tests/network/refine_v2_test.cpp), not its bytes.
//
// d4r_nn_pixel_features stages a block's results in shared memory and writes them out with 16-byte stores: a pixel's
// 23 features (46 bytes) and 16 candidate values (32 bytes) stored by the thread itself were 2-byte stores 46 and 32
// bytes apart across the warp, and that kernel took 3.4 ms of a 7.9 ms 4K frame on an H100 (docs/performance.md).
// The pixels of a block are consecutive, so its features and candidates are two contiguous runs.
//
// The fused plans' pixel kernels (d4r_nn_pixel_embed, d4r_nn_pixel_head) are in fast_pixel_fused.cu: a code object of
// their own, for their persistent grid.
#define D4R_REFINE_FAST_POWERS 1
#include "fast_pixel.cuh"

using namespace d4r::refine::fast;

namespace {

constexpr uint32_t kBlock = 128; // the plan's kThreads

} // namespace

extern "C" __global__ void __launch_bounds__(kBlock) d4r_nn_pixel_features(PixelParams p) {
    __shared__ __align__(16) uint8_t tokens[kBlock * kTokenBytes];
    __shared__ __align__(16) uint8_t candidates[kBlock * kCandidateBytes];
    const uint32_t total = p.grid_w * p.grid_h * kPatchPixels;
    const uint32_t first = blockIdx.x * blockDim.x, i = first + threadIdx.x;
    if (blockDim.x > kBlock) { // not the plan's shape: each thread stores its own pixel
        if (i < total) features_at(p, i);
        return;
    }
    if (i < total) {
        float f[kFeatures];
        Candidates cand{};
        pixel_values_at(p, i, f, cand, FastTerms{}, FastGeometry{});
        uint16_t* t = reinterpret_cast<uint16_t*>(tokens + threadIdx.x * kTokenBytes);
        for (uint32_t j = 0; j < kFeatures; ++j) t[j] = d4r::kernels::float_to_half(f[j]);
        uint16_t* c = reinterpret_cast<uint16_t*>(candidates + threadIdx.x * kCandidateBytes);
        for (uint32_t j = 0; j < kCandidates; ++j)
            for (uint32_t k = 0; k < 3; ++k) c[j * 3 + k] = d4r::kernels::float_to_half(cand.c[j][k]);
        c[kCandidateValues - 1] = 0;
    }
    __syncthreads();
    if (first >= total) return;
    const uint32_t n = min_u(blockDim.x, total - first);
    copy_out(tokens, reinterpret_cast<uint8_t*>(p.tokens) + static_cast<uint64_t>(first) * kTokenBytes,
             n * kTokenBytes);
    copy_out(candidates, reinterpret_cast<uint8_t*>(p.candidates) + static_cast<uint64_t>(first) * kCandidateBytes,
             n * kCandidateBytes);
}

extern "C" __global__ void d4r_nn_pixel_blend(PixelParams p) {
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < p.core.output_w && y < p.core.output_h) blend_at(p, x, y);
}
