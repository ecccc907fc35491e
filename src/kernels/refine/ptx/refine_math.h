// d4r refine network (docs/network.md): the kernels' parameter blocks and the scalar math shared by the CUDA
// kernels (refine.cu, shipped as PTX), the C++ reference (src/network/reference.h) and the CPU native kernels.
//
// Promise: every function here compiles identically under nvcc, a host C++ compiler and clang's HIP device
// compilation (the AMD kernels, src/kernels/refine/hip) and uses only
// IEEE-exact operations (+ - * /, sqrt, floor, comparisons as selects, f16<->f32 round-to-nearest-even), so
// with nvcc's --fmad=false and the host's -ffp-contract=off the implementations agree bit for bit. The
// matrix products are not here: the kernels use mma.sync, the host the measured tensor-core rule
// (numerics/mma_numerics.h); docs/network.md defines both.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/common/f16.h"

namespace d4r::refine::math {

using kernels::float_to_half;
using kernels::floor_f;
using kernels::half_to_float;
using kernels::sqrt_f;

inline constexpr uint32_t kWindow = 8;                                          // window side in tokens
inline constexpr uint32_t kWindowTokens = kWindow * kWindow;                    // 64
inline constexpr uint32_t kHeadDim = 32;                                        // channels per attention head
inline constexpr uint32_t kRelBiasSize = (2 * kWindow - 1) * (2 * kWindow - 1); // 225 per head
inline constexpr uint32_t kPatch = 4;                                           // pixels per token side (fine grid)
inline constexpr uint32_t kPatchChannels = kPatch * kPatch * 3;                 // 48
inline constexpr uint32_t kMaxChannels = 128;                                   // the widest tensor a linear reads
inline constexpr float kToneMax = 0.999f;                                       // untone keeps pixels at or above this
inline constexpr float kMaxHalf = 65504.0f;
inline constexpr float kNormEps = 1.0e-5f;

// The linear shapes every native set's d4r_nn_linear and d4r_nn_linear_fp8 take: the input widths the sm_90 fast
// kernel is written for (refine-v1's, and refine-v2's but its embed, merge and enc2.fc2), any output width that is
// a multiple of 8 (the AMD kernels take any input width up to kMaxChannels). The plan launches every other shape
// as d4r_nn_linear_wide, the same PTX under a name of its own, which the AMD sets do not serve (network/plan.cpp).
D4R_HD bool native_linear_shape(uint32_t in_ch, uint32_t out_ch) {
    const bool width = in_ch == 32 || in_ch == 48 || in_ch == 64 || in_ch == 128;
    return width && out_ch != 0 && out_ch % 8 == 0;
}

// Launch shapes.
inline constexpr uint32_t kLinearWarps = 4; // d4r_nn_linear: 16 tokens per warp
inline constexpr uint32_t kLinearTokensPerBlock = kLinearWarps * 16;
inline constexpr uint32_t kThreads = 128;   // token-per-thread kernels
inline constexpr uint32_t kImageBlock = 16; // d4r_nn_unpatchify: 16x16 pixels

// LinearParams::flags
inline constexpr uint32_t kRelu = 1u, kResidual = 2u;

// Parameter blocks (each kernel's only parameter, passed by value). Pointers are device addresses (host
// addresses on the cpu backend); tensors are f16, tokens row-major, channels innermost.
struct alignas(8) PatchParams {    // d4r_nn_patchify, d4r_nn_unpatchify
    uint64_t image;                // RGBA16F, the core's output: read by patchify, rewritten by unpatchify
    uint64_t tokens;               // T1 x 48: patchify writes the patches, unpatchify reads the head's residuals
    uint32_t width, height, pitch; // image size in pixels, row pitch in bytes
    uint32_t grid_w, grid_h;       // the fine token grid (W8 / 4, H8 / 4)
    uint32_t reserved;
};
static_assert(sizeof(PatchParams) == 40);

struct alignas(8) LinearParams { // d4r_nn_linear: out = [residual +] [relu] (in * weight^T + bias)
    uint64_t in, weight, bias, residual, out;
    uint32_t tokens, in_ch, out_ch, flags; // in_ch a multiple of 16 (<= kMaxChannels), out_ch of 8
};
static_assert(sizeof(LinearParams) == 56);

// d4r_nn_linear_fp8: LinearParams' fields with `weight` pointing at e4m3 bytes (out_ch x in_ch, row-major),
// plus `scale`, the address of the layer's f16 dequantisation factor (w ~ scale * w_e4m3). in_ch a multiple
// of 32 (<= kMaxChannels), out_ch of 8.
struct alignas(8) LinearFp8Params {
    uint64_t in, weight, bias, residual, out;
    uint32_t tokens, in_ch, out_ch, flags;
    uint64_t scale;
};
static_assert(sizeof(LinearFp8Params) == 64);

struct alignas(8) NormParams { // d4r_nn_layernorm
    uint64_t in, gamma, beta, out;
    uint32_t tokens, channels;
};
static_assert(sizeof(NormParams) == 40);

struct alignas(8) AttnParams { // d4r_nn_attention: one warp per (window, head)
    uint64_t qkv;              // T x 3C: [q | k | v]
    uint64_t relbias;          // heads x 225
    uint64_t out;              // T x C
    uint32_t grid_w, grid_h, channels, heads;
};
static_assert(sizeof(AttnParams) == 40);

struct alignas(8) RegroupParams { // d4r_nn_merge (fine -> coarse), d4r_nn_expand (coarse -> fine, + skip)
    uint64_t in, skip, out;
    uint32_t grid_w, grid_h; // the fine grid (even sizes); the coarse grid is half of it
    uint32_t channels;       // fine channels; the coarse tensor has 4x
    uint32_t reserved;
};
static_assert(sizeof(RegroupParams) == 40);

// d4r_nn_block: one transformer block (layernorm, qkv, attention, proj + residual, layernorm, fc1 + relu, fc2 +
// residual) updating `stream` in place, one block of kBlockWarps warps per 8 x 8-token window (docs/network.md,
// "Fused blocks"). The work buffers and weights are those of the seven launches it replaces, and it writes what
// they write (the scratch tensors too), byte for byte.
inline constexpr uint32_t kBlockWarps = 4;
struct alignas(8) BlockParams {
    uint64_t stream;                  // T x C, read and written
    uint64_t norm, qkv, attn, hidden; // work buffers: T x C, T x 3C, T x C, T x 2C
    uint64_t ln1_g, ln1_b, qkv_w, qkv_b, relbias, proj_w, proj_b, ln2_g, ln2_b, fc1_w, fc1_b, fc2_w, fc2_b;
    uint32_t grid_w, grid_h, channels, heads; // channels 32, 64 or 128 (heads of kHeadDim, at most kBlockWarps)
};
static_assert(sizeof(BlockParams) == 160);

// The parameter blocks of the launches a d4r_nn_block stands for (the plan launches these when it does not fuse).
enum class BlockLinear : uint32_t { Qkv, Proj, Fc1, Fc2 };
D4R_HD NormParams block_norm(const BlockParams& b, bool second) {
    return {b.stream, second ? b.ln2_g : b.ln1_g, second ? b.ln2_b : b.ln1_b, b.norm, b.grid_w * b.grid_h, b.channels};
}
D4R_HD LinearParams block_linear(const BlockParams& b, BlockLinear which) {
    const uint32_t c = b.channels, tokens = b.grid_w * b.grid_h;
    switch (which) {
    case BlockLinear::Qkv:
        return {b.norm, b.qkv_w, b.qkv_b, 0, b.qkv, tokens, c, 3 * c, 0};
    case BlockLinear::Proj:
        return {b.attn, b.proj_w, b.proj_b, b.stream, b.stream, tokens, c, c, kResidual};
    case BlockLinear::Fc1:
        return {b.norm, b.fc1_w, b.fc1_b, 0, b.hidden, tokens, c, 2 * c, kRelu};
    default:
        return {b.hidden, b.fc2_w, b.fc2_b, b.stream, b.stream, tokens, 2 * c, c, kResidual};
    }
}
D4R_HD AttnParams block_attention(const BlockParams& b) {
    return {b.qkv, b.relbias, b.attn, b.grid_w, b.grid_h, b.channels, b.heads};
}

// d4r_nn_coarse_block: the network's coarse level (merge and its linear, the coarse block, expand's linear and the
// regroup with the skip connection) in one launch, one block of kBlockWarps warps per 8 x 8-token coarse window (16 x
// 16 fine tokens: every token a window reads or writes is its own). It writes what the five launches it replaces
// write into the coarse stream and dec1's stream; the merged and the expanded rows (T2 x 4 C1) go to the block's
// `hidden` buffer instead of `attn` and `norm`, where each window's rows are its own because 4 C1 = 2 C2 (the plan
// fuses only then).
struct alignas(8) CoarseBlockParams {
    BlockParams block;           // the coarse block: `stream` the coarse stream, the grid the coarse grid
    uint64_t fine, out;          // enc1's output (the skip connection) and dec1's stream (written), T1 x C1
    uint64_t merge_w, merge_b;   // 4 C1 -> C2
    uint64_t expand_w, expand_b; // C2 -> 4 C1
    uint32_t fine_channels, reserved;
};
static_assert(sizeof(CoarseBlockParams) == 216);

// The parameter blocks of the steps around the coarse block, with the fused kernel's buffers.
D4R_HD RegroupParams coarse_merge(const CoarseBlockParams& p) {
    return {p.fine, 0, p.block.hidden, 2 * p.block.grid_w, 2 * p.block.grid_h, p.fine_channels, 0};
}
D4R_HD LinearParams coarse_merge_linear(const CoarseBlockParams& p) {
    const BlockParams& b = p.block;
    return {b.hidden, p.merge_w, p.merge_b, 0, b.stream, b.grid_w * b.grid_h, 4 * p.fine_channels, b.channels, 0};
}
D4R_HD LinearParams coarse_expand_linear(const CoarseBlockParams& p) {
    const BlockParams& b = p.block;
    return {b.stream, p.expand_w, p.expand_b, 0, b.hidden, b.grid_w * b.grid_h, b.channels, 4 * p.fine_channels, 0};
}
D4R_HD RegroupParams coarse_expand(const CoarseBlockParams& p) {
    return {p.block.hidden, p.fine, p.out, 2 * p.block.grid_w, 2 * p.block.grid_h, p.fine_channels, 0};
}

// ---- scalar helpers (selects: their NaN handling is the same everywhere) ----
D4R_HD float min_f(float a, float b) { return a < b ? a : b; }
D4R_HD float max_f(float a, float b) { return a > b ? a : b; }
D4R_HD float clamp_f(float v, float lo, float hi) { return min_f(max_f(v, lo), hi); }
D4R_HD uint32_t div_up(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// Linear HDR value -> [0, 1): c / (1 + c), c = max(0, v) (NaN -> 0), capped at the largest half.
D4R_HD float tone(float v) {
    float c = min_f(max_f(v, 0.0f), kMaxHalf);
    return c / (1.0f + c);
}
// The refined value of a pixel whose value is v (x = tone(v)) and residual r; a zero residual keeps v exactly.
D4R_HD float untone(float v, float x, float r) {
    if (!(x < kToneMax) || r == 0.0f) return v;
    float y = clamp_f(x + r, 0.0f, kToneMax);
    return y / (1.0f - y);
}

// exp(x) for x <= 0 from exact operations (docs/network.md): 2^t with t = x log2(e), a degree-6 polynomial
// for the fraction and the integer part built from bits.
D4R_HD float exp_neg(float x) {
    x = clamp_f(x, -80.0f, 0.0f);
    float t = x * 1.44269504f;
    float n = floor_f(t);
    float f = t - n;
    float p = 1.54035304e-4f;
    p = p * f + 1.33335581e-3f;
    p = p * f + 9.61812911e-3f;
    p = p * f + 5.55041087e-2f;
    p = p * f + 2.40226507e-1f;
    p = p * f + 6.93147181e-1f;
    p = p * f + 1.0f;
    uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
    return p * kernels::float_of(bits);
}

// f16 helpers of the epilogues.
D4R_HD uint16_t relu_h(uint16_t h) { return (h & 0x8000u) ? uint16_t(0) : h; }
D4R_HD uint16_t add_h(uint16_t a, uint16_t b) { return float_to_half(half_to_float(a) + half_to_float(b)); }
// f16 of the f32 product of two f16 (exact in f32: 11 x 11 significand bits), so one rounding.
D4R_HD uint16_t mul_h(uint16_t a, uint16_t b) { return float_to_half(half_to_float(a) * half_to_float(b)); }

// f16 -> OCP e4m3 (bias 7, max 448, NaN 0x7f/0xff, no infinities) in integer arithmetic: round to nearest
// even, finite values and infinities beyond 448 saturate to +-448 (0x7e/0xfe), NaN becomes 0x7f. Zeros keep
// their sign; f16 values below 2^-10 in magnitude (f16 denormals among them) round to a signed zero.
D4R_HD uint8_t half_to_e4m3(uint16_t h) {
    const uint32_t sign = (h >> 8) & 0x80u, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1fu) return m ? uint8_t(0x7fu) : uint8_t(sign | 0x7eu);
    if (e == 0) return uint8_t(sign); // |h| < 2^-14: below half of e4m3's smallest denormal 2^-9
    // |h| = s * 2^(exp - 10), s = 1024 + m; its e4m3 quantum is 2^(max(exp, -6) - 3), 2^-9 for denormals.
    const int32_t exp = int32_t(e) - 15;
    const uint32_t s = 1024u + m;
    const int32_t shift = 7 + (exp < -6 ? -6 - exp : 0); // bits of s below the quantum
    if (shift > 12) return uint8_t(sign);
    uint32_t q = s >> shift;
    const uint32_t rest = s & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1u))) ++q;
    // q quanta of 2^(max(exp, -6) - 3): in units of 2^-9, n = q << (max(exp, -6) + 6) (at most 16 << 21).
    const uint32_t n = q << (exp < -6 ? 0 : exp + 6);
    if (n < 8u) return uint8_t(sign | n); // denormal (or zero)
    uint32_t top = 3;                     // n in [2^top, 2^(top+1)): exponent field top - 2
    while ((n >> (top + 1)) != 0u) ++top;
    const uint32_t field = top - 2, mant = (n >> (top - 3)) & 7u;
    if (field > 15u || (field == 15u && mant == 7u)) return uint8_t(sign | 0x7eu);
    return uint8_t(sign | (field << 3) | mant);
}

