// d4r refine network, fast sm_90a set: d4r_nn_block, a whole transformer block per 8 x 8-token window (refine_block.cu
// is its PTX path) with the window kept on chip from the first layer to the last: the unfused plan writes and reads
// back the layernorm, qkv, attention and hidden tensors of every token (docs/performance.md).
//
// Shape: a persistent grid (d4r_grid_x) of blocks of kWarps = 8 warps (the plan launches kBlockWarps warps; the
// override layer makes the block (128, 1, d4r_block_z = 2)), each block walking the windows blockIdx.x,
// blockIdx.x + gridDim.x, ... Every layer's output lives in shared memory (d4r_dynamic_shared bytes, which the
// override layer gives the launch) and every linear is one small GEMM of the window's 64 rows. Per window:
//  1. which window positions are tokens (once, into shared memory); the window's stream rows in shared memory
//     (absent tokens zero: fetch_rows, by cp.async during the window before, into rows that are dead by then);
//     layernorm 1, four threads a row;
//  2. per pass of (at most) two heads: their q, k and v (96 columns of qkv each) for the 64 rows, then each warp's 16
//     queries of one head against the window's 64 keys (fast_tile_attention.cuh: warps 0-3 the first head, 4-7 the
//     second), the heads' output into the attention rows (over the layernorm rows when one pass takes every head);
//  3. proj + the residual into the stream rows; layernorm 2; fc1 + relu into the hidden rows (over the qkv rows, which
//     are dead by then); fc2 + the residual; the rows back to the stream.
// Blocks of at most kResidentC channels (refine-v2's enc1 and dec1, refine-v1's blocks) keep the four weight matrices
// in shared memory for the whole persistent loop (loaded once per block; the qkv rows in the attention pass's column
// order) and run their GEMMs as Hopper's wgmma (sm_90a, fast_wgmma.cuh: each warpgroup the 64 rows and half the
// columns, A and the weights in the unswizzled K-major layout of at<true>: the layernorm, attention and hidden rows are
// written in it). A window GEMM by mma.sync took 1.6 times as long (tests/device/window_gemm_probe.cu on an H100, the
// same bits). Wider blocks (enc2: 256 KB of weights) read the weights through the L1 with mma.sync: warp (wm, wn) takes
// kRowTiles 16-row tiles and a share of the output columns, in chunks of a few 8-column tiles, so that each weight
// fragment feeds several mma tiles and each A fragment (ldmatrix from shared memory) several.
// Numerics are the fast set's (f32 accumulators through every K chain, f16 wherever the unfused plan stores a
// tensor), so it stays within 60 dB of the PTX path like the fast per-layer kernels (RefineBlock tests, on ptxsim,
// whose wgmma gives the H100's bits).
#include "fast_tile_attention.cuh"
#include "fast_wgmma.cuh"

using namespace d4r::refine::fast;

namespace {

constexpr uint32_t kMaxC = 128;
constexpr uint32_t kRows = kWindowTokens;
constexpr uint32_t kWarps = 2 * kBlockWarps; // the block as the override layer launches it: d4r_block_z = 2
constexpr uint32_t kBlockThreads = kWarps * 32;
static_assert(kBlockThreads == 4 * kRows, "layernorm_rows: four threads a row");
constexpr uint32_t kQkvRow = 3 * kHeadDim + 8; // halves per row of one head's q | k | v (padded: no bank conflicts)

D4R_HD constexpr uint32_t row_of(uint32_t width) { return width + 8; } // halves per padded shared row
D4R_HD constexpr uint32_t max_u(uint32_t a, uint32_t b) { return a > b ? a : b; }

// The shared memory of C channels, in halves: x (the stream rows), ln (a layernorm's output), the attention rows o
// (over ln when one pass of kPass heads, two where the heads pair up, takes every head: ln is dead once that pass's qkv
// is made), then a scratch region holding the pass's qkv rows (kPass matrices of 64 rows of q | k | v), later the
// hidden rows.
template <uint32_t C>
struct Layout {
    static constexpr uint32_t kPass = C / kHeadDim % 2 == 0 ? 2 : 1; // heads per attention pass (of equal passes)
    static constexpr bool kOwnO = C / kHeadDim > kPass;
    static constexpr uint32_t kX = 0, kLn = kRows * row_of(C), kO = kOwnO ? 2 * kRows * row_of(C) : kLn;
    static constexpr uint32_t kScratch = (kOwnO ? 3 : 2) * kRows * row_of(C), kQkv = kScratch, kHidden = kScratch;
    static constexpr uint32_t kHalves = kScratch + max_u(kPass * kRows * kQkvRow, kRows* row_of(2 * C));
    // Where a window's input rows with the coarse level (fetch_rows: 64 rows of 2C halves) go: over ln and o where o
    // has rows of its own (both are dead from fc2 to the next window's layernorm 1, so the rows are fetched during the
    // window before: kFineAhead), else the scratch (fetched when the window starts).
    static constexpr bool kFineAhead = kOwnO;
    static constexpr uint32_t kFine = kFineAhead ? kLn : kScratch;
    static_assert(!kFineAhead || 2 * row_of(C) >= row_of(2 * C), "the fine rows fit over ln and o");
};

// The resident weights of a block of C channels after its layer buffers: qkv (3C x C), proj (C x C), fc1 (2C x C), fc2
// (C x 2C), each row-major and unpadded, offsets in halves from the first; then the four linears' biases as f32 in the
// order of their GEMMs' columns (qkv's in the attention pass's column order: window_block), offsets in floats, so that
// a thread's two columns are one 8-byte load where they were two 2-byte loads from global memory, two conversions and,
// for qkv, the column's weight row worked out again in every window.
constexpr uint32_t kResidentC = 64;
template <uint32_t C>
struct Resident {
    static constexpr bool kOn = C <= kResidentC;
    static constexpr uint32_t kQkv = 0, kProj = 3 * C * C, kFc1 = 4 * C * C, kFc2 = 6 * C * C, kHalves = 8 * C * C;
    static constexpr uint32_t kQkvBias = 0, kProjBias = 3 * C, kFc1Bias = 4 * C, kFc2Bias = 6 * C, kBiasFloats = 7 * C;
};

// Shared memory: which of the window's positions are present (u64, a bit each), the window's tokens (u32, ~0u where
// absent), the relative biases (f32, one table a head), then the layer buffers, then (C <= kResidentC) the weights
// and the linears' biases. The header is as long as the heads need: a block of 64 channels (two heads) fits its
// resident weights and biases in the 112 KB that lets two blocks share an SM.
constexpr uint32_t kPresentOffset = 0, kTokensOffset = 8, kRelBiasOffset = kTokensOffset + kRows * 4;
D4R_HD constexpr uint32_t header_bytes(uint32_t heads) {
    return (kRelBiasOffset + heads * kRelBiasSize * 4 + 15) / 16 * 16; // the layer buffers 16-byte aligned
}
template <uint32_t C>
constexpr uint32_t shared_bytes_of() {
    using R = Resident<C>;
    return header_bytes(C / kHeadDim) + (Layout<C>::kHalves + (R::kOn ? R::kHalves : 0)) * 2 +
           (R::kOn ? R::kBiasFloats * 4 : 0);
}
constexpr uint32_t kSharedBytes =
    max_u(max_u(shared_bytes_of<32>(), shared_bytes_of<64>()), max_u(shared_bytes_of<96>(), shared_bytes_of<128>()));

// Where element (ROW, COL) of a window matrix (64 rows of WIDTH halves) lies, in halves: KCORE, the layout wgmma reads
// (piece c of 8 halves of row r at (c * 64 + r) * 8: core matrices of 8 rows, 128 bytes apart along the rows, 1 KB
// along K), else padded rows (row_of(WIDTH) halves a row).
template <bool kCore>
D4R_HD constexpr uint32_t at(uint32_t row, uint32_t col, uint32_t width) {
    return kCore ? ((col / 8) * kRows + row) * 8 + col % 8 : row * row_of(width) + col;
}

} // namespace

