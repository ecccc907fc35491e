// Tensor-core GEMM for bench_ptxsim: C (m x n, f32, row-major) = A (m x k, f16, row-major) * B, with
// B given as bt (n x k, f16, row-major: B in column-major order), m a multiple of 16, n of 8, k of 16.
// Each warp computes one 16x8 tile of C with mma.sync m16n8k16 (f32 accumulators), stepping k by 16
// and loading its fragments straight from global memory (PTX ISA fragment layout: lane = 4 g + t).
#include <cstdint>

extern "C" __global__ void gemm_mma(const uint32_t* __restrict__ a, const uint32_t* __restrict__ bt,
                                    float* __restrict__ c, int m, int n, int k) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int tiles_n = n / 8;
    const int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm * 16 >= m) return;
    const int words = k / 2; // f16 pairs per row
    const uint32_t* a0 = a + (tm * 16 + g) * words;
    const uint32_t* a1 = a + (tm * 16 + g + 8) * words;
    const uint32_t* b0 = bt + (tn * 8 + g) * words;
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
    for (int w = t; w < words; w += 8) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a0[w]), "r"(a1[w]), "r"(a0[w + 4]), "r"(a1[w + 4]), "r"(b0[w]), "r"(b0[w + 4]));
    }
    float* c0 = c + (tm * 16 + g) * n + tn * 8 + 2 * t;
    float* c1 = c0 + 8 * n;
    c0[0] = d0;
    c0[1] = d1;
    c1[0] = d2;
    c1[1] = d3;
}
