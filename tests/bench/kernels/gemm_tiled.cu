// Shared-memory tiled f32 GEMM for bench_ptxsim: C = A * B, all n x n row-major, n a multiple of 16.
// One 16x16 block per 16x16 tile of C; each thread accumulates one element with fmaf over k in
// increasing order, so a C++ loop with the same fmaf order reproduces it bit for bit.
#define TILE 16

extern "C" __global__ void gemm_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                      int n) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        as[ty][tx] = a[row * n + t + tx];
        bs[ty][tx] = b[(t + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc = fmaf(as[ty][k], bs[k][tx], acc);
        __syncthreads();
    }
    c[row * n + col] = acc;
}