// The launch's dynamic shared memory (the override layer sets the function's limit and launches with it): 112 KB, two
// blocks of eight warps an SM (128 registers a thread).
extern "C" __device__ uint32_t d4r_dynamic_shared = kSharedBytes;
extern "C" __device__ uint32_t d4r_block_z = kWarps / kBlockWarps;
constexpr uint32_t kBlocksPerSm = 2;
static_assert(fits_on_sm90(kBlocksPerSm, kSharedBytes), "sm_90: 228 KB of shared memory an SM, 1 KB a block reserved");
extern "C" __device__ uint32_t d4r_grid_x = kSm90Sms * kBlocksPerSm;

namespace {

D4R_HD constexpr uint32_t chunk_tiles(uint32_t tiles) {
    return tiles % 4 == 0 ? 4 : tiles % 3 == 0 ? 3 : tiles % 2 == 0 ? 2 : 1;
}

// How a window GEMM by mma.sync (blocks wider than kResidentC) shares its 64 rows among the eight warps: kRowTiles
// 16-row tiles a warp. Two (a warp takes 32 rows and a quarter of the columns) for C = 96, whose widths four groups
// divide; four (every warp all 64 rows and an eighth of the columns) for C = 128, so that each weight fragment (through
// the L1 and the L2) is read once per window, not twice.
template <uint32_t C>
D4R_HD constexpr uint32_t row_tiles_of() {
    return C == 128 ? 4 : 2;
}

// out = A W^T + b for the window's 64 rows by mma.sync: A in shared memory (rows LDA halves apart, K = kK), W row-major
// (out x kK) in global memory, NT output tiles of 8 columns.
// Column n of the product is weight row wrow(n) (for a head's q | k | v: three ranges of qkv). EPI(acc, row, col) takes
// each finished tile: rows row and row + 8, columns col and col + 1 (acc[0..1] and acc[2..3]).
template <uint32_t kK, uint32_t NT, uint32_t kRowTiles, typename WeightRow, typename Epilogue>
__device__ __forceinline__ void window_gemm(const uint16_t* a, uint32_t lda, const uint16_t* w, const uint16_t* bias,
                                            WeightRow wrow, Epilogue epi, uint32_t warp, uint32_t lane) {
    constexpr uint32_t kColumnGroups = kWarps * kRowTiles * 16 / kRows; // warps sharing a row range
    static_assert(kRowTiles == 2 || kRowTiles == 4);
    static_assert(NT % kColumnGroups == 0 && kK % 16 == 0);
    constexpr uint32_t kHalf = NT / kColumnGroups; // the warp's tiles
    constexpr uint32_t kChunk = kRowTiles == 2 ? chunk_tiles(kHalf) : (kHalf % 2 == 0 ? 2 : kHalf % 3 == 0 ? 3 : 1);
    const uint32_t wm = warp / kColumnGroups, wn = warp % kColumnGroups, g = lane >> 2, t = lane & 3u;
    const uint16_t* a_rows = a + (kRowTiles * 16 * wm + (lane & 15u)) * lda + (lane >> 4) * 8;
#pragma unroll 1
    for (uint32_t c = 0; c < kHalf / kChunk; ++c) {
        float acc[kRowTiles][kChunk][4];
        const uint16_t* wr[kChunk];
#pragma unroll
        for (uint32_t j = 0; j < kChunk; ++j) {
            const uint32_t n0 = (wn * kHalf + c * kChunk + j) * 8;
            const uint32_t bcol = wrow(n0 + 2 * t);
            const float b0 = half_to_float(bias[bcol]), b1 = half_to_float(bias[bcol + 1]);
#pragma unroll
            for (uint32_t m = 0; m < kRowTiles; ++m) {
                acc[m][j][0] = b0;
                acc[m][j][1] = b1;
                acc[m][j][2] = b0;
                acc[m][j][3] = b1;
            }
            const uint32_t row = wrow(n0 + g);
            wr[j] = w + static_cast<uint64_t>(row) * kK + 2 * t;
        }
#pragma unroll
        for (uint32_t s = 0; s < kK / 16; ++s) {
            uint32_t af[kRowTiles][4];
#pragma unroll
            for (uint32_t m = 0; m < kRowTiles; ++m) load_a(af[m], a_rows + 16 * m * lda + s * 16);
#pragma unroll
            for (uint32_t j = 0; j < kChunk; ++j) {
                const uint32_t b0 = ldg_pair(wr[j] + s * 16), b1 = ldg_pair(wr[j] + s * 16 + 8);
#pragma unroll
                for (uint32_t m = 0; m < kRowTiles; ++m) mma_f32(acc[m][j], af[m], b0, b1);
            }
        }
#pragma unroll
        for (uint32_t j = 0; j < kChunk; ++j)
#pragma unroll
            for (uint32_t m = 0; m < kRowTiles; ++m)
                epi(acc[m][j], kRowTiles * 16 * wm + 16 * m + g, (wn * kHalf + c * kChunk + j) * 8 + 2 * t);
    }
}

// The same product with the resident weights by wgmma (sm_90a): A (the window's 64 rows, K = kK) and W (kN rows of kK,
// row n holding output column n: resident_rows() puts them in that order) in at<true>'s layout; warpgroup G (warps
// 4G .. 4G + 3) takes columns G kN / 2 .. (G + 1) kN / 2, warp rank r of it rows 16r .. 16r + 15 (wgmma's D
// fragment: for each 8 columns j, registers 4j .. 4j + 3 as mma.sync's). The bias of column n is BIAS[n] (f32, shared
// memory: Resident's biases). The shared memory read here must have been made visible to the tensor cores
// (sync_for_wgmma) by its writers.
template <uint32_t kK, uint32_t kN, typename Epilogue>
__device__ __forceinline__ void window_wgmma(const uint16_t* a, const uint16_t* w, const float* bias, Epilogue epi,
                                             uint32_t warp, uint32_t lane) {
    constexpr uint32_t kNw = kN / 2, kSteps = kK / 16;
    static_assert(kWarps == 8 && kNw % 8 == 0 && kK % 16 == 0);
    const uint32_t group = warp / 4, rank = warp % 4, g = lane >> 2, t = lane & 3u;
    float d[kNw / 2];
    const float2* bias2 = reinterpret_cast<const float2*>(bias + group * kNw + 2 * t);
#pragma unroll
    for (uint32_t j = 0; j < kNw / 8; ++j) {
        const float2 b = bias2[4 * j]; // columns group kNw + 8j + 2t and + 1
        d[4 * j] = d[4 * j + 2] = b.x;
        d[4 * j + 1] = d[4 * j + 3] = b.y;
    }
    const uint32_t a_addr = static_cast<uint32_t>(__cvta_generic_to_shared(a));
    const uint32_t w_addr = static_cast<uint32_t>(__cvta_generic_to_shared(w)) + group * kNw * 16;
    uint64_t da[kSteps], dw[kSteps];
#pragma unroll
    for (uint32_t s = 0; s < kSteps; ++s) {
        da[s] = wgmma_desc(a_addr + 2 * s * kRows * 16, kRows * 16);
        dw[s] = wgmma_desc(w_addr + 2 * s * kN * 16, kN * 16);
    }
    // The accumulators pinned before the fence and after the wait (ptxas then need not guard them itself: C7519).
#pragma unroll
    for (uint32_t i = 0; i < kNw / 2; ++i) asm volatile("" : "+f"(d[i])::"memory");
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    WgmmaSteps<kNw, kSteps>::run(d, da, dw);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
    for (uint32_t i = 0; i < kNw / 2; ++i) asm volatile("" : "+f"(d[i])::"memory");
#pragma unroll
    for (uint32_t j = 0; j < kNw / 8; ++j) {
        const float acc[4] = {d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]};
        epi(acc, 16 * rank + g, group * kNw + 8 * j + 2 * t);
    }
}

