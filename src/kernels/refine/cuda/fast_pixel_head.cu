// d4r refine network, fast sm_90 set: refine-v2's fused head (plan.h's PlanOptions::fuse_pixels), the same work as the
// PTX's (refine_block.cu) with fast_pixel.cuh's blend and f32 accumulators; within 60 dB of the PTX path
// (tests/network/refine_v2_test.cpp).
//  * d4r_nn_pixel_head: the head linear of a group's 16 tokens (16 x in_ch by in_ch x 128) into shared memory, then
//    each thread blends one pixel from there: the head's 16 bytes a pixel are neither written nor read back.
// Shape: a persistent grid (d4r_grid_x) of kEmbedThreads threads, each block walking the groups of 16 tokens
// blockIdx.x, blockIdx.x + gridDim.x, ... with the head's weights (34 KB) loaded into shared memory once: one launch a
// group read them through the L1 for every 16 tokens and made the fused head slower on an H100 than the head and the
// blend apart (0.41 ms against 0.13 + 0.20; docs/performance.md). Its own module since 2026-12-07: with the embed's 71
// KB of shared memory it ran three blocks an SM, and the head, bound by its memory traffic (the candidates, the rows
// and the output: about 50 bytes a pixel), wants as many loads in flight as it can have: five blocks an SM with its 43
// KB (on an H100 the 4K head 0.233 -> 0.194 ms with the whole-pixel stores, about 0.03 of it the module; Nsight
// Compute then puts its waits at the barrier after the rows' load: docs/performance.md). Each thread loads its
// candidates at the start of their own group, before the rows' loads: loading them a group ahead made it 0.01 ms slower
// on an H100 (0.232 -> 0.242 ms, 51 registers against 43).
#define D4R_REFINE_FAST_POWERS 1
#include "fast_group_product.cuh"

using namespace d4r::refine::fast;

namespace {

constexpr uint32_t kHeadRow = d4r::refine::math::kMaxChannels + 8; // the head's rows (A and weights), padded
// Dynamic shared memory, in bytes: A rows, answers, weights, bias.
constexpr uint32_t kHeadAnswers = kEmbedTokens * kHeadRow * 2;
constexpr uint32_t kHeadW = kHeadAnswers + kEmbedTokens * kHeadOutputs * 2;
constexpr uint32_t kHeadBias = kHeadW + kHeadOutputs * kHeadRow * 2;
constexpr uint32_t kSharedBytes = kHeadBias + kHeadOutputs * 2;

// The thread's 16-byte piece of the rows of GROUP (IN: TOKENS rows of IN_CH halves; rows past the last token zero), as
// load_rows lays them out: thread r * IN_CH / 8 + c holds piece c of row r (kEmbedTokens rows of at most kMaxChannels
// halves: one piece a thread at most).
static_assert(kEmbedTokens * d4r::refine::math::kMaxChannels / 8 <= kEmbedThreads);
__device__ __forceinline__ uint4 row_piece(const uint16_t* in, uint32_t in_ch, uint32_t tokens, uint32_t groups,
                                           uint32_t group) {
    const uint32_t pieces = in_ch / 8, row = threadIdx.x / pieces, token = group * kEmbedTokens + row;
    if (group >= groups || row >= kEmbedTokens || token >= tokens) return uint4{};
    return __ldg(reinterpret_cast<const uint4*>(in + static_cast<uint64_t>(token) * in_ch) + threadIdx.x % pieces);
}

} // namespace

// The launch's dynamic shared memory (the override layer sets the function's limit and launches with it) and the
// persistent grid: five blocks an SM.
extern "C" __device__ uint32_t d4r_dynamic_shared = kSharedBytes;
constexpr uint32_t kBlocksPerSm = 5;
static_assert(fits_on_sm90(kBlocksPerSm, kSharedBytes), "sm_90: 228 KB of shared memory an SM, 1 KB a block reserved");
extern "C" __device__ uint32_t d4r_grid_x = kSm90Sms * kBlocksPerSm;