// One token's layernorm (f32, channel order; docs/network.md).
D4R_HD void layernorm_token(const uint16_t* x, const uint16_t* gamma, const uint16_t* beta, uint16_t* out,
                            uint32_t channels) {
    float sum = 0.0f;
    for (uint32_t c = 0; c < channels; ++c) sum = sum + half_to_float(x[c]);
    float mean = sum / static_cast<float>(channels);
    float var = 0.0f;
    for (uint32_t c = 0; c < channels; ++c) {
        float d = half_to_float(x[c]) - mean;
        var = var + d * d;
    }
    var = var / static_cast<float>(channels);
    float inv = 1.0f / sqrt_f(var + kNormEps);
    for (uint32_t c = 0; c < channels; ++c) {
        float d = half_to_float(x[c]) - mean;
        out[c] = float_to_half((d * inv) * half_to_float(gamma[c]) + half_to_float(beta[c]));
    }
}

// The pixel (x, y) of an RGBA16F image, clamped to the image (the padding rule).
D4R_HD const uint16_t* pixel_at(uint64_t image, uint32_t pitch, uint32_t width, uint32_t height, uint32_t x,
                                uint32_t y) {
    x = x < width ? x : width - 1;
    y = y < height ? y : height - 1;
    return reinterpret_cast<const uint16_t*>(image + static_cast<uint64_t>(y) * pitch) + 4u * x;
}

