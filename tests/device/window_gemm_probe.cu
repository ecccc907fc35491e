// Window GEMM probe (issue 26): is Hopper's wgmma worth a refine block of its own? One 8 x 8-token window's qkv
// product as d4r_nn_block computes it at 64 channels (A: 64 rows x 64 in shared memory; W: 192 x 64, resident in
// shared memory; f32 accumulators from the bias; f16 results into shared memory), two ways, over the 8 100 windows of a
// 4K frame with a persistent grid of two 256-thread blocks an SM:
//   mma   mma.sync m16n8k16 as fast_block.cu's window_gemm does it (8 warps: 32 rows x 48 columns each in chunks of
//         3 tiles, A by ldmatrix from padded rows, B as 32-bit loads from swizzled resident rows);
//   wgmma wgmma.mma_async m64n96k16 (2 warpgroups: 64 rows x 96 columns each), A and B through matrix descriptors of
//         the unswizzled K-major layout.
// Each window's GEMM runs REPS times (the block's four linears are about four of them). Prints the median time of 5
// launches of each, the effective TFLOPS, and whether window 0's and the last window's results agree bit for bit.
// Build: nvcc -O3 -std=c++17 -arch=sm_90a -o window_gemm_probe window_gemm_probe.cu (tests/device/window-gemm-probe.sh)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_fp16.h>

