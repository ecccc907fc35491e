// d4r refine network, fast sm_90 set: one warp's 16 queries of an 8 x 8-token window against its 64 keys, with f32
// scores (fast_attention.cu, one warp per window and head; fast_block.cu, inside the fused block).
#pragma once

#include <type_traits>

#include "fast_common.cuh"

namespace d4r::refine::fast {

inline constexpr uint32_t kKvRow = kHeadDim + 8; // halves per shared k or v row (no bank conflicts)

// Which of WINDOW's 64 positions are tokens of the grid (a bit per position, row-major in the window).
__device__ __forceinline__ uint64_t window_present(const AttnParams& p, uint32_t window) {
    uint64_t present = 0;
    for (uint32_t i = 0; i < kWindowTokens; ++i) {
        uint32_t token;
        if (window_token(p, window, i, token)) present |= uint64_t(1) << i;
    }
    return present;
}

// The warp's query rows r0 = 16m + g and r1 = r0 + 8 (window positions; lane group g, thread t of the quad) with their
// q as A fragments QA (head dimensions 0-15, 16-31) against K and V (64 rows, zero for absent
// tokens) and BIAS (the head's 225 relative biases as f32): the scores in registers, the relative bias added,
// absent keys (PRESENT: a bit per window position) masked, row maxima and sums across the quad, the unnormalised
// probabilities (f16) as the A operand of P V. O gets each row's 32 output dimensions (four n-tiles of 8), divided by
// the row's sum. K and V rows are ROW halves apart (16-byte aligned: V's B fragments come by ldmatrix.trans).
template <uint32_t kRow = kKvRow>
__device__ __forceinline__ void attend_tile(const uint32_t (&qa)[2][4], const uint16_t* k, const uint16_t* v,
                                            const float* bias, uint64_t present, uint32_t r0, uint32_t g, uint32_t t,
                                            float (&o)[4][4]) {
    const uint32_t r1 = r0 + 8;
    float sc[8][4];
    const uint32_t lane = 4 * g + t;
    static_assert(kRow % 8 == 0, "ldmatrix: 16-byte rows");
#pragma unroll
    for (uint32_t nt = 0; nt < 8; ++nt) {
        sc[nt][0] = sc[nt][1] = sc[nt][2] = sc[nt][3] = 0.0f;
        // Keys 8nt .. 8nt + 7 (the lane's row: lane % 8), dimensions 0-15 and 16-31: both K steps' B fragments.
        uint32_t b[4];
        load_b_rows(b, k + (nt * 8 + (lane & 7u)) * kRow + (lane >> 3) * 8);
        mma_f32(sc[nt], qa[0], b[0], b[1]);
        mma_f32(sc[nt], qa[1], b[2], b[3]);
    }
    const int32_t x0 = static_cast<int32_t>(r0 % kWindow), y0 = static_cast<int32_t>(r0 / kWindow);
    const int32_t x1 = static_cast<int32_t>(r1 % kWindow), y1 = static_cast<int32_t>(r1 / kWindow);
    float m0 = -3.0e38f, m1 = -3.0e38f;
    // The relative bias (and absent keys masked): without the mask where every key is present (the window is inside
    // the grid, as all but the edge windows are; the same for the whole warp).
    const auto biased = [&](auto masked) {
#pragma unroll
        for (uint32_t nt = 0; nt < 8; ++nt)
#pragma unroll
            for (uint32_t e = 0; e < 2; ++e) {
                const uint32_t j = nt * 8 + 2 * t + e;
                const int32_t xj = static_cast<int32_t>(j % kWindow), yj = static_cast<int32_t>(j / kWindow);
                const bool here = !decltype(masked)::value || ((present >> j) & 1u);
                sc[nt][e] = here ? sc[nt][e] + bias[(y0 - yj + 7) * 15 + (x0 - xj + 7)] : -3.0e38f;
                sc[nt][2 + e] = here ? sc[nt][2 + e] + bias[(y1 - yj + 7) * 15 + (x1 - xj + 7)] : -3.0e38f;
                m0 = fmaxf(m0, sc[nt][e]);
                m1 = fmaxf(m1, sc[nt][2 + e]);
            }
    };
    if (present == ~uint64_t(0))
        biased(std::false_type{});
    else
        biased(std::true_type{});
    m0 = fmaxf(m0, __shfl_xor_sync(0xffffffffu, m0, 1));
    m0 = fmaxf(m0, __shfl_xor_sync(0xffffffffu, m0, 2));
    m1 = fmaxf(m1, __shfl_xor_sync(0xffffffffu, m1, 1));
    m1 = fmaxf(m1, __shfl_xor_sync(0xffffffffu, m1, 2));
    float s0 = 0.0f, s1 = 0.0f;
    uint32_t pa[4][4]; // the probabilities as A fragments: K steps of 16 keys
    // exp(x - m) as 2^(x log2 e - m log2 e): one fma and the special-function unit's ex2 a score (__expf's ex2 after a
    // subtraction and a multiplication).
    constexpr float kLog2e = 1.4426950408889634f;
    const float n0 = -m0 * kLog2e, n1 = -m1 * kLog2e;
    const auto exp_of = [](float x, float neg_m) {
        float e;
        asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(fmaf(x, kLog2e, neg_m)));
        return e;
    };
#pragma unroll
    for (uint32_t nt = 0; nt < 8; ++nt) {
        const float e00 = exp_of(sc[nt][0], n0), e01 = exp_of(sc[nt][1], n0);
        const float e10 = exp_of(sc[nt][2], n1), e11 = exp_of(sc[nt][3], n1);
        s0 += e00 + e01;
        s1 += e10 + e11;
        pa[nt / 2][(nt % 2) * 2 + 0] = pack_f32(e00, e01);
        pa[nt / 2][(nt % 2) * 2 + 1] = pack_f32(e10, e11);
    }
    s0 += __shfl_xor_sync(0xffffffffu, s0, 1);
    s0 += __shfl_xor_sync(0xffffffffu, s0, 2);
    s1 += __shfl_xor_sync(0xffffffffu, s1, 1);
    s1 += __shfl_xor_sync(0xffffffffu, s1, 2);
    const float inv0 = 1.0f / s0, inv1 = 1.0f / s1;
#pragma unroll
    for (uint32_t nt = 0; nt < kHeadDim / 8; ++nt) {
        o[nt][0] = o[nt][1] = o[nt][2] = o[nt][3] = 0.0f;
#pragma unroll
        for (uint32_t s = 0; s < 4; s += 2) {
            // Keys 16s .. 16s + 31 (a row a lane), dimensions 8nt .. 8nt + 7: the B fragments of K steps s and s + 1.
            uint32_t b[4];
            load_b_trans(b, v + (16 * s + lane) * kRow + nt * 8);
            mma_f32(o[nt], pa[s], b[0], b[1]);
            mma_f32(o[nt], pa[s + 1], b[2], b[3]);
        }
        o[nt][0] *= inv0;
        o[nt][1] *= inv0;
        o[nt][2] *= inv1;
        o[nt][3] *= inv1;
    }
}

} // namespace d4r::refine::fast
