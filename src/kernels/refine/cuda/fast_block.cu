// d4r refine network, fast sm_90 set: d4r_nn_block, a whole transformer block per 8 x 8-token window (refine_block.cu
// is its PTX path) with the window kept on chip from the first layer to the last: the unfused plan writes and reads
// back the layernorm, qkv, attention and hidden tensors of every token (docs/performance.md).
//
// Shape: a persistent grid (d4r_grid_x) of kBlockWarps warps; each block walks the windows blockIdx.x,
// blockIdx.x + gridDim.x, ... Warp w owns the window's rows 2w and 2w + 1 (positions 16w .. 16w + 15: lane group g
// holds x = g of both, as an mma tile's rows g and g + 8) through every layer:
//  1. the window's stream rows into shared memory (absent tokens zero);
//  2. layernorm 1 of the warp's rows straight into A fragments (row sums across the lane quad);
//  3. per head: q of its rows (kept as A fragments), k and v of its rows into shared memory; after a barrier, the
//     scores of its 16 queries against the window's 64 keys, softmax and P V in registers (fast_attention.cu's
//     way), the head's output kept as A fragments of the projection;
//  4. proj + the residual into the shared rows; layernorm 2 into A fragments;
//  5. fc1 in chunks of 16 hidden channels, each (relu, rounded to f16) at once one K step of fc2, whose f32
//     accumulators stay in registers; fc2 + the residual, stored by 16-byte pieces.
// Weights are read as B fragments from global memory (the L1 keeps them: 64 KB for 64 channels). Numerics are the
// fast set's (f32 accumulators through every K chain, f16 wherever the unfused plan stores a tensor), so it stays
// within 60 dB of the PTX path like the fast per-layer kernels (RefineBlock tests, on ptxsim).
#include "fast_tile_attention.cuh"

using namespace d4r::refine::fast;

// Four blocks of 128 threads per SM (the launch bounds hold a thread to 128 registers: a few bytes spill), on each of
// the H200's 132: at 208 registers (two blocks an SM) the 4K frame took 4.80 ms on an H100, at 128 4.58 ms.
constexpr uint32_t kBlocks = 132 * 4;
extern "C" __device__ uint32_t d4r_grid_x = kBlocks;