// patchify of one token into `out`: its 48 channels (dy*4 + dx)*3 + c.
D4R_HD void patchify_into(const PatchParams& p, uint32_t token, uint16_t* out) {
    uint32_t tx = token % p.grid_w, ty = token / p.grid_w;
    for (uint32_t dy = 0; dy < kPatch; ++dy)
        for (uint32_t dx = 0; dx < kPatch; ++dx) {
            const uint16_t* px = pixel_at(p.image, p.pitch, p.width, p.height, tx * kPatch + dx, ty * kPatch + dy);
            for (uint32_t c = 0; c < 3; ++c)
                out[(dy * kPatch + dx) * 3 + c] = float_to_half(tone(half_to_float(px[c])));
        }
}
// patchify of one token into the token tensor.
D4R_HD void patchify_token(const PatchParams& p, uint32_t token) {
    patchify_into(p, token, reinterpret_cast<uint16_t*>(p.tokens) + static_cast<uint64_t>(token) * kPatchChannels);
}

// unpatchify of one pixel inside the image: untone(tone(v) + residual); alpha kept.
D4R_HD void unpatchify_pixel(const PatchParams& p, uint32_t x, uint32_t y) {
    uint16_t* px = reinterpret_cast<uint16_t*>(p.image + static_cast<uint64_t>(y) * p.pitch) + 4u * x;
    uint32_t token = (y / kPatch) * p.grid_w + x / kPatch;
    const uint16_t* r = reinterpret_cast<const uint16_t*>(p.tokens) + static_cast<uint64_t>(token) * kPatchChannels +
                        ((y % kPatch) * kPatch + x % kPatch) * 3;
    for (uint32_t c = 0; c < 3; ++c) {
        float v = half_to_float(px[c]);
        px[c] = float_to_half(untone(v, tone(v), half_to_float(r[c])));
    }
}