namespace {

constexpr unsigned kRows = 64, kK = 64, kN = 192, kThreads = 256, kReps = 4;
constexpr unsigned kRowA = kK + 8, kRowOut = kN + 8; // padded rows (halves)

#define CHECK(x)                                                       \
    do {                                                               \
        cudaError_t e = (x);                                           \
        if (e != cudaSuccess) {                                        \
            std::printf("error: %s: %s\n", #x, cudaGetErrorString(e)); \
            std::exit(1);                                              \
        }                                                              \
    } while (0)

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ uint32_t pack(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&h);
}

// What both kernels do with a finished GEMM (OUT: kRows x kRowOut halves) so that the compiler keeps it: a word of
// it into the thread's checksum (the GEMM's REP-th), and window 0's and the last window's whole result kept.
__device__ __forceinline__ uint32_t result_word(const uint16_t* out, unsigned tid, unsigned rep) {
    return *reinterpret_cast<const uint32_t*>(out + (tid / 4) * kRowOut + (tid % 4) * 2 + rep * 8);
}
__device__ __forceinline__ void keep_window(const uint16_t* out, unsigned win, unsigned windows, uint16_t* first,
                                            uint16_t* last, unsigned tid) {
    uint16_t* keep = win == 0 ? first : win == windows - 1 ? last : nullptr;
    if (keep)
        for (unsigned i = tid; i < kRows * kN; i += kThreads) keep[i] = out[(i / kN) * kRowOut + i % kN];
}

// ---- mma.sync, as fast_block.cu ---------------------------------------------------------------------------------
__device__ __forceinline__ uint32_t swizzled(uint32_t r, uint32_t c) { return c ^ (r & 7u); } // 8 pieces a row

__global__ void __launch_bounds__(kThreads, 2)
    gemm_mma(const uint16_t* a_all, const uint16_t* w, const uint16_t* bias, unsigned windows, uint16_t* first,
             uint16_t* last, uint32_t* sums) {
    extern __shared__ __align__(128) uint16_t sh[];
    uint16_t* wres = sh;               // kN rows of kK halves, 16-byte pieces swizzled
    uint16_t* a = wres + kN * kK;      // kRows x kRowA
    uint16_t* out = a + kRows * kRowA; // kRows x kRowOut
    const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    for (unsigned i = tid; i < kN * kK / 8; i += kThreads) {
        const unsigned r = i / 8, c = i % 8;
        reinterpret_cast<uint4*>(wres + r * kK)[swizzled(r, c)] = reinterpret_cast<const uint4*>(w)[i];
    }
    uint32_t sum = 0;
    const unsigned wm = warp / 4, wn = warp % 4; // 2 x 32 rows, 4 x 48 columns
    for (unsigned win = blockIdx.x; win < windows; win += gridDim.x) {
        __syncthreads();
        const uint4* src = reinterpret_cast<const uint4*>(a_all + size_t(win) * kRows * kK);
        for (unsigned i = tid; i < kRows * kK / 8; i += kThreads)
            *reinterpret_cast<uint4*>(a + (i / 8) * kRowA + (i % 8) * 8) = src[i];
        __syncthreads();
        for (unsigned rep = 0; rep < kReps; ++rep) {
            const uint16_t* a_rows = a + (32 * wm + (lane & 15)) * kRowA + (lane >> 4) * 8;
#pragma unroll 1
            for (unsigned c = 0; c < 2; ++c) { // chunks of 3 tiles
                float acc[2][3][4];
                uint32_t key[3];
                const uint16_t* wr[3];
#pragma unroll
                for (unsigned j = 0; j < 3; ++j) {
                    const unsigned n0 = (wn * 6 + c * 3 + j) * 8;
                    const float b0 = __half2float(__ushort_as_half(bias[n0 + 2 * t]));
                    const float b1 = __half2float(__ushort_as_half(bias[n0 + 2 * t + 1]));
#pragma unroll
                    for (unsigned m = 0; m < 2; ++m) {
                        acc[m][j][0] = b0;
                        acc[m][j][1] = b1;
                        acc[m][j][2] = b0;
                        acc[m][j][3] = b1;
                    }
                    wr[j] = wres + (n0 + g) * kK + 2 * t;
                    key[j] = (n0 + g) & 7u;
                }
#pragma unroll
                for (unsigned s = 0; s < kK / 16; ++s) {
                    uint32_t af[2][4];
#pragma unroll
                    for (unsigned m = 0; m < 2; ++m)
                        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                                     : "=r"(af[m][0]), "=r"(af[m][1]), "=r"(af[m][2]), "=r"(af[m][3])
                                     : "r"(smem_addr(a_rows + 16 * m * kRowA + s * 16)));
#pragma unroll
                    for (unsigned j = 0; j < 3; ++j) {
                        const uint32_t b0 = *reinterpret_cast<const uint32_t*>(wr[j] + ((2 * s) ^ key[j]) * 8);
                        const uint32_t b1 = *reinterpret_cast<const uint32_t*>(wr[j] + ((2 * s + 1) ^ key[j]) * 8);
#pragma unroll
                        for (unsigned m = 0; m < 2; ++m)
                            asm volatile(
                                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                                "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                                : "+f"(acc[m][j][0]), "+f"(acc[m][j][1]), "+f"(acc[m][j][2]), "+f"(acc[m][j][3])
                                : "r"(af[m][0]), "r"(af[m][1]), "r"(af[m][2]), "r"(af[m][3]), "r"(b0), "r"(b1));
                    }
                }
#pragma unroll
                for (unsigned j = 0; j < 3; ++j)
#pragma unroll
                    for (unsigned m = 0; m < 2; ++m) {
                        const unsigned row = 32 * wm + 16 * m + g, col = (wn * 6 + c * 3 + j) * 8 + 2 * t;
                        *reinterpret_cast<uint32_t*>(out + row * kRowOut + col) = pack(acc[m][j][0], acc[m][j][1]);
                        *reinterpret_cast<uint32_t*>(out + (row + 8) * kRowOut + col) =
                            pack(acc[m][j][2], acc[m][j][3]);
                    }
            }
            __syncthreads();
            sum ^= result_word(out, tid, rep);
        }
        keep_window(out, win, windows, first, last, tid);
    }
    sums[blockIdx.x * kThreads + tid] = sum;
}

// ---- wgmma ------------------------------------------------------------------------------------------------------
// K-major, unswizzled: core matrix (row group i, k chunk j) at j * LBO + i * 128 (row groups contiguous).
constexpr uint32_t kALbo = kRows / 8 * 128, kWLbo = kN / 8 * 128;
__device__ __forceinline__ uint32_t core(unsigned r, unsigned k, uint32_t lbo) {
    return (k / 8) * lbo + (r / 8) * 128 + (r % 8) * 16 + (k % 8) * 2;
}
__device__ __forceinline__ uint64_t desc(uint32_t addr, uint32_t lbo) {
    return uint64_t((addr >> 4) & 0x3fff) | uint64_t(lbo >> 4) << 16 | uint64_t(128 >> 4) << 32;
}

