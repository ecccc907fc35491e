// The fast CPU native kernels of the refine network: d4r_nn_linear@fast, d4r_nn_linear_fp8@fast and
// d4r_nn_attention@fast, selected by
// a kernel set whose NAME.cpu says `1 fast` (docs/runtime.md, "Native-kernel overrides"). They compute the
// same layers as the PTX with f32 accumulators through the whole K chain instead of an f16 accumulator
// rounded after every step of 16 (the fast set's rule, as on the GPUs' fast sets), written as outer products
// over contiguous rows so the compiler vectorises them without reassociating any sum. Everything else
// (softmax, epilogues, layouts) is the PTX path's code. Not bit-exact: checked against the accuracy kernels
// by PSNR (tests/network). The FP8 linear's weights are dequantised once per launch (scale * e4m3, exact in f32)
// and its activations rounded to e4m3 as the PTX rounds them, then it is the f32 linear.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/refine/ptx/refine_math.h"
#include "network/host_kernels.h"
#include "ptxsim/mma_numerics.h"
#include "runtime/native/cpu_registry.h"

namespace d4r::refine_cpu {
namespace {

using namespace refine::math;

template <typename P>
P params_of(const runtime::CpuLaunch& l) {
    return network::params_as<P>(l.params);
}

// Every block on every core (network/host_kernels.h).
void for_blocks(uint64_t count, const std::function<void(uint64_t)>& body) { network::parallel_for(count, 0, body); }

const uint16_t* h16(uint64_t a) { return reinterpret_cast<const uint16_t*>(a); }

// The hot loops, compiled for AVX2 as well as the x86-64 baseline; the loader picks one per CPU.
#if defined(__x86_64__) && defined(__GNUC__)
#define D4R_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define D4R_SIMD_CLONES
#endif

// acc[o] = bias[o] + sum_k x[k] * wt[k][o], as outer products over contiguous rows of wt.
D4R_SIMD_CLONES void outer_products(float* acc, const float* bias, const float* x, const float* wt, uint32_t in_ch,
                                    uint32_t out_ch) {
    for (uint32_t o = 0; o < out_ch; ++o) acc[o] = bias[o];
    for (uint32_t k = 0; k < in_ch; ++k) {
        const float xk = x[k];
        const float* w = wt + size_t(k) * out_ch;
        for (uint32_t o = 0; o < out_ch; ++o) acc[o] += xk * w[o];
    }
}

// out = [residual +] [relu] (x W^T + bias) over every token, W given transposed (K x out, f32); `quantise`
// rounds each activation to e4m3 first (the FP8 linear).
void linear_rows(const LinearParams& p, const std::vector<float>& wt, const std::vector<float>& bias, bool quantise) {
    const uint64_t blocks = (p.tokens + kLinearTokensPerBlock - 1) / kLinearTokensPerBlock;
    for_blocks(blocks, [&](uint64_t b) {
        std::vector<float> acc(p.out_ch), x(p.in_ch);
        const uint32_t first = static_cast<uint32_t>(b * kLinearTokensPerBlock);
        const uint32_t last = std::min(p.tokens, first + kLinearTokensPerBlock);
        for (uint32_t t = first; t < last; ++t) {
            const uint16_t* in = h16(p.in) + uint64_t(t) * p.in_ch;
            for (uint32_t k = 0; k < p.in_ch; ++k)
                x[k] = half_to_float(quantise ? ptxsim::mma::fp8_to_f16(half_to_e4m3(in[k]), false) : in[k]);
            outer_products(acc.data(), bias.data(), x.data(), wt.data(), p.in_ch, p.out_ch);
            uint16_t* out = reinterpret_cast<uint16_t*>(p.out) + uint64_t(t) * p.out_ch;
            for (uint32_t o = 0; o < p.out_ch; ++o) {
                uint16_t v = float_to_half(acc[o]);
                if (p.flags & kRelu) v = relu_h(v);
                if (p.flags & kResidual) v = add_h(v, h16(p.residual)[uint64_t(t) * p.out_ch + o]);
                out[o] = v;
            }
        }
    });
}

// Any shape the PTX takes (in_ch a multiple of 16, out_ch of 8): these loops have no size limit of their own.
bool shape_ok(uint32_t in_ch, uint32_t out_ch) {
    return in_ch != 0 && out_ch != 0 && in_ch % 16 == 0 && out_ch % 8 == 0;
}

void linear(const runtime::CpuLaunch& l) {
    const LinearParams p = params_of<LinearParams>(l);
    if (!shape_ok(p.in_ch, p.out_ch)) return;
    // W transposed to K x out (f32), once per launch.
    std::vector<float> wt(size_t(p.in_ch) * p.out_ch), bias(p.out_ch);
    for (uint32_t o = 0; o < p.out_ch; ++o) {
        bias[o] = half_to_float(h16(p.bias)[o]);
        for (uint32_t k = 0; k < p.in_ch; ++k)
            wt[size_t(k) * p.out_ch + o] = half_to_float(h16(p.weight)[size_t(o) * p.in_ch + k]);
    }
    linear_rows(p, wt, bias, false);
}

void linear_fp8(const runtime::CpuLaunch& l) {
    const LinearFp8Params f = params_of<LinearFp8Params>(l);
    if (!shape_ok(f.in_ch, f.out_ch)) return;
    const LinearParams p{f.in, f.weight, f.bias, f.residual, f.out, f.tokens, f.in_ch, f.out_ch, f.flags};
    const float scale = half_to_float(h16(f.scale)[0]);
    const uint8_t* w = reinterpret_cast<const uint8_t*>(f.weight);
    std::vector<float> wt(size_t(p.in_ch) * p.out_ch), bias(p.out_ch);
    for (uint32_t o = 0; o < p.out_ch; ++o) {
        bias[o] = half_to_float(h16(p.bias)[o]);
        for (uint32_t k = 0; k < p.in_ch; ++k)
            wt[size_t(k) * p.out_ch + o] =
                scale * half_to_float(ptxsim::mma::fp8_to_f16(w[size_t(o) * p.in_ch + k], false));
    }
    linear_rows(p, wt, bias, true);
}

// s[j] = sum_d q[d] * kt[d][j] (64 keys), and o[d] = sum_j p[j] * v[j][d] (32 dims).
D4R_SIMD_CLONES void scores(float* s, const float* q, const float (*kt)[kWindowTokens]) {
    for (uint32_t j = 0; j < kWindowTokens; ++j) s[j] = 0.0f;
    for (uint32_t d = 0; d < kHeadDim; ++d)
        for (uint32_t j = 0; j < kWindowTokens; ++j) s[j] += q[d] * kt[d][j];
}
D4R_SIMD_CLONES void weighted_values(float* o, const float* p, const float (*v)[kHeadDim]) {
    for (uint32_t d = 0; d < kHeadDim; ++d) o[d] = 0.0f;
    for (uint32_t j = 0; j < kWindowTokens; ++j)
        for (uint32_t d = 0; d < kHeadDim; ++d) o[d] += p[j] * v[j][d];
}

void attention(const runtime::CpuLaunch& l) {
    const AttnParams p = params_of<AttnParams>(l);
    const uint32_t heads = p.heads, windows = div_up(p.grid_w, kWindow) * div_up(p.grid_h, kWindow);
    if (p.channels != heads * kHeadDim || heads == 0) return;
    for_blocks(uint64_t(windows) * heads, [&](uint64_t b) {
        const uint32_t window = static_cast<uint32_t>(b % windows), head = static_cast<uint32_t>(b / windows);
        const uint32_t stride = 3 * p.channels;
        uint32_t tokens[kWindowTokens];
        uint64_t present = 0;
        for (uint32_t i = 0; i < kWindowTokens; ++i)
            if (window_token(p, window, i, tokens[i])) present |= uint64_t(1) << i;
        // kt: keys transposed (dim x key), v: values (key x dim), f32; absent tokens are zeros.
        float kt[kHeadDim][kWindowTokens], v[kWindowTokens][kHeadDim], q[kHeadDim];
        for (uint32_t j = 0; j < kWindowTokens; ++j) {
            const bool here = (present >> j) & 1u;
            const uint16_t* row = h16(p.qkv) + uint64_t(tokens[j]) * stride + head * kHeadDim;
            for (uint32_t d = 0; d < kHeadDim; ++d) {
                kt[d][j] = here ? half_to_float(row[p.channels + d]) : 0.0f;
                v[j][d] = here ? half_to_float(row[2 * p.channels + d]) : 0.0f;
            }
        }
        const uint16_t* relbias = h16(p.relbias) + head * kRelBiasSize;
        uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
        for (uint32_t i = 0; i < kWindowTokens; ++i) {
            if (!((present >> i) & 1u)) continue;
            const uint16_t* qrow = h16(p.qkv) + uint64_t(tokens[i]) * stride + head * kHeadDim;
            for (uint32_t d = 0; d < kHeadDim; ++d) q[d] = half_to_float(qrow[d]);
            float s[kWindowTokens];
            scores(s, q, kt);
            uint16_t sh[kWindowTokens];
            for (uint32_t j = 0; j < kWindowTokens; ++j) sh[j] = float_to_half(s[j]);
            softmax_row(sh, relbias, i, present);
            float probs[kWindowTokens], o[kHeadDim];
            for (uint32_t j = 0; j < kWindowTokens; ++j) probs[j] = half_to_float(sh[j]);
            weighted_values(o, probs, v);
            uint16_t* orow = out + uint64_t(tokens[i]) * p.channels + head * kHeadDim;
            for (uint32_t d = 0; d < kHeadDim; ++d) orow[d] = float_to_half(o[d]);
        }
    });
}

struct Registration {
    Registration() {
        runtime::CpuNativeKernel k;
        k.name = "d4r_nn_linear@fast";
        k.main = linear;
        runtime::register_cpu_kernel(k);
        k.name = "d4r_nn_linear_wide@fast"; // the same layer, wider than refine-v1's (plan.h)
        k.main = linear;
        runtime::register_cpu_kernel(k);
        k.name = "d4r_nn_linear_fp8@fast";
        k.main = linear_fp8;
        runtime::register_cpu_kernel(k);
        k.name = "d4r_nn_attention@fast";
        k.main = attention;
        runtime::register_cpu_kernel(k);
    }
};
const Registration g_registration;

} // namespace
} // namespace d4r::refine_cpu
