// Runtime API conformance: kernels that launch kernels (CUDA dynamic parallelism, built with -rdc=true
// and the device runtime): recursion, children of many blocks with grids and blocks of their own,
// arguments of every size, launches into the tail-launch and fire-and-forget streams, and the host
// seeing every descendant's work once it synchronises. Outputs depend only on CUDA semantics, never on
// the order in which children run.
#include <cstdio>
#include <vector>

#include "rt_check.h"

// out[depth] = depth + 100, then the kernel launches itself one level deeper, up to depth 5.
__global__ void recurse(unsigned* out, int depth) {
    out[depth] = depth + 100;
    if (depth < 5) recurse<<<1, 1>>>(out, depth + 1);
}

// Each thread of each block writes its own cell: cells[parent][blockIdx][threadIdx].
__global__ void child(unsigned* cells, unsigned parent, char tag, double scale, short small) {
    unsigned i = (parent * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    cells[i] = parent * 10000 + blockIdx.x * 100 + threadIdx.x + unsigned(tag) * 1000000 + unsigned(scale * 2.0) +
               unsigned(small);
}

__global__ void parent(unsigned* cells) {
    if (threadIdx.x == 0) child<<<3, 4>>>(cells, blockIdx.x, 'A', 1.5, short(-1 + 2));
}

// Each block writes a partial; block 0 tail-launches the sum, which runs once the whole grid is over.
__global__ void total(const unsigned* partials, unsigned n, unsigned* out) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; ++i) s += partials[i];
    *out = s;
}

__global__ void partials_then_tail(unsigned* partials, unsigned* out) {
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = blockIdx.x * blockIdx.x + 1;
        if (blockIdx.x == 0) total<<<1, 1, 0, cudaStreamTailLaunch>>>(partials, gridDim.x, out);
    }
}

// Fire-and-forget children: the parent cannot wait for them, the host can.
__global__ void mark(unsigned* flags, unsigned i) { flags[i] = 0xf00d0000u + i; }

__global__ void forget(unsigned* flags) { mark<<<1, 1, 0, cudaStreamFireAndForget>>>(flags, threadIdx.x); }

// A child needing dynamic shared memory.
__global__ void shared_child(unsigned* out) {
    extern __shared__ unsigned s[];
    s[threadIdx.x] = threadIdx.x * 3;
    __syncthreads();
    out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

__global__ void shared_parent(unsigned* out) { shared_child<<<1, 64, 64 * sizeof(unsigned)>>>(out); }

int main() {
    unsigned* d = nullptr;
    const size_t words = 4096;
    CHECK(cudaMalloc(&d, words * sizeof(unsigned)));
    CHECK(cudaMemset(d, 0, words * sizeof(unsigned)));

    recurse<<<1, 1>>>(d, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> h(words);
    CHECK(cudaMemcpy(h.data(), d, 6 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 6; ++i) EXPECT(h[i] == unsigned(i + 100), "recurse depth %d wrote %u", i, h[i]);
    std::printf("recursion: %u %u %u %u %u %u\n", h[0], h[1], h[2], h[3], h[4], h[5]);

    CHECK(cudaMemset(d, 0, words * sizeof(unsigned)));
    parent<<<5, 32>>>(d);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h.data(), d, 5 * 3 * 4 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned p = 0; p < 5; ++p)
        for (unsigned b = 0; b < 3; ++b)
            for (unsigned t = 0; t < 4; ++t) {
                unsigned v = h[(p * 3 + b) * 4 + t];
                EXPECT(v == p * 10000 + b * 100 + t + 65000000 + 3 + 1, "child of block %u (%u,%u) wrote %u", p, b, t,
                       v);
            }
    print_digest("children", h.data(), 5 * 3 * 4 * sizeof(unsigned));

    CHECK(cudaMemset(d, 0, words * sizeof(unsigned)));
    partials_then_tail<<<16, 32>>>(d, d + 100);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h.data(), d + 100, sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned expect = 0;
    for (unsigned b = 0; b < 16; ++b) expect += b * b + 1;
    EXPECT(h[0] == expect, "tail launch summed %u, expected %u", h[0], expect);
    std::printf("tail launch total: %u\n", h[0]);

    CHECK(cudaMemset(d, 0, words * sizeof(unsigned)));
    forget<<<1, 8>>>(d);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h.data(), d, 8 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < 8; ++i) EXPECT(h[i] == 0xf00d0000u + i, "fire-and-forget %u wrote %08x", i, h[i]);
    print_digest("fire-and-forget", h.data(), 8 * sizeof(unsigned));

    shared_parent<<<1, 1>>>(d);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h.data(), d, 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < 64; ++i) EXPECT(h[i] == (63 - i) * 3, "dynamic shared child %u wrote %u", i, h[i]);
    print_digest("dynamic shared", h.data(), 64 * sizeof(unsigned));

    CHECK(cudaFree(d));
    return finish("rt_cdp");
}
