// d4r refine network, fast sm_90 set: refine-v2's pixel kernels (d4r_nn_pixel_features, d4r_nn_pixel_blend). The
// work is pixel_inputs.h's, one thread a pixel as in the PTX, with the sRGB curve's powers taken from the
// special-function unit (D4R_REFINE_FAST_POWERS) instead of fixed Newton iterations with IEEE divisions, the core's
// accumulate terms as the fast d4r_up_accumulate computes them (FastTerms), and built with -use_fast_math (cmake:
// FAST_MATH). Within 60 dB of the PTX path (tests/network/refine_v2_test.cpp), not its bytes.
//
// d4r_nn_pixel_features stages a block's results in shared memory and writes them out with 16-byte stores: a pixel's
// 23 features (46 bytes) and 16 candidate values (32 bytes) stored by the thread itself were 2-byte stores 46 and 32
// bytes apart across the warp, and that kernel took 3.4 ms of a 7.9 ms 4K frame on an H100 (docs/performance.md).
// The pixels of a block are consecutive, so its features and candidates are two contiguous runs.
//
// d4r_nn_pixel_embed (fused plans): the same pixel work for a block's 16 tokens, the features kept in shared memory as
// the A operand of the embed (16 x 368 by 368 x out_ch: one mma chain of 23 k-steps per 8 output columns, f32
// accumulators), so the 368 halves a token are neither written nor read back; the candidates still go out.
//
// d4r_nn_pixel_head (fused plans): the head linear of a block's 16 tokens (16 x in_ch by in_ch x 128, f32
// accumulators) into shared memory, then each thread blends one pixel from there: the head's 16 bytes a pixel are
// neither written nor read back.
#define D4R_REFINE_FAST_POWERS 1
#include "fast_common.cuh"
#include "kernels/refine/ptx/pixel_inputs.h"
#include "kernels/upscaler/cuda/fast_accumulate_terms.cuh"

using namespace d4r::refine::pixel;

