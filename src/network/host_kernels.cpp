// The refine kernels on the host: the per-block work of each d4r_nn_* kernel, blocks spread over threads.
#include "network/host_kernels.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "kernels/refine/ptx/pixel_inputs.h"
#include "kernels/refine/ptx/refine_math.h"
#include "numerics/mma_numerics.h"

namespace d4r::network {

using namespace refine::math;
namespace pixel = refine::pixel;
namespace mma = numerics::mma;

namespace {

mma::Elem decode(uint16_t h) { return mma::decode(h, mma::Format::F16); }

// acc after the K steps of 16 (a[k * a_stride], b[k * b_stride]), as a chain of mma.sync f16 steps.
uint16_t chain(const mma::Elem* a, const mma::Elem* b, uint32_t k_total, uint16_t acc) {
    for (uint32_t k = 0; k < k_total; k += 16)
        acc = static_cast<uint16_t>(mma::dot(a + k, b + k, 16, decode(acc), 10, true));
    return acc;
}

template <typename T>
const T* ptr(uint64_t address) {
    return reinterpret_cast<const T*>(address);
}
template <typename T>
T* mut(uint64_t address) {
    return reinterpret_cast<T*>(address);
}

std::vector<mma::Elem> decoded_weights(const LinearParams& p) {
    std::vector<mma::Elem> w(size_t(p.out_ch) * p.in_ch);
    const uint16_t* weight = ptr<uint16_t>(p.weight);
    for (size_t i = 0; i < w.size(); ++i) w[i] = decode(weight[i]);
    return w;
}

// One token's outputs (W: decoded_weights(p); X: room for in_ch inputs).
void linear_token(const LinearParams& p, const std::vector<mma::Elem>& w, std::vector<mma::Elem>& x, uint32_t token) {
    const uint16_t* bias = ptr<uint16_t>(p.bias);
    uint16_t* out = mut<uint16_t>(p.out);
    const uint16_t* in = ptr<uint16_t>(p.in) + uint64_t(token) * p.in_ch;
    for (uint32_t k = 0; k < p.in_ch; ++k) x[k] = decode(in[k]);
    for (uint32_t o = 0; o < p.out_ch; ++o) {
        uint16_t v = chain(x.data(), w.data() + size_t(o) * p.in_ch, p.in_ch, bias[o]);
        uint64_t i = uint64_t(token) * p.out_ch + o;
        if (p.flags & kRelu) v = relu_h(v);
        if (p.flags & kResidual) v = add_h(v, ptr<uint16_t>(p.residual)[i]);
        out[i] = v;
    }
}

void linear_block(const LinearParams& p, uint32_t block) {
    const uint32_t first = block * kLinearTokensPerBlock;
    const uint32_t last = std::min(p.tokens, first + kLinearTokensPerBlock);
    const std::vector<mma::Elem> w = decoded_weights(p);
    std::vector<mma::Elem> x(p.in_ch);
    for (uint32_t token = first; token < last; ++token) linear_token(p, w, x, token);
}

// d4r_nn_linear_fp8: the activations as e4m3 (half_to_e4m3), each output's f16 accumulator from +0 through the
// m16n8k32 steps in K order (ptxsim's rule for the sm_90 FP8 mma), then scale, bias, relu, residual.
void linear_fp8_block(const LinearFp8Params& p, uint32_t block) {
    const uint32_t first = block * kLinearTokensPerBlock;
    const uint32_t last = std::min(p.tokens, first + kLinearTokensPerBlock);
    std::vector<mma::Elem> w(size_t(p.out_ch) * p.in_ch), x(p.in_ch);
    const uint8_t* weight = ptr<uint8_t>(p.weight);
    for (size_t i = 0; i < w.size(); ++i) w[i] = mma::decode(weight[i], mma::Format::E4M3);
    const uint16_t* bias = ptr<uint16_t>(p.bias);
    const uint16_t scale = *ptr<uint16_t>(p.scale);
    uint16_t* out = mut<uint16_t>(p.out);
    for (uint32_t token = first; token < last; ++token) {
        const uint16_t* in = ptr<uint16_t>(p.in) + uint64_t(token) * p.in_ch;
        for (uint32_t k = 0; k < p.in_ch; ++k) x[k] = mma::decode(half_to_e4m3(in[k]), mma::Format::E4M3);
        for (uint32_t o = 0; o < p.out_ch; ++o) {
            uint32_t acc = 0;
            for (uint32_t k = 0; k < p.in_ch; k += 32)
                acc = mma::dot_fp8(x.data() + k, w.data() + size_t(o) * p.in_ch + k, acc, true);
            uint16_t v = add_h(mul_h(static_cast<uint16_t>(acc), scale), bias[o]);
            uint64_t i = uint64_t(token) * p.out_ch + o;
            if (p.flags & kRelu) v = relu_h(v);
            if (p.flags & kResidual) v = add_h(v, ptr<uint16_t>(p.residual)[i]);
            out[i] = v;
        }
    }
}

void attention_block(const AttnParams& p, uint32_t window, uint32_t head) {
    const uint32_t stride = 3 * p.channels;
    const uint16_t* qkv = ptr<uint16_t>(p.qkv);
    uint64_t present = 0;
    uint32_t tokens[kWindowTokens];
    for (uint32_t i = 0; i < kWindowTokens; ++i)
        if (window_token(p, window, i, tokens[i])) present |= uint64_t(1) << i;
    // q, k (rows) and v (transposed: one row per dim) of the window's tokens; absent tokens are zeros.
    std::vector<mma::Elem> q(kWindowTokens * kHeadDim), k(kWindowTokens * kHeadDim), vt(kHeadDim * kWindowTokens);
    for (uint32_t i = 0; i < kWindowTokens; ++i)
        for (uint32_t d = 0; d < kHeadDim; ++d) {
            bool here = (present >> i) & 1u;
            const uint16_t* row = qkv + uint64_t(tokens[i]) * stride + head * kHeadDim + d;
            q[i * kHeadDim + d] = decode(here ? row[0] : 0);
            k[i * kHeadDim + d] = decode(here ? row[p.channels] : 0);
            vt[d * kWindowTokens + i] = decode(here ? row[2 * p.channels] : 0);
        }
    uint16_t s[kWindowTokens * kWindowTokens];
    for (uint32_t i = 0; i < kWindowTokens; ++i)
        for (uint32_t j = 0; j < kWindowTokens; ++j)
            s[i * kWindowTokens + j] = chain(q.data() + i * kHeadDim, k.data() + j * kHeadDim, kHeadDim, 0);
    const uint16_t* relbias = ptr<uint16_t>(p.relbias) + head * kRelBiasSize;
    uint16_t* out = mut<uint16_t>(p.out);
    std::vector<mma::Elem> prob(kWindowTokens);
    for (uint32_t i = 0; i < kWindowTokens; ++i) {
        softmax_row(s + i * kWindowTokens, relbias, i, present);
        if (!((present >> i) & 1u)) continue;
        for (uint32_t j = 0; j < kWindowTokens; ++j) prob[j] = decode(s[i * kWindowTokens + j]);
        for (uint32_t d = 0; d < kHeadDim; ++d)
            out[uint64_t(tokens[i]) * p.channels + head * kHeadDim + d] =
                chain(prob.data(), vt.data() + d * kWindowTokens, kWindowTokens, 0);
    }
}

// d4r_nn_block's window: the seven layers of the unfused block over the window's tokens, in plan order.
// The tokens of WINDOW of GRID's grid, in window order.
std::vector<uint32_t> window_tokens(const AttnParams& grid, uint32_t window) {
    std::vector<uint32_t> tokens;
    for (uint32_t i = 0; i < kWindowTokens; ++i) {
        uint32_t token = 0;
        if (window_token(grid, window, i, token)) tokens.push_back(token);
    }
    return tokens;
}

// Linear P over the rows of TOKENS.
void linear_tokens(const LinearParams& p, const std::vector<uint32_t>& tokens) {
    const std::vector<mma::Elem> w = decoded_weights(p);
    std::vector<mma::Elem> x(p.in_ch);
    for (uint32_t token : tokens) linear_token(p, w, x, token);
}

void block_window(const BlockParams& b, uint32_t window) {
    const AttnParams attention = block_attention(b);
    const std::vector<uint32_t> tokens = window_tokens(attention, window);
    auto norm = [&](bool second) {
        const NormParams p = block_norm(b, second);
        for (uint32_t token : tokens) {
            const uint64_t at = uint64_t(token) * p.channels;
            layernorm_token(ptr<uint16_t>(p.in) + at, ptr<uint16_t>(p.gamma), ptr<uint16_t>(p.beta),
                            mut<uint16_t>(p.out) + at, p.channels);
        }
    };
    auto linear = [&](BlockLinear which) { linear_tokens(block_linear(b, which), tokens); };
    norm(false);
    linear(BlockLinear::Qkv);
    for (uint32_t head = 0; head < b.heads; ++head) attention_block(attention, window, head);
    linear(BlockLinear::Proj);
    norm(true);
    linear(BlockLinear::Fc1);
    linear(BlockLinear::Fc2);
}

// d4r_nn_coarse_block over coarse window WINDOW: the steps of refine_block.cu's kernel in its order.
void coarse_block_window(const CoarseBlockParams& p, uint32_t window) {
    const std::vector<uint32_t> tokens = window_tokens(block_attention(p.block), window);
    const uint32_t c1 = p.fine_channels, wide = 4 * c1, coarse_w = p.block.grid_w;
    const RegroupParams merge = coarse_merge(p), expand = coarse_expand(p);
    for (uint32_t token : tokens)
        for (uint32_t j = 0; j < wide; ++j) merge_element(merge, token * wide + j);
    linear_tokens(coarse_merge_linear(p), tokens);
    block_window(p.block, window);
    linear_tokens(coarse_expand_linear(p), tokens);
    for (uint32_t token : tokens) {
        const uint32_t fx = 2 * (token % coarse_w), fy = 2 * (token / coarse_w);
        for (uint32_t q = 0; q < 4; ++q) {
            const uint32_t t1 = (fy + (q >> 1)) * 2 * coarse_w + fx + (q & 1);
            for (uint32_t c = 0; c < c1; ++c) expand_element(expand, t1 * c1 + c);
        }
    }
}

// Runs body(x, y) for every block of the grid.
// d4r_nn_pixel_embed's block B: its tokens' features (pixel::features_into) into a buffer of its own, then the
// embed's linear_token over it, each row written at its token's place.
void pixel_embed_block(const pixel::PixelEmbedParams& p, uint32_t block) {
    constexpr uint32_t kIn = pixel::kFeatures * pixel::kPatchPixels;
    const uint32_t tokens = p.pixels.grid_w * p.pixels.grid_h, first = block * pixel::kEmbedTokens;
    const uint32_t count = std::min(pixel::kEmbedTokens, tokens - std::min(tokens, first));
    std::vector<uint16_t> features(size_t(count) * kIn);
    for (uint32_t i = 0; i < count * pixel::kPatchPixels; ++i)
        pixel::features_into(p.pixels, first * pixel::kPatchPixels + i, features.data() + size_t(i) * pixel::kFeatures);
    const LinearParams l{reinterpret_cast<uint64_t>(features.data()),
                         p.weight,
                         p.bias,
                         0,
                         p.out + uint64_t(first) * p.out_ch * 2,
                         count,
                         kIn,
                         p.out_ch,
                         0};
    const std::vector<mma::Elem> w = decoded_weights(l);
    std::vector<mma::Elem> x(kIn);
    for (uint32_t token = 0; token < count; ++token) linear_token(l, w, x, token);
}

// d4r_nn_pixel_head's block B: its tokens' head (linear_token) into a buffer of its own, then each of their pixels'
// blend from there.
void pixel_head_block(const pixel::PixelHeadParams& p, uint32_t block) {
    const uint32_t tokens = p.pixels.grid_w * p.pixels.grid_h, first = block * pixel::kEmbedTokens;
    const uint32_t count = std::min(pixel::kEmbedTokens, tokens - std::min(tokens, first));
    std::vector<uint16_t> answers(size_t(count) * pixel::kHeadOutputs);
    const LinearParams l{p.in + uint64_t(first) * p.in_ch * 2,
                         p.weight,
                         p.bias,
                         0,
                         reinterpret_cast<uint64_t>(answers.data()),
                         count,
                         p.in_ch,
                         pixel::kHeadOutputs,
                         0};
    const std::vector<mma::Elem> w = decoded_weights(l);
    std::vector<mma::Elem> x(p.in_ch);
    for (uint32_t token = 0; token < count; ++token) linear_token(l, w, x, token);
    for (uint32_t i = 0; i < count * pixel::kPatchPixels; ++i)
        pixel::blend_patch_pixel(p.pixels, first * pixel::kPatchPixels + i,
                                 answers.data() + size_t(i) * pixel::kOutputs);
}

template <typename Body>
void for_blocks(const std::array<uint32_t, 3>& grid, unsigned threads, const Body& body) {
    parallel_for(uint64_t(grid[0]) * grid[1] * grid[2], threads, [&](uint64_t b) {
        body(static_cast<uint32_t>(b % grid[0]), static_cast<uint32_t>(b / grid[0] % grid[1]));
    });
}

// The pixels of a WIDTH x HEIGHT image, block by block of kImageBlock x kImageBlock (the image kernels' launches).
template <typename Body>
void for_image_pixels(const std::array<uint32_t, 3>& grid, unsigned threads, uint32_t width, uint32_t height,
                      const Body& body) {
    for_blocks(grid, threads, [&](uint32_t bx, uint32_t by) {
        for (uint32_t y = by * kImageBlock; y < std::min(height, (by + 1) * kImageBlock); ++y)
            for (uint32_t x = bx * kImageBlock; x < std::min(width, (bx + 1) * kImageBlock); ++x) body(x, y);
    });
}

} // namespace

void run_kernel(Kernel kernel, std::span<const uint8_t> params, const std::array<uint32_t, 3>& grid, unsigned threads) {
    switch (kernel) {
    case Kernel::Patchify: {
        auto p = params_as<PatchParams>(params);
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) {
            for (uint32_t t = bx * kThreads; t < std::min(p.grid_w * p.grid_h, (bx + 1) * kThreads); ++t)
                patchify_token(p, t);
        });
        return;
    }
    case Kernel::Unpatchify: {
        auto p = params_as<PatchParams>(params);
        for_image_pixels(grid, threads, p.width, p.height, [&](uint32_t x, uint32_t y) { unpatchify_pixel(p, x, y); });
        return;
    }
    case Kernel::LayerNorm: {
        auto p = params_as<NormParams>(params);
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) {
            for (uint32_t t = bx * kThreads; t < std::min(p.tokens, (bx + 1) * kThreads); ++t) {
                uint64_t at = uint64_t(t) * p.channels;
                layernorm_token(ptr<uint16_t>(p.in) + at, ptr<uint16_t>(p.gamma), ptr<uint16_t>(p.beta),
                                mut<uint16_t>(p.out) + at, p.channels);
            }
        });
        return;
    }
    case Kernel::Merge:
    case Kernel::Expand: {
        auto p = params_as<RegroupParams>(params);
        const uint32_t n = p.grid_w * p.grid_h * p.channels;
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) {
            for (uint32_t i = bx * kThreads; i < std::min(n, (bx + 1) * kThreads); ++i)
                kernel == Kernel::Merge ? merge_element(p, i) : expand_element(p, i);
        });
        return;
    }
    case Kernel::Linear:
    case Kernel::LinearWide: {
        auto p = params_as<LinearParams>(params);
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) { linear_block(p, bx); });
        return;
    }
    case Kernel::LinearFp8: {
        auto p = params_as<LinearFp8Params>(params);
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) { linear_fp8_block(p, bx); });
        return;
    }
    case Kernel::Attention: {
        auto p = params_as<AttnParams>(params);
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t by) { attention_block(p, bx, by); });
        return;
    }
    case Kernel::PixelFeatures: {
        auto p = params_as<pixel::PixelParams>(params);
        const uint32_t n = p.grid_w * p.grid_h * pixel::kPatchPixels;
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) {
            for (uint32_t i = bx * kThreads; i < std::min(n, (bx + 1) * kThreads); ++i) pixel::features_at(p, i);
        });
        return;
    }
    case Kernel::Block: {
        auto p = params_as<BlockParams>(params);
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) { block_window(p, bx); });
        return;
    }
    case Kernel::CoarseBlock: {
        auto p = params_as<CoarseBlockParams>(params);
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) { coarse_block_window(p, bx); });
        return;
    }
    case Kernel::PixelEmbed: {
        auto p = params_as<pixel::PixelEmbedParams>(params);
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) { pixel_embed_block(p, bx); });
        return;
    }
    case Kernel::PixelHead: {
        auto p = params_as<pixel::PixelHeadParams>(params);
        for_blocks(grid, threads, [&](uint32_t bx, uint32_t) { pixel_head_block(p, bx); });
        return;
    }
    case Kernel::PixelBlend: {
        auto p = params_as<pixel::PixelParams>(params);
        for_image_pixels(grid, threads, p.core.output_w, p.core.output_h,
                         [&](uint32_t x, uint32_t y) { pixel::blend_at(p, x, y); });
        return;
    }
    }
}

void parallel_for(uint64_t count, unsigned threads, const std::function<void(uint64_t)>& body) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<uint64_t>(threads, std::max<uint64_t>(count, 1)));
    std::atomic<uint64_t> next{0};
    auto worker = [&] {
        for (uint64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) body(i);
    };
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
}

void run_launch(const Launch& launch, unsigned threads) {
    run_kernel(launch.kernel, std::span<const uint8_t>(launch.params.data(), launch.param_bytes), launch.grid, threads);
}

} // namespace d4r::network
