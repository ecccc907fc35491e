// d4r refine network, fast sm_90 set: d4r_nn_linear and d4r_nn_linear_fp8 with f32 accumulators through the whole
// K chain (one f16 rounding per output), so their results differ from the PTX path's (an f16 accumulator per K
// step) by a few ulp (docs/network.md, "Native kernels"):
//  * d4r_nn_linear: the accumulator starts at the bias;
//  * d4r_nn_linear_fp8: the inputs are rounded to e4m3 as the PTX rounds them (half_to_e4m3) and the e4m3 weights
//    widened to f16 (both exact in f16), so the products are the PTX's; the accumulator starts at 0 and the output
//    is acc * scale + bias in f32.
//
// Shape: a persistent grid. The code object's d4r_grid_x (docs/runtime.md, "Native-kernel overrides") launches
// kBlocks blocks of kLinearWarps warps whatever the caller's grid; each block stages the weights (as f16) in shared
// memory (rows padded by 8 halves: the B fragments load without bank conflicts) and walks the 64-token tiles
// blockIdx.x, blockIdx.x + gridDim.x, ...; a layer whose weights do not fit (refine-v2's 128 -> 384) goes in groups
// of output columns, the weights of one group at a time and every tile for each. Each warp loads its 16 tokens' A
// fragments once for every output column (the next tile's before computing the current one), and writes its results
// through a per-warp staging tile so that stores (and the residual's loads) are whole 16-byte pieces.
// d4r_nn_linear_wide is the same kernel for refine-v2's layers with more inputs than kMaxChannels (embed 368, merge
// 256, enc2.fc2 512: wide_linear_shape), which the plan sends to that name: a warp's A fragments then hold up to 128
// registers, so the next tile's are not prefetched, and the weights go 32 output columns at a time.
#include <type_traits>

#include "fast_common.cuh"

using namespace d4r::refine::fast;

// 8 blocks for each of the H200's 132 SMs: every SM busy, the weights loaded 1056 times per launch, not once per
// tile. Both entries want it (the override applies to every kernel of this code object).
constexpr uint32_t kBlocks = kSm90Sms * 8;
extern "C" __device__ uint32_t d4r_grid_x = kBlocks;

namespace {

constexpr uint32_t kPad = 8;    // halves of padding per weight row
constexpr uint32_t kChunk = 32; // output columns staged at a time
// Weights staged at once: refine-v1's largest linear (enc2.qkv: 64 -> 192) whole, and a chunk of the widest
// (enc2.fc2: 512 inputs), padded (33 KB of the 48 KB of static shared memory, the staging tiles 5 KB).
constexpr uint32_t kMaxWeights = kChunk * (512 + kPad);
static_assert(kMaxWeights >= 192 * (64 + kPad));

// The shapes d4r_nn_linear_wide is written for (refine-v2's embed, merge and enc2.fc2).
__device__ __forceinline__ bool wide_linear_shape(uint32_t in_ch, uint32_t out_ch) {
    return (in_ch == 256 || in_ch == 368 || in_ch == 512) && out_ch != 0 && out_ch % 8 == 0;
}
constexpr uint32_t kStageRow = kChunk + kPad; // halves per staged row (80 bytes: 16-byte aligned)

template <bool kFp8>
using Params = std::conditional_t<kFp8, LinearFp8Params, LinearParams>;

// e4m3 -> f16, exact (every e4m3 value is an f16; NaN 0x7f/0xff -> the f16 NaN).
__device__ __forceinline__ uint16_t e4m3_to_half(uint8_t b) {
    const uint32_t sign = static_cast<uint32_t>(b & 0x80u) << 8, e = (b >> 3) & 0xfu, m = b & 7u;
    if (e == 15 && m == 7) return static_cast<uint16_t>(sign | 0x7fffu);
    if (e == 0) return static_cast<uint16_t>(sign | float_to_half(static_cast<float>(m) * 0.001953125f)); // m * 2^-9
    return static_cast<uint16_t>(sign | ((e + 8) << 10) | (m << 7));
}
// Two e4m3 bytes (the low one first) as two f16s, exact: the hardware's conversion where sm_89's FP8 instructions
// exist (NaN 0x7f -> the f16 NaN 0x7fff, as e4m3_to_half), e4m3_to_half otherwise.
__device__ __forceinline__ uint32_t e4m3_pair_to_halves(uint16_t bytes) {
#if __CUDA_ARCH__ >= 890
    uint32_t halves;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"(bytes));
    return halves;
#else
    return pack(e4m3_to_half(static_cast<uint8_t>(bytes & 0xffu)), e4m3_to_half(static_cast<uint8_t>(bytes >> 8)));
#endif
}
// An f16 input pair as the FP8 linear sees it: rounded to e4m3 (nearest even, saturating at 448: half_to_e4m3's
// rule, which cvt.rn.satfinite gives in one instruction), widened back (exact). The software rounding made the
// fast FP8 linear 4.5x slower than the f16 one on an H100 (docs/performance.md).
__device__ __forceinline__ uint32_t through_e4m3(uint32_t pair) {
#if __CUDA_ARCH__ >= 890
    uint16_t bytes;
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(bytes) : "r"(pair));
    return e4m3_pair_to_halves(bytes);
#else
    return pack(e4m3_to_half(half_to_e4m3(low(pair))), e4m3_to_half(half_to_e4m3(high(pair))));
#endif
}

