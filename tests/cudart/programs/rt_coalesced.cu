// Runtime API conformance: warp-aggregated atomics through cooperative_groups' coalesced groups. The
// active threads of a warp elect a leader (activemask, lanemask_lt), which does one atomicAdd/atomicMax for
// the group and broadcasts the base with a shuffle; labeled_partition splits the group by a key (match.any),
// so the converged warp then runs one redux/shfl with a different member mask in each lane. Which threads
// end up grouped together depends on the hardware's scheduling, so the program prints only what does not:
// the totals, checked against a host computation.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <vector>

#include "rt_check.h"

namespace cg = cooperative_groups;

constexpr int kBuckets = 5;

// One atomicAdd per coalesced group; each member gets a distinct slot.
__device__ int aggregated_increment(int* counter) {
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(counter, static_cast<int>(active.size()));
    return active.shfl(base, 0) + static_cast<int>(active.thread_rank());
}

// Keeps the positive values, in any order.
__global__ void keep_positive(const int* in, int* out, int* count, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        if (in[i] > 0) out[aggregated_increment(count)] = in[i];
}

// Per-bucket slots through labeled groups: one atomicAdd per bucket and group.
__global__ void bucket_slots(const int* bucket, int* slots, int* counters, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int b = bucket[i];
        if (b < kBuckets) {
            cg::coalesced_group active = cg::coalesced_threads();
            cg::coalesced_group same = cg::labeled_partition(active, b);
            int base = 0;
            if (same.thread_rank() == 0) base = atomicAdd(&counters[b], static_cast<int>(same.size()));
            slots[i] = same.shfl(base, 0) + static_cast<int>(same.thread_rank());
        }
    }
}

// Per-bucket maximum and sum: a reduction inside each labeled group, then one atomic per group.
__global__ void bucket_max_sum(const int* bucket, const int* value, int* maxima, unsigned long long* sums, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int b = bucket[i];
        if (b < kBuckets) {
            cg::coalesced_group same = cg::labeled_partition(cg::coalesced_threads(), b);
            const int mx = cg::reduce(same, value[i], cg::greater<int>());
            const unsigned long long sum =
                cg::reduce(same, static_cast<unsigned long long>(value[i]), cg::plus<unsigned long long>());
            if (same.thread_rank() == 0) {
                atomicMax(&maxima[b], mx);
                atomicAdd(&sums[b], sum);
            }
        }
    }
}

// binary_partition, and an inclusive scan inside a coalesced group: each odd value gets its rank among the
// odd values of its group; the group's last member adds the group's count.
__global__ void odd_ranks(const int* value, int* ranks, int* odd_count, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cg::coalesced_group active = cg::coalesced_threads();
    cg::coalesced_group parity = cg::binary_partition(active, (value[i] & 1) != 0);
    if ((value[i] & 1) == 0) {
        ranks[i] = -1;
        return;
    }
    const int rank = cg::inclusive_scan(parity, 1) - 1;
    ranks[i] = rank;
    if (rank == static_cast<int>(parity.size()) - 1) atomicAdd(odd_count, rank + 1);
}

