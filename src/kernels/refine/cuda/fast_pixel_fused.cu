// d4r refine network, fast sm_90 set: refine-v2's fused pixel kernels (plan.h's PlanOptions::fuse_pixels), the same
// work as the PTX's (refine_block.cu) with fast_pixel.cuh's pixel code and f32 accumulators; within 60 dB of the PTX
// path (tests/network/refine_v2_test.cpp).
//  * d4r_nn_pixel_embed: a group's 16 tokens' pixel features into shared memory as the A operand of the embed
//    (16 x 368 by 368 x out_ch: one mma chain of 23 k-steps per 8 output columns), so the 368 halves a token are
//    neither written nor read back; the candidates still go out.
//  * d4r_nn_pixel_head: the head linear of a group's 16 tokens (16 x in_ch by in_ch x 128) into shared memory, then
//    each thread blends one pixel from there: the head's 16 bytes a pixel are neither written nor read back.
// Shape: a persistent grid (d4r_grid_x, three blocks an SM) of kEmbedThreads threads, each block walking the groups
// of 16 tokens blockIdx.x, blockIdx.x + gridDim.x, ... with the layer's weights loaded into shared memory once: one
// launch a group (the plan's grid, which the PTX takes) read the weights through the L1 for every 16 tokens — 47 KB
// for the embed, 16 KB for the head, 8 L1 wavefronts per fragment load — which made the fused head slower on an H100
// than the head and the blend apart (0.41 ms against 0.13 + 0.20; docs/performance.md). A grid of any size is
// correct (the tests run the plan's grid on ptxsim). In the embed each thread issues its pixel's loads from DRAM
// for its next group (the core's output and kept terms, pixel_loads) before the current group's product, so that
// their latency overlaps it (the same values, so the same bytes): on an H100 the embed 0.565 -> 0.545 ms. The head did
// the same with its candidates and was 0.01 ms slower for it (0.232 -> 0.242 ms, 51 registers against 43), so it
// loads them at the start of their own group, before the rows' loads (docs/performance.md).
#define D4R_REFINE_FAST_POWERS 1
#include "fast_pixel.cuh"

using namespace d4r::refine::fast;

namespace {

constexpr uint32_t kIn = kFeatures * kPatchPixels, kRowA = kIn + 8; // the embed's rows, padded: conflict-free loads
constexpr uint32_t kMaxOut = d4r::refine::math::kMaxChannels;
constexpr uint32_t kResidentOut = 64; // the embed's weights stay in shared memory up to this many outputs (48 KB)
constexpr uint32_t kHeadRow = d4r::refine::math::kMaxChannels + 8; // the head's rows (A and weights), padded

// Dynamic shared memory, in bytes. The embed: A rows, candidates, outputs, resident weights, bias.
constexpr uint32_t kEmbedCand = kEmbedTokens * kRowA * 2;
constexpr uint32_t kEmbedOut = kEmbedCand + kEmbedThreads * kCandidateBytes;
constexpr uint32_t kEmbedW = kEmbedOut + kEmbedTokens * kMaxOut * 2;
constexpr uint32_t kEmbedBias = kEmbedW + kResidentOut * kRowA * 2;
constexpr uint32_t kEmbedBytes = kEmbedBias + kMaxOut * 2;
// The head: A rows, answers, weights, bias.
constexpr uint32_t kHeadAnswers = kEmbedTokens * kHeadRow * 2;
constexpr uint32_t kHeadW = kHeadAnswers + kEmbedTokens * kHeadOutputs * 2;
constexpr uint32_t kHeadBias = kHeadW + kHeadOutputs * kHeadRow * 2;
constexpr uint32_t kHeadBytes = kHeadBias + kHeadOutputs * 2;
constexpr uint32_t kSharedBytes = kEmbedBytes > kHeadBytes ? kEmbedBytes : kHeadBytes;

} // namespace

// The launch's dynamic shared memory (the override layer sets the function's limit and launches with it) and the
// persistent grid: three blocks an SM.
extern "C" __device__ uint32_t d4r_dynamic_shared = kSharedBytes;
constexpr uint32_t kBlocksPerSm = 3;
static_assert(kBlocksPerSm * (kSharedBytes + 1024) <= 228 * 1024,
              "sm_90: 228 KB of shared memory an SM, 1 KB a block reserved");
extern "C" __device__ uint32_t d4r_grid_x = 132 * kBlocksPerSm; // the H200's and H100 SXM's SMs

