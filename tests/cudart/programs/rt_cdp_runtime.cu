// Runtime API conformance: the device runtime's calls besides launches, as the cdp*Quicksort samples use
// them (built with -rdc=true): streams created and destroyed in a kernel, cudaMemcpyAsync between device
// buffers ordered with the launches of its stream, cudaGetLastError / cudaPeekAtLastError after good
// launches and cudaGetErrorString of their answer.
#include <cstdio>
#include <vector>

#include "rt_check.h"

constexpr int kN = 256;

// in[i] * 2 + k for each i.
__global__ void scale(unsigned* data, unsigned k) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < kN) data[i] = data[i] * 2 + k;
}

// Thread 0 of each of the two blocks: copies SRC to its half of DST in a stream of its own, scales it there
// (the launch sees the copy), copies the scaled half on into DST2 (which sees the launch), then records what
// the last-error calls said.
__global__ void pipeline(const unsigned* src, unsigned* dst, unsigned* dst2, unsigned* errors) {
    if (threadIdx.x != 0) return;
    const unsigned half = kN / 2, base = blockIdx.x * half;
    cudaStream_t s = nullptr, other = nullptr;
    const cudaError_t created = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const cudaError_t created2 = cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
    cudaMemcpyAsync(dst + base, src + base, half * sizeof(unsigned), cudaMemcpyDeviceToDevice, s);
    scale<<<2, 64, 0, s>>>(dst + base, blockIdx.x + 1);
    cudaMemcpyAsync(dst2 + base, dst + base, half * sizeof(unsigned), cudaMemcpyDeviceToDevice, s);
    const cudaError_t peek = cudaPeekAtLastError();
    const cudaError_t last = cudaGetLastError();
    errors[blockIdx.x * 4 + 0] = created | (created2 << 8);
    errors[blockIdx.x * 4 + 1] = (s != nullptr) + (other != nullptr) * 2 + (s != other) * 4;
    errors[blockIdx.x * 4 + 2] = peek;
    errors[blockIdx.x * 4 + 3] = last;
    if (blockIdx.x == 0) printf("device: cudaGetErrorString(%d) = \"%s\"\n", int(last), cudaGetErrorString(last));
    cudaStreamDestroy(s);
    cudaStreamDestroy(other);
}

int main() {
    std::vector<unsigned> h(kN);
    for (int i = 0; i < kN; ++i) h[i] = unsigned(i * 7 + 3);
    unsigned *src = nullptr, *dst = nullptr, *dst2 = nullptr, *errors = nullptr;
    CHECK(cudaMalloc(&src, kN * sizeof(unsigned)));
    CHECK(cudaMalloc(&dst, kN * sizeof(unsigned)));
    CHECK(cudaMalloc(&dst2, kN * sizeof(unsigned)));
    CHECK(cudaMalloc(&errors, 8 * sizeof(unsigned)));
    CHECK(cudaMemcpy(src, h.data(), kN * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dst, 0, kN * sizeof(unsigned)));
    CHECK(cudaMemset(dst2, 0, kN * sizeof(unsigned)));
    CHECK(cudaMemset(errors, 0xff, 8 * sizeof(unsigned)));
    pipeline<<<2, 32>>>(src, dst, dst2, errors);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<unsigned> a(kN), b(kN), e(8);
    CHECK(cudaMemcpy(a.data(), dst, kN * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b.data(), dst2, kN * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(e.data(), errors, 8 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kN; ++i) {
        const unsigned want = h[i] * 2 + unsigned(i / (kN / 2)) + 1;
        EXPECT(a[i] == want, "dst[%d] = %u, want %u", i, a[i], want);
        EXPECT(b[i] == want, "dst2[%d] = %u, want %u", i, b[i], want);
    }
    print_digest("dst", a.data(), kN * sizeof(unsigned));
    print_digest("dst2", b.data(), kN * sizeof(unsigned));
    for (int blk = 0; blk < 2; ++blk)
        std::printf("block %d: created %u, handles %u, peek %u, last %u\n", blk, e[blk * 4], e[blk * 4 + 1],
                    e[blk * 4 + 2], e[blk * 4 + 3]);
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    CHECK(cudaFree(dst2));
    CHECK(cudaFree(errors));
    std::printf("%s\n", g_failures ? "FAILED" : "PASSED");
    return g_failures ? 1 : 0;
}
