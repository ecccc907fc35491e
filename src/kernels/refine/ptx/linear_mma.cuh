// d4r refine network: the PTX path's f16 tensor-core linear (docs/network.md, "Numerics"), shared by refine.cu
// (d4r_nn_linear) and refine_v2.cu (d4r_nn_linear_wide, the same layer for inputs wider than the native sets take),
// and the mma helpers refine.cu's attention uses. Device code only: included by the .cu files of this folder.
#pragma once

#include "refine_math.h"

namespace {

using namespace d4r::refine::math;

__device__ __forceinline__ uint32_t pack(uint16_t lo, uint16_t hi) {
    return static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
}
__device__ __forceinline__ uint32_t load_pair(const uint16_t* p) { return *reinterpret_cast<const uint32_t*>(p); }

// d = a * b + c for one m16n8k16 tile (A row-major 16x16, B "col" 16x8, C/D 16x8, all f16).
__device__ __forceinline__ void mma(uint32_t (&c)[2], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    uint32_t d0, d1;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
                 : "=r"(d0), "=r"(d1)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
    c[0] = d0;
    c[1] = d1;
}

// The linear's epilogue for one value: relu, then the residual.
__device__ __forceinline__ uint16_t finish(const LinearParams& p, uint16_t v, uint64_t index) {
    if (p.flags & kRelu) v = relu_h(v);
    if (p.flags & kResidual) v = add_h(v, reinterpret_cast<const uint16_t*>(p.residual)[index]);
    return v;
}

// One warp's 16 rows, every output column: row g is token `ra` (present when `va`), row g + 8 token `rb`; an
// absent row reads token `fallback` (any token of the tensor) and writes nothing. For each tile of 8 outputs the
// accumulator starts at the bias and takes the K steps in order, so each output depends only on its own token.
__device__ __forceinline__ void linear_rows(const LinearParams& p, uint32_t ra, bool va, uint32_t rb, bool vb,
                                            uint32_t fallback) {
    const uint32_t lane = threadIdx.x & 31u, g = lane >> 2, t = lane & 3u;
    const uint16_t* in = reinterpret_cast<const uint16_t*>(p.in);
    const uint16_t* w = reinterpret_cast<const uint16_t*>(p.weight);
    const uint16_t* bias = reinterpret_cast<const uint16_t*>(p.bias);
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    const uint16_t* in_a = in + static_cast<uint64_t>(va ? ra : fallback) * p.in_ch;
    const uint16_t* in_b = in + static_cast<uint64_t>(vb ? rb : fallback) * p.in_ch;
    for (uint32_t n0 = 0; n0 < p.out_ch; n0 += 8) {
        uint32_t c[2];
        c[0] = c[1] = pack(bias[n0 + 2 * t], bias[n0 + 2 * t + 1]);
        const uint16_t* w_row = w + static_cast<uint64_t>(n0 + g) * p.in_ch;
        for (uint32_t k = 2 * t; k < p.in_ch; k += 16) {
            uint32_t a[4] = {va ? load_pair(in_a + k) : 0u, vb ? load_pair(in_b + k) : 0u,
                             va ? load_pair(in_a + k + 8) : 0u, vb ? load_pair(in_b + k + 8) : 0u};
            uint32_t b[2] = {load_pair(w_row + k), load_pair(w_row + k + 8)};
            mma(c, a, b);
        }
        const uint32_t col = n0 + 2 * t;
        if (va) {
            uint64_t i = static_cast<uint64_t>(ra) * p.out_ch + col;
            out[i] = finish(p, static_cast<uint16_t>(c[0] & 0xffffu), i);
            out[i + 1] = finish(p, static_cast<uint16_t>(c[0] >> 16), i + 1);
        }
        if (vb) {
            uint64_t i = static_cast<uint64_t>(rb) * p.out_ch + col;
            out[i] = finish(p, static_cast<uint16_t>(c[1] & 0xffffu), i);
            out[i + 1] = finish(p, static_cast<uint16_t>(c[1] >> 16), i + 1);
        }
    }
}

// One warp per 16 consecutive tokens (d4r_nn_linear's launch shape).
__device__ __forceinline__ void linear_warp(const LinearParams& p) {
    const uint32_t g = (threadIdx.x & 31u) >> 2;
    const uint32_t row0 = (blockIdx.x * kLinearWarps + (threadIdx.x >> 5)) * 16u;
    if (row0 >= p.tokens) return; // the whole warp
    const uint32_t ra = row0 + g, rb = ra + 8;
    linear_rows(p, ra, ra < p.tokens, rb, rb < p.tokens, row0);
}

} // namespace