namespace {

// ROWS rows of COLS halves (a multiple of 8, 16-byte aligned rows) from global SRC into shared DST, STRIDE halves
// apart, with the whole block; rows at or past PRESENT are zeros.
__device__ void load_rows(uint16_t* dst, uint32_t stride, const uint16_t* src, uint32_t rows, uint32_t present,
                          uint32_t cols) {
    const uint32_t pieces = cols / 8;
    const uint4* s = reinterpret_cast<const uint4*>(src);
    for (uint32_t k = threadIdx.x; k < rows * pieces; k += blockDim.x) {
        const uint32_t row = k / pieces;
        *reinterpret_cast<uint4*>(dst + row * stride + k % pieces * 8) = row < present ? __ldg(s + k) : uint4{};
    }
}

__device__ void load_halves(uint16_t* dst, const uint16_t* src, uint32_t n) {
    for (uint32_t k = threadIdx.x; k < n; k += blockDim.x) dst[k] = src[k];
}

// out tile (rows g and g + 8, columns n0 + 2t and + 1) of A (16 rows in shared memory, ROW halves apart) times W^T
// (row n0 + g of W at W_ROW, K halves) plus the bias (BIAS, shared): f32 accumulators, K / 16 mma steps. W_ROW is in
// shared memory when RESIDENT (a plain 32-bit load), else global (the read-only path).
template <bool kResident>
__device__ __forceinline__ void tile(float (&acc)[4], const uint16_t* a_rows, const uint16_t* w_row, uint32_t k) {
    for (uint32_t s = 0; s < k / 16; ++s) {
        uint32_t af[4];
        load_a(af, a_rows + s * 16);
        if constexpr (kResident)
            mma_f32(acc, af, load_pair(w_row + s * 16), load_pair(w_row + s * 16 + 8));
        else
            mma_f32(acc, af, ldg_pair(w_row + s * 16), ldg_pair(w_row + s * 16 + 8));
    }
}

// The 16 x OUT_CH product of A (shared, ROW halves a row) and W (row n at W + n * W_STRIDE) into OUT (shared, OUT_CH
// halves a row, f16), warp w taking the 8-column tiles w, w + 8, ...
template <bool kResident>
__device__ __forceinline__ void product(const uint16_t* a, uint32_t row, const uint16_t* w, uint32_t w_stride,
                                        const uint16_t* bias, uint32_t k, uint32_t out_ch, uint16_t* out) {
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u, g = lane >> 2, t = lane & 3u;
    const uint16_t* a_rows = a + (lane & 15u) * row + (lane >> 4) * 8;
    for (uint32_t n0 = warp * 8; n0 < out_ch; n0 += kEmbedThreads / 32 * 8) {
        const float b0 = d4r::kernels::half_to_float(bias[n0 + 2 * t]);
        const float b1 = d4r::kernels::half_to_float(bias[n0 + 2 * t + 1]);
        float acc[4] = {b0, b1, b0, b1};
        tile<kResident>(acc, a_rows, w + static_cast<uint64_t>(n0 + g) * w_stride + 2 * t, k);
        *reinterpret_cast<uint32_t*>(out + g * out_ch + n0 + 2 * t) = pack_f32(acc[0], acc[1]);
        *reinterpret_cast<uint32_t*>(out + (g + 8) * out_ch + n0 + 2 * t) = pack_f32(acc[2], acc[3]);
    }
}

template <bool kResident>
__device__ void embed_groups(const PixelEmbedParams& p, uint8_t* shared) {
    uint16_t* a = reinterpret_cast<uint16_t*>(shared);
    uint8_t* candidates = shared + kEmbedCand;
    uint16_t* out = reinterpret_cast<uint16_t*>(shared + kEmbedOut);
    uint16_t* bias = reinterpret_cast<uint16_t*>(shared + kEmbedBias);
    const uint16_t* weight = reinterpret_cast<const uint16_t*>(p.weight);
    const uint16_t* w = weight;
    uint32_t w_stride = kIn;
    if constexpr (kResident) {
        uint16_t* resident = reinterpret_cast<uint16_t*>(shared + kEmbedW);
        load_rows(resident, kRowA, weight, p.out_ch, p.out_ch, kIn);
        w = resident;
        w_stride = kRowA;
    }
    load_halves(bias, reinterpret_cast<const uint16_t*>(p.bias), p.out_ch);
    const PixelParams& px = p.pixels;
    const uint32_t tokens = px.grid_w * px.grid_h, groups = (tokens + kEmbedTokens - 1) / kEmbedTokens;
    const uint32_t row = threadIdx.x / kPatchPixels;
    uint16_t* f16 = a + row * kRowA + (threadIdx.x % kPatchPixels) * kFeatures;
    // The thread's loads for its pixel of GROUP (pixel_loads: the output and the kept terms), made a group ahead so
    // that they are in flight during the previous group's product.
    const auto loads_of = [&](uint32_t group) {
        const uint32_t first = group * kEmbedTokens;
        return group < groups && row < min_u(kEmbedTokens, tokens - first)
                   ? pixel_loads(px, first * kPatchPixels + threadIdx.x)
                   : PixelLoads{};
    };
    PixelLoads next = loads_of(blockIdx.x);
    for (uint32_t group = blockIdx.x; group < groups; group += gridDim.x) {
        const uint32_t first = group * kEmbedTokens, present = min_u(kEmbedTokens, tokens - first);
        const uint32_t i = first * kPatchPixels + threadIdx.x;
        const PixelLoads loads = next;
        if (row < present) {
            float f[kFeatures];
            Candidates cand{};
            pixel_values_from(px, i, loads, f, cand);
            for (uint32_t j = 0; j < kFeatures; ++j) f16[j] = d4r::kernels::float_to_half(f[j]);
            // The 15 values and the 0 as two 16-byte stores (pack_f32 rounds as float_to_half does).
            const auto v = [&cand](uint32_t j) { return cand.c[j / 3][j % 3]; };
            uint4* c = reinterpret_cast<uint4*>(candidates + threadIdx.x * kCandidateBytes);
            c[0] = uint4{pack_f32(v(0), v(1)), pack_f32(v(2), v(3)), pack_f32(v(4), v(5)), pack_f32(v(6), v(7))};
            c[1] = uint4{pack_f32(v(8), v(9)), pack_f32(v(10), v(11)), pack_f32(v(12), v(13)), pack_f32(v(14), 0.0f)};
        } else {
            for (uint32_t j = 0; j < kFeatures; ++j) f16[j] = 0; // rows of absent tokens: defined inputs, not written
        }
        __syncthreads(); // the features, the candidates (and, the first time, the weights) in place
        next = loads_of(group + gridDim.x);
        copy_out(candidates,
                 reinterpret_cast<uint8_t*>(px.candidates) +
                     static_cast<uint64_t>(first) * kPatchPixels * kCandidateBytes,
                 present * kPatchPixels * kCandidateBytes);
        product<kResident>(a, kRowA, w, w_stride, bias, kIn, p.out_ch, out);
        __syncthreads(); // the outputs in place; the features and candidates read
        copy_out(reinterpret_cast<const uint8_t*>(out),
                 reinterpret_cast<uint8_t*>(p.out) + static_cast<uint64_t>(first) * p.out_ch * 2u,
                 present * p.out_ch * 2u);
    }
}

} // namespace

