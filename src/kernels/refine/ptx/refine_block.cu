// d4r refine network: d4r_nn_block, one transformer block per 8 x 8-token window in one launch (docs/network.md,
// "Fused blocks"). It runs the seven layers of the plan's unfused block (layernorm, qkv, attention, proj + residual,
// layernorm, fc1 + relu, fc2 + residual) over its window's tokens with the same device code (linear_mma.cuh,
// attention_mma.cuh, refine_math.h) on the same buffers, a barrier between layers: every layer's output depends
// only on tokens of its own window, so it writes the unfused launches' bytes. Its reason to exist is the native
// sets' version, which keeps a window in registers and shared memory from the first layer to the last; this one is
// what they are checked against and what runs where no set serves it. A module of its own (refine_block.ptx,
// sm_80): refine.ptx and everything made from it stay as they are. The module also holds refine-v2's other fusion,
// d4r_nn_pixel_embed (pixel_inputs.h): the pixel features of a block's tokens into shared memory, then the embed linear
// of those tokens from there with linear_mma.cuh's code, so it writes the bytes of the unfused pair of launches.
// d4r_nn_pixel_head (pixel_inputs.h): the head linear of a block's tokens into shared memory with linear_mma.cuh's
// code, then each pixel's blend from there: the bytes of the unfused pair of launches.
#include "attention_mma.cuh"
#include "pixel_inputs.h"

extern "C" __global__ void d4r_nn_block(BlockParams p) {
    __shared__ uint16_t sp[kBlockWarps][kWindowTokens * kWindowTokens];
    __shared__ uint32_t tokens[kBlockWarps][kWindowTokens];
    const uint32_t window = blockIdx.x, warp = threadIdx.x >> 5, lane = threadIdx.x & 31u, g = lane >> 2;
    const AttnParams attention = block_attention(p);
    // The per-token layers: thread i takes the window's token i. The linears: warp w takes window rows 2w and 2w + 1
    // (positions 16w .. 16w + 15: lane group g gets x = g of both); an absent row is computed on the window's first
    // token (always present: windows tile the grid from its origin) and not written.
    uint32_t mine = 0, ra = 0, rb = 0, first = 0;
    const bool have = threadIdx.x < kWindowTokens && window_token(attention, window, threadIdx.x, mine);
    const bool va = window_token(attention, window, warp * 16 + g, ra);
    const bool vb = window_token(attention, window, warp * 16 + g + 8, rb);
    window_token(attention, window, 0, first);
    auto norm = [&](bool second) {
        if (!have) return;
        const NormParams n = block_norm(p, second);
        const uint64_t at = static_cast<uint64_t>(mine) * n.channels;
        layernorm_token(reinterpret_cast<const uint16_t*>(n.in) + at, reinterpret_cast<const uint16_t*>(n.gamma),
                        reinterpret_cast<const uint16_t*>(n.beta), reinterpret_cast<uint16_t*>(n.out) + at, n.channels);
    };
    // Every lane of every warp: mma.sync needs the whole warp.
    auto linear = [&](BlockLinear which) { linear_rows(block_linear(p, which), ra, va, rb, vb, first); };
    norm(false);
    __syncthreads();
    linear(BlockLinear::Qkv);
    __syncthreads();
    if (warp < p.heads) attention_window(attention, window, warp, lane, sp[warp], tokens[warp]);
    __syncthreads();
    linear(BlockLinear::Proj);
    __syncthreads();
    norm(true);
    __syncthreads();
    linear(BlockLinear::Fc1);
    __syncthreads();
    linear(BlockLinear::Fc2);
}

extern "C" __global__ void d4r_nn_pixel_embed(d4r::refine::pixel::PixelEmbedParams p) {
    using namespace d4r::refine::pixel;
    constexpr uint32_t kIn = kFeatures * kPatchPixels; // the embed's inputs: a token's pixels' features
    __shared__ uint16_t features[kEmbedTokens * kIn];
    const uint32_t tokens = p.pixels.grid_w * p.pixels.grid_h, first = blockIdx.x * kEmbedTokens;
    if (threadIdx.x < kEmbedThreads && first * kPatchPixels + threadIdx.x < tokens * kPatchPixels)
        features_into(p.pixels, first * kPatchPixels + threadIdx.x, features + threadIdx.x * kFeatures);
    __syncthreads();
    if (threadIdx.x >= 32) return; // one warp: the 16 tokens' rows
    // The linear over the block's rows: row r of `in` is token first + r, written at row r of `out`.
    const LinearParams l{reinterpret_cast<uint64_t>(features),
                         p.weight,
                         p.bias,
                         0,
                         p.out + static_cast<uint64_t>(first) * p.out_ch * 2u,
                         kEmbedTokens,
                         kIn,
                         p.out_ch,
                         0};
    const uint32_t g = threadIdx.x >> 2;
    linear_rows(l, g, first + g < tokens, g + 8, first + g + 8 < tokens, 0);
}

extern "C" __global__ void d4r_nn_pixel_head(d4r::refine::pixel::PixelHeadParams p) {
    using namespace d4r::refine::pixel;
    __shared__ uint16_t answers[kEmbedTokens * kHeadOutputs];
    const uint32_t tokens = p.pixels.grid_w * p.pixels.grid_h, first = blockIdx.x * kEmbedTokens;
    if (threadIdx.x < 32) { // one warp: the 16 tokens' rows
        // Row r of `in` is token first + r, its answers row r of `answers`.
        const LinearParams l{p.in + static_cast<uint64_t>(first) * p.in_ch * 2u,
                             p.weight,
                             p.bias,
                             0,
                             reinterpret_cast<uint64_t>(answers),
                             kEmbedTokens,
                             p.in_ch,
                             kHeadOutputs,
                             0};
        const uint32_t g = threadIdx.x >> 2;
        linear_rows(l, g, first + g < tokens, g + 8, first + g + 8 < tokens, 0);
    }
    __syncthreads();
    if (threadIdx.x < kEmbedThreads && first * kPatchPixels + threadIdx.x < tokens * kPatchPixels)
        blend_patch_pixel(p.pixels, first * kPatchPixels + threadIdx.x, answers + threadIdx.x * kOutputs);
}
