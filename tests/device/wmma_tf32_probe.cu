// H200 probe: the tf32 wmma (m16n16k8) result of rt_wmma's inputs, printed element by element in hex,
// to find the rounding rule ptxsim must follow (tests/cudart/programs/rt_wmma.cu compares digests only).
// Built and run by hand on the device: nvcc -arch=sm_90 wmma_tf32_probe.cu && ./a.out > tf32.txt
#include <cstdio>
#include <cstring>
#include <mma.h>
using namespace nvcuda;
__global__ void k(const float* a, const float* b, const float* c, float* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
static float value(int i, int salt) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ static_cast<unsigned>(salt) * 40503u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    float v = static_cast<float>(x & 0xffffff) / 8388608.0f - 1.0f;
    if (i % 29 == 3) v *= 1024.0f;
    if (i % 31 == 5) v *= 1.0f / 4096.0f;
    return v;
}
int main() {
    float a[128], b[128], c[256], d[256];
    for (int i = 0; i < 128; ++i) {
        a[i] = value(i, 1);
        b[i] = value(i, 2);
    }
    for (int i = 0; i < 256; ++i) c[i] = value(i, 3);
    float *da, *db, *dc, *dd;
    cudaMalloc(&da, sizeof a);
    cudaMalloc(&db, sizeof b);
    cudaMalloc(&dc, sizeof c);
    cudaMalloc(&dd, sizeof d);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice);
    // Plain C (no doubling), and zero C, to separate the dot product from the accumulator add.
    k<<<1, 32>>>(da, db, dc, dd);
    cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 256; ++i) {
        unsigned u;
        std::memcpy(&u, &d[i], 4);
        std::printf("c %d %08x\n", i, u);
    }
    cudaMemset(dc, 0, sizeof c);
    k<<<1, 32>>>(da, db, dc, dd);
    cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 256; ++i) {
        unsigned u;
        std::memcpy(&u, &d[i], 4);
        std::printf("z %d %08x\n", i, u);
    }
    return 0;
}
