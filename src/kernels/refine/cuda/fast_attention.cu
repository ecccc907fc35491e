// d4r refine network, fast sm_90 set: d4r_nn_attention with f32 scores. One warp per (window, head), the PTX's
// launch shape. k and v of the window's 64 tokens are staged in shared memory (zero for absent tokens; rows of
// 32 + 8 halves: no bank conflicts); q's A fragments come straight from global memory. Each 16-query tile keeps
// its 16 x 64 scores in registers, adds the relative bias, masks absent keys, takes row maxima and sums across the
// quad with shuffles, and reuses the accumulator tiles of S as the A operand of P V (unnormalised probabilities
// in f16, the division by the row sum applied to the f32 result).
#include "fast_tile_attention.cuh"

using namespace d4r::refine::fast;

extern "C" __global__ void __launch_bounds__(32) d4r_nn_attention(AttnParams p) {
    __shared__ __align__(16) uint16_t k[kWindowTokens * kKvRow], v[kWindowTokens * kKvRow];
    __shared__ float bias[kRelBiasSize];
    const uint32_t lane = threadIdx.x, g = lane >> 2, t = lane & 3u;
    const uint32_t window = blockIdx.x, head = blockIdx.y, stride = 3 * p.channels;
    const uint16_t* qkv = reinterpret_cast<const uint16_t*>(p.qkv);
    const uint16_t* relbias = reinterpret_cast<const uint16_t*>(p.relbias) + head * kRelBiasSize;
    for (uint32_t i = lane; i < kRelBiasSize; i += 32) bias[i] = half_to_float(relbias[i]);
    // k and v: 4 pieces of 16 bytes per token each, 512 pieces, 16 per lane: lane l takes part l % 4 of tensor
    // (l / 4) % 2 of tokens 4n + l / 8 (loads first, then stores).
    const uint32_t wins_x = div_up(p.grid_w, kWindow);
    const uint32_t x0 = (window % wins_x) * kWindow, y0 = (window / wins_x) * kWindow;
    const uint32_t part = lane % 4, which = (lane / 4) % 2;
    constexpr uint32_t kPieces = kWindowTokens * 8 / 32;
    uint4 val[kPieces];
#pragma unroll
    for (uint32_t n = 0; n < kPieces; ++n) {
        const uint32_t i = 4 * n + lane / 8, x = x0 + i % kWindow, y = y0 + i / kWindow;
        val[n] = x < p.grid_w && y < p.grid_h
                     ? *reinterpret_cast<const uint4*>(qkv + static_cast<uint64_t>(y * p.grid_w + x) * stride +
                                                       (1 + which) * p.channels + head * kHeadDim + part * 8)
                     : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (uint32_t n = 0; n < kPieces; ++n)
        *reinterpret_cast<uint4*>((which == 0 ? k : v) + (4 * n + lane / 8) * kKvRow + part * 8) = val[n];
    const uint64_t present = window_present(p, window);
    __syncwarp();
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    for (uint32_t mt = 0; mt < 4; ++mt) {
        const uint32_t r0 = mt * 16 + g, r1 = r0 + 8;
        uint32_t tok0, tok1;
        const bool h0 = window_token(p, window, r0, tok0), h1 = window_token(p, window, r1, tok1);
        const uint16_t* q0 = qkv + static_cast<uint64_t>(tok0) * stride + head * kHeadDim + 2 * t;
        const uint16_t* q1 = qkv + static_cast<uint64_t>(tok1) * stride + head * kHeadDim + 2 * t;
        uint32_t a[2][4];
#pragma unroll
        for (uint32_t s = 0; s < 2; ++s) {
            a[s][0] = h0 ? load_pair(q0 + s * 16) : 0u;
            a[s][1] = h1 ? load_pair(q1 + s * 16) : 0u;
            a[s][2] = h0 ? load_pair(q0 + s * 16 + 8) : 0u;
            a[s][3] = h1 ? load_pair(q1 + s * 16 + 8) : 0u;
        }
        float o[4][4];
        attend_tile(a, k, v, bias, present, r0, g, t, o);
#pragma unroll
        for (uint32_t nt = 0; nt < kHeadDim / 8; ++nt) {
            const uint32_t col = head * kHeadDim + nt * 8 + 2 * t;
            if (h0)
                *reinterpret_cast<uint32_t*>(out + static_cast<uint64_t>(tok0) * p.channels + col) =
                    pack_f32(o[nt][0], o[nt][1]);
            if (h1)
                *reinterpret_cast<uint32_t*>(out + static_cast<uint64_t>(tok1) * p.channels + col) =
                    pack_f32(o[nt][2], o[nt][3]);
        }
    }
}
