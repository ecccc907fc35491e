// d4r refine network, fast sm_90 set: refine-v2's fused pixel embed (plan.h's PlanOptions::fuse_pixels), the same
// work as the PTX's (refine_block.cu) with fast_pixel.cuh's pixel code and f32 accumulators; within 60 dB of the PTX
// path (tests/network/refine_v2_test.cpp). The fused head is a module of its own (cuda/fast_pixel_head.cu), so that
// each has its own shared memory and persistent grid.
//  * d4r_nn_pixel_embed: a group's 16 tokens' pixel features into shared memory as the A operand of the embed
//    (16 x 384 by 384 x out_ch with the weights resident, each pixel in a slot of 24: RowA; 368 otherwise: one mma
//    chain of 24 or 23 k-steps per 8 output columns), so the 368 halves a token are
//    neither written nor read back; the candidates still go out.
// Shape: a persistent grid (d4r_grid_x, three blocks an SM) of kEmbedThreads threads, each block walking the groups
// of 16 tokens blockIdx.x, blockIdx.x + gridDim.x, ... with the layer's weights loaded into shared memory once: one
// launch a group (the plan's grid, which the PTX takes) read the weights through the L1 for every 16 tokens (47 KB, 8
// L1 wavefronts per fragment load; docs/performance.md). A grid of any size is correct (the tests run the plan's grid
// on ptxsim). Each thread issues its pixel's loads from DRAM for its next group (the core's output and kept terms,
// pixel_loads) before the current group's product, so that their latency overlaps it (the same values, so the same
// bytes): on an H100 the embed 0.565 -> 0.545 ms.
#define D4R_REFINE_FAST_POWERS 1
#include "fast_group_product.cuh"

using namespace d4r::refine::fast;

namespace {

constexpr uint32_t kIn = kFeatures * kPatchPixels; // the embed's inputs (the model's weight rows)
constexpr uint32_t kMaxOut = d4r::refine::math::kMaxChannels;
constexpr uint32_t kResidentOut = 64; // the embed's weights stay in shared memory up to this many outputs (50 KB)

// How a token's A row holds its pixels' features: with the weights resident, each pixel's kFeatures in a slot of
// kSlot = 24 halves (the last a 0, and a 0 weight column for it), so that a thread writes its pixel's features as
// three 16-byte stores of packed pairs (they were 23 conversions and 2-byte stores a pixel); with the weights read
// from global memory, where their rows are the model's, unpadded (K = kIn).
template <bool kResident>
struct RowA {
    static constexpr uint32_t kSlot = kResident ? 24 : kFeatures, kK = kSlot * kPatchPixels;
    static constexpr uint32_t kStride = kK + 8; // halves a row, padded: conflict-free loads
};
static_assert(RowA<true>::kSlot % 8 == 0 && RowA<true>::kSlot > kFeatures, "16-byte slots with a zero feature");

// Dynamic shared memory, in bytes. The embed: A rows, candidates, outputs, resident weights, bias.
constexpr uint32_t kRowA = RowA<true>::kStride; // (the longer of the two)
static_assert(RowA<true>::kStride >= RowA<false>::kStride);
constexpr uint32_t kEmbedCand = kEmbedTokens * kRowA * 2;
constexpr uint32_t kEmbedOut = kEmbedCand + kEmbedThreads * kCandidateBytes;
constexpr uint32_t kEmbedW = kEmbedOut + kEmbedTokens * kMaxOut * 2;
constexpr uint32_t kEmbedBias = kEmbedW + kResidentOut * kRowA * 2;
constexpr uint32_t kSharedBytes = kEmbedBias + kMaxOut * 2;

} // namespace

// The launch's dynamic shared memory (the override layer sets the function's limit and launches with it) and the
// persistent grid: three blocks an SM.
extern "C" __device__ uint32_t d4r_dynamic_shared = kSharedBytes;
constexpr uint32_t kBlocksPerSm = 3;
static_assert(fits_on_sm90(kBlocksPerSm, kSharedBytes), "sm_90: 228 KB of shared memory an SM, 1 KB a block reserved");
extern "C" __device__ uint32_t d4r_grid_x = kSm90Sms * kBlocksPerSm;