// A barrier after which the tensor cores' reads (wgmma) see what the block wrote to shared memory with ordinary
// stores (kWgmma: each thread fences its writes to the async proxy first).
template <bool kWgmma>
__device__ __forceinline__ void sync_for_wgmma() {
    if constexpr (kWgmma) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
}

__device__ __forceinline__ void store_pair(uint16_t* p, float lo, float hi) {
    *reinterpret_cast<uint32_t*>(p) = pack_f32(lo, hi);
}

// Two pairs of halves added lane by lane: add_h's bytes (a sum of two halves rounded once to a half, which an f32 sum
// then rounded to a half also is: f32 holds 2 x 11 + 2 bits), by the f16x2 add.
__device__ __forceinline__ uint32_t add_halves(uint32_t a, uint32_t b) {
    uint32_t sum;
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(sum) : "r"(a), "r"(b));
    return sum;
}
// A pair of halves A * B + C lane by lane, rounded once to f16 (fma.rn.f16x2).
__device__ __forceinline__ uint32_t fma_halves(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
// *p = f16(acc) + the pair of halves TO (by default *p: the residual of proj and fc2) for a pair of columns.
__device__ __forceinline__ void add_pair(uint16_t* p, float lo, float hi, uint32_t to) {
    *reinterpret_cast<uint32_t*>(p) = add_halves(pack_f32(lo, hi), to);
}
__device__ __forceinline__ void add_pair(uint16_t* p, float lo, float hi) {
    add_pair(p, lo, hi, *reinterpret_cast<const uint32_t*>(p));
}

// Layernorm of the 64 rows X into OUT (both rows of C + 8 halves), four threads a row (kBlockThreads = 256): thread TID
// takes a quarter of row TID / 4.
template <uint32_t C, bool kCore>
__device__ __forceinline__ void layernorm_rows(uint16_t* out, const uint16_t* x, const uint16_t* gamma,
                                               const uint16_t* beta, uint32_t tid) {
    constexpr uint32_t kHalfC = C / 4, kPieces = kHalfC / 8; // (a quarter of the row)
    const uint32_t row = tid >> 2, part = tid & 3u;
    const uint16_t* in = x + row * row_of(C) + part * kHalfC;
    float v[kHalfC];
    float sum = 0.0f;
#pragma unroll
    for (uint32_t i = 0; i < kPieces; ++i) {
        const uint4 piece = *reinterpret_cast<const uint4*>(in + i * 8);
        const uint32_t words[4] = {piece.x, piece.y, piece.z, piece.w};
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) {
            v[i * 8 + 2 * e] = half_to_float(low(words[e]));
            v[i * 8 + 2 * e + 1] = half_to_float(high(words[e]));
        }
    }
#pragma unroll
    for (float f : v) sum += f;
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float mean = sum / static_cast<float>(C);
    float var = 0.0f;
#pragma unroll
    for (float f : v) var += (f - mean) * (f - mean);
    var += __shfl_xor_sync(0xffffffffu, var, 1);
    var += __shfl_xor_sync(0xffffffffu, var, 2);
    const float inv = rsqrtf(var / static_cast<float>(C) + kNormEps); // (the special-function unit: within 2 ulp)
    // The scale and shift in f16 pairs: (x - mean) inv as one fma and rounded to f16, then gamma and beta by one f16x2
    // fma a pair (four instructions a pair where the f32 form took eleven; a rounding more, within the fast set's
    // 60 dB).
    const float mean_inv = mean * inv;
    const uint16_t* gp = gamma + part * kHalfC;
    const uint16_t* bp = beta + part * kHalfC;
#pragma unroll
    for (uint32_t i = 0; i < kPieces; ++i) {
        const uint4 gq = __ldg(reinterpret_cast<const uint4*>(gp + i * 8));
        const uint4 bq = __ldg(reinterpret_cast<const uint4*>(bp + i * 8));
        const uint32_t gw[4] = {gq.x, gq.y, gq.z, gq.w}, bw[4] = {bq.x, bq.y, bq.z, bq.w};
        uint32_t res[4];
#pragma unroll
        for (uint32_t e = 0; e < 4; ++e) {
            const uint32_t t =
                pack_f32(fmaf(v[i * 8 + 2 * e], inv, -mean_inv), fmaf(v[i * 8 + 2 * e + 1], inv, -mean_inv));
            res[e] = fma_halves(t, gw[e], bw[e]);
        }
        *reinterpret_cast<uint4*>(out + at<kCore>(row, part * kHalfC + i * 8, C)) =
            make_uint4(res[0], res[1], res[2], res[3]);
    }
}

