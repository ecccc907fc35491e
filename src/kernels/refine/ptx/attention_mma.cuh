// d4r refine network: the PTX path's window attention (docs/network.md, "Numerics"), shared by refine.cu
// (d4r_nn_attention: one warp per window and head) and refine_block.cu (d4r_nn_block). Device code only.
#pragma once

#include "linear_mma.cuh"

namespace {

// One warp computes head `head` of window `window`: S = Q K^T (two K steps), the softmax row by row, O = P V (four
// K steps). `sp` (64 x 64 halves) and `tokens` (64) are the warp's own shared memory.
__device__ __forceinline__ void attention_window(const AttnParams& p, uint32_t window, uint32_t head, uint32_t lane,
                                                 uint16_t* sp, uint32_t* tokens) {
    const uint32_t g = lane >> 2, t = lane & 3u;
    const uint32_t stride = 3 * p.channels;
    const uint16_t* qkv = reinterpret_cast<const uint16_t*>(p.qkv);
    uint64_t present = 0;
    for (uint32_t i = 0; i < kWindowTokens; ++i) {
        uint32_t token;
        if (window_token(p, window, i, token)) present |= uint64_t(1) << i;
        if (i % 32 == lane) tokens[i] = token;
    }
    __syncwarp();
    // Row i's q (or k, v: offset) pair at dims d, d+1; zero for an absent token.
    auto pair = [&](uint32_t i, uint32_t offset, uint32_t d) -> uint32_t {
        if (!((present >> i) & 1u)) return 0u;
        return load_pair(qkv + static_cast<uint64_t>(tokens[i]) * stride + offset + head * kHeadDim + d);
    };
    auto value = [&](uint32_t i, uint32_t d) -> uint16_t {
        if (!((present >> i) & 1u)) return 0;
        return qkv[static_cast<uint64_t>(tokens[i]) * stride + 2 * p.channels + head * kHeadDim + d];
    };
    for (uint32_t mt = 0; mt < 4; ++mt)
        for (uint32_t nt = 0; nt < 8; ++nt) {
            uint32_t c[2] = {0u, 0u};
            for (uint32_t k = 0; k < kHeadDim; k += 16) {
                uint32_t a[4] = {pair(mt * 16 + g, 0, k + 2 * t), pair(mt * 16 + g + 8, 0, k + 2 * t),
                                 pair(mt * 16 + g, 0, k + 2 * t + 8), pair(mt * 16 + g + 8, 0, k + 2 * t + 8)};
                uint32_t b[2] = {pair(nt * 8 + g, p.channels, k + 2 * t), pair(nt * 8 + g, p.channels, k + 2 * t + 8)};
                mma(c, a, b);
            }
            uint32_t* row_a = reinterpret_cast<uint32_t*>(sp + (mt * 16 + g) * kWindowTokens + nt * 8 + 2 * t);
            uint32_t* row_b = reinterpret_cast<uint32_t*>(sp + (mt * 16 + g + 8) * kWindowTokens + nt * 8 + 2 * t);
            *row_a = c[0];
            *row_b = c[1];
        }
    __syncwarp();
    const uint16_t* relbias = reinterpret_cast<const uint16_t*>(p.relbias) + head * kRelBiasSize;
    softmax_row(sp + lane * kWindowTokens, relbias, lane, present);
    softmax_row(sp + (lane + 32) * kWindowTokens, relbias, lane + 32, present);
    __syncwarp();
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    for (uint32_t mt = 0; mt < 4; ++mt)
        for (uint32_t nt = 0; nt < kHeadDim / 8; ++nt) {
            uint32_t c[2] = {0u, 0u};
            for (uint32_t k = 0; k < kWindowTokens; k += 16) {
                const uint16_t* pa = sp + (mt * 16 + g) * kWindowTokens + k + 2 * t;
                const uint16_t* pb = sp + (mt * 16 + g + 8) * kWindowTokens + k + 2 * t;
                uint32_t a[4] = {load_pair(pa), load_pair(pb), load_pair(pa + 8), load_pair(pb + 8)};
                uint32_t d = nt * 8 + g;
                uint32_t b[2] = {pack(value(k + 2 * t, d), value(k + 2 * t + 1, d)),
                                 pack(value(k + 2 * t + 8, d), value(k + 2 * t + 9, d))};
                mma(c, a, b);
            }
            for (uint32_t half = 0; half < 2; ++half) {
                uint32_t i = mt * 16 + g + 8 * half;
                if (!((present >> i) & 1u)) continue;
                uint16_t* o = out + static_cast<uint64_t>(tokens[i]) * p.channels + head * kHeadDim + nt * 8 + 2 * t;
                o[0] = static_cast<uint16_t>(c[half] & 0xffffu);
                o[1] = static_cast<uint16_t>(c[half] >> 16);
            }
        }
}

} // namespace