namespace {

// The head of the block's groups, for kIn inputs a token where the caller knows them (refine-v2's 64: its row pieces
// and the product's K loop without run-time divisions and counts), else 0 and P.in_ch.
template <uint32_t kIn>
__device__ __forceinline__ void head_groups(const PixelHeadParams& p, uint8_t* shared) {
    const uint32_t in_ch = kIn ? kIn : p.in_ch;
    uint16_t* a = reinterpret_cast<uint16_t*>(shared);
    uint16_t* answers = reinterpret_cast<uint16_t*>(shared + kHeadAnswers);
    uint16_t* w = reinterpret_cast<uint16_t*>(shared + kHeadW);
    uint16_t* bias = reinterpret_cast<uint16_t*>(shared + kHeadBias);
    load_rows(w, kHeadRow, reinterpret_cast<const uint16_t*>(p.weight), kHeadOutputs, kHeadOutputs, in_ch);
    load_halves(bias, reinterpret_cast<const uint16_t*>(p.bias), kHeadOutputs);
    const PixelParams& px = p.pixels;
    const uint32_t tokens = px.grid_w * px.grid_h, groups = (tokens + kEmbedTokens - 1) / kEmbedTokens;
    const float k = up::exposure_factor(px.core);
    const uint16_t* in = reinterpret_cast<const uint16_t*>(p.in);
    const uint32_t pieces = in_ch / 8;
    uint16_t* row_at = a + threadIdx.x / pieces * kHeadRow + threadIdx.x % pieces * 8; // the thread's piece of A
    // The thread's piece of a group's rows is loaded a group ahead, so that its latency overlaps the group before's
    // product and blend: waiting for the rows at the barrier after their load was the head's largest stall on an H100
    // (docs/performance.md).
    uint4 next = row_piece(in, in_ch, tokens, groups, blockIdx.x);
    for (uint32_t group = blockIdx.x; group < groups; group += gridDim.x) {
        const uint32_t first = group * kEmbedTokens, present = min_u(kEmbedTokens, tokens - first);
        // The thread's pixel and its candidates first: their loads overlap the product.
        const uint32_t i = first * kPatchPixels + threadIdx.x;
        uint32_t x, y;
        patch_pixel(px.grid_w, i, x, y);
        const bool blends = threadIdx.x < present * kPatchPixels && x < px.core.output_w && y < px.core.output_h;
        const PixelCandidates cand = blends ? load_candidates(px, i) : PixelCandidates{};
        // The rows in place (the last product read A before the barrier that follows it), the next group's requested.
        if (threadIdx.x < kEmbedTokens * pieces) *reinterpret_cast<uint4*>(row_at) = next;
        next = row_piece(in, in_ch, tokens, groups, group + gridDim.x);
        __syncthreads(); // the rows (and, the first time, the weights) in place; the previous answers read
        product<true, kIn>(a, kHeadRow, w, kHeadRow, bias, in_ch, kHeadOutputs, answers);
        __syncthreads(); // the answers in place; the rows read
        if (blends) blend_answers_fast(px, x, y, cand, answers + threadIdx.x * kOutputs, k);
    }
}

} // namespace

extern "C" __global__ void __launch_bounds__(kEmbedThreads, kBlocksPerSm) d4r_nn_pixel_head(PixelHeadParams p) {
    extern __shared__ __align__(16) uint8_t shared[];
    // The plan's shape (kEmbedThreads threads, in_ch a multiple of 16 from 16 to kMaxChannels): anything else is a bug
    // that must not pass for a result.
    if (blockDim.x != kEmbedThreads || p.in_ch == 0 || p.in_ch % 16 != 0 || p.in_ch > d4r::refine::math::kMaxChannels)
        __trap();
    if (p.in_ch == 64)
        head_groups<64>(p, shared);
    else
        head_groups<0>(p, shared);
}