// The window's scratch in shared memory besides the layer buffers: the relative biases (f32), each window position's
// token (~0u where absent; with the coarse level, the first of the 2 x 2 fine tokens under it) and the positions
// present (a bit each).
struct WindowShared {
    const float* bias;
    uint32_t* tokens;
    uint64_t* present;
};

// The coarse level around a block (d4r_nn_coarse_block: CoarseBlockParams' fields besides the block's).
struct CoarseLevel {
    const uint16_t* fine; // enc1's output (the skip connection), T1 x C1
    uint16_t* out;        // dec1's stream
    const uint16_t *merge_w, *merge_b, *expand_w, *expand_b;
};

// Window position POS's token in WINDOW, ~0u outside the grid (window_token's rule, the window's origin found with one
// division); with the coarse level, the first of the 2 x 2 fine tokens under the coarse token.
template <bool kCoarse>
__device__ __forceinline__ uint32_t token_at(const BlockParams& p, uint32_t window, uint32_t pos) {
    const uint32_t wins_x = div_up(p.grid_w, kWindow), wy = window / wins_x;
    const uint32_t x = (window - wy * wins_x) * kWindow + pos % kWindow, y = wy * kWindow + pos / kWindow;
    if (x >= p.grid_w || y >= p.grid_h) return ~0u;
    return kCoarse ? 4 * y * p.grid_w + 2 * x : y * p.grid_w + x;
}

// Where piece PIECE (8 halves) of a coarse row of C channels lies in enc1's output FINE, in halves: the row's 2C halves
// are its 2 x 2 fine tokens' C / 2 channels in the order (0, 0), (1, 0), (0, 1), (1, 1); FIRST is the first of those
// tokens, FINE_W the fine tokens a row.
template <uint32_t C>
__device__ __forceinline__ uint64_t fine_offset(uint32_t first, uint32_t piece, uint32_t fine_w) {
    constexpr uint32_t kQuarter = C / 16; // pieces a fine token
    const uint32_t q = piece / kQuarter;
    return static_cast<uint64_t>(first + (q >> 1) * fine_w + (q & 1u)) * (C / 2) + (piece % kQuarter) * 8;
}

