// d4r refine network, fast sm_90 set: what refine-v2's fast pixel kernels share (cuda/fast_pixel.cu: features and
// blend; cuda/fast_pixel_fused.cu: the fused embed and head). Their sources define D4R_REFINE_FAST_POWERS (the sRGB
// curve's powers from the special-function unit) before including it, and are built with -use_fast_math (cmake:
// FAST_MATH).
#pragma once

#include "fast_common.cuh"
#include "kernels/refine/ptx/pixel_inputs.h"
#include "kernels/upscaler/cuda/fast_accumulate_terms.cuh"

namespace d4r::refine::fast {

using namespace d4r::refine::pixel;

constexpr uint32_t kTokenBytes = kFeatures * 2, kCandidateBytes = kCandidateValues * 2;

// The core's accumulate terms as the fast d4r_up_accumulate computes them (32-bit offsets, non-coherent loads).
struct FastTerms {
    __device__ up::AccumulateTerms operator()(const up::Params& p, int32_t x, int32_t y) const {
        return up::fast::accumulate_terms(p, x, y);
    }
};

// Copies BYTES from shared S to global D, 16 bytes a thread a step when both are 16-byte aligned.
__device__ __forceinline__ void copy_out(const uint8_t* s, uint8_t* d, uint32_t bytes) {
    if ((reinterpret_cast<uintptr_t>(d) & 15u) == 0 && bytes % 16u == 0) {
        const uint4* s4 = reinterpret_cast<const uint4*>(s);
        uint4* d4 = reinterpret_cast<uint4*>(d);
        for (uint32_t k = threadIdx.x; k < bytes / 16u; k += blockDim.x) d4[k] = s4[k];
    } else {
        for (uint32_t k = threadIdx.x; k < bytes; k += blockDim.x) d[k] = s[k];
    }
}

} // namespace d4r::refine::fast