namespace {

constexpr uint32_t kMaxC = 128;
constexpr uint32_t kXRow = kMaxC + 8; // halves per shared stream row (padded: a quad's rows fall in other banks)

struct Shared {
    uint16_t x[kWindowTokens * kXRow];
    uint16_t k[kWindowTokens * kKvRow], v[kWindowTokens * kKvRow];
    float bias[kRelBiasSize];
};

__device__ __forceinline__ uint32_t ldg_pair(const uint16_t* p) {
    return __ldg(reinterpret_cast<const unsigned int*>(p));
}

// acc (16 rows x 8 columns n0 ..) += A (the warp's rows, K = 16 * STEPS) * W[n0 .., :]^T; W row-major out x in.
template <uint32_t kSteps>
__device__ __forceinline__ void product(float (&acc)[4], const uint32_t (*a)[4], const uint16_t* w, uint32_t in_ch,
                                        uint32_t n0, uint32_t g, uint32_t t) {
    const uint16_t* row = w + static_cast<uint64_t>(n0 + g) * in_ch + 2 * t;
#pragma unroll
    for (uint32_t s = 0; s < kSteps; ++s) mma_f32(acc, a[s], ldg_pair(row + s * 16), ldg_pair(row + s * 16 + 8));
}

__device__ __forceinline__ void start_at_bias(float (&acc)[4], const uint16_t* bias, uint32_t col) {
    const float b0 = half_to_float(bias[col]), b1 = half_to_float(bias[col + 1]);
    acc[0] = b0;
    acc[1] = b1;
    acc[2] = b0;
    acc[3] = b1;
}

// Two accumulator tiles (columns 16s .. 16s + 15) rounded to f16 as the A fragment of K step s.
__device__ __forceinline__ void to_fragment(uint32_t (&a)[4], const float (&lo)[4], const float (&hi)[4]) {
    a[0] = pack_f32(lo[0], lo[1]);
    a[1] = pack_f32(lo[2], lo[3]);
    a[2] = pack_f32(hi[0], hi[1]);
    a[3] = pack_f32(hi[2], hi[3]);
}

// Layernorm of the warp's rows r0 = 16w + g and r1 = r0 + 8 from the shared rows, as A fragments (K = C).
template <uint32_t C>
__device__ __forceinline__ void layernorm(uint32_t (&a)[C / 16][4], const uint16_t* x0, const uint16_t* x1,
                                          const uint16_t* gamma, const uint16_t* beta, uint32_t t) {
    float v[C / 16][8];
    float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
    for (uint32_t s = 0; s < C / 16; ++s)
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) {
            const uint32_t c = s * 16 + 2 * t + (e & 1u) + (e >> 1) * 8;
            v[s][e] = half_to_float(x0[c]);
            v[s][4 + e] = half_to_float(x1[c]);
            s0 += v[s][e];
            s1 += v[s][4 + e];
        }
    s0 += __shfl_xor_sync(0xffffffffu, s0, 1);
    s0 += __shfl_xor_sync(0xffffffffu, s0, 2);
    s1 += __shfl_xor_sync(0xffffffffu, s1, 1);
    s1 += __shfl_xor_sync(0xffffffffu, s1, 2);
    const float m0 = s0 / static_cast<float>(C), m1 = s1 / static_cast<float>(C);
    float q0 = 0.0f, q1 = 0.0f;
#pragma unroll
    for (uint32_t s = 0; s < C / 16; ++s)
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) {
            q0 += (v[s][e] - m0) * (v[s][e] - m0);
            q1 += (v[s][4 + e] - m1) * (v[s][4 + e] - m1);
        }
    q0 += __shfl_xor_sync(0xffffffffu, q0, 1);
    q0 += __shfl_xor_sync(0xffffffffu, q0, 2);
    q1 += __shfl_xor_sync(0xffffffffu, q1, 1);
    q1 += __shfl_xor_sync(0xffffffffu, q1, 2);
    const float i0 = 1.0f / sqrtf(q0 / static_cast<float>(C) + kNormEps);
    const float i1 = 1.0f / sqrtf(q1 / static_cast<float>(C) + kNormEps);
#pragma unroll
    for (uint32_t s = 0; s < C / 16; ++s) {
        float n[8];
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) {
            const uint32_t c = s * 16 + 2 * t + (e & 1u) + (e >> 1) * 8;
            const float gc = half_to_float(gamma[c]), bc = half_to_float(beta[c]);
            n[e] = ((v[s][e] - m0) * i0) * gc + bc;
            n[4 + e] = ((v[s][4 + e] - m1) * i1) * gc + bc;
        }
        // e = 0, 1: columns 2t, 2t + 1; e = 2, 3: 2t + 8, 2t + 9 (row r0 in n[0..3], r1 in n[4..7]).
        a[s][0] = pack_f32(n[0], n[1]);
        a[s][1] = pack_f32(n[4], n[5]);
        a[s][2] = pack_f32(n[2], n[3]);
        a[s][3] = pack_f32(n[6], n[7]);
    }
}

// The residual update of the warp's shared rows: x += f16(acc) for output tile columns col, col + 1.
__device__ __forceinline__ void add_to_rows(uint16_t* x0, uint16_t* x1, const float (&acc)[4], uint32_t col) {
    uint32_t* p0 = reinterpret_cast<uint32_t*>(x0 + col);
    uint32_t* p1 = reinterpret_cast<uint32_t*>(x1 + col);
    const uint32_t r0 = *p0, r1 = *p1;
    *p0 = pack(add_h(float_to_half(acc[0]), low(r0)), add_h(float_to_half(acc[1]), high(r0)));
    *p1 = pack(add_h(float_to_half(acc[2]), low(r1)), add_h(float_to_half(acc[3]), high(r1)));
}