// The A fragments of a warp's 16 tokens (rows row0 .. row0 + 15; zero past the last token).
template <uint32_t K>
struct Fragments {
    uint32_t a[K / 16][4];
};

template <uint32_t K, bool kFp8>
__device__ __forceinline__ void load_fragments(const Params<kFp8>& p, uint32_t row0, uint32_t lane, Fragments<K>& f) {
    const uint32_t g = lane >> 2, t = lane & 3u;
    const uint16_t* in = reinterpret_cast<const uint16_t*>(p.in);
    const uint32_t ra = row0 + g, rb = ra + 8;
    const bool va = ra < p.tokens, vb = rb < p.tokens;
    const uint16_t* in_a = in + static_cast<uint64_t>(va ? ra : 0) * K;
    const uint16_t* in_b = in + static_cast<uint64_t>(vb ? rb : 0) * K;
#pragma unroll
    for (uint32_t s = 0; s < K / 16; ++s) {
        const uint32_t k = s * 16 + 2 * t;
        f.a[s][0] = va ? load_pair(in_a + k) : 0u;
        f.a[s][1] = vb ? load_pair(in_b + k) : 0u;
        f.a[s][2] = va ? load_pair(in_a + k + 8) : 0u;
        f.a[s][3] = vb ? load_pair(in_b + k + 8) : 0u;
        if constexpr (kFp8) {
#pragma unroll
            for (uint32_t r = 0; r < 4; ++r) f.a[s][r] = through_e4m3(f.a[s][r]);
        }
    }
}

// Output columns [c0, c0 + cols): ws holds their weights from its first row.
struct Columns {
    uint32_t c0, cols;
};

// The warp's 16 tokens times the output columns CS: the K chain, relu into the staging tile, then the residual and
// the stores by 16-byte pieces.

