// d4r refine network, fast sm_90 set: merge and expand, bit-exact with the PTX (the same copies and add_h), moving 8
// channels (16 bytes) per thread in a persistent grid: the code object's d4r_grid_x (docs/runtime.md,
// "Native-kernel overrides") launches kBlocks blocks of the caller's block size whatever the caller's grid (the
// PTX's one thread per element would leave seven eighths of the blocks idle), each striding over the elements.
#include "fast_common.cuh"

using namespace d4r::refine::fast;

constexpr uint32_t kBlocks = kSm90Sms * 16; // 16 blocks for each of the H200's 132 SMs
extern "C" __device__ uint32_t d4r_grid_x = kBlocks;

extern "C" __global__ void d4r_nn_merge(RegroupParams p) {
    const uint32_t total = p.grid_w * p.grid_h * p.channels, wide = 4 * p.channels, cw = p.grid_w / 2;
    for (uint32_t index = (blockIdx.x * blockDim.x + threadIdx.x) * 8; index < total;
         index += gridDim.x * blockDim.x * 8) {
        const uint32_t t2 = index / wide, j = index % wide, q = j / p.channels, c = j % p.channels;
        const uint32_t fx = (t2 % cw) * 2 + (q & 1), fy = (t2 / cw) * 2 + (q >> 1);
        const uint16_t* in = reinterpret_cast<const uint16_t*>(p.in) + (uint64_t(fy) * p.grid_w + fx) * p.channels + c;
        *reinterpret_cast<uint4*>(reinterpret_cast<uint16_t*>(p.out) + index) = *reinterpret_cast<const uint4*>(in);
    }
}

extern "C" __global__ void d4r_nn_expand(RegroupParams p) {
    const uint32_t total = p.grid_w * p.grid_h * p.channels, cw = p.grid_w / 2;
    auto add2 = [](uint32_t a, uint32_t b) { return pack(add_h(low(a), low(b)), add_h(high(a), high(b))); };
    for (uint32_t index = (blockIdx.x * blockDim.x + threadIdx.x) * 8; index < total;
         index += gridDim.x * blockDim.x * 8) {
        const uint32_t t1 = index / p.channels, c = index % p.channels;
        const uint32_t fx = t1 % p.grid_w, fy = t1 / p.grid_w;
        const uint32_t t2 = (fy / 2) * cw + fx / 2, q = (fy & 1) * 2 + (fx & 1);
        const uint4 v = *reinterpret_cast<const uint4*>(reinterpret_cast<const uint16_t*>(p.in) +
                                                        uint64_t(t2) * 4 * p.channels + q * p.channels + c);
        const uint4 s = *reinterpret_cast<const uint4*>(reinterpret_cast<const uint16_t*>(p.skip) + index);
        *reinterpret_cast<uint4*>(reinterpret_cast<uint16_t*>(p.out) + index) =
            make_uint4(add2(v.x, s.x), add2(v.y, s.y), add2(v.z, s.z), add2(v.w, s.w));
    }
}
