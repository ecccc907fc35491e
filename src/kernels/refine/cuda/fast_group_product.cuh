// d4r refine network, fast sm_90 set: what the fused pixel kernels (cuda/fast_pixel_fused.cu: the embed;
// cuda/fast_pixel_head.cu: the head) share: a group's rows into shared memory and the product of a group of
// kEmbedTokens tokens' rows by a layer's weights, with f32 accumulators, each warp taking 8-column tiles.
#pragma once

#include "fast_pixel.cuh"

namespace d4r::refine::fast {

// ROWS rows of COLS halves (a multiple of 8, 16-byte aligned rows) from global SRC into shared DST, STRIDE halves
// apart, with the whole block; rows at or past PRESENT are zeros.
__device__ inline void load_rows(uint16_t* dst, uint32_t stride, const uint16_t* src, uint32_t rows, uint32_t present,
                                 uint32_t cols) {
    const uint32_t pieces = cols / 8;
    const uint4* s = reinterpret_cast<const uint4*>(src);
    for (uint32_t k = threadIdx.x; k < rows * pieces; k += blockDim.x) {
        const uint32_t row = k / pieces;
        *reinterpret_cast<uint4*>(dst + row * stride + k % pieces * 8) = row < present ? __ldg(s + k) : uint4{};
    }
}

__device__ inline void load_halves(uint16_t* dst, const uint16_t* src, uint32_t n) {
    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x) dst[k] = src[k];
}

// out tile (rows g and g + 8, columns n0 + 2t and + 1) of A (16 rows in shared memory, ROW halves apart) times W^T
// (row n0 + g of W at W_ROW, K halves) plus the bias (BIAS, shared): f32 accumulators, K / 16 mma steps. W_ROW is in
// shared memory when RESIDENT, else global (the read-only path). Resident weights come two K steps at a time by
// ldmatrix (W_LM: the lane's row of the tile, lane % 8, at K 8 (lane / 8): load_b_rows), an odd last step by two
// 32-bit loads. kK: K when the caller knows it (the loop unrolled), else 0 and K is K_RUNTIME.
template <bool kResident, uint32_t kK = 0>
__device__ __forceinline__ void tile(float (&acc)[4], const uint16_t* a_rows, const uint16_t* w_row,
                                     const uint16_t* w_lm, uint32_t k_runtime) {
    const uint32_t steps = (kK ? kK : k_runtime) / 16;
    uint32_t s = 0;
    if constexpr (kResident) {
#pragma unroll(kK ? kK / 32 : 1)
        for (; s + 1 < steps; s += 2) {
            uint32_t b[4], af[4];
            load_b_rows(b, w_lm + s * 16);
            load_a(af, a_rows + s * 16);
            mma_f32(acc, af, b[0], b[1]);
            load_a(af, a_rows + (s + 1) * 16);
            mma_f32(acc, af, b[2], b[3]);
        }
    }
    for (; s < steps; ++s) {
        uint32_t af[4];
        load_a(af, a_rows + s * 16);
        if constexpr (kResident)
            mma_f32(acc, af, load_pair(w_row + s * 16), load_pair(w_row + s * 16 + 8));
        else
            mma_f32(acc, af, ldg_pair(w_row + s * 16), ldg_pair(w_row + s * 16 + 8));
    }
}

// The 16 x OUT_CH product of A (shared, ROW halves a row) and W (row n at W + n * W_STRIDE; in shared memory when
// RESIDENT, its rows 16-byte aligned) into OUT (shared, OUT_CH halves a row, f16), warp w taking the 8-column tiles w,
// w + 8, ... K: kK when not 0, else K.
template <bool kResident, uint32_t kK = 0>
__device__ __forceinline__ void product(const uint16_t* a, uint32_t row, const uint16_t* w, uint32_t w_stride,
                                        const uint16_t* bias, uint32_t k, uint32_t out_ch, uint16_t* out) {
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u, g = lane >> 2, t = lane & 3u;
    const uint16_t* a_rows = a + (lane & 15u) * row + (lane >> 4) * 8;
    for (uint32_t n0 = warp * 8; n0 < out_ch; n0 += kEmbedThreads / 32 * 8) {
        const float b0 = d4r::kernels::half_to_float(bias[n0 + 2 * t]);
        const float b1 = d4r::kernels::half_to_float(bias[n0 + 2 * t + 1]);
        float acc[4] = {b0, b1, b0, b1};
        tile<kResident, kK>(acc, a_rows, w + static_cast<uint64_t>(n0 + g) * w_stride + 2 * t,
                            w + static_cast<uint64_t>(n0 + (lane & 7u)) * w_stride + (lane >> 3) * 8, k);
        *reinterpret_cast<uint32_t*>(out + g * out_ch + n0 + 2 * t) = pack_f32(acc[0], acc[1]);
        *reinterpret_cast<uint32_t*>(out + (g + 8) * out_ch + n0 + 2 * t) = pack_f32(acc[2], acc[3]);
    }
}

} // namespace d4r::refine::fast