// Starts the copies of WINDOW's input rows into DST (cp.async, one commit group; zeros for absent tokens): the block's
// stream rows (rows of C + 8 halves), or with the coarse level each coarse token's 2 x 2 fine rows of enc1's output
// FINE (C / 2 channels each, in the order (0, 0), (1, 0), (0, 1), (1, 1): rows of 2C + 8 halves).
template <uint32_t C, bool kCoarse>
__device__ __forceinline__ void fetch_rows(const BlockParams& p, const uint16_t* fine, uint16_t* dst, uint32_t window,
                                           uint32_t tid) {
    constexpr uint32_t kWidth = kCoarse ? 2 * C : C, kPieces = kWidth / 8;
    const uint16_t* stream = reinterpret_cast<const uint16_t*>(p.stream);
    for (uint32_t i = tid; i < kRows * kPieces; i += kBlockThreads) {
        const uint32_t row = i / kPieces, piece = i % kPieces, token = token_at<kCoarse>(p, window, row);
        const uint16_t* src = kCoarse ? fine : stream; // (not read for an absent token)
        if (token != ~0u) {
            src = kCoarse ? fine + fine_offset<C>(token, piece, 2 * p.grid_w)
                          : stream + static_cast<uint64_t>(token) * C + piece * 8;
        }
        cp_async16(dst + row * row_of(kWidth) + piece * 8, src, token != ~0u ? 16u : 0u);
    }
    cp_async_commit();
}

// The window's stream rows when the coarse level is fused: each present row is the merged row of its 2 x 2 fine
// tokens (ROWS, as fetch_rows put them) times the merge weights, into X (f16, absent rows zero).
template <uint32_t C>
__device__ __forceinline__ void merge_rows(const CoarseLevel& level, uint16_t* x, const uint16_t* rows,
                                           uint64_t present, uint32_t tid) {
    const uint32_t warp = tid >> 5, lane = tid & 31u;
    const auto into_x = [&](const float(&acc)[4], uint32_t row, uint32_t col) {
        const bool h0 = (present >> row) & 1u, h1 = (present >> (row + 8)) & 1u;
        store_pair(x + row * row_of(C) + col, h0 ? acc[0] : 0.0f, h0 ? acc[1] : 0.0f);
        store_pair(x + (row + 8) * row_of(C) + col, h1 ? acc[2] : 0.0f, h1 ? acc[3] : 0.0f);
    };
    window_gemm<2 * C, C / 8, row_tiles_of<C>()>(
        rows, row_of(2 * C), level.merge_w, level.merge_b, [](uint32_t n) { return n; }, into_x, warp, lane);
}

// The expand linear of the window's stream rows X and the regroup into dec1's stream with the skip connection: column
// q C1 + c of row r is channel c of fine token (2 cx + q % 2, 2 cy + q / 2) under r's coarse token (cx, cy). The
// product's rows (f16) go through SCRATCH (64 rows of 2C halves, padded), so that each fine token's C1 channels are
// then read, added to the skip and written 16 bytes a thread: a warp's 32 pieces are a coarse row's 2 x 2 fine tokens.
template <uint32_t C>
__device__ __forceinline__ void expand_rows(const BlockParams& p, const CoarseLevel& level, const uint16_t* x,
                                            uint16_t* scratch, const WindowShared& ws, uint32_t tid) {
    constexpr uint32_t kWide = 2 * C, kWideRow = row_of(kWide), kPieces = kWide / 8;
    const uint32_t warp = tid >> 5, lane = tid & 31u;
    const auto into_scratch = [&](const float(&acc)[4], uint32_t row, uint32_t col) {
        store_pair(scratch + row * kWideRow + col, acc[0], acc[1]);
        store_pair(scratch + (row + 8) * kWideRow + col, acc[2], acc[3]);
    };
    window_gemm<C, kWide / 8, row_tiles_of<C>()>(
        x, row_of(C), level.expand_w, level.expand_b, [](uint32_t n) { return n; }, into_scratch, warp, lane);
    __syncthreads();
    for (uint32_t i = tid; i < kRows * kPieces; i += kBlockThreads) {
        const uint32_t row = i / kPieces, piece = i % kPieces, fine = ws.tokens[row];
        if (fine == ~0u) continue;
        const uint64_t at = fine_offset<C>(fine, piece, 2 * p.grid_w);
        const uint4 skip = __ldg(reinterpret_cast<const uint4*>(level.fine + at));
        const uint4 v = *reinterpret_cast<const uint4*>(scratch + row * kWideRow + piece * 8);
        *reinterpret_cast<uint4*>(level.out + at) = make_uint4(add_halves(v.x, skip.x), add_halves(v.y, skip.y),
                                                               add_halves(v.z, skip.z), add_halves(v.w, skip.w));
    }
}

// Whether a window's input rows are fetched during the window before (fetch_rows): always without the coarse level.
template <uint32_t C, bool kCoarse>
inline constexpr bool kRowsAhead = !kCoarse || Layout<C>::kFineAhead;

// Where fetch_rows puts a window's input rows, ODD for the block's second, fourth, .. window: without the coarse level
// its stream rows x (x and the layernorm rows trade places every other window), else Layout::kFine.
template <uint32_t C, bool kCoarse>
__device__ __forceinline__ uint16_t* input_rows(uint16_t* sh, bool odd) {
    using L = Layout<C>;
    return sh + (kCoarse ? L::kFine : odd ? L::kLn : L::kX);
}