template <uint32_t C>
__device__ __forceinline__ void window_block(const BlockParams& p, Shared& sh, uint32_t window, uint32_t warp,
                                             uint32_t lane) {
    constexpr uint32_t kSteps = C / 16, kPieces = C / 8;
    const uint32_t g = lane >> 2, t = lane & 3u;
    const AttnParams geometry = block_attention(p);
    uint16_t* stream = reinterpret_cast<uint16_t*>(p.stream);
    // 1. the window's rows (16-byte pieces, zero for absent tokens) and which tokens are present.
    for (uint32_t i = threadIdx.x; i < kWindowTokens * kPieces; i += kBlockWarps * 32) {
        const uint32_t row = i / kPieces, piece = i % kPieces;
        uint32_t token = 0;
        const bool here = window_token(geometry, window, row, token);
        *reinterpret_cast<uint4*>(sh.x + row * kXRow + piece * 8) =
            here ? *reinterpret_cast<const uint4*>(stream + static_cast<uint64_t>(token) * C + piece * 8)
                 : make_uint4(0, 0, 0, 0);
    }
    const uint64_t present = window_present(geometry, window);
    __syncthreads();
    const uint32_t r0 = warp * 16 + g, r1 = r0 + 8;
    uint16_t* x0 = sh.x + r0 * kXRow;
    uint16_t* x1 = sh.x + r1 * kXRow;

    // 2. layernorm 1.
    uint32_t ln[kSteps][4];
    layernorm<C>(ln, x0, x1, reinterpret_cast<const uint16_t*>(p.ln1_g), reinterpret_cast<const uint16_t*>(p.ln1_b), t);

    // 3. attention, head by head; the heads' outputs as the projection's A fragments.
    const uint16_t* qkv_w = reinterpret_cast<const uint16_t*>(p.qkv_w);
    const uint16_t* qkv_b = reinterpret_cast<const uint16_t*>(p.qkv_b);
    uint32_t heads_out[kSteps][4];
#pragma unroll
    for (uint32_t head = 0; head < C / kHeadDim; ++head) {
        uint32_t qa[2][4];
#pragma unroll
        for (uint32_t part = 0; part < 3; ++part) { // q, k, v: columns part * C + head * 32 ..
            float acc[4][4];
#pragma unroll
            for (uint32_t nt = 0; nt < 4; ++nt) {
                const uint32_t n0 = part * C + head * kHeadDim + nt * 8;
                start_at_bias(acc[nt], qkv_b, n0 + 2 * t);
                product<kSteps>(acc[nt], ln, qkv_w, C, n0, g, t);
            }
            if (part == 0) {
                to_fragment(qa[0], acc[0], acc[1]);
                to_fragment(qa[1], acc[2], acc[3]);
                continue;
            }
            uint16_t* kv = part == 1 ? sh.k : sh.v;
            const bool h0 = (present >> r0) & 1u, h1 = (present >> r1) & 1u;
#pragma unroll
            for (uint32_t nt = 0; nt < 4; ++nt) {
                *reinterpret_cast<uint32_t*>(kv + r0 * kKvRow + nt * 8 + 2 * t) =
                    h0 ? pack_f32(acc[nt][0], acc[nt][1]) : 0u;
                *reinterpret_cast<uint32_t*>(kv + r1 * kKvRow + nt * 8 + 2 * t) =
                    h1 ? pack_f32(acc[nt][2], acc[nt][3]) : 0u;
            }
        }
        const uint16_t* relbias = reinterpret_cast<const uint16_t*>(p.relbias) + head * kRelBiasSize;
        for (uint32_t i = threadIdx.x; i < kRelBiasSize; i += kBlockWarps * 32) sh.bias[i] = half_to_float(relbias[i]);
        __syncthreads(); // k, v and the bias of every row
        float o[4][4];
        attend_tile(qa, sh.k, sh.v, sh.bias, present, r0, g, t, o);
        to_fragment(heads_out[head * 2], o[0], o[1]);
        to_fragment(heads_out[head * 2 + 1], o[2], o[3]);
        __syncthreads(); // every warp is done with this head's k, v and bias
    }

    // 4. proj + the residual into the shared rows, then layernorm 2.
    const uint16_t* proj_w = reinterpret_cast<const uint16_t*>(p.proj_w);
    const uint16_t* proj_b = reinterpret_cast<const uint16_t*>(p.proj_b);
#pragma unroll
    for (uint32_t nt = 0; nt < C / 8; ++nt) {
        float acc[4];
        start_at_bias(acc, proj_b, nt * 8 + 2 * t);
        product<kSteps>(acc, heads_out, proj_w, C, nt * 8, g, t);
        add_to_rows(x0, x1, acc, nt * 8 + 2 * t);
    }
    __syncwarp();
    layernorm<C>(ln, x0, x1, reinterpret_cast<const uint16_t*>(p.ln2_g), reinterpret_cast<const uint16_t*>(p.ln2_b), t);

    // 5. fc1 (relu) 16 hidden channels at a time, each a K step of fc2; fc2 + the residual.
    const uint16_t* fc1_w = reinterpret_cast<const uint16_t*>(p.fc1_w);
    const uint16_t* fc1_b = reinterpret_cast<const uint16_t*>(p.fc1_b);
    const uint16_t* fc2_w = reinterpret_cast<const uint16_t*>(p.fc2_w);
    const uint16_t* fc2_b = reinterpret_cast<const uint16_t*>(p.fc2_b);
    float out[C / 8][4];
#pragma unroll
    for (uint32_t nt = 0; nt < C / 8; ++nt) start_at_bias(out[nt], fc2_b, nt * 8 + 2 * t);
#pragma unroll 1
    for (uint32_t chunk = 0; chunk < 2 * C / 16; ++chunk) {
        float h[2][4];
#pragma unroll
        for (uint32_t half = 0; half < 2; ++half) {
            const uint32_t n0 = chunk * 16 + half * 8;
            start_at_bias(h[half], fc1_b, n0 + 2 * t);
            product<kSteps>(h[half], ln, fc1_w, C, n0, g, t);
#pragma unroll
            for (float& v : h[half]) v = fmaxf(v, 0.0f);
        }
        uint32_t a[1][4];
        to_fragment(a[0], h[0], h[1]);
#pragma unroll
        for (uint32_t nt = 0; nt < C / 8; ++nt) {
            const uint16_t* row = fc2_w + static_cast<uint64_t>(nt * 8 + g) * (2 * C) + chunk * 16 + 2 * t;
            mma_f32(out[nt], a[0], ldg_pair(row), ldg_pair(row + 8));
        }
    }
#pragma unroll
    for (uint32_t nt = 0; nt < C / 8; ++nt) add_to_rows(x0, x1, out[nt], nt * 8 + 2 * t);
    __syncwarp();
    // The warp's 16 rows back to the stream by 16-byte pieces.
    for (uint32_t i = lane; i < 16 * kPieces; i += 32) {
        const uint32_t r = warp * 16 + i / kPieces, piece = i % kPieces;
        uint32_t token = 0;
        if (window_token(geometry, window, r, token))
            *reinterpret_cast<uint4*>(stream + static_cast<uint64_t>(token) * C + piece * 8) =
                *reinterpret_cast<const uint4*>(sh.x + r * kXRow + piece * 8);
    }
    __syncthreads(); // the shared rows are free for the next window
}

} // namespace

extern "C" __global__ void __launch_bounds__(kBlockWarps * 32, 4) d4r_nn_block(BlockParams p) {
    __shared__ __align__(16) Shared sh;
    const uint32_t windows = div_up(p.grid_w, kWindow) * div_up(p.grid_h, kWindow);
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    // The plan fuses blocks of 32, 64 or 128 channels (a head per 32, at most kBlockWarps): anything else is a bug
    // that must not pass for a result.
    if (p.heads * kHeadDim != p.channels || p.channels > kMaxC || p.channels % kHeadDim != 0) __trap();
    for (uint32_t window = blockIdx.x; window < windows; window += gridDim.x) {
        if (p.channels == 32)
            window_block<32>(p, sh, window, warp, lane);
        else if (p.channels == 64)
            window_block<64>(p, sh, window, warp, lane);
        else if (p.channels == 96)
            window_block<96>(p, sh, window, warp, lane);
        else
            window_block<128>(p, sh, window, warp, lane);
    }
}