namespace {

// The model's embed weights (OUT rows of kIn halves at SRC) into shared DST in RowA<true>'s order: row n, slot p holds
// pixel p's kFeatures weights and a 0. Once a block: a thread a slot, by 2-byte loads (a slot's weights are not
// 4-byte aligned in the model's rows) and three 16-byte stores.
__device__ inline void load_slotted_weights(uint16_t* dst, const uint16_t* src, uint32_t out) {
    using R = RowA<true>;
    for (uint32_t k = threadIdx.x; k < out * kPatchPixels; k += blockDim.x) {
        const uint32_t n = k / kPatchPixels, slot = k % kPatchPixels;
        const uint16_t* from = src + n * kIn + slot * kFeatures;
        uint32_t w[R::kSlot / 2];
#pragma unroll
        for (uint32_t j = 0; j < R::kSlot / 2; ++j) {
            const uint16_t hi = 2 * j + 1 < kFeatures ? __ldg(from + 2 * j + 1) : uint16_t{0};
            w[j] = pack(__ldg(from + 2 * j), hi);
        }
        uint4* d = reinterpret_cast<uint4*>(dst + n * R::kStride + slot * R::kSlot);
        d[0] = uint4{w[0], w[1], w[2], w[3]};
        d[1] = uint4{w[4], w[5], w[6], w[7]};
        d[2] = uint4{w[8], w[9], w[10], w[11]};
    }
}

// Pixel features F (as halves) into the thread's slot FEATURES of A: RowA<kResident>'s layout.
template <bool kResident>
__device__ __forceinline__ void store_features(uint16_t* features, const float (&f)[kFeatures]) {
    if constexpr (kResident) {
        static_assert(RowA<true>::kSlot == 24, "three 16-byte stores");
        uint4* d = reinterpret_cast<uint4*>(features);
        d[0] = uint4{pack_f32(f[0], f[1]), pack_f32(f[2], f[3]), pack_f32(f[4], f[5]), pack_f32(f[6], f[7])};
        d[1] = uint4{pack_f32(f[8], f[9]), pack_f32(f[10], f[11]), pack_f32(f[12], f[13]), pack_f32(f[14], f[15])};
        d[2] = uint4{pack_f32(f[16], f[17]), pack_f32(f[18], f[19]), pack_f32(f[20], f[21]), pack_f32(f[22], 0.0f)};
    } else {
        for (uint32_t j = 0; j < kFeatures; ++j) features[j] = d4r::kernels::float_to_half(f[j]);
    }
}
template <bool kResident>
__device__ __forceinline__ void clear_features(uint16_t* features) {
    if constexpr (kResident) {
        uint4* d = reinterpret_cast<uint4*>(features);
        d[0] = d[1] = d[2] = uint4{};
    } else {
        for (uint32_t j = 0; j < kFeatures; ++j) features[j] = 0;
    }
}

template <bool kResident>
__device__ void embed_groups(const PixelEmbedParams& p, uint8_t* shared) {
    uint16_t* a = reinterpret_cast<uint16_t*>(shared);
    uint8_t* candidates = shared + kEmbedCand;
    uint16_t* out = reinterpret_cast<uint16_t*>(shared + kEmbedOut);
    uint16_t* bias = reinterpret_cast<uint16_t*>(shared + kEmbedBias);
    const uint16_t* weight = reinterpret_cast<const uint16_t*>(p.weight);
    using R = RowA<kResident>;
    const uint16_t* w = weight;
    uint32_t w_stride = kIn;
    if constexpr (kResident) {
        uint16_t* resident = reinterpret_cast<uint16_t*>(shared + kEmbedW);
        load_slotted_weights(resident, weight, p.out_ch);
        w = resident;
        w_stride = R::kStride;
    }
    load_halves(bias, reinterpret_cast<const uint16_t*>(p.bias), p.out_ch);
    const PixelParams& px = p.pixels;
    const uint32_t tokens = px.grid_w * px.grid_h, groups = (tokens + kEmbedTokens - 1) / kEmbedTokens;
    const uint32_t row = threadIdx.x / kPatchPixels;
    uint16_t* features = a + row * R::kStride + (threadIdx.x % kPatchPixels) * R::kSlot;
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
        const PixelLoads loads = next;
        if (row < present) {
            float f[kFeatures];
            Candidates cand{};
            pixel_values_from(px, loads, f, cand);
            store_features<kResident>(features, f);
            // The 15 values and the 0 as two 16-byte stores (pack_f32 rounds as float_to_half does).
            const auto v = [&cand](uint32_t j) { return cand.c[j / 3][j % 3]; };
            uint4* c = reinterpret_cast<uint4*>(candidates + threadIdx.x * kCandidateBytes);
            c[0] = uint4{pack_f32(v(0), v(1)), pack_f32(v(2), v(3)), pack_f32(v(4), v(5)), pack_f32(v(6), v(7))};
            c[1] = uint4{pack_f32(v(8), v(9)), pack_f32(v(10), v(11)), pack_f32(v(12), v(13)), pack_f32(v(14), 0.0f)};
        } else {
            clear_features<kResident>(features); // rows of absent tokens: defined inputs, not written
        }
        __syncthreads(); // the features, the candidates (and, the first time, the weights) in place
        next = loads_of(group + gridDim.x);
        copy_out(candidates,
                 reinterpret_cast<uint8_t*>(px.candidates) +
                     static_cast<uint64_t>(first) * kPatchPixels * kCandidateBytes,
                 present * kPatchPixels * kCandidateBytes);
        product<kResident, R::kK>(a, R::kStride, w, w_stride, bias, R::kK, p.out_ch, out);
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