extern "C" __global__ void __launch_bounds__(kEmbedThreads, kBlocksPerSm) d4r_nn_pixel_embed(PixelEmbedParams p) {
    extern __shared__ __align__(16) uint8_t shared[];
    // The plan's shape (kEmbedThreads threads, out_ch a multiple of 8 up to kMaxOut): anything else is a bug that must
    // not pass for a result.
    if (blockDim.x != kEmbedThreads || p.out_ch % 8 != 0 || p.out_ch > kMaxOut) __trap();
    if (p.out_ch <= kResidentOut)
        embed_groups<true>(p, shared);
    else
        embed_groups<false>(p, shared);
}

extern "C" __global__ void __launch_bounds__(kEmbedThreads, kBlocksPerSm) d4r_nn_pixel_head(PixelHeadParams p) {
    extern __shared__ __align__(16) uint8_t shared[];
    // The plan's shape (kEmbedThreads threads, in_ch a multiple of 16 up to kMaxChannels): anything else is a bug that
    // must not pass for a result.
    if (blockDim.x != kEmbedThreads || p.in_ch % 16 != 0 || p.in_ch > d4r::refine::math::kMaxChannels) __trap();
    uint16_t* a = reinterpret_cast<uint16_t*>(shared);
    uint16_t* answers = reinterpret_cast<uint16_t*>(shared + kHeadAnswers);
    uint16_t* w = reinterpret_cast<uint16_t*>(shared + kHeadW);
    uint16_t* bias = reinterpret_cast<uint16_t*>(shared + kHeadBias);
    load_rows(w, kHeadRow, reinterpret_cast<const uint16_t*>(p.weight), kHeadOutputs, kHeadOutputs, p.in_ch);
    load_halves(bias, reinterpret_cast<const uint16_t*>(p.bias), kHeadOutputs);
    const PixelParams& px = p.pixels;
    const uint32_t tokens = px.grid_w * px.grid_h, groups = (tokens + kEmbedTokens - 1) / kEmbedTokens;
    const float k = up::exposure_factor(px.core);
    for (uint32_t group = blockIdx.x; group < groups; group += gridDim.x) {
        const uint32_t first = group * kEmbedTokens, present = min_u(kEmbedTokens, tokens - first);
        // The thread's pixel and its candidates first: their loads overlap the rows' and the product.
        const uint32_t i = first * kPatchPixels + threadIdx.x;
        uint32_t x, y;
        patch_pixel(px.grid_w, i, x, y);
        const bool blends = threadIdx.x < present * kPatchPixels && x < px.core.output_w && y < px.core.output_h;
        const PixelCandidates cand = blends ? load_candidates(px, i) : PixelCandidates{};
        load_rows(a, kHeadRow, reinterpret_cast<const uint16_t*>(p.in) + static_cast<uint64_t>(first) * p.in_ch,
                  kEmbedTokens, present, p.in_ch);
        __syncthreads(); // the rows (and, the first time, the weights) in place; the previous answers read
        product<true>(a, kHeadRow, w, kHeadRow, bias, p.in_ch, kHeadOutputs, answers);
        __syncthreads(); // the answers in place; the rows read
        if (blends) blend_answers_fast(px, x, y, cand, answers + threadIdx.x * kOutputs, k);
    }
}