// WINDOW; NEXT is the block's next window (none: WINDOWS or more), ODD whether this is the block's second, fourth, ..
template <uint32_t C, bool kCoarse>
__device__ __forceinline__ void window_block(const BlockParams& p, uint16_t* sh, const WindowShared& ws,
                                             uint32_t window, uint32_t next, uint32_t windows, bool odd, uint32_t tid,
                                             const CoarseLevel& level) {
    using L = Layout<C>;
    constexpr uint32_t kRow = row_of(C), kPieces = C / 8, kPass = L::kPass;
    const uint32_t warp = tid >> 5, lane = tid & 31u, g = lane >> 2, t = lane & 3u;
    // Without the coarse level the stream rows and the layernorm rows trade places every other window: the next
    // window's stream rows are fetched into this one's layernorm rows once those are dead (input_rows).
    uint16_t* x = kCoarse ? sh + L::kX : input_rows<C, false>(sh, odd);
    uint16_t* ln = kCoarse ? sh + L::kLn : input_rows<C, false>(sh, !odd);
    uint16_t* o = L::kOwnO ? sh + L::kO : ln;
    uint16_t* qkv = sh + L::kQkv;
    uint16_t* hidden = sh + L::kHidden;
    uint16_t* stream = reinterpret_cast<uint16_t*>(p.stream);
    auto weights = [](uint64_t at) { return reinterpret_cast<const uint16_t*>(at); };
    // The linears' weights: resident in shared memory after the buffers, or the model's in global memory.
    using R = Resident<C>;
    constexpr bool kRes = R::kOn;
    constexpr uint32_t kTiles = row_tiles_of<C>();
    const uint16_t* resident = sh + L::kHalves;
    // The linears' biases: f32 in column order after the resident weights (Resident), else the model's halves.
    const auto bias_of = [&](uint32_t resident_offset, uint64_t model) {
        if constexpr (kRes)
            return reinterpret_cast<const float*>(resident + R::kHalves) + resident_offset;
        else
            return weights(model);
    };
    const uint16_t* qkv_w = kRes ? resident + R::kQkv : weights(p.qkv_w);
    const uint16_t* proj_w = kRes ? resident + R::kProj : weights(p.proj_w);
    const uint16_t* fc1_w = kRes ? resident + R::kFc1 : weights(p.fc1_w);
    const uint16_t* fc2_w = kRes ? resident + R::kFc2 : weights(p.fc2_w);

    // 1. the window's tokens (two warps, a position a thread), its input rows (fetched by the window before, or now),
    //    with the coarse level the merge into the stream rows; layernorm 1.
    if (warp < kRows / 32) {
        const uint32_t token = token_at<kCoarse>(p, window, tid);
        ws.tokens[tid] = token;
        const uint32_t bits = __ballot_sync(0xffffffffu, token != ~0u);
        if (lane == 0) reinterpret_cast<uint32_t*>(ws.present)[warp] = bits;
    }
    if constexpr (!kRowsAhead<C, kCoarse>)
        fetch_rows<C, kCoarse>(p, level.fine, input_rows<C, kCoarse>(sh, odd), window, tid);
    cp_async_wait_all();
    __syncthreads(); // the tokens and the input rows
    const uint64_t present = *ws.present;
    if constexpr (kCoarse) {
        merge_rows<C>(level, x, input_rows<C, kCoarse>(sh, odd), present, tid);
        __syncthreads();
    }
    layernorm_rows<C, kRes>(ln, x, weights(p.ln1_g), weights(p.ln1_b), tid);
    sync_for_wgmma<kRes>();

    // 2. attention, kPass heads at a time: q | k | v of the pass's heads (k and v zero for absent rows; head h of the
    //    pass in the h-th qkv matrix), then warp w's 16 queries (w % 4) of the pass's head w / 4.
    constexpr uint32_t kHeadColumns = 3 * kHeadDim, kQkvHalves = kRows * kQkvRow;
#pragma unroll 1
    for (uint32_t pass = 0; pass < C / kHeadDim / kPass; ++pass) {
        const auto qkv_row = [=](uint32_t n) {
            const uint32_t head = pass * kPass + n / kHeadColumns, m = n % kHeadColumns;
            return (m / kHeadDim) * C + head * kHeadDim + m % kHeadDim;
        };
        const auto qkv_out = [&](const float(&acc)[4], uint32_t row, uint32_t col) {
            // With the resident weights and two heads a pass, warpgroup G makes head G's q | k | v (window_wgmma): the
            // matrix is the warp's and the column within it a constant of the tile (and whether it is k or v, too).
            constexpr bool kHeadPerGroup = kRes && !kCoarse && kPass == 2;
            const uint32_t matrix = kHeadPerGroup ? warp / 4 : col / kHeadColumns;
            const uint32_t m = kHeadPerGroup ? col - matrix * kHeadColumns : col % kHeadColumns;
            uint16_t* q = qkv + matrix * kQkvHalves + m;
            const bool kv = m >= kHeadDim;
            const bool h0 = !kv || ((present >> row) & 1u), h1 = !kv || ((present >> (row + 8)) & 1u);
            store_pair(q + row * kQkvRow, h0 ? acc[0] : 0.0f, h0 ? acc[1] : 0.0f);
            store_pair(q + (row + 8) * kQkvRow, h1 ? acc[2] : 0.0f, h1 ? acc[3] : 0.0f);
        };
        if constexpr (kRes) // one pass (kPass covers every head): resident qkv rows in the pass's column order
            window_wgmma<C, kPass * kHeadColumns>(ln, qkv_w, bias_of(R::kQkvBias, p.qkv_b), qkv_out, warp, lane);
        else
            window_gemm<C, kPass * kHeadColumns / 8, kTiles>(ln, kRow, qkv_w, bias_of(R::kQkvBias, p.qkv_b), qkv_row,
                                                             qkv_out, warp, lane);
        __syncthreads(); // q, k and v of every row of the pass's heads
        const uint32_t in_pass = warp / 4, tile = warp % 4;
        if (in_pass < kPass) {
            const uint32_t head = pass * kPass + in_pass;
            const uint16_t* hq = qkv + in_pass * kQkvHalves;
            uint32_t qa[2][4];
            const uint16_t* q_rows = hq + (16 * tile + (lane & 15u)) * kQkvRow + (lane >> 4) * 8;
            load_a(qa[0], q_rows);
            load_a(qa[1], q_rows + 16);
            float out[4][4];
            const uint32_t r0 = 16 * tile + g;
            attend_tile<kQkvRow>(qa, hq + kHeadDim, hq + 2 * kHeadDim, ws.bias + head * kRelBiasSize, present, r0, g, t,
                                 out);
#pragma unroll
            for (uint32_t nt = 0; nt < kHeadDim / 8; ++nt) {
                const uint32_t col = head * kHeadDim + nt * 8 + 2 * t;
                store_pair(o + at<kRes>(r0, col, C), out[nt][0], out[nt][1]);
                store_pair(o + at<kRes>(r0 + 8, col, C), out[nt][2], out[nt][3]);
            }
        }
        sync_for_wgmma<kRes>(); // every warp is done with this pass's qkv rows; the attention rows are written
    }

    // 3. proj + the residual, layernorm 2, fc1 + relu, fc2 + the residual.
    auto same = [](uint32_t n) { return n; };
    auto residual = [&](const float(&acc)[4], uint32_t row, uint32_t col) {
        add_pair(x + row * kRow + col, acc[0], acc[1]);
        add_pair(x + (row + 8) * kRow + col, acc[2], acc[3]);
    };
    const auto relu_out = [&](const float(&acc)[4], uint32_t row, uint32_t col) {
        store_pair(hidden + at<kRes>(row, col, 2 * C), fmaxf(acc[0], 0.0f), fmaxf(acc[1], 0.0f));
        store_pair(hidden + at<kRes>(row + 8, col, 2 * C), fmaxf(acc[2], 0.0f), fmaxf(acc[3], 0.0f));
    };
    if constexpr (kRes)
        window_wgmma<C, C>(o, proj_w, bias_of(R::kProjBias, p.proj_b), residual, warp, lane);
    else
        window_gemm<C, C / 8, kTiles>(o, kRow, proj_w, bias_of(R::kProjBias, p.proj_b), same, residual, warp, lane);
    __syncthreads();
    layernorm_rows<C, kRes>(ln, x, weights(p.ln2_g), weights(p.ln2_b), tid);
    sync_for_wgmma<kRes>();
    if constexpr (kRes)
        window_wgmma<C, 2 * C>(ln, fc1_w, bias_of(R::kFc1Bias, p.fc1_b), relu_out, warp, lane);
    else
        window_gemm<C, 2 * C / 8, kTiles>(ln, kRow, fc1_w, bias_of(R::kFc1Bias, p.fc1_b), same, relu_out, warp, lane);
    sync_for_wgmma<kRes>();
    // ln (and o) are dead until the next window's layernorm 1: the next window's input rows go there now, so that
    // their loads overlap the rest of this window.
    if constexpr (kRowsAhead<C, kCoarse>)
        if (next < windows) fetch_rows<C, kCoarse>(p, level.fine, input_rows<C, kCoarse>(sh, !odd), next, tid);
    if constexpr (kRes)
        window_wgmma<2 * C, C>(hidden, fc2_w, bias_of(R::kFc2Bias, p.fc2_b), residual, warp, lane);
    else
        window_gemm<2 * C, C / 8, kTiles>(hidden, row_of(2 * C), fc2_w, bias_of(R::kFc2Bias, p.fc2_b), same, residual,
                                          warp, lane);
    __syncthreads();
    if constexpr (kCoarse) {
        expand_rows<C>(p, level, x, sh + L::kScratch, ws, tid);
    } else {
        for (uint32_t i = tid; i < kRows * kPieces; i += kBlockThreads) {
            const uint32_t row = i / kPieces, piece = i % kPieces, token = ws.tokens[row];
            if (token != ~0u)
                *reinterpret_cast<uint4*>(stream + static_cast<uint64_t>(token) * C + piece * 8) =
                    *reinterpret_cast<const uint4*>(x + row * kRow + piece * 8);
        }
    }
    __syncthreads(); // the stream rows and the tokens are free for the next window
}

