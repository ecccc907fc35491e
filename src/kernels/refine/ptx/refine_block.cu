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
// code, then each pixel's blend from there: the bytes of the unfused pair of launches. d4r_nn_coarse_block: the coarse
// level (merge and its linear, the coarse block, expand's linear and regroup with the skip) per coarse window, the
// bytes of those five launches (refine_math.h's CoarseBlockParams).
#include "attention_mma.cuh"
#include "pixel_inputs.h"

namespace {

// The shared memory of a window's attention: each warp's probabilities and the window's tokens.
struct WindowScratch {
    uint16_t sp[kBlockWarps][kWindowTokens * kWindowTokens];
    uint32_t tokens[kBlockWarps][kWindowTokens];
};

// A window's rows for the linears: warp w takes window rows 2w and 2w + 1 (positions 16w .. 16w + 15: lane group g
// gets x = g of both); an absent row is computed on the window's first token (always present: windows tile the grid
// from its origin) and not written.
struct WindowRows {
    uint32_t ra = 0, rb = 0, first = 0;
    bool va = false, vb = false;
    __device__ WindowRows(const AttnParams& grid, uint32_t window) {
        const uint32_t warp = threadIdx.x >> 5, g = (threadIdx.x & 31u) >> 2;
        va = window_token(grid, window, warp * 16 + g, ra);
        vb = window_token(grid, window, warp * 16 + g + 8, rb);
        window_token(grid, window, 0, first);
    }
    __device__ void linear(const LinearParams& l) const { linear_rows(l, ra, va, rb, vb, first); }
};

// Block P over WINDOW (the seven layers, a barrier between them; the caller's barrier after it).
__device__ void block_window(const BlockParams& p, uint32_t window, WindowScratch& ws) {
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const AttnParams attention = block_attention(p);
    // The per-token layers: thread i takes the window's token i.
    uint32_t mine = 0;
    const bool have = threadIdx.x < kWindowTokens && window_token(attention, window, threadIdx.x, mine);
    const WindowRows rows(attention, window);
    auto norm = [&](bool second) {
        if (!have) return;
        const NormParams n = block_norm(p, second);
        const uint64_t at = static_cast<uint64_t>(mine) * n.channels;
        layernorm_token(reinterpret_cast<const uint16_t*>(n.in) + at, reinterpret_cast<const uint16_t*>(n.gamma),
                        reinterpret_cast<const uint16_t*>(n.beta), reinterpret_cast<uint16_t*>(n.out) + at, n.channels);
    };
    // Every lane of every warp: mma.sync needs the whole warp.
    auto linear = [&](BlockLinear which) { rows.linear(block_linear(p, which)); };
    norm(false);
    __syncthreads();
    linear(BlockLinear::Qkv);
    __syncthreads();
    if (warp < p.heads) attention_window(attention, window, warp, lane, ws.sp[warp], ws.tokens[warp]);
    __syncthreads();
    linear(BlockLinear::Proj);
    __syncthreads();
    norm(true);
    __syncthreads();
    linear(BlockLinear::Fc1);
    __syncthreads();
    linear(BlockLinear::Fc2);
}

} // namespace

extern "C" __global__ void d4r_nn_block(BlockParams p) {
    __shared__ WindowScratch ws;
    block_window(p, blockIdx.x, ws);
}

// The coarse level over coarse window blockIdx.x: its tokens' merged rows (the 2 x 2 fine tokens under each) into
// `hidden`, the merge linear into the coarse stream, the block, the expand linear into `hidden`, and the regroup of
// its 16 x 16 fine tokens with the skip connection into dec1's stream. Thread i takes the window's token i for the
// regroups.
extern "C" __global__ void d4r_nn_coarse_block(CoarseBlockParams p) {
    __shared__ WindowScratch ws;
    const uint32_t window = blockIdx.x, wide = 4 * p.fine_channels;
    const AttnParams coarse = block_attention(p.block);
    const WindowRows rows(coarse, window);
    uint32_t mine = 0;
    const bool have = threadIdx.x < kWindowTokens && window_token(coarse, window, threadIdx.x, mine);
    if (have) {
        const RegroupParams merge = coarse_merge(p);
        for (uint32_t j = 0; j < wide; ++j) merge_element(merge, mine * wide + j);
    }
    __syncthreads();
    rows.linear(coarse_merge_linear(p));
    __syncthreads();
    block_window(p.block, window, ws);
    __syncthreads();
    rows.linear(coarse_expand_linear(p));
    __syncthreads();
    if (have) {
        const RegroupParams expand = coarse_expand(p);
        const uint32_t fine_w = 2 * p.block.grid_w, fx = 2 * (mine % p.block.grid_w), fy = 2 * (mine / p.block.grid_w);
        for (uint32_t q = 0; q < 4; ++q) {
            const uint32_t t1 = (fy + (q >> 1)) * fine_w + fx + (q & 1);
            for (uint32_t c = 0; c < p.fine_channels; ++c) expand_element(expand, t1 * p.fine_channels + c);
        }
    }
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
