// ptxsim internals: one mma.sync of a whole warp on its fragments (the PTX ISA's "Matrix Fragments for
// mma.m16n8k*", ops_mma.cpp's table; groupID g = lane >> 2, t = lane % 4), with the measured H200 rule of
// mma_numerics.h. Shared by the interpreter's handler (ops_mma.cpp) and the collectives of compiled kernels
// (compiled_collectives.cpp).
#pragma once

#include <cstdint>

#include "numerics/mma_tile.h"
#include "ptxsim/exec.h"
#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

// A lane's fragment words: A (2 or 4), then B (1 or 2), then C (2 or 4).
inline constexpr unsigned kMmaFragmentWords = 10;

// mma_warp's tiles through numerics/mma_tile.h: the fragments as matrices of raw bits (A 16 x K, B K x 8, C 16 x 8),
// D from the tile: f16/bf16 inputs with f32 accumulators (tile_f32), or f16 inputs with f16 accumulators (ACC16,
// tile_f16: C's and D's two words a lane hold rows g and g + 8, columns 2t and 2t + 1 in their halves). False
// (nothing written) where the tile leaves it to the rule.
template <int K, bool Acc16>
inline bool mma_tile(mma::Format f, const uint32_t (&frag)[32][kMmaFragmentWords], uint32_t (&d)[32][4]) {
    constexpr unsigned na = K == 8 ? 2 : 4, nb = K == 8 ? 1 : 2, nc = Acc16 ? 2 : 4, halves = Acc16 ? 2 : 1;
    // Where half H of C's (and D's) word R of lane (G, T) is in the 16 x 8 matrix.
    auto at = [](unsigned g, unsigned t, unsigned r, unsigned h) {
        return Acc16 ? (g + 8 * r) * 8 + 2 * t + h : (g + 8 * (r >> 1)) * 8 + 2 * t + (r & 1);
    };
    uint32_t a[16 * K], b[K * 8], c[16 * 8], out[16 * 8];
    for (unsigned l = 0; l < 32; ++l) {
        const uint32_t* ops = frag[l];
        const unsigned gr = l >> 2, t = l & 3;
        for (unsigned r = 0; r < na; ++r)
            for (unsigned h = 0; h < 2; ++h)
                a[(gr + 8 * (r & 1)) * K + 2 * t + 8 * (r >> 1) + h] = (ops[r] >> (16 * h)) & 0xffff;
        for (unsigned r = 0; r < nb; ++r)
            for (unsigned h = 0; h < 2; ++h) b[(2 * t + 8 * r + h) * 8 + gr] = (ops[na + r] >> (16 * h)) & 0xffff;
        for (unsigned r = 0; r < nc; ++r)
            for (unsigned h = 0; h < halves; ++h)
                c[at(gr, t, r, h)] = Acc16 ? (ops[na + nb + r] >> (16 * h)) & 0xffff : ops[na + nb + r];
    }
    const bool ok = Acc16 ? mma::tile_f16(a, K, b, 8, c, 8, out, 8, 16, 8, K)
                          : mma::tile_f32(f, false, a, K, b, 8, c, 8, out, 8, 16, 8, K, 1);
    if (!ok) return false;
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned gr = l >> 2, t = l & 3;
        for (unsigned r = 0; r < nc; ++r)
            d[l][r] = Acc16 ? out[at(gr, t, r, 0)] | (out[at(gr, t, r, 1)] << 16) : out[at(gr, t, r, 0)];
    }
    return true;
}