__global__ void __launch_bounds__(kThreads, 2)
    gemm_wgmma(const uint16_t* a_all, const uint16_t* w, const uint16_t* bias, unsigned windows, uint16_t* first,
               uint16_t* last, uint32_t* sums) {
    extern __shared__ __align__(128) uint16_t sh[];
    uint8_t* wres = reinterpret_cast<uint8_t*>(sh);                  // kN x kK, core layout
    uint8_t* a = wres + kN * kK * 2;                                 // kRows x kK, core layout
    uint16_t* out = reinterpret_cast<uint16_t*>(a + kRows * kK * 2); // kRows x kRowOut
    const unsigned tid = threadIdx.x, wg = tid / 128, rank = (tid / 32) % 4, lane = tid % 32, g = lane / 4,
                   t = lane % 4;
    for (unsigned i = tid; i < kN * kK / 8; i += kThreads)
        *reinterpret_cast<uint4*>(wres + core(i / 8, (i % 8) * 8, kWLbo)) = reinterpret_cast<const uint4*>(w)[i];
    float b[24];
#pragma unroll
    for (unsigned j = 0; j < 12; ++j) {
        b[2 * j] = __half2float(__ushort_as_half(bias[96 * wg + 8 * j + 2 * t]));
        b[2 * j + 1] = __half2float(__ushort_as_half(bias[96 * wg + 8 * j + 2 * t + 1]));
    }
    const uint32_t a_addr = smem_addr(a), w_addr = smem_addr(wres) + wg * 12 * 128;
    uint32_t sum = 0;
    for (unsigned win = blockIdx.x; win < windows; win += gridDim.x) {
        __syncthreads();
        const uint4* src = reinterpret_cast<const uint4*>(a_all + size_t(win) * kRows * kK);
        for (unsigned i = tid; i < kRows * kK / 8; i += kThreads)
            *reinterpret_cast<uint4*>(a + core(i / 8, (i % 8) * 8, kALbo)) = src[i];
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        for (unsigned rep = 0; rep < kReps; ++rep) {
            float d[48];
#pragma unroll
            for (unsigned i = 0; i < 48; ++i) d[i] = b[2 * (i / 4) + (i % 2)];
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
            uint64_t da[4], dw[4];
#pragma unroll
            for (unsigned s = 0; s < kK / 16; ++s) {
                da[s] = desc(a_addr + 2 * s * kALbo, kALbo);
                dw[s] = desc(w_addr + 2 * s * kWLbo, kWLbo);
            }
            // The four k steps in one statement (separate ones make ptxas wait between them: C7519).
#define D4R_WGMMA(x, y)                                                                                                                                                                                                                              \
    "wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47}, " x \
    ", " y ", 1, 1, 1, 0, 0;\n"
            asm volatile(D4R_WGMMA("%48", "%52") D4R_WGMMA("%49", "%53") D4R_WGMMA("%50", "%54") D4R_WGMMA("%51", "%55")
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
                           "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
                           "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
                           "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                           "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
                           "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                           "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
                         : "l"(da[0]), "l"(da[1]), "l"(da[2]), "l"(da[3]), "l"(dw[0]), "l"(dw[1]), "l"(dw[2]),
                           "l"(dw[3])
                         : "memory");
#undef D4R_WGMMA
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
            for (unsigned j = 0; j < 12; ++j) {
                const unsigned row = 16 * rank + g, col = 96 * wg + 8 * j + 2 * t;
                *reinterpret_cast<uint32_t*>(out + row * kRowOut + col) = pack(d[4 * j], d[4 * j + 1]);
                *reinterpret_cast<uint32_t*>(out + (row + 8) * kRowOut + col) = pack(d[4 * j + 2], d[4 * j + 3]);
            }
            __syncthreads();
            sum ^= result_word(out, tid, rep);
        }
        keep_window(out, win, windows, first, last, tid);
    }
    sums[blockIdx.x * kThreads + tid] = sum;
}

