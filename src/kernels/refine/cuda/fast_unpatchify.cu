// d4r refine network, fast sm_90 set: d4r_nn_unpatchify with the PTX's per-pixel arithmetic (unpatchify_pixel;
// built with --fmad=false: bit-exact), four pixels per work item: a token's row of four pixels (two 16-byte pieces
// of the image) and its twelve residuals (24 consecutive bytes). A persistent grid: the code object's d4r_grid_x
// (docs/runtime.md, "Native-kernel overrides") launches kBlocks blocks of the caller's 16 x 16 threads whatever the
// caller's grid, each thread striding over the work items.
#include "fast_common.cuh"

using namespace d4r::refine::fast;

constexpr uint32_t kBlocks = kSm90Sms * 8; // 8 blocks for each of the H200's 132 SMs
extern "C" __device__ uint32_t d4r_grid_x = kBlocks;

namespace {

__device__ __forceinline__ uint16_t refined(uint16_t h, uint16_t residual) {
    const float v = half_to_float(h);
    return float_to_half(untone(v, tone(v), half_to_float(residual)));
}

// Two pixels (one 16-byte half of the row) with residuals r[0..5]; alpha kept.
__device__ __forceinline__ uint4 refine_pair(uint4 px, const uint16_t* r) {
    return make_uint4(
        pack(refined(low(px.x), r[0]), refined(high(px.x), r[1])), pack(refined(low(px.y), r[2]), high(px.y)),
        pack(refined(low(px.z), r[3]), refined(high(px.z), r[4])), pack(refined(low(px.w), r[5]), high(px.w)));
}

} // namespace

extern "C" __global__ void d4r_nn_unpatchify(PatchParams p) {
    const uint32_t quads = div_up(p.width, kPatch), items = quads * p.height;
    // Blocks in any grid shape (the caller's 2-D grid without the override): each item is done exactly once.
    const uint32_t threads = blockDim.x * blockDim.y, stride = gridDim.x * gridDim.y * threads;
    const uint32_t block = blockIdx.y * gridDim.x + blockIdx.x;
    const bool aligned = (p.image | p.pitch) % 16 == 0; // rows of 16-byte pieces
    for (uint32_t i = block * threads + threadIdx.y * blockDim.x + threadIdx.x; i < items; i += stride) {
        const uint32_t y = i / quads, tx = i % quads, x0 = tx * kPatch;
        if (!aligned || x0 + kPatch > p.width) { // the PTX's way, pixel by pixel
            for (uint32_t x = x0; x < min(x0 + kPatch, p.width); ++x) unpatchify_pixel(p, x, y);
            continue;
        }
        const uint16_t* r = reinterpret_cast<const uint16_t*>(p.tokens) +
                            (static_cast<uint64_t>(y / kPatch) * p.grid_w + tx) * kPatchChannels + (y % kPatch) * 12;
        uint16_t res[12];
        for (uint32_t k = 0; k < 3; ++k) { // 24 bytes at an 8-byte aligned address
            const uint2 v = reinterpret_cast<const uint2*>(r)[k];
            res[4 * k] = low(v.x);
            res[4 * k + 1] = high(v.x);
            res[4 * k + 2] = low(v.y);
            res[4 * k + 3] = high(v.y);
        }
        uint4* row = reinterpret_cast<uint4*>(p.image + static_cast<uint64_t>(y) * p.pitch + uint64_t(x0) * 8);
        const uint4 a = row[0], b = row[1];
        row[0] = refine_pair(a, res);
        row[1] = refine_pair(b, res + 6);
    }
}
