// Tensor-core GEMMs through wmma for bench_ptxsim, as NVIDIA's dmmaTensorCoreGemm and tf32TensorCoreGemm samples
// write them (nvcuda::wmma, fragments loaded straight from global memory): C (m x n, row-major) = A (m x k, row-major)
// * B (k x n, row-major). Each warp computes one tile of C, stepping k by the shape's K.
//   gemm_wmma_f64:  m8n8k4 f64 tiles (m, n multiples of 8, k of 4).
//   gemm_wmma_tf32: m16n16k8 tf32 tiles, f32 accumulators (m, n multiples of 16, k of 8); every element of A and B
//                   converted with __float_to_tf32, as the sample does.
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void gemm_wmma_f64(const double* __restrict__ a, const double* __restrict__ b,
                                         double* __restrict__ c, int m, int n, int k) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int tiles_n = n / 8, tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm * 8 >= m) return;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
    wmma::fill_fragment(acc, 0.0);
    for (int kk = 0; kk < k; kk += 4) {
        wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, a + size_t(tm) * 8 * k + kk, k);
        wmma::load_matrix_sync(fb, b + size_t(kk) * n + tn * 8, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + size_t(tm) * 8 * n + tn * 8, acc, n, wmma::mem_row_major);
}

extern "C" __global__ void gemm_wmma_tf32(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ c, int m, int n, int k) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int tiles_n = n / 16, tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm * 16 >= m) return;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int kk = 0; kk < k; kk += 8) {
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, a + size_t(tm) * 16 * k + kk, k);
        wmma::load_matrix_sync(fb, b + size_t(kk) * n + tn * 16, n);
        for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
        for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + size_t(tm) * 16 * n + tn * 16, acc, n, wmma::mem_row_major);
}
