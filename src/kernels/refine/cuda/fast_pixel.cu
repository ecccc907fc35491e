// d4r refine network, fast sm_90 set: refine-v2's pixel kernels (d4r_nn_pixel_features, d4r_nn_pixel_blend). The
// work is pixel_inputs.h's, one thread a pixel as in the PTX, with the sRGB curve's powers taken from the
// special-function unit (D4R_REFINE_FAST_POWERS) instead of fixed Newton iterations with IEEE divisions. Within 60 dB
// of the PTX path (tests/network/refine_v2_test.cpp), not its bytes.
//
// d4r_nn_pixel_features stages a block's results in shared memory and writes them out with 16-byte stores: a pixel's
// 23 features (46 bytes) and 16 candidate values (32 bytes) stored by the thread itself were 2-byte stores 46 and 32
// bytes apart across the warp, and that kernel took 3.4 ms of a 7.9 ms 4K frame on an H100 (docs/performance.md).
// The pixels of a block are consecutive, so its features and candidates are two contiguous runs.
//
// d4r_nn_pixel_embed (fused plans): the same pixel work for a block's 16 tokens, the features kept in shared memory as
// the A operand of the embed (16 x 368 by 368 x out_ch: one mma chain of 23 k-steps per 8 output columns, f32
// accumulators), so the 368 halves a token are neither written nor read back; the candidates still go out.
#define D4R_REFINE_FAST_POWERS 1
#include "fast_common.cuh"
#include "kernels/refine/ptx/pixel_inputs.h"

using namespace d4r::refine::pixel;

namespace {

constexpr uint32_t kBlock = 128; // the plan's kThreads
constexpr uint32_t kTokenBytes = kFeatures * 2, kCandidateBytes = kCandidateValues * 2;

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

// A block's render texels staged once in shared memory: the colour and geometry (RenderTexels) of every render pixel
// the bilinear taps of its output pixels reach, instead of each output pixel reading its four taps' colour and seven
// depth and motion values (the depth gradient's neighbours) from the L1. The same values; a texel outside the staged
// rectangle (a block whose tokens wrap to the next token row, a rectangle above kTileTexels) is read from the frame.
constexpr uint32_t kTileTexels = 512, kTexelFloats = 7; // colour 3, geometry 4
struct TileTexels {
    const up::Params& p;
    const float* tile;
    int32_t x0, y0, w, h;
    __device__ const float* at(int32_t x, int32_t y) const {
        const int32_t dx = x - x0, dy = y - y0;
        return dx >= 0 && dy >= 0 && dx < w && dy < h ? tile + (dy * w + dx) * kTexelFloats : nullptr;
    }
    __device__ void colour(int32_t x, int32_t y, float out[3]) const {
        if (const float* t = at(x, y)) {
            for (int i = 0; i < 3; ++i) out[i] = t[i];
        } else {
            RenderTexels{p}.colour(x, y, out);
        }
    }
    __device__ void geometry(int32_t x, int32_t y, float out[4]) const {
        if (const float* t = at(x, y)) {
            for (int i = 0; i < 4; ++i) out[i] = t[3 + i];
        } else {
            RenderTexels{p}.geometry(x, y, out);
        }
    }
};

// The render pixel column (or row) the bilinear taps of output column X start at: render_position()'s formula, clamped
// and floored as bilinear() does.
__device__ int32_t first_tap(float x, float scale, float jitter, uint32_t render) {
    const float u = (x + 0.5f) * scale - 0.5f - jitter;
    return static_cast<int32_t>(up::floor_f(clamp_f(u, 0.0f, static_cast<float>(render - 1u))));
}

// Stages the render texels of tokens FIRST .. FIRST + COUNT - 1 into TILE (kTileTexels x kTexelFloats) with the whole
// block, and says where they are. Ends with a barrier.
__device__ TileTexels stage_texels(const PixelParams& px, uint32_t first, uint32_t count, float* tile) {
    const up::Params& p = px.core;
    TileTexels t{p, tile, 0, 0, 0, 0};
    const uint32_t ty = first / px.grid_w, tx = first % px.grid_w;
    if (count > 0 && (first + count - 1) / px.grid_w == ty) { // one row of tokens: 4 rows of output pixels
        const float sx = static_cast<float>(p.render_w) / static_cast<float>(p.output_w);
        const float sy = static_cast<float>(p.render_h) / static_cast<float>(p.output_h);
        const uint32_t ox0 = min_u(4u * tx, p.output_w - 1u), ox1 = min_u(4u * (tx + count) - 1u, p.output_w - 1u);
        const uint32_t oy0 = min_u(4u * ty, p.output_h - 1u), oy1 = min_u(4u * ty + 3u, p.output_h - 1u);
        t.x0 = first_tap(static_cast<float>(ox0), sx, p.jitter_x, p.render_w);
        t.y0 = first_tap(static_cast<float>(oy0), sy, p.jitter_y, p.render_h);
        t.w = first_tap(static_cast<float>(ox1), sx, p.jitter_x, p.render_w) + 2 - t.x0;
        t.h = first_tap(static_cast<float>(oy1), sy, p.jitter_y, p.render_h) + 2 - t.y0;
        t.w = min(t.w, static_cast<int32_t>(p.render_w) - t.x0);
        t.h = min(t.h, static_cast<int32_t>(p.render_h) - t.y0);
        if (t.w * t.h > static_cast<int32_t>(kTileTexels)) t.w = t.h = 0;
    }
    const RenderTexels frame{p};
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < t.w * t.h; i += static_cast<int32_t>(blockDim.x)) {
        float* texel = tile + i * kTexelFloats;
        frame.colour(t.x0 + i % t.w, t.y0 + i / t.w, texel);
        frame.geometry(t.x0 + i % t.w, t.y0 + i / t.w, texel + 3);
    }
    __syncthreads();
    return t;
}

} // namespace

