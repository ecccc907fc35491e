// Runtime API conformance: synchronisation beyond __syncthreads: a cooperative launch with grid-wide
// sync, multi-warp tiles (their scratch lives in the reserved shared memory), cuda::barrier (mbarrier)
// phases, and cuda::memcpy_async with a pipeline (cp.async). Outputs depend only on CUDA semantics.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <vector>

#include "rt_check.h"

// cuda::barrier and the pipeline state live in __shared__ and are initialised by init() / the pipeline,
// as CUDA's own samples do.
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;

// Each block writes its partial sum, the grid syncs, then every block reads all partials.
__global__ void grid_total(const int* in, int* partial, int* totals, int n) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ int s;
    if (block.thread_rank() == 0) s = 0;
    block.sync();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) atomicAdd(&s, in[i]);
    block.sync();
    if (block.thread_rank() == 0) partial[blockIdx.x] = s;
    grid.sync();
    if (block.thread_rank() == 0) {
        int t = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
        totals[blockIdx.x] = t;
    }
    grid.sync();
    // A second round: the grid barrier works more than once.
    if (grid.thread_rank() == 0) partial[0] = -1;
    grid.sync();
    if (block.thread_rank() == 1) totals[gridDim.x + blockIdx.x] = partial[0];
}

// Tiles of 64 threads span two warps: cg keeps their scratch in the reserved shared memory.
__global__ void wide_tiles(const int* in, int* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    int v = in[block.thread_rank()];
    int sum = cg::reduce(tile, v, cg::plus<int>());
    int mx = cg::reduce(tile, v, cg::greater<int>());
    tile.sync();
    if (tile.thread_rank() == 0) {
        out[2 * (block.thread_rank() / 64)] = sum;
        out[2 * (block.thread_rank() / 64) + 1] = mx;
    }
}

// Two phases of a block-wide cuda::barrier: every thread writes, arrives and waits, then reads a value
// another warp wrote.
__global__ void barrier_phases(int* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int data[256];
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    data[threadIdx.x] = threadIdx.x * 3;
    bar.arrive_and_wait();
    int a = data[(threadIdx.x + 97) % blockDim.x];
    bar.arrive_and_wait();
    data[threadIdx.x] = a + 1;
    auto token = bar.arrive();
    bar.wait(std::move(token));
    out[threadIdx.x] = data[(threadIdx.x + 31) % blockDim.x];
}

// Double-buffered copies into shared memory with cuda::memcpy_async and a block pipeline.
__global__ void pipelined_sum(const float* in, float* out, int chunks) {
    constexpr int kChunk = 128;
    __shared__ alignas(16) float buf[2][kChunk];
    auto block = cg::this_thread_block();
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
    auto pipe = cuda::make_pipeline(block, &state);
    float acc = 0.f;
    for (int fetch = 0, use = 0; use < chunks; ++use) {
        for (; fetch < chunks && fetch < use + 2; ++fetch) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, buf[fetch % 2], in + fetch * kChunk, sizeof(float) * kChunk, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        acc += buf[use % 2][threadIdx.x] * float(use + 1);
        block.sync();
        pipe.consumer_release();
    }
    out[threadIdx.x] = acc;
}

int main() {
    int coop = 0;
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    EXPECT(coop == 1, "cooperative launch attribute %d", coop);

    const int n = 5000, blocks = 8;
    std::vector<int> values(n);
    long long expected = 0;
    for (int i = 0; i < n; ++i) {
        values[i] = (i * 131) % 997 - 400;
        expected += values[i];
    }
    int *d_in = nullptr, *d_partial = nullptr, *d_totals = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_partial, blocks * sizeof(int)));
    CHECK(cudaMalloc(&d_totals, 2 * blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_in, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_total, 128, 0));
    EXPECT(per_sm > 0, "occupancy %d", per_sm);
    int nn = n;
    void* args[] = {&d_in, &d_partial, &d_totals, &nn};
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(grid_total), dim3(blocks), dim3(128), args, 0, nullptr));
    CHECK(cudaDeviceSynchronize());
    std::vector<int> totals(2 * blocks);
    CHECK(cudaMemcpy(totals.data(), d_totals, totals.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) {
        EXPECT(totals[b] == expected, "block %d total %d != %lld", b, totals[b], expected);
        EXPECT(totals[blocks + b] == -1, "block %d second round %d", b, totals[blocks + b]);
    }
    std::printf("grid total %d (second round %d)\n", totals[0], totals[blocks]);
    // A grid larger than the device holds at once is refused.
    cudaError_t too_large =
        cudaLaunchCooperativeKernel(reinterpret_cast<void*>(grid_total), dim3(1 << 20), dim3(128), args, 0, nullptr);
    std::printf("huge cooperative grid: %s (last error %s)\n", cudaGetErrorName(too_large),
                cudaGetErrorName(cudaGetLastError()));
    CHECK(cudaGetLastError());

    int* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, 1024 * sizeof(int)));
    wide_tiles<<<1, 256>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    std::vector<int> tiles(8);
    CHECK(cudaMemcpy(tiles.data(), d_out, tiles.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 4; ++t) {
        int s = 0, m = values[t * 64];
        for (int i = 0; i < 64; ++i) {
            s += values[t * 64 + i];
            m = values[t * 64 + i] > m ? values[t * 64 + i] : m;
        }
        EXPECT(tiles[2 * t] == s && tiles[2 * t + 1] == m, "tile %d: %d %d != %d %d", t, tiles[2 * t], tiles[2 * t + 1],
               s, m);
    }
    print_digest("wide_tiles", tiles.data(), tiles.size() * sizeof(int));

    barrier_phases<<<2, 256>>>(d_out);
    CHECK(cudaGetLastError());
    std::vector<int> phases(256);
    CHECK(cudaMemcpy(phases.data(), d_out, phases.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 256; ++t) {
        int reader = (t + 31) % 256;
        int want = ((reader + 97) % 256) * 3 + 1;
        EXPECT(phases[t] == want, "barrier thread %d: %d != %d", t, phases[t], want);
    }
    print_digest("barrier_phases", phases.data(), phases.size() * sizeof(int));

    const int chunks = 6;
    std::vector<float> fin(chunks * 128);
    for (size_t i = 0; i < fin.size(); ++i) fin[i] = 0.25f * float(i % 37) - 2.f;
    float *f_in = nullptr, *f_out = nullptr;
    CHECK(cudaMalloc(&f_in, fin.size() * sizeof(float)));
    CHECK(cudaMalloc(&f_out, 128 * sizeof(float)));
    CHECK(cudaMemcpy(f_in, fin.data(), fin.size() * sizeof(float), cudaMemcpyHostToDevice));
    pipelined_sum<<<1, 128>>>(f_in, f_out, chunks);
    CHECK(cudaGetLastError());
    std::vector<float> fout(128);
    CHECK(cudaMemcpy(fout.data(), f_out, fout.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 128; ++t) {
        float want = 0.f;
        for (int c = 0; c < chunks; ++c) want += fin[c * 128 + t] * float(c + 1);
        EXPECT(fout[t] == want, "pipeline thread %d: %g != %g", t, fout[t], want);
    }
    print_digest("pipelined_sum", fout.data(), fout.size() * sizeof(float));

    CHECK(cudaFree(f_in));
    CHECK(cudaFree(f_out));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_totals));
    return finish("rt_sync");
}