uint16_t random_half(uint32_t& s) {
    s = s * 1664525u + 1013904223u;
    const float v = (float((s >> 8) & 0xffff) / 65536.0f - 0.5f) * 2.0f;
    const __half h = __float2half(v);
    return *reinterpret_cast<const uint16_t*>(&h);
}

} // namespace

int main(int argc, char** argv) {
    const unsigned windows = argc > 1 ? unsigned(std::atoi(argv[1])) : 8100;
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::vector<uint16_t> a(size_t(windows) * kRows * kK), w(kN * kK), bias(kN);
    uint32_t s = 1;
    for (auto& v : a) v = random_half(s);
    for (auto& v : w) v = random_half(s);
    for (auto& v : bias) v = random_half(s);
    uint16_t *da, *dw, *db, *first[2], *last[2];
    uint32_t* sums;
    const unsigned grid = 2 * unsigned(sms);
    CHECK(cudaMalloc(&da, a.size() * 2));
    CHECK(cudaMalloc(&dw, w.size() * 2));
    CHECK(cudaMalloc(&db, bias.size() * 2));
    CHECK(cudaMalloc(&sums, grid * kThreads * 4));
    for (int k = 0; k < 2; ++k) {
        CHECK(cudaMalloc(&first[k], kRows * kN * 2));
        CHECK(cudaMalloc(&last[k], kRows * kN * 2));
    }
    CHECK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dw, w.data(), w.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, bias.data(), bias.size() * 2, cudaMemcpyHostToDevice));
    const size_t shared_mma = (kN * kK + kRows * kRowA + kRows * kRowOut) * 2;
    const size_t shared_wgmma = (kN * kK + kRows * kK + kRows * kRowOut) * 2;
    CHECK(cudaFuncSetAttribute(gemm_mma, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_mma)));
    CHECK(cudaFuncSetAttribute(gemm_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_wgmma)));
    const double flops = 2.0 * kRows * kK * kN * kReps * windows;
    std::printf("device %s, %d SMs; %u windows x %u GEMMs of 64 x %u x %u, grid %u x %u threads\n", prop.name, sms,
                windows, kReps, kK, kN, grid, kThreads);
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    float ms[2] = {};
    for (int k = 0; k < 2; ++k) {
        std::vector<float> times;
        for (int run = 0; run < 6; ++run) {
            CHECK(cudaEventRecord(e0));
            if (k == 0)
                gemm_mma<<<grid, kThreads, shared_mma>>>(da, dw, db, windows, first[k], last[k], sums);
            else
                gemm_wgmma<<<grid, kThreads, shared_wgmma>>>(da, dw, db, windows, first[k], last[k], sums);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaGetLastError());
            float t = 0;
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            if (run > 0) times.push_back(t);
        }
        std::sort(times.begin(), times.end());
        ms[k] = times[times.size() / 2];
        std::printf("%-6s %8.4f ms  %7.1f TFLOPS  (shared %zu bytes a block)\n", k == 0 ? "mma" : "wgmma", ms[k],
                    flops / (ms[k] * 1e-3) / 1e12, k == 0 ? shared_mma : shared_wgmma);
    }
    std::printf("wgmma / mma time: %.3f\n", ms[1] / ms[0]);
    bool same = true;
    for (int which = 0; which < 2; ++which) {
        std::vector<uint16_t> x(kRows * kN), y(kRows * kN);
        CHECK(cudaMemcpy(x.data(), which ? last[0] : first[0], x.size() * 2, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(y.data(), which ? last[1] : first[1], y.size() * 2, cudaMemcpyDeviceToHost));
        unsigned diff = 0;
        for (size_t i = 0; i < x.size(); ++i) diff += x[i] != y[i];
        std::printf("window %s: %u of %zu results differ between mma and wgmma\n", which ? "last" : "0", diff,
                    x.size());
        same = same && diff == 0;
    }
    return same ? 0 : 3;
}