namespace {

constexpr uint32_t kBlock = 128; // the plan's kThreads
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
        pixel_values_at(p, i, f, cand, FastTerms{});
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

extern "C" __global__ void __launch_bounds__(kEmbedThreads) d4r_nn_pixel_embed(PixelEmbedParams p) {
    namespace fast = d4r::refine::fast;
    constexpr uint32_t kIn = kFeatures * kPatchPixels, kRowA = kIn + 8; // padded rows: conflict-free ldmatrix
    constexpr uint32_t kMaxOut = d4r::refine::math::kMaxChannels;
    __shared__ __align__(16) uint16_t a[kEmbedTokens * kRowA];
    __shared__ __align__(16) uint8_t candidates[kEmbedThreads * kCandidateBytes];
    __shared__ __align__(16) uint16_t out[kEmbedTokens * kMaxOut];
    // The plan's shape (kEmbedThreads threads, out_ch a multiple of 8 up to kMaxOut): anything else is a bug that must
    // not pass for a result.
    if (blockDim.x != kEmbedThreads || p.out_ch % 8 != 0 || p.out_ch > kMaxOut) __trap();
    const PixelParams& px = p.pixels;
    const uint32_t tokens = px.grid_w * px.grid_h, first = blockIdx.x * kEmbedTokens;
    const uint32_t present = min_u(kEmbedTokens, tokens - first);
    const uint32_t i = first * kPatchPixels + threadIdx.x, row = threadIdx.x / kPatchPixels;
    uint16_t* f16 = a + row * kRowA + (threadIdx.x % kPatchPixels) * kFeatures;
    if (row < present) {
        float f[kFeatures];
        Candidates cand{};
        pixel_values_at(px, i, f, cand, FastTerms{});
        for (uint32_t j = 0; j < kFeatures; ++j) f16[j] = d4r::kernels::float_to_half(f[j]);
        uint16_t* c = reinterpret_cast<uint16_t*>(candidates + threadIdx.x * kCandidateBytes);
        for (uint32_t j = 0; j < kCandidates; ++j)
            for (uint32_t k = 0; k < 3; ++k) c[j * 3 + k] = d4r::kernels::float_to_half(cand.c[j][k]);
        c[kCandidateValues - 1] = 0;
    } else {
        for (uint32_t j = 0; j < kFeatures; ++j) f16[j] = 0; // rows of absent tokens: defined inputs, not written
    }
    __syncthreads();
    copy_out(candidates,
             reinterpret_cast<uint8_t*>(px.candidates) + static_cast<uint64_t>(i - threadIdx.x) * kCandidateBytes,
             present * kPatchPixels * kCandidateBytes);
    // The embed: warp w takes the 8-column tiles w, w + 8, ...
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u, g = lane >> 2, t = lane & 3u;
    const uint16_t* w = reinterpret_cast<const uint16_t*>(p.weight);
    const uint16_t* bias = reinterpret_cast<const uint16_t*>(p.bias);
    const uint16_t* a_rows = a + (lane & 15u) * kRowA + (lane >> 4) * 8;
    for (uint32_t n0 = warp * 8; n0 < p.out_ch; n0 += kEmbedThreads / 32 * 8) {
        const float b0 = d4r::kernels::half_to_float(bias[n0 + 2 * t]);
        const float b1 = d4r::kernels::half_to_float(bias[n0 + 2 * t + 1]);
        float acc[4] = {b0, b1, b0, b1};
        const uint16_t* w_row = w + static_cast<uint64_t>(n0 + g) * kIn + 2 * t;
#pragma unroll
        for (uint32_t s = 0; s < kIn / 16; ++s) {
            uint32_t af[4];
            fast::load_a(af, a_rows + s * 16);
            fast::mma_f32(acc, af, fast::ldg_pair(w_row + s * 16), fast::ldg_pair(w_row + s * 16 + 8));
        }
        *reinterpret_cast<uint32_t*>(out + g * p.out_ch + n0 + 2 * t) = fast::pack_f32(acc[0], acc[1]);
        *reinterpret_cast<uint32_t*>(out + (g + 8) * p.out_ch + n0 + 2 * t) = fast::pack_f32(acc[2], acc[3]);
    }
    __syncthreads();
    copy_out(reinterpret_cast<const uint8_t*>(out),
             reinterpret_cast<uint8_t*>(p.out) + static_cast<uint64_t>(first) * p.out_ch * 2u, present * p.out_ch * 2u);
}

extern "C" __global__ void __launch_bounds__(kEmbedThreads) d4r_nn_pixel_head(PixelHeadParams p) {
    namespace fast = d4r::refine::fast;
    constexpr uint32_t kMaxIn = d4r::refine::math::kMaxChannels, kRowA = kMaxIn + 8; // padded: conflict-free ldmatrix
    __shared__ __align__(16) uint16_t a[kEmbedTokens * kRowA];
    __shared__ __align__(16) uint16_t answers[kEmbedTokens * kHeadOutputs];
    // The plan's shape (kEmbedThreads threads, in_ch a multiple of 16 up to kMaxIn): anything else is a bug that must
    // not pass for a result.
    if (blockDim.x != kEmbedThreads || p.in_ch % 16 != 0 || p.in_ch > kMaxIn) __trap();
    const PixelParams& px = p.pixels;
    const uint32_t tokens = px.grid_w * px.grid_h, first = blockIdx.x * kEmbedTokens;
    const uint32_t present = min_u(kEmbedTokens, tokens - first);
    // The tokens' rows into shared memory, 16 bytes a thread a step (rows of absent tokens: zeros, not read back).
    const uint32_t pieces = p.in_ch / 8;
    const uint4* in = reinterpret_cast<const uint4*>(p.in) + static_cast<uint64_t>(first) * pieces;
    for (uint32_t k = threadIdx.x; k < kEmbedTokens * pieces; k += kEmbedThreads) {
        const uint32_t row = k / pieces;
        *reinterpret_cast<uint4*>(a + row * kRowA + k % pieces * 8) = row < present ? __ldg(in + k) : uint4{};
    }
    __syncthreads();
    // The head: warp w takes the 8-column tiles w, w + 8, ...; the answers rounded to f16 as the unfused head stores
    // them.
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u, g = lane >> 2, t = lane & 3u;
    const uint16_t* w = reinterpret_cast<const uint16_t*>(p.weight);
    const uint16_t* bias = reinterpret_cast<const uint16_t*>(p.bias);
    const uint16_t* a_rows = a + (lane & 15u) * kRowA + (lane >> 4) * 8;
    for (uint32_t n0 = warp * 8; n0 < kHeadOutputs; n0 += kEmbedThreads / 32 * 8) {
        const float b0 = d4r::kernels::half_to_float(bias[n0 + 2 * t]);
        const float b1 = d4r::kernels::half_to_float(bias[n0 + 2 * t + 1]);
        float acc[4] = {b0, b1, b0, b1};
        const uint16_t* w_row = w + static_cast<uint64_t>(n0 + g) * p.in_ch + 2 * t;
        for (uint32_t s = 0; s < p.in_ch / 16; ++s) {
            uint32_t af[4];
            fast::load_a(af, a_rows + s * 16);
            fast::mma_f32(acc, af, fast::ldg_pair(w_row + s * 16), fast::ldg_pair(w_row + s * 16 + 8));
        }
        *reinterpret_cast<uint32_t*>(answers + g * kHeadOutputs + n0 + 2 * t) = fast::pack_f32(acc[0], acc[1]);
        *reinterpret_cast<uint32_t*>(answers + (g + 8) * kHeadOutputs + n0 + 2 * t) = fast::pack_f32(acc[2], acc[3]);
    }
    __syncthreads();
    if (threadIdx.x < present * kPatchPixels)
        blend_patch_pixel(px, first * kPatchPixels + threadIdx.x, answers + threadIdx.x * kOutputs);
}
