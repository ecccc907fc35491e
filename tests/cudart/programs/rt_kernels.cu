// Runtime API conformance: what kernels do through cudart: shared and dynamic shared memory,
// templates, atomics, warp votes and shuffles, cooperative groups within a block, printf,
// function attributes and occupancy (checked for sanity only: the numbers depend on the device).
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>

#include "rt_check.h"

namespace cg = cooperative_groups;

template <typename T, int Block>
__global__ void block_sum(const T* in, T* out, int n) {
    __shared__ T partial[Block];
    int i = blockIdx.x * Block + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int s = Block / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

__global__ void dynamic_reverse(int* data, int n) {
    extern __shared__ int tile[];
    int t = threadIdx.x;
    tile[t] = data[t];
    __syncthreads();
    data[t] = tile[n - 1 - t];
}

__global__ void atomics(unsigned* counters, const int* values, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&counters[0], 1u);
    atomicMax(&counters[1], static_cast<unsigned>(values[i]));
    atomicMin(&counters[2], static_cast<unsigned>(values[i]));
    atomicXor(&counters[3], static_cast<unsigned>(values[i]));
    atomicInc(&counters[4], 100u);
}

__global__ void warp_ops(const int* in, int* out) {
    int lane = threadIdx.x & 31;
    int v = in[threadIdx.x];
    unsigned ballot = __ballot_sync(0xffffffffu, v & 1);
    int all = __all_sync(0xffffffffu, v >= 0);
    int any = __any_sync(0xffffffffu, v == 7);
    int scan = v;
    for (int d = 1; d < 32; d <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, scan, d);
        if (lane >= d) scan += up;
    }
    int xor_partner = __shfl_xor_sync(0xffffffffu, v, 5);
    out[threadIdx.x * 4 + 0] = static_cast<int>(ballot);
    out[threadIdx.x * 4 + 1] = all * 2 + any;
    out[threadIdx.x * 4 + 2] = scan;
    out[threadIdx.x * 4 + 3] = xor_partner;
}

__global__ void groups(const int* in, int* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int v = in[block.thread_rank()];
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    block.sync();
    if (tile.thread_rank() == 0) out[block.thread_rank() / 16] = v;
}

__global__ void say_hello(int base) {
    // One thread prints, so that the order of the lines is the same on every device.
    if (blockIdx.x == 1 && threadIdx.x == 0)
        for (int i = 0; i < 3; ++i)
            printf("hello from block %d thread %d value %d\n", blockIdx.x, threadIdx.x, base + i);
}

int main() {
    const int n = 3000;
    std::vector<int> values(n);
    for (int i = 0; i < n; ++i) values[i] = (i * 7919) % 1013 - 300;

    int *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMemcpy(d_in, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    // Templates: an int sum and a float sum.
    const int blocks = (n + 127) / 128;
    block_sum<int, 128><<<blocks, 128>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    std::vector<int> sums(blocks);
    CHECK(cudaMemcpy(sums.data(), d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    long long total = 0, expected = 0;
    for (int s : sums) total += s;
    for (int v : values) expected += v;
    EXPECT(total == expected, "int sum %lld != %lld", total, expected);
    print_digest("block_sum_int", sums.data(), sums.size() * sizeof(int));

    std::vector<float> fvalues(n);
    for (int i = 0; i < n; ++i) fvalues[i] = 0.5f * values[i] + 0.125f;
    float *f_in = nullptr, *f_out = nullptr;
    CHECK(cudaMalloc(&f_in, n * sizeof(float)));
    CHECK(cudaMalloc(&f_out, blocks * sizeof(float)));
    CHECK(cudaMemcpy(f_in, fvalues.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    block_sum<float, 128><<<blocks, 128>>>(f_in, f_out, n);
    std::vector<float> fsums(blocks);
    CHECK(cudaMemcpy(fsums.data(), f_out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    print_digest("block_sum_float", fsums.data(), fsums.size() * sizeof(float));

    // Dynamic shared memory.
    dynamic_reverse<<<1, 256, 256 * sizeof(int)>>>(d_in, 256);
    CHECK(cudaGetLastError());
    std::vector<int> reversed(256);
    CHECK(cudaMemcpy(reversed.data(), d_in, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(reversed[0] == values[255] && reversed[255] == values[0], "dynamic shared reverse");
    CHECK(cudaMemcpy(d_in, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    // Atomics.
    unsigned* counters = nullptr;
    unsigned init[5] = {0, 0, 0xffffffffu, 0, 0};
    CHECK(cudaMalloc(&counters, sizeof init));
    CHECK(cudaMemcpy(counters, init, sizeof init, cudaMemcpyHostToDevice));
    atomics<<<(n + 63) / 64, 64>>>(counters, d_in, n);
    unsigned result[5];
    CHECK(cudaMemcpy(result, counters, sizeof result, cudaMemcpyDeviceToHost));
    EXPECT(result[0] == static_cast<unsigned>(n), "atomicAdd count %u", result[0]);
    std::printf("atomics: add %u max %u min %u xor %u inc %u\n", result[0], result[1], result[2], result[3], result[4]);

    // Warp votes and shuffles over one block of 64.
    warp_ops<<<1, 64>>>(d_in, d_out);
    std::vector<int> warp(64 * 4);
    CHECK(cudaMemcpy(warp.data(), d_out, warp.size() * sizeof(int), cudaMemcpyDeviceToHost));
    print_digest("warp_ops", warp.data(), warp.size() * sizeof(int));

    // Cooperative groups: tile reductions.
    groups<<<1, 128>>>(d_in, d_out);
    std::vector<int> tiles(8);
    CHECK(cudaMemcpy(tiles.data(), d_out, tiles.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 8; ++t) {
        int s = 0;
        for (int i = 0; i < 16; ++i) s += values[t * 16 + i];
        EXPECT(tiles[t] == s, "tile %d: %d != %d", t, tiles[t], s);
    }
    print_digest("groups", tiles.data(), tiles.size() * sizeof(int));

    // printf from a kernel, flushed at synchronisation.
    say_hello<<<2, 32>>>(100);
    CHECK(cudaDeviceSynchronize());
    std::fflush(stdout);

    // Function attributes and occupancy: sane, not device-specific.
    cudaFuncAttributes attr{};
    CHECK(cudaFuncGetAttributes(&attr, block_sum<int, 128>));
    EXPECT(attr.sharedSizeBytes == 128 * sizeof(int), "static shared %zu", attr.sharedSizeBytes);
    EXPECT(attr.maxThreadsPerBlock >= 128, "max threads %d", attr.maxThreadsPerBlock);
    std::printf("block_sum shared bytes: %zu\n", attr.sharedSizeBytes);
    int active = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, block_sum<int, 128>, 128, 0));
    EXPECT(active > 0, "occupancy %d", active);
    int min_grid = 0, best_block = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, dynamic_reverse, 0, 0));
    EXPECT(best_block > 0 && best_block <= 1024 && min_grid > 0, "potential block size %d grid %d", best_block,
           min_grid);
    CHECK(cudaFuncSetAttribute(dynamic_reverse, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
    dynamic_reverse<<<1, 256, 64 * 1024>>>(d_in, 256);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaFree(counters));
    CHECK(cudaFree(f_in));
    CHECK(cudaFree(f_out));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return finish("rt_kernels");
}