// merge: coarse element (t2, (dy*2 + dx)*C + c) = fine (2tx + dx, 2ty + dy) channel c.
D4R_HD void merge_element(const RegroupParams& p, uint32_t index) {
    uint32_t wide = 4 * p.channels, t2 = index / wide, j = index % wide;
    uint32_t q = j / p.channels, c = j % p.channels, cw = p.grid_w / 2;
    uint32_t fx = (t2 % cw) * 2 + (q & 1), fy = (t2 / cw) * 2 + (q >> 1);
    reinterpret_cast<uint16_t*>(p.out)[index] =
        reinterpret_cast<const uint16_t*>(p.in)[(static_cast<uint64_t>(fy) * p.grid_w + fx) * p.channels + c];
}

// expand: fine element (t1, c) = coarse (t1 / 2, (dy*2 + dx)*C + c) + skip (t1, c).
D4R_HD void expand_element(const RegroupParams& p, uint32_t index) {
    uint32_t t1 = index / p.channels, c = index % p.channels;
    uint32_t fx = t1 % p.grid_w, fy = t1 / p.grid_w, cw = p.grid_w / 2;
    uint32_t t2 = (fy / 2) * cw + fx / 2, q = (fy & 1) * 2 + (fx & 1);
    uint16_t v =
        reinterpret_cast<const uint16_t*>(p.in)[static_cast<uint64_t>(t2) * 4 * p.channels + q * p.channels + c];
    reinterpret_cast<uint16_t*>(p.out)[index] = add_h(v, reinterpret_cast<const uint16_t*>(p.skip)[index]);
}

