// d4r refine network, fast sm_90 set: patchify and the layernorm. Their arithmetic is refine_math.h's,
// in the same order as the PTX (built with --fmad=false: bit-exact with it); what changes is how memory is touched:
// tokens staged through shared memory so that global loads and stores are coalesced 16-byte pieces. Launch shapes
// are the PTX's.
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

// layernorm_token's arithmetic in its order (bit-exact), the row read from shared memory once into registers (as
// f16 pairs: the conversions are exact and cheap, the registers few).
template <uint32_t C>
__device__ __forceinline__ void layernorm_row(uint16_t* row, const NormParams& p) {
    uint32_t x[C / 2];
#pragma unroll
    for (uint32_t i = 0; i < C / 2; ++i) x[i] = load_pair(row + 2 * i);
    auto at = [&](uint32_t c) { return half_to_float(c % 2 ? high(x[c / 2]) : low(x[c / 2])); };
    float sum = 0.0f;
#pragma unroll
    for (uint32_t c = 0; c < C; ++c) sum = sum + at(c);
    const float mean = sum / static_cast<float>(C);
    float var = 0.0f;
#pragma unroll
    for (uint32_t c = 0; c < C; ++c) {
        const float d = at(c) - mean;
        var = var + d * d;
    }
    var = var / static_cast<float>(C);
    const float inv = 1.0f / sqrt_f(var + kNormEps);
    const uint16_t* gamma = reinterpret_cast<const uint16_t*>(p.gamma);
    const uint16_t* beta = reinterpret_cast<const uint16_t*>(p.beta);
#pragma unroll
    for (uint32_t c = 0; c < C; c += 2) {
        const uint32_t g = load_pair(gamma + c), b = load_pair(beta + c);
        const uint16_t lo = float_to_half(((at(c) - mean) * inv) * half_to_float(low(g)) + half_to_float(low(b)));
        const uint16_t hi = float_to_half(((at(c + 1) - mean) * inv) * half_to_float(high(g)) + half_to_float(high(b)));
        *reinterpret_cast<uint32_t*>(row + c) = pack(lo, hi);
    }
}

} // namespace

// The PTX's shape (128 tokens per block), the work spread by pixel row: item q reads one row of a token's four
// pixels (two 16-byte pieces when they lie inside the image and the image and its pitch allow it; the padding
// rule's clamped pixels one by one) and writes their twelve toned channels into the token's row in shared memory
// (48 + 2 halves); the block's tokens then go out as coalesced 16-byte pieces.
extern "C" __global__ void __launch_bounds__(kThreads) d4r_nn_patchify(PatchParams p) {
    constexpr uint32_t kRow = kPatchChannels + 2;
    __shared__ __align__(16) uint16_t rows[kThreads * kRow];
    const uint32_t first = blockIdx.x * kThreads, total = p.grid_w * p.grid_h;
    if (first >= total) return;
    const uint32_t count = min(kThreads, total - first);
    const bool aligned = (p.image | p.pitch) % 16 == 0;
    for (uint32_t q = threadIdx.x; q < count * kPatch; q += kThreads) {
        const uint32_t local = q / kPatch, dy = q % kPatch, token = first + local;
        const uint32_t x0 = (token % p.grid_w) * kPatch, y = (token / p.grid_w) * kPatch + dy;
        uint16_t* out = rows + local * kRow + dy * kPatch * 3;
        if (aligned && x0 + kPatch <= p.width && y < p.height) {
            const uint4* row = reinterpret_cast<const uint4*>(p.image + static_cast<uint64_t>(y) * p.pitch + x0 * 8ull);
            const uint4 a = row[0], b = row[1];
            const uint16_t c[12] = {low(a.x), high(a.x), low(a.y), low(a.z), high(a.z), low(a.w),
                                    low(b.x), high(b.x), low(b.y), low(b.z), high(b.z), low(b.w)};
            for (uint32_t i = 0; i < 12; ++i) out[i] = float_to_half(tone(half_to_float(c[i])));
            continue;
        }
        for (uint32_t dx = 0; dx < kPatch; ++dx) {
            const uint16_t* px = pixel_at(p.image, p.pitch, p.width, p.height, x0 + dx, y);
            for (uint32_t c = 0; c < 3; ++c) out[dx * 3 + c] = float_to_half(tone(half_to_float(px[c])));
        }
    }
    __syncthreads();
    uint4* out = reinterpret_cast<uint4*>(reinterpret_cast<uint16_t*>(p.tokens) + uint64_t(first) * kPatchChannels);
    for (uint32_t i = threadIdx.x; i < count * kPatchChannels / 8; i += kThreads)
        out[i] = piece_from(rows, kRow, kPatchChannels, i);
}

// One thread per token as in the PTX, each token's row staged in shared memory (rows padded by two halves: an
// odd number of words, so the threads walking their own rows hit different banks).
extern "C" __global__ void __launch_bounds__(kThreads) d4r_nn_layernorm(NormParams p) {
    constexpr uint32_t kMaxC = 128; // refine-v2's widest (33 KB of rows)
    __shared__ __align__(16) uint16_t rows[kThreads * (kMaxC + 2)];
    const uint32_t c = p.channels, first = blockIdx.x * kThreads;
    if (first >= p.tokens) return;
    const uint32_t count = min(kThreads, p.tokens - first), row = c + 2;
    if (c > kMaxC || (c & 7u) != 0) { // not a shape refine-v1 or v2 has: the PTX's way
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
        if (c == 32)
            layernorm_row<32>(mine, p);
        else if (c == 64)
            layernorm_row<64>(mine, p);
        else if (c == 128)
            layernorm_row<128>(mine, p);
        else
            layernorm_token(mine, reinterpret_cast<const uint16_t*>(p.gamma), reinterpret_cast<const uint16_t*>(p.beta),
                            mine, c);
    }
    __syncthreads();
    uint4* out = reinterpret_cast<uint4*>(reinterpret_cast<uint16_t*>(p.out) + uint64_t(first) * c);
    for (uint32_t i = threadIdx.x; i < pieces; i += kThreads) out[i] = piece_from(rows, row, c, i);
}
