// The fast set's CPU linear, attention and layernorm (d4r_nn_linear@fast, d4r_nn_attention@fast,
// d4r_nn_layernorm@fast: exact) against the fast set's
// definition written out plainly here: f32 accumulators through the whole sum, in order (bias, then k = 0, 1, ...;
// keys j = 0, 1, ...), the PTX path's softmax and epilogues. The kernels tile tokens, keep accumulators in
// registers and run eight lanes at once (AVX2/F16C where the CPU has them); the bytes must not move.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cpu_kernel_test.h"
#include "kernels/common/f16.h"
#include "kernels/refine/ptx/refine_math.h"

namespace d4r::refine_cpu {
namespace {

using namespace refine::math;

std::vector<uint16_t> random_halves(size_t n, float lo, float hi, std::mt19937& rng) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<uint16_t> v(n);
    for (auto& h : v) h = float_to_half(d(rng));
    return v;
}

// With the explicit vector paths and without them (simd.h).
class FastKernels : public test::SimdSwitch {};
INSTANTIATE_TEST_SUITE_P(Simd, FastKernels, testing::Bool(), test::simd_name);

TEST_P(FastKernels, TheLinearIsTheInOrderF32SumWithThePtxEpilogue) {
    std::mt19937 rng(3);
    // Refine-v2's shapes (embed 368 -> 64, merge 256 -> 128) and refine-v1's; token counts not multiples of a tile.
    const struct {
        uint32_t tokens, in_ch, out_ch, flags;
    } shapes[] = {{37, 368, 64, 0}, {70, 256, 128, kResidual}, {133, 64, 192, kRelu}, {9, 128, 40, kRelu | kResidual}};
    for (const auto& s : shapes) {
        const auto in = random_halves(size_t(s.tokens) * s.in_ch, -2.0f, 2.0f, rng);
        const auto weight = random_halves(size_t(s.out_ch) * s.in_ch, -0.3f, 0.3f, rng);
        const auto bias = random_halves(s.out_ch, -0.5f, 0.5f, rng);
        const auto residual = random_halves(size_t(s.tokens) * s.out_ch, -1.0f, 1.0f, rng);
        std::vector<uint16_t> out(size_t(s.tokens) * s.out_ch, 0xffffu), want(out.size());
        for (uint32_t t = 0; t < s.tokens; ++t)
            for (uint32_t o = 0; o < s.out_ch; ++o) {
                float acc = half_to_float(bias[o]);
                for (uint32_t k = 0; k < s.in_ch; ++k)
                    acc = acc +
                          half_to_float(in[size_t(t) * s.in_ch + k]) * half_to_float(weight[size_t(o) * s.in_ch + k]);
                uint16_t v = float_to_half(acc);
                if (s.flags & kRelu) v = relu_h(v);
                if (s.flags & kResidual) v = add_h(v, residual[size_t(t) * s.out_ch + o]);
                want[size_t(t) * s.out_ch + o] = v;
            }
        LinearParams p{};
        p.in = reinterpret_cast<uint64_t>(in.data());
        p.weight = reinterpret_cast<uint64_t>(weight.data());
        p.bias = reinterpret_cast<uint64_t>(bias.data());
        p.residual = reinterpret_cast<uint64_t>(residual.data());
        p.out = reinterpret_cast<uint64_t>(out.data());
        p.tokens = s.tokens;
        p.in_ch = s.in_ch;
        p.out_ch = s.out_ch;
        p.flags = s.flags;
        const uint32_t blocks = div_up(s.tokens, kLinearTokensPerBlock);
        test::run_registered(native_linear_shape(s.in_ch, s.out_ch) ? "d4r_nn_linear@fast" : "d4r_nn_linear_wide@fast",
                             p, {blocks, 1, 1});
        EXPECT_TRUE(out == want) << s.tokens << " tokens " << s.in_ch << " -> " << s.out_ch;
    }
}

TEST_P(FastKernels, TheAttentionIsTheInOrderF32SumsAroundThePtxSoftmax) {
    std::mt19937 rng(4);
    const uint32_t grid_w = 13, grid_h = 10, heads = 2, channels = heads * kHeadDim; // partial windows too
    const uint32_t tokens = grid_w * grid_h;
    const auto qkv = random_halves(size_t(tokens) * 3 * channels, -1.5f, 1.5f, rng);
    const auto relbias = random_halves(size_t(heads) * kRelBiasSize, -1.0f, 1.0f, rng);
    std::vector<uint16_t> out(size_t(tokens) * channels, 0xffffu), want(out.size(), 0xffffu);
    AttnParams p{reinterpret_cast<uint64_t>(qkv.data()),
                 reinterpret_cast<uint64_t>(relbias.data()),
                 reinterpret_cast<uint64_t>(out.data()),
                 grid_w,
                 grid_h,
                 channels,
                 heads};
    const uint32_t windows = div_up(grid_w, kWindow) * div_up(grid_h, kWindow);
    for (uint32_t head = 0; head < heads; ++head)
        for (uint32_t w = 0; w < windows; ++w) {
            uint32_t tok[kWindowTokens];
            uint64_t present = 0;
            for (uint32_t i = 0; i < kWindowTokens; ++i)
                if (window_token(p, w, i, tok[i])) present |= uint64_t(1) << i;
            auto at = [&](uint32_t token, uint32_t part, uint32_t d) {
                return half_to_float(qkv[size_t(token) * 3 * channels + part * channels + head * kHeadDim + d]);
            };
            for (uint32_t i = 0; i < kWindowTokens; ++i) {
                if (!((present >> i) & 1u)) continue;
                uint16_t s[kWindowTokens];
                for (uint32_t j = 0; j < kWindowTokens; ++j) {
                    float acc = 0.0f;
                    for (uint32_t d = 0; d < kHeadDim; ++d)
                        acc = acc + at(tok[i], 0, d) * (((present >> j) & 1u) ? at(tok[j], 1, d) : 0.0f);
                    s[j] = float_to_half(acc);
                }
                softmax_row(s, relbias.data() + head * kRelBiasSize, i, present);
                for (uint32_t d = 0; d < kHeadDim; ++d) {
                    float acc = 0.0f;
                    for (uint32_t j = 0; j < kWindowTokens; ++j)
                        acc = acc + half_to_float(s[j]) * (((present >> j) & 1u) ? at(tok[j], 2, d) : 0.0f);
                    want[size_t(tok[i]) * channels + head * kHeadDim + d] = float_to_half(acc);
                }
            }
        }
    test::run_registered("d4r_nn_attention@fast", p, {windows * heads, 1, 1});
    EXPECT_TRUE(out == want);
}

// The layernorm's fast kernel is exact: the accuracy kernel's bytes (each token's sums still in channel order).
TEST_P(FastKernels, TheLayernormGivesTheAccuracyKernelsBytes) {
    std::mt19937 rng(6);
    for (uint32_t channels : {64u, 128u, 32u}) {
        const uint32_t tokens = 203; // not a multiple of the eight lanes or of a block
        auto in = random_halves(size_t(tokens) * channels, -3.0f, 3.0f, rng);
        for (uint32_t c = 0; c < channels; ++c) in[c] = float_to_half(0.25f); // a constant token: variance 0
        const auto gamma = random_halves(channels, 0.5f, 1.5f, rng), beta = random_halves(channels, -0.2f, 0.2f, rng);
        std::vector<uint16_t> out(in.size(), 0xffffu), want(in.size());
        for (uint32_t t = 0; t < tokens; ++t)
            layernorm_token(in.data() + size_t(t) * channels, gamma.data(), beta.data(),
                            want.data() + size_t(t) * channels, channels);
        const NormParams p{reinterpret_cast<uint64_t>(in.data()),
                           reinterpret_cast<uint64_t>(gamma.data()),
                           reinterpret_cast<uint64_t>(beta.data()),
                           reinterpret_cast<uint64_t>(out.data()),
                           tokens,
                           channels};
        test::run_registered("d4r_nn_layernorm@fast", p, {div_up(tokens, kThreads), 1, 1});
        EXPECT_TRUE(out == want) << channels << " channels";
    }
}

} // namespace
} // namespace d4r::refine_cpu
