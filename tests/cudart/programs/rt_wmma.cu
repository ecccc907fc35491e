// Runtime API conformance: warp matrix multiply-accumulate (nvcuda::wmma) in every precision nvcc
// offers for sm_80: f16 with f32 and f16 accumulators, bf16, tf32, s8/u8 and f64, in each fragment
// shape. Inputs are not exact in the products' sums, so the digests check the tensor cores' rounding
// bit for bit against the H200.
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <vector>

#include "rt_check.h"

using namespace nvcuda;

// One warp: D = A * B + C, A row-major M x K, B column-major K x N, C and D row-major M x N.
template <int M, int N, int K, typename In, typename Acc, typename Frag = In>
__global__ void mma_tile(const In* a, const In* b, const Acc* c, Acc* d) {
    wmma::fragment<wmma::matrix_a, M, N, K, Frag, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, Frag, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, K);
    wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
    for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = fc.x[i] * Acc(2);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

// Deterministic pseudo-random values in [-1, 1) with a few extremes mixed in.
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

template <typename T>
static T convert(float v);
template <>
__half convert<__half>(float v) {
    return __float2half_rn(v);
}
template <>
__nv_bfloat16 convert<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}
template <>
float convert<float>(float v) {
    return v;
}
template <>
double convert<double>(float v) {
    return static_cast<double>(v) * (1.0 + 1.0 / 3.0);
}
template <>
signed char convert<signed char>(float v) {
    return static_cast<signed char>(static_cast<int>(v * 127.0f));
}
template <>
unsigned char convert<unsigned char>(float v) {
    return static_cast<unsigned char>(static_cast<int>((v + 1.0f) * 127.0f));
}
template <>
int convert<int>(float v) {
    return static_cast<int>(v * 100000.0f);
}

template <int M, int N, int K, typename In, typename Acc, typename Frag = In>
static void run(const char* name) {
    std::vector<In> a(M * K), b(K * N);
    std::vector<Acc> c(M * N), d(M * N);
    for (int i = 0; i < M * K; ++i) a[i] = convert<In>(value(i, 1));
    for (int i = 0; i < K * N; ++i) b[i] = convert<In>(value(i, 2));
    for (int i = 0; i < M * N; ++i) c[i] = convert<Acc>(value(i, 3));
    In *da = nullptr, *db = nullptr;
    Acc *dc = nullptr, *dd = nullptr;
    CHECK(cudaMalloc(&da, a.size() * sizeof(In)));
    CHECK(cudaMalloc(&db, b.size() * sizeof(In)));
    CHECK(cudaMalloc(&dc, c.size() * sizeof(Acc)));
    CHECK(cudaMalloc(&dd, d.size() * sizeof(Acc)));
    CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(In), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(In), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(Acc), cudaMemcpyHostToDevice));
    mma_tile<M, N, K, In, Acc, Frag><<<1, 32>>>(da, db, dc, dd);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(Acc), cudaMemcpyDeviceToHost));
    print_digest(name, d.data(), d.size() * sizeof(Acc));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dd));
}

int main() {
    run<16, 16, 16, __half, float>("f16_f32_m16n16k16");
    run<32, 8, 16, __half, float>("f16_f32_m32n8k16");
    run<8, 32, 16, __half, float>("f16_f32_m8n32k16");
    run<16, 16, 16, __half, __half>("f16_f16_m16n16k16");
    run<32, 8, 16, __half, __half>("f16_f16_m32n8k16");
    run<16, 16, 16, __nv_bfloat16, float>("bf16_m16n16k16");
    run<8, 32, 16, __nv_bfloat16, float>("bf16_m8n32k16");
    run<16, 16, 8, float, float, wmma::precision::tf32>("tf32_m16n16k8");
    run<16, 16, 16, signed char, int>("s8_m16n16k16");
    run<32, 8, 16, unsigned char, int>("u8_m32n8k16");
    run<8, 8, 4, double, double>("f64_m8n8k4");
    return finish("rt_wmma");
}