// K: 8, 16 or 32 (FP8); ACC16: f16 accumulators. FRAG[l]: lane l's A, B and C words; D[l]: its result words (2 for
// f16 accumulators, 4 for f32).
template <int K, bool Acc16>
D4R_INLINE void mma_warp(mma::Format fa, mma::Format fb, const uint32_t (&frag)[32][kMmaFragmentWords],
                         uint32_t (&d)[32][4]) {
    using mma::Elem;
    using mma::Format;
    constexpr bool kFp8 = K == 32;
    constexpr unsigned na = K == 8 ? 2 : 4, nb = K == 8 ? 1 : 2, nc = Acc16 ? 2 : 4;
    if constexpr (!kFp8) {
        // f16/bf16 with f32 accumulators, f16 with f16 ones: the whole 16x8 tile in vectors (mma_tile.h), the same
        // bits as the rule below.
        const bool tile = Acc16 ? fa == Format::F16 && fb == Format::F16 : fa == fb;
        if (tile && mma_tile<K, Acc16>(fa, frag, d)) return;
    }
    Elem a[16][K], bt[8][K];
    uint32_t cbits[16][8];
    for (unsigned l = 0; l < 32; ++l) {
        const uint32_t* ops = frag[l];
        const unsigned gr = l >> 2, t = l & 3;
        for (unsigned r = 0; r < na; ++r) {
            const uint32_t v = ops[r];
            const unsigned row = gr + 8 * (r & 1);
            if constexpr (kFp8) {
                for (unsigned y = 0; y < 4; ++y)
                    a[row][4 * t + 16 * (r >> 1) + y] = mma::decode((v >> (8 * y)) & 0xff, fa);
            } else {
                for (unsigned h = 0; h < 2; ++h) a[row][2 * t + 8 * (r >> 1) + h] = mma::decode(v >> (16 * h), fa);
            }
        }
        for (unsigned r = 0; r < nb; ++r) {
            const uint32_t v = ops[na + r];
            if constexpr (kFp8) {
                for (unsigned y = 0; y < 4; ++y) bt[gr][4 * t + 16 * r + y] = mma::decode((v >> (8 * y)) & 0xff, fb);
            } else {
                for (unsigned h = 0; h < 2; ++h) bt[gr][2 * t + 8 * r + h] = mma::decode(v >> (16 * h), fb);
            }
        }
        for (unsigned r = 0; r < nc; ++r) {
            const uint32_t v = ops[na + nb + r];
            if constexpr (Acc16) {
                cbits[gr + 8 * r][2 * t] = v & 0xffff;
                cbits[gr + 8 * r][2 * t + 1] = v >> 16;
            } else {
                cbits[gr + 8 * (r >> 1)][2 * t + (r & 1)] = v;
            }
        }
    }
    uint32_t out[16][8];
    const int in_man = fa == Format::BF16 ? 7 : 10;
    for (unsigned i = 0; i < 16; ++i) {
        for (unsigned j = 0; j < 8; ++j) {
            if constexpr (kFp8) {
                out[i][j] = mma::dot_fp8(a[i], bt[j], cbits[i][j], Acc16);
            } else {
                const Elem c = mma::decode(cbits[i][j], Acc16 ? Format::F16 : Format::F32);
                out[i][j] = mma::dot(a[i], bt[j], K, c, in_man, Acc16);
            }
        }
    }
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned gr = l >> 2, t = l & 3;
        for (unsigned r = 0; r < nc; ++r) {
            if constexpr (Acc16)
                d[l][r] = out[gr + 8 * r][2 * t] | (out[gr + 8 * r][2 * t + 1] << 16);
            else
                d[l][r] = out[gr + 8 * (r >> 1)][2 * t + (r & 1)];
        }
    }
}

// ldmatrix.m8n8.xN{.trans}.b16: ROWS[i][r] is row r of matrix i (8 b16 elements, read from the address lane 8i + r
// gave); lane l receives, in register i, the elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1) of matrix i, or
// of its transpose.
template <unsigned N, bool Trans>
D4R_INLINE void ldmatrix_distribute(const uint16_t (&rows)[N][8][8], uint32_t (&d)[32][4]) {
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned r = l >> 2, c = 2 * (l & 3);
        for (unsigned i = 0; i < N; ++i) {
            if constexpr (Trans)
                d[l][i] = rows[i][c][r] | (uint32_t(rows[i][c + 1][r]) << 16);
            else
                d[l][i] = rows[i][r][c] | (uint32_t(rows[i][r][c + 1]) << 16);
        }
    }
}

} // namespace d4r::ptxsim