int main() {
    const int n = 1 << 18;
    std::vector<int> values(n), buckets(n);
    unsigned s = 12345u;
    for (int i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        values[i] = static_cast<int>((s >> 4) & 0x7fffffff) - (1 << 26);
        s = s * 1103515245u + 12345u;
        buckets[i] = static_cast<int>((s >> 9) % (kBuckets + 1)); // bucket kBuckets: skipped
    }
    int *d_values, *d_buckets, *d_out, *d_count, *d_counters, *d_slots, *d_maxima, *d_ranks, *d_odd;
    unsigned long long* d_sums;
    CHECK(cudaMalloc(&d_values, n * sizeof(int)));
    CHECK(cudaMalloc(&d_buckets, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_slots, n * sizeof(int)));
    CHECK(cudaMalloc(&d_ranks, n * sizeof(int)));
    CHECK(cudaMalloc(&d_count, sizeof(int)));
    CHECK(cudaMalloc(&d_odd, sizeof(int)));
    CHECK(cudaMalloc(&d_counters, kBuckets * sizeof(int)));
    CHECK(cudaMalloc(&d_maxima, kBuckets * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, kBuckets * sizeof(unsigned long long)));
    CHECK(cudaMemcpy(d_values, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_buckets, buckets.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_count, 0, sizeof(int)));
    CHECK(cudaMemset(d_odd, 0, sizeof(int)));
    CHECK(cudaMemset(d_slots, 0xff, n * sizeof(int)));
    std::vector<int> counter_init(kBuckets), max_init(kBuckets, -(1 << 30));
    for (int b = 0; b < kBuckets; ++b) counter_init[b] = b * n;
    CHECK(cudaMemcpy(d_counters, counter_init.data(), kBuckets * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_maxima, max_init.data(), kBuckets * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sums, 0, kBuckets * sizeof(unsigned long long)));

    keep_positive<<<96, 256>>>(d_values, d_out, d_count, n);
    CHECK(cudaGetLastError());
    bucket_slots<<<n / 512, 512>>>(d_buckets, d_slots, d_counters, n);
    CHECK(cudaGetLastError());
    bucket_max_sum<<<64, 192>>>(d_buckets, d_values, d_maxima, d_sums, n);
    CHECK(cudaGetLastError());
    odd_ranks<<<(n + 255) / 256, 256>>>(d_values, d_ranks, d_odd, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    // Host references.
    int positive = 0, odd = 0;
    std::vector<int> count(kBuckets), maxima(max_init);
    std::vector<unsigned long long> sums(kBuckets);
    long long positive_sum = 0;
    for (int i = 0; i < n; ++i) {
        if (values[i] > 0) ++positive, positive_sum += values[i];
        if (values[i] & 1) ++odd;
        const int b = buckets[i];
        if (b < kBuckets) {
            ++count[b];
            maxima[b] = values[i] > maxima[b] ? values[i] : maxima[b];
            sums[b] += static_cast<unsigned long long>(static_cast<long long>(values[i]));
        }
    }

    int got_count = 0, got_odd = 0;
    std::vector<int> out(n), slots(n), ranks(n), got_counters(kBuckets), got_maxima(kBuckets);
    std::vector<unsigned long long> got_sums(kBuckets);
    CHECK(cudaMemcpy(&got_count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got_odd, d_odd, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(slots.data(), d_slots, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ranks.data(), d_ranks, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_counters.data(), d_counters, kBuckets * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_maxima.data(), d_maxima, kBuckets * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_sums.data(), d_sums, kBuckets * sizeof(unsigned long long), cudaMemcpyDeviceToHost));

    // keep_positive: the right number, and the kept values are exactly the positive ones.
    std::printf("positive values: %d\n", got_count);
    EXPECT(got_count == positive, "keep_positive kept %d values, expected %d", got_count, positive);
    long long kept_sum = 0;
    for (int i = 0; i < got_count && i < n; ++i) kept_sum += out[i];
    EXPECT(kept_sum == positive_sum, "the kept values sum to %lld, expected %lld", kept_sum, positive_sum);

    // bucket_slots: every element of bucket b got a distinct slot in [b * n, b * n + count).
    std::vector<char> seen(static_cast<size_t>(kBuckets) * n);
    bool slots_ok = true;
    for (int i = 0; i < n && slots_ok; ++i) {
        const int b = buckets[i];
        if (b >= kBuckets) {
            slots_ok = slots[i] == -1;
            continue;
        }
        const long long rel = static_cast<long long>(slots[i]) - static_cast<long long>(b) * n;
        slots_ok = rel >= 0 && rel < count[b] && !seen[static_cast<size_t>(b) * n + rel];
        if (slots_ok) seen[static_cast<size_t>(b) * n + rel] = 1;
        EXPECT(slots_ok, "element %d (bucket %d) got slot %d", i, b, slots[i]);
    }
    for (int b = 0; b < kBuckets; ++b) {
        std::printf("bucket %d: %d elements, max %d, sum %llu\n", b, got_counters[b] - b * n, got_maxima[b],
                    got_sums[b]);
        EXPECT(got_counters[b] - b * n == count[b], "bucket %d counted %d, expected %d", b, got_counters[b] - b * n,
               count[b]);
        EXPECT(got_maxima[b] == maxima[b], "bucket %d maximum %d, expected %d", b, got_maxima[b], maxima[b]);
        EXPECT(got_sums[b] == sums[b], "bucket %d sum %llu, expected %llu", b, got_sums[b], sums[b]);
    }

    // odd_ranks: the ranks within each group are 0..size-1, so the group sizes add up to the odd values.
    std::printf("odd values: %d\n", got_odd);
    EXPECT(got_odd == odd, "odd_ranks counted %d odd values, expected %d", got_odd, odd);
    bool ranks_ok = true;
    for (int i = 0; i < n && ranks_ok; ++i) {
        ranks_ok = (values[i] & 1) ? ranks[i] >= 0 && ranks[i] < 32 : ranks[i] == -1;
        EXPECT(ranks_ok, "element %d (value %d) has rank %d", i, values[i], ranks[i]);
    }
    return finish("rt_coalesced");
}