// Copies the ROWS x K row-major matrix at SRC into DST in wgmma's layout (16-byte piece c of row r at (c ROWS + r) 8
// halves: core matrices 128 bytes apart along the rows, ROWS * 16 bytes along K), row r taken from SRC's row
// SOURCE_ROW(r).
template <typename SourceRow>
__device__ __forceinline__ void load_resident(uint16_t* dst, uint64_t src, uint32_t rows, uint32_t k,
                                              SourceRow source_row, uint32_t tid) {
    const uint32_t pieces = k / 8;
    const uint4* from = reinterpret_cast<const uint4*>(src);
    for (uint32_t i = tid; i < rows * pieces; i += kBlockThreads) {
        const uint32_t r = i / pieces, c = i % pieces;
        *reinterpret_cast<uint4*>(dst + (c * rows + r) * 8) = __ldg(from + source_row(r) * pieces + c);
    }
}

// The block's windows blockIdx.x, blockIdx.x + gridDim.x, ... with the weights made resident first where they fit.
template <uint32_t C, bool kCoarse = false>
__device__ __forceinline__ void run_windows(const BlockParams& p, uint16_t* shared, const WindowShared& ws,
                                            uint32_t windows, uint32_t tid, const CoarseLevel& level = {}) {
    using R = Resident<C>;
    uint16_t* sh = shared + header_bytes(C / kHeadDim) / 2; // the layer buffers (at a constant offset)
    // The first window's input rows, in flight while the weights load.
    if (kRowsAhead<C, kCoarse> && blockIdx.x < windows)
        fetch_rows<C, kCoarse>(p, level.fine, input_rows<C, kCoarse>(sh, false), blockIdx.x, tid);
    if constexpr (R::kOn) {
        // qkv's rows in the order of the one attention pass's columns (head h's q | k | v at 96 h ..: window_block).
        const auto qkv_row = [](uint32_t n) {
            const uint32_t head = n / (3 * kHeadDim), m = n % (3 * kHeadDim);
            return (m / kHeadDim) * C + head * kHeadDim + m % kHeadDim;
        };
        const auto same = [](uint32_t r) { return r; };
        uint16_t* resident = sh + Layout<C>::kHalves;
        load_resident(resident + R::kQkv, p.qkv_w, 3 * C, C, qkv_row, tid);
        load_resident(resident + R::kProj, p.proj_w, C, C, same, tid);
        load_resident(resident + R::kFc1, p.fc1_w, 2 * C, C, same, tid);
        load_resident(resident + R::kFc2, p.fc2_w, C, 2 * C, same, tid);
        float* bias = reinterpret_cast<float*>(resident + R::kHalves);
        const auto halves = [](uint64_t at) { return reinterpret_cast<const uint16_t*>(at); };
        for (uint32_t i = tid; i < 3 * C; i += kBlockThreads)
            bias[R::kQkvBias + i] = half_to_float(halves(p.qkv_b)[qkv_row(i)]);
        for (uint32_t i = tid; i < C; i += kBlockThreads) {
            bias[R::kProjBias + i] = half_to_float(halves(p.proj_b)[i]);
            bias[R::kFc2Bias + i] = half_to_float(halves(p.fc2_b)[i]);
        }
        for (uint32_t i = tid; i < 2 * C; i += kBlockThreads) bias[R::kFc1Bias + i] = half_to_float(halves(p.fc1_b)[i]);
    }
    sync_for_wgmma<R::kOn>(); // the biases (and the weights)
    bool odd = false;
    for (uint32_t window = blockIdx.x; window < windows; window += gridDim.x, odd = !odd)
        window_block<C, kCoarse>(p, sh, ws, window, window + gridDim.x, windows, odd, tid, level);
}

} // namespace

