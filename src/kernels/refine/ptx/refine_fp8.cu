// d4r refine network (docs/network.md, "The FP8 layers"): d4r_nn_linear_fp8, the linear of refine-v1-fp8's e4m3
// layers (mma.sync.m16n8k32 with e4m3 operands and an f16 accumulator, chained over K in steps of 32). Compiled to
// refine_fp8.ptx by make-ptx.sh (committed) for sm_89: ptxas refuses FP8 mma for an older .target and a driver
// compiles a module whole, so this entry is a module of its own, loaded only for a refine-v1-fp8 model, and
// refine.ptx (every other kernel) stays sm_80.
#include "refine_math.h"

using namespace d4r::refine::math;

namespace {

// d = a * b + c for one m16n8k32 tile (A row-major 16x32, B "col" 32x8, e4m3 bytes; C/D 16x8 f16).
__device__ __forceinline__ void mma_fp8(uint32_t (&c)[2], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    uint32_t d0, d1;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
                 : "=r"(d0), "=r"(d1)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
    c[0] = d0;
    c[1] = d1;
}

// Four f16 activations (k .. k+3 of one row) as e4m3 bytes, low to high; zero for an absent row.
__device__ __forceinline__ uint32_t e4m3_quad(const uint16_t* p, bool valid) {
    uint32_t v = 0u;
    if (!valid) return v;
#pragma unroll 1
    for (uint32_t y = 0; y < 4; ++y) v |= static_cast<uint32_t>(half_to_e4m3(p[y])) << (8 * y);
    return v;
}

// The linear's epilogue for one value: relu, then the residual (as d4r_nn_linear's).
__device__ __forceinline__ uint16_t finish_fp8(const LinearFp8Params& p, uint16_t v, uint64_t index) {
    if (p.flags & kRelu) v = relu_h(v);
    if (p.flags & kResidual) v = add_h(v, reinterpret_cast<const uint16_t*>(p.residual)[index]);
    return v;
}

} // namespace

// The FP8 linear (docs/network.md): as d4r_nn_linear, with the activations converted to e4m3 once per row and
// the e4m3 weights; each tile of 8 outputs starts at +0 and takes the K steps of 32 in order, then every value is
// scaled and biased in f16 (v = f16(f32(f16(f32(acc) * scale)) + bias)) before relu and the residual.
extern "C" __global__ void d4r_nn_linear_fp8(LinearFp8Params p) {
    constexpr uint32_t kSteps = kMaxChannels / 32;
    const uint32_t lane = threadIdx.x & 31u, g = lane >> 2, t = lane & 3u;
    const uint32_t row0 = (blockIdx.x * kLinearWarps + (threadIdx.x >> 5)) * 16u;
    if (row0 >= p.tokens) return; // the whole warp
    const uint16_t* in = reinterpret_cast<const uint16_t*>(p.in);
    const uint8_t* w = reinterpret_cast<const uint8_t*>(p.weight);
    const uint16_t* bias = reinterpret_cast<const uint16_t*>(p.bias);
    const uint16_t scale = *reinterpret_cast<const uint16_t*>(p.scale);
    uint16_t* out = reinterpret_cast<uint16_t*>(p.out);
    const uint32_t ra = row0 + g, rb = ra + 8;
    const bool va = ra < p.tokens, vb = rb < p.tokens;
    const uint16_t* in_a = in + static_cast<uint64_t>(va ? ra : row0) * p.in_ch;
    const uint16_t* in_b = in + static_cast<uint64_t>(vb ? rb : row0) * p.in_ch;
    // This lane's A fragments for every K step: rows g and g+8, k 4t..4t+3 and 16+4t..16+4t+3.
    // (A loop, not unrolled: one copy of the conversion in the PTX; the fragments live in local memory.)
    uint32_t a[kSteps][4];
#pragma unroll 1
    for (uint32_t f = 0; f < 4 * kSteps; ++f) {
        const uint32_t s = f / 4, r = f % 4, k = 32 * s + 4 * t + 16 * (r >> 1);
        const bool row_a = (r & 1u) == 0u;
        a[s][r] = e4m3_quad((row_a ? in_a : in_b) + k, 32 * s < p.in_ch && (row_a ? va : vb));
    }
    for (uint32_t n0 = 0; n0 < p.out_ch; n0 += 8) {
        uint32_t c[2] = {0u, 0u};
        const uint8_t* w_row = w + static_cast<uint64_t>(n0 + g) * p.in_ch;
#pragma unroll
        for (uint32_t s = 0; s < kSteps; ++s) {
            if (32 * s >= p.in_ch) break;
            const uint32_t k = 32 * s + 4 * t;
            uint32_t b[2] = {*reinterpret_cast<const uint32_t*>(w_row + k),
                             *reinterpret_cast<const uint32_t*>(w_row + k + 16)};
            mma_fp8(c, a[s], b);
        }
        const uint32_t col = n0 + 2 * t;
        auto value = [&](uint32_t acc, uint32_t j) {
            return add_h(mul_h(static_cast<uint16_t>(acc), scale), bias[col + j]);
        };
        if (va) {
            uint64_t i = static_cast<uint64_t>(ra) * p.out_ch + col;
            out[i] = finish_fp8(p, value(c[0] & 0xffffu, 0), i);
            out[i + 1] = finish_fp8(p, value(c[0] >> 16, 1), i + 1);
        }
        if (vb) {
            uint64_t i = static_cast<uint64_t>(rb) * p.out_ch + col;
            out[i] = finish_fp8(p, value(c[1] & 0xffffu, 0), i);
            out[i + 1] = finish_fp8(p, value(c[1] >> 16, 1), i + 1);
        }
    }
}