template <uint32_t K, bool kFp8>
__device__ __forceinline__ void tile(const Params<kFp8>& p, const uint16_t* ws, uint16_t* stage, uint32_t row0,
                                     uint32_t lane, const Fragments<K>& f, Columns cs) {
    constexpr uint32_t kSteps = K / 16, kStride = K + kPad;
    const uint32_t g = lane >> 2, t = lane & 3u;
    const uint16_t* bias = reinterpret_cast<const uint16_t*>(p.bias);
    float scale = 1.0f;
    if constexpr (kFp8) scale = half_to_float(*reinterpret_cast<const uint16_t*>(p.scale));
    const bool relu = p.flags & kRelu, residual = p.flags & kResidual;
    const uint32_t rows = min(16u, p.tokens - row0);
    for (uint32_t n0 = cs.c0; n0 < cs.c0 + cs.cols; n0 += kChunk) {
        const uint32_t width = min(kChunk, cs.c0 + cs.cols - n0);
#pragma unroll
        for (uint32_t nt = 0; nt < kChunk / 8; ++nt) {
            if (nt * 8 >= width) break;
            const uint32_t col = n0 + nt * 8 + 2 * t;
            const float b0 = half_to_float(bias[col]), b1 = half_to_float(bias[col + 1]);
            float c[4] = {b0, b1, b0, b1};
            if constexpr (kFp8) c[0] = c[1] = c[2] = c[3] = 0.0f;
            const uint16_t* w_row = ws + (n0 - cs.c0 + nt * 8 + g) * kStride + 2 * t;
#pragma unroll
            for (uint32_t s = 0; s < kSteps; ++s)
                mma_f32(c, f.a[s], load_pair(w_row + s * 16), load_pair(w_row + s * 16 + 8));
            if constexpr (kFp8) {
                c[0] = c[0] * scale + b0;
                c[1] = c[1] * scale + b1;
                c[2] = c[2] * scale + b0;
                c[3] = c[3] * scale + b1;
            }
            uint16_t h[4] = {float_to_half(c[0]), float_to_half(c[1]), float_to_half(c[2]), float_to_half(c[3])};
            if (relu)
                for (uint16_t& v : h) v = relu_h(v);
            *reinterpret_cast<uint32_t*>(stage + g * kStageRow + nt * 8 + 2 * t) = pack(h[0], h[1]);
            *reinterpret_cast<uint32_t*>(stage + (g + 8) * kStageRow + nt * 8 + 2 * t) = pack(h[2], h[3]);
        }
        __syncwarp();
        const uint32_t per_row = width / 8;
        for (uint32_t i = lane; i < rows * per_row; i += 32) {
            const uint32_t r = i / per_row, piece = i % per_row;
            const uint32_t* src = reinterpret_cast<const uint32_t*>(stage + r * kStageRow + piece * 8);
            uint4 v = make_uint4(src[0], src[1], src[2], src[3]);
            const uint64_t at = static_cast<uint64_t>(row0 + r) * p.out_ch + n0 + piece * 8;
            if (residual) {
                const uint4 q = *reinterpret_cast<const uint4*>(reinterpret_cast<const uint16_t*>(p.residual) + at);
                auto add2 = [](uint32_t x, uint32_t y) { return pack(add_h(low(x), low(y)), add_h(high(x), high(y))); };
                v = make_uint4(add2(v.x, q.x), add2(v.y, q.y), add2(v.z, q.z), add2(v.w, q.w));
            }
            *reinterpret_cast<uint4*>(reinterpret_cast<uint16_t*>(p.out) + at) = v;
        }
        __syncwarp();
    }
}

// The warp's tiles blockIdx.x, blockIdx.x + gridDim.x, ...: the next tile's fragments are loaded before the
// current one is computed, so their latency hides behind its work.
template <uint32_t K, bool kFp8>
__device__ __forceinline__ void warp_tiles(const Params<kFp8>& p, const uint16_t* ws, uint16_t* stage, uint32_t tiles,
                                           uint32_t warp, uint32_t lane, Columns cs) {
    uint32_t row0 = blockIdx.x * kLinearTokensPerBlock + warp * 16;
    Fragments<K> current;
    if constexpr (K > kMaxChannels) { // wide: no room for the next tile's fragments
        for (uint32_t t = blockIdx.x; t < tiles; t += gridDim.x, row0 += gridDim.x * kLinearTokensPerBlock) {
            if (row0 >= p.tokens) continue;
            load_fragments<K, kFp8>(p, row0, lane, current);
            tile<K, kFp8>(p, ws, stage, row0, lane, current, cs);
        }
        return;
    }
    if (row0 < p.tokens) load_fragments<K, kFp8>(p, row0, lane, current);
    for (uint32_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const uint32_t next = (t + gridDim.x) * kLinearTokensPerBlock + warp * 16;
        Fragments<K> ahead;
        if (t + gridDim.x < tiles && next < p.tokens) load_fragments<K, kFp8>(p, next, lane, ahead);
        if (row0 < p.tokens) tile<K, kFp8>(p, ws, stage, row0, lane, current, cs);
        current = ahead;
        row0 = next;
    }
}

