// d4r refine network, fast sm_90 set: the element-wise kernels and the layernorm. Their arithmetic is
// refine_math.h's, in the same order as the PTX (built with --fmad=false: bit-exact with it); what changes is how
// memory is touched: tokens staged through shared memory so that global loads and stores are coalesced 16-byte
// pieces, and the regrouping kernels move 8 channels (16 bytes) per thread. Launch shapes are the PTX's.
#include "fast_common.cuh"

using namespace d4r::refine::fast;

namespace {

// 16-byte piece `i` of a staged row of `row` halves (4-byte aligned rows: `row` even).
__device__ __forceinline__ uint4 piece_from(const uint16_t* rows, uint32_t row, uint32_t channels, uint32_t i) {
    const uint32_t* src = reinterpret_cast<const uint32_t*>(rows + (i * 8 / channels) * row + i * 8 % channels);
    return make_uint4(src[0], src[1], src[2], src[3]);
}
__device__ __forceinline__ void piece_to(uint16_t* rows, uint32_t row, uint32_t channels, uint32_t i, uint4 v) {
    uint32_t* dst = reinterpret_cast<uint32_t*>(rows + (i * 8 / channels) * row + i * 8 % channels);
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
    dst[3] = v.w;
}

} // namespace

// One thread per token as in the PTX; the block's tokens are written from shared memory (rows of 48 + 2 halves).
extern "C" __global__ void __launch_bounds__(kThreads) d4r_nn_patchify(PatchParams p) {
    constexpr uint32_t kRow = kPatchChannels + 2;
    __shared__ __align__(16) uint16_t rows[kThreads * kRow];
    const uint32_t first = blockIdx.x * kThreads, total = p.grid_w * p.grid_h;
    if (first >= total) return;
    const uint32_t count = min(kThreads, total - first);
    if (threadIdx.x < count) patchify_into(p, first + threadIdx.x, rows + threadIdx.x * kRow);
    __syncthreads();
    uint4* out = reinterpret_cast<uint4*>(reinterpret_cast<uint16_t*>(p.tokens) + uint64_t(first) * kPatchChannels);
    for (uint32_t i = threadIdx.x; i < count * kPatchChannels / 8; i += kThreads)
        out[i] = piece_from(rows, kRow, kPatchChannels, i);
}

extern "C" __global__ void d4r_nn_unpatchify(PatchParams p) {
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < p.width && y < p.height) unpatchify_pixel(p, x, y);
}

// Eight channels per thread (the threads of the first eighth of the PTX's grid).
extern "C" __global__ void d4r_nn_merge(RegroupParams p) {
    const uint32_t index = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
    if (index >= p.grid_w * p.grid_h * p.channels) return;
    const uint32_t wide = 4 * p.channels, t2 = index / wide, j = index % wide;
    const uint32_t q = j / p.channels, c = j % p.channels, cw = p.grid_w / 2;
    const uint32_t fx = (t2 % cw) * 2 + (q & 1), fy = (t2 / cw) * 2 + (q >> 1);
    const uint16_t* in = reinterpret_cast<const uint16_t*>(p.in) + (uint64_t(fy) * p.grid_w + fx) * p.channels + c;
    *reinterpret_cast<uint4*>(reinterpret_cast<uint16_t*>(p.out) + index) = *reinterpret_cast<const uint4*>(in);
}

extern "C" __global__ void d4r_nn_expand(RegroupParams p) {
    const uint32_t index = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
    if (index >= p.grid_w * p.grid_h * p.channels) return;
    const uint32_t t1 = index / p.channels, c = index % p.channels;
    const uint32_t fx = t1 % p.grid_w, fy = t1 / p.grid_w, cw = p.grid_w / 2;
    const uint32_t t2 = (fy / 2) * cw + fx / 2, q = (fy & 1) * 2 + (fx & 1);
    const uint4 v = *reinterpret_cast<const uint4*>(reinterpret_cast<const uint16_t*>(p.in) +
                                                    uint64_t(t2) * 4 * p.channels + q * p.channels + c);
    const uint4 s = *reinterpret_cast<const uint4*>(reinterpret_cast<const uint16_t*>(p.skip) + index);
    auto add2 = [](uint32_t a, uint32_t b) { return pack(add_h(low(a), low(b)), add_h(high(a), high(b))); };
    *reinterpret_cast<uint4*>(reinterpret_cast<uint16_t*>(p.out) + index) =
        make_uint4(add2(v.x, s.x), add2(v.y, s.y), add2(v.z, s.z), add2(v.w, s.w));
}

// One thread per token as in the PTX, each token's row staged in shared memory (rows padded by two halves: an
// odd number of words, so the threads walking their own rows hit different banks).
extern "C" __global__ void __launch_bounds__(kThreads) d4r_nn_layernorm(NormParams p) {
    constexpr uint32_t kMaxC = 64;
    __shared__ __align__(16) uint16_t rows[kThreads * (kMaxC + 2)];
    const uint32_t c = p.channels, first = blockIdx.x * kThreads;
    if (first >= p.tokens) return;
    const uint32_t count = min(kThreads, p.tokens - first), row = c + 2;
    if (c > kMaxC || (c & 7u) != 0) { // not a shape refine-v1 has: the PTX's way
        if (threadIdx.x >= count) return;
        const uint64_t at = uint64_t(first + threadIdx.x) * c;
        layernorm_token(reinterpret_cast<const uint16_t*>(p.in) + at, reinterpret_cast<const uint16_t*>(p.gamma),
                        reinterpret_cast<const uint16_t*>(p.beta), reinterpret_cast<uint16_t*>(p.out) + at, c);
        return;
    }
    const uint32_t pieces = count * c / 8;
    const uint4* in = reinterpret_cast<const uint4*>(reinterpret_cast<const uint16_t*>(p.in) + uint64_t(first) * c);
    for (uint32_t i = threadIdx.x; i < pieces; i += kThreads) piece_to(rows, row, c, i, in[i]);
    __syncthreads();
    if (threadIdx.x < count) {
        uint16_t* mine = rows + threadIdx.x * row;
        layernorm_token(mine, reinterpret_cast<const uint16_t*>(p.gamma), reinterpret_cast<const uint16_t*>(p.beta),
                        mine, c);
    }
    __syncthreads();
    uint4* out = reinterpret_cast<uint4*>(reinterpret_cast<uint16_t*>(p.out) + uint64_t(first) * c);
    for (uint32_t i = threadIdx.x; i < pieces; i += kThreads) out[i] = piece_from(rows, row, c, i);
}