// The token of window position i (row-major in the window), or false outside the grid.
D4R_HD bool window_token(const AttnParams& p, uint32_t window, uint32_t i, uint32_t& token) {
    uint32_t wins_x = div_up(p.grid_w, kWindow);
    uint32_t x = (window % wins_x) * kWindow + (i % kWindow), y = (window / wins_x) * kWindow + (i / kWindow);
    token = y * p.grid_w + x;
    return x < p.grid_w && y < p.grid_h;
}

// Softmax of one query row of the window (docs/network.md): `s` holds the 64 raw scores (f16) and receives
// the 64 probabilities (f16; 0 for absent keys). `present` is a bit per key.
D4R_HD void softmax_row(uint16_t* s, const uint16_t* relbias, uint32_t query, uint64_t present) {
    int32_t xi = static_cast<int32_t>(query % kWindow), yi = static_cast<int32_t>(query / kWindow);
    auto logit = [&](uint32_t j) {
        int32_t xj = static_cast<int32_t>(j % kWindow), yj = static_cast<int32_t>(j / kWindow);
        return half_to_float(s[j]) + half_to_float(relbias[(yi - yj + 7) * 15 + (xi - xj + 7)]);
    };
    float m = -3.0e38f;
    for (uint32_t j = 0; j < kWindowTokens; ++j)
        if ((present >> j) & 1u) m = max_f(m, logit(j));
    float sum = 0.0f;
    for (uint32_t j = 0; j < kWindowTokens; ++j)
        if ((present >> j) & 1u) sum = sum + exp_neg(logit(j) - m);
#ifdef __HIP_DEVICE_COMPILE__
    // In place, the same values: logit(j) reads only s[j]. The AMD kernels would keep the 64-entry array of
    // the other path in scratch memory; nvcc's and the host's code stay as the committed PTX was made.
    for (uint32_t j = 0; j < kWindowTokens; ++j)
        s[j] = ((present >> j) & 1u) ? float_to_half(exp_neg(logit(j) - m) / sum) : uint16_t(0);
#else
    uint16_t probs[kWindowTokens];
    for (uint32_t j = 0; j < kWindowTokens; ++j)
        probs[j] = ((present >> j) & 1u) ? float_to_half(exp_neg(logit(j) - m) / sum) : uint16_t(0);
    for (uint32_t j = 0; j < kWindowTokens; ++j) s[j] = probs[j];
#endif
}

} // namespace d4r::refine::math