namespace {

// The launch's shape and shared memory, checked (the plan fuses blocks of 32, 64, 96 or 128 channels, a head per 32,
// at most kMaxHeads, with kBlockWarps warps, made kWarps by d4r_block_z; the launch must carry the shared memory this
// kernel asks for: anything else is a bug that must not pass for a result); the relative biases into shared memory.
__device__ __forceinline__ WindowShared window_shared(const BlockParams& p, uint16_t* sh, uint32_t tid) {
    uint32_t dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (p.heads * kHeadDim != p.channels || p.channels > kMaxC || p.channels % kHeadDim != 0 ||
        blockDim.x * blockDim.y * blockDim.z != kBlockThreads || blockDim.y != 1 || dynamic_bytes < kSharedBytes)
        __trap();
    unsigned char* bytes = reinterpret_cast<unsigned char*>(sh);
    float* bias = reinterpret_cast<float*>(bytes + kRelBiasOffset);
    const uint16_t* relbias = reinterpret_cast<const uint16_t*>(p.relbias);
    for (uint32_t i = tid; i < p.heads * kRelBiasSize; i += kBlockThreads) bias[i] = half_to_float(relbias[i]);
    return {bias, reinterpret_cast<uint32_t*>(bytes + kTokensOffset),
            reinterpret_cast<uint64_t*>(bytes + kPresentOffset)};
}

} // namespace

extern "C" __global__ void __launch_bounds__(kBlockThreads, kBlocksPerSm) d4r_nn_block(BlockParams p) {
    extern __shared__ __align__(16) uint16_t sh[];
    const uint32_t windows = div_up(p.grid_w, kWindow) * div_up(p.grid_h, kWindow);
    const uint32_t tid = threadIdx.z * blockDim.x + threadIdx.x;
    const WindowShared ws = window_shared(p, sh, tid);
    if (p.channels == 32)
        run_windows<32>(p, sh, ws, windows, tid);
    else if (p.channels == 64)
        run_windows<64>(p, sh, ws, windows, tid);
    else if (p.channels == 96)
        run_windows<96>(p, sh, ws, windows, tid);
    else
        run_windows<128>(p, sh, ws, windows, tid);
}

// The coarse level (refine_math.h's CoarseBlockParams): each window's stream rows made by the merge linear from enc1's
// output instead of read, the block, and the expand linear's output regrouped into dec1's stream with the skip
// connection instead of the rows written back. Coarse blocks of 64 (refine-v1) and 128 channels (refine-v2).
extern "C" __global__ void __launch_bounds__(kBlockThreads, kBlocksPerSm) d4r_nn_coarse_block(CoarseBlockParams cp) {
    extern __shared__ __align__(16) uint16_t sh[];
    const BlockParams& p = cp.block;
    const uint32_t windows = div_up(p.grid_w, kWindow) * div_up(p.grid_h, kWindow);
    const uint32_t tid = threadIdx.z * blockDim.x + threadIdx.x;
    if (2 * cp.fine_channels != p.channels || (p.channels != 64 && p.channels != 128)) __trap();
    const WindowShared ws = window_shared(p, sh, tid);
    auto halves = [](uint64_t at) { return reinterpret_cast<const uint16_t*>(at); };
    const CoarseLevel level{halves(cp.fine),     reinterpret_cast<uint16_t*>(cp.out),
                            halves(cp.merge_w),  halves(cp.merge_b),
                            halves(cp.expand_w), halves(cp.expand_b)};
    if (p.channels == 64)
        run_windows<64, true>(p, sh, ws, windows, tid, level);
    else
        run_windows<128, true>(p, sh, ws, windows, tid, level);
}