extern "C" __global__ void __launch_bounds__(kBlock) d4r_nn_pixel_features(PixelParams p) {
    __shared__ __align__(16) uint8_t tokens[kBlock * kTokenBytes];
    __shared__ __align__(16) uint8_t candidates[kBlock * kCandidateBytes];
    __shared__ float texels[kTileTexels * kTexelFloats];
    const uint32_t total = p.grid_w * p.grid_h * kPatchPixels;
    const uint32_t first = blockIdx.x * blockDim.x, i = first + threadIdx.x;
    if (blockDim.x > kBlock || blockDim.x % kPatchPixels != 0) { // not the plan's shape: each thread its own pixel
        if (i < total) features_at(p, i);
        return;
    }
    const uint32_t first_token = first / kPatchPixels;
    const uint32_t count = first < total ? min_u(blockDim.x, total - first) / kPatchPixels : 0;
    const TileTexels tile = stage_texels(p, first_token, count, texels);
    if (i < total) {
        float f[kFeatures];
        Candidates cand{};
        pixel_values_at(p, i, f, cand, tile);
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
    __shared__ float texels[kTileTexels * kTexelFloats];
    // The plan's shape (kEmbedThreads threads, out_ch a multiple of 8 up to kMaxOut): anything else is a bug that must
    // not pass for a result.
    if (blockDim.x != kEmbedThreads || p.out_ch % 8 != 0 || p.out_ch > kMaxOut) __trap();
    const PixelParams& px = p.pixels;
    const uint32_t tokens = px.grid_w * px.grid_h, first = blockIdx.x * kEmbedTokens;
    const uint32_t present = min_u(kEmbedTokens, tokens - first);
    const uint32_t i = first * kPatchPixels + threadIdx.x, row = threadIdx.x / kPatchPixels;
    uint16_t* f16 = a + row * kRowA + (threadIdx.x % kPatchPixels) * kFeatures;
    const TileTexels tile = stage_texels(px, first, present, texels);
    if (row < present) {
        float f[kFeatures];
        Candidates cand{};
        pixel_values_at(px, i, f, cand, tile);
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