template <bool kFp8, bool kWide = false>
__device__ __forceinline__ void linear(const Params<kFp8>& p) {
    __shared__ __align__(16) uint16_t ws[kMaxWeights];
    __shared__ __align__(16) uint16_t stage[kLinearWarps][16 * kStageRow];
    const uint32_t tiles = div_up(p.tokens, kLinearTokensPerBlock);
    if (blockIdx.x >= tiles) return;
    const uint32_t in_ch = p.in_ch, stride = in_ch + kPad;
    // The plan launches only native_linear_shape's shapes here (others go to d4r_nn_linear_wide): any other is a
    // bug that must not pass for a result.
    if (kWide ? !wide_linear_shape(in_ch, p.out_ch) : !native_linear_shape(in_ch, p.out_ch)) __trap();
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const uint32_t group = kMaxWeights / stride / kChunk * kChunk; // output columns whose weights fit at once
    for (uint32_t c0 = 0; c0 < p.out_ch; c0 += group) {
        const Columns cs{c0, min(group, p.out_ch - c0)};
        const uint32_t pieces = cs.cols * in_ch / 8, first = c0 * in_ch / 8;
        if (c0 != 0) __syncthreads(); // every warp is done with the previous group's weights
        if constexpr (kFp8) {         // e4m3 bytes, widened to f16 (8 per 8-byte piece)
            const uint2* w = reinterpret_cast<const uint2*>(p.weight) + first;
            for (uint32_t i = threadIdx.x; i < pieces; i += blockDim.x) {
                const uint2 b = w[i];
                uint16_t* dst = ws + (i * 8 / in_ch) * stride + i * 8 % in_ch;
                uint32_t* dst2 = reinterpret_cast<uint32_t*>(dst); // 16-byte aligned: in_ch and stride are even
                dst2[0] = e4m3_pair_to_halves(static_cast<uint16_t>(b.x & 0xffffu));
                dst2[1] = e4m3_pair_to_halves(static_cast<uint16_t>(b.x >> 16));
                dst2[2] = e4m3_pair_to_halves(static_cast<uint16_t>(b.y & 0xffffu));
                dst2[3] = e4m3_pair_to_halves(static_cast<uint16_t>(b.y >> 16));
            }
        } else {
            const uint4* w = reinterpret_cast<const uint4*>(p.weight) + first;
            for (uint32_t i = threadIdx.x; i < pieces; i += blockDim.x)
                *reinterpret_cast<uint4*>(ws + (i * 8 / in_ch) * stride + i * 8 % in_ch) = w[i];
        }
        __syncthreads();
        if constexpr (kWide) {
            if (in_ch == 256)
                warp_tiles<256, kFp8>(p, ws, stage[warp], tiles, warp, lane, cs);
            else if (in_ch == 368)
                warp_tiles<368, kFp8>(p, ws, stage[warp], tiles, warp, lane, cs);
            else
                warp_tiles<512, kFp8>(p, ws, stage[warp], tiles, warp, lane, cs);
            continue;
        }
        switch (in_ch) {
        case 32:
            warp_tiles<32, kFp8>(p, ws, stage[warp], tiles, warp, lane, cs);
            break;
        case 48:
            warp_tiles<48, kFp8>(p, ws, stage[warp], tiles, warp, lane, cs);
            break;
        case 64:
            warp_tiles<64, kFp8>(p, ws, stage[warp], tiles, warp, lane, cs);
            break;
        case 128:
            warp_tiles<128, kFp8>(p, ws, stage[warp], tiles, warp, lane, cs);
            break;
        default:
            __trap(); // not native_linear_shape's (checked above)
        }
    }
}

} // namespace

extern "C" __global__ void __launch_bounds__(kLinearWarps * 32) d4r_nn_linear(LinearParams p) { linear<false>(p); }

extern "C" __global__ void __launch_bounds__(kLinearWarps * 32) d4r_nn_linear_fp8(LinearFp8Params p) {
    linear<true>(p);
}

extern "C" __global__ void __launch_bounds__(kLinearWarps * 32) d4r_nn_linear_wide(LinearParams p) {
    linear<false, true>(p);
}
