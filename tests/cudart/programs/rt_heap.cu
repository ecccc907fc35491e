// Runtime API conformance: the device heap. malloc/free and C++ new/delete in kernels (nvcc compiles them to
// calls of malloc and free), __nv_aligned_device_malloc, placement new into shared memory, blocks that live
// across launches and are freed by another kernel, the heap running out (malloc answers NULL), and
// cudaLimitMallocHeapSize: 8 MiB by default, settable before the first kernel that uses the heap and fixed
// after it (cudaErrorInvalidValue). Which requests fit when the heap is nearly full depends on the
// allocator, so the program prints only what CUDA defines and checks the rest itself.
#include <cstdint>
#include <cstdio>
#include <new>

#include "rt_check.h"

struct Particle {
    int id;
    double mass;
    __device__ explicit Particle(int i) : id(i), mass(i * 0.5) {}
    __device__ ~Particle() { id = -1; }
};

// Every thread mallocs N ints, fills them, and leaves the pointer for the next kernel.
__global__ void fill_blocks(int** blocks, int n) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* p = static_cast<int*>(malloc(n * sizeof(int)));
    if (p)
        for (int i = 0; i < n; ++i) p[i] = t * 1000 + i;
    blocks[t] = p;
}

// Another launch reads the blocks, checks them, and frees them. bad[t]: elements that differ (-1: no block).
__global__ void check_and_free(int** blocks, int n, int* bad) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* p = blocks[t];
    if (!p) {
        bad[t] = -1;
        return;
    }
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += p[i] != t * 1000 + i;
    bad[t] = wrong;
    free(p);
}

// new/delete of an object and an array, placement new into shared memory, aligned malloc.
// out[t]: 0 when every check held, else the first failing check's number.
__global__ void objects(int* out) {
    const int t = threadIdx.x;
    __shared__ alignas(Particle) unsigned char slab[sizeof(Particle) * 64];
    int result = 0;
    Particle* p = new Particle(t);
    if (!p || p->id != t || p->mass != t * 0.5) result = result ? result : 1;
    if (reinterpret_cast<uintptr_t>(p) % 16) result = result ? result : 2;
    delete p;
    int* arr = new int[t + 1];
    if (!arr) result = result ? result : 3;
    for (int i = 0; arr && i <= t; ++i) arr[i] = i * i;
    int sum = 0;
    for (int i = 0; arr && i <= t; ++i) sum += arr[i];
    if (sum != t * (t + 1) * (2 * t + 1) / 6) result = result ? result : 4;
    delete[] arr;
    Particle* placed = new (slab + sizeof(Particle) * t) Particle(t + 100);
    __syncthreads();
    const Particle& other = reinterpret_cast<const Particle*>(slab)[(t + 1) % blockDim.x];
    if (other.id != (t + 1) % static_cast<int>(blockDim.x) + 100) result = result ? result : 5;
    __syncthreads();
    placed->~Particle();
    void* aligned = __nv_aligned_device_malloc(100, 256);
    if (!aligned || reinterpret_cast<uintptr_t>(aligned) % 256) result = result ? result : 6;
    free(aligned);
    free(nullptr); // does nothing
    out[t] = result;
}

// One request larger than the heap, and one that fits.
__global__ void big_requests(size_t too_big, size_t fits, int* out) {
    void* a = malloc(too_big);
    void* b = malloc(fits);
    out[0] = a == nullptr;
    out[1] = b != nullptr;
    if (b) static_cast<char*>(b)[fits - 1] = 1;
    free(b);
}

// Blocks of BYTES until the heap runs out: each thread keeps what it got. Checks that the blocks are
// distinct (each writes its own id over its whole block, then checks it).
__global__ void exhaust(void** got, size_t bytes) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    void* p = malloc(bytes);
    got[t] = p;
    if (p)
        for (size_t i = 0; i < bytes / 4; ++i) static_cast<int*>(p)[i] = t;
}
__global__ void exhaust_check(void** got, size_t bytes, int* bad) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* p = static_cast<int*>(got[t]);
    int wrong = 0;
    for (size_t i = 0; p && i < bytes / 4; ++i) wrong += p[i] != t;
    bad[t] = wrong;
    free(p);
}

int main() {
    // Phase 1: the default heap.
    size_t limit = 0;
    CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
    std::printf("default heap limit: %zu\n", limit);

    const int threads = 256, n = 64;
    int** blocks;
    int* bad;
    CHECK(cudaMalloc(&blocks, threads * sizeof(int*)));
    CHECK(cudaMalloc(&bad, threads * sizeof(int)));
    fill_blocks<<<threads / 64, 64>>>(blocks, n);
    CHECK(cudaGetLastError());
    check_and_free<<<threads / 128, 128>>>(blocks, n, bad);
    CHECK(cudaGetLastError());
    int host_bad[threads];
    CHECK(cudaMemcpy(host_bad, bad, sizeof host_bad, cudaMemcpyDeviceToHost));
    int missing = 0, wrong = 0;
    for (int v : host_bad) v < 0 ? ++missing : wrong += v;
    std::printf("blocks across launches: %d missing, %d wrong elements\n", missing, wrong);

    int* flags;
    CHECK(cudaMalloc(&flags, 64 * sizeof(int)));
    objects<<<1, 64>>>(flags);
    CHECK(cudaGetLastError());
    int host_flags[64];
    CHECK(cudaMemcpy(host_flags, flags, sizeof host_flags, cudaMemcpyDeviceToHost));
    int failed = 0;
    for (int i = 0; i < 64; ++i)
        if (host_flags[i]) {
            EXPECT(false, "objects: thread %d failed check %d", i, host_flags[i]);
            ++failed;
        }
    std::printf("new/delete, placement new, aligned malloc: %d threads failed\n", failed);

    // Ask for 1 MiB per thread from the 8 MiB heap: some threads get NULL, none gets an overlapping block.
    const int hungry = 64;
    const size_t chunk = 1 << 20;
    void** got;
    CHECK(cudaMalloc(&got, hungry * sizeof(void*)));
    exhaust<<<1, hungry>>>(got, chunk);
    CHECK(cudaGetLastError());
    void* host_got[hungry];
    CHECK(cudaMemcpy(host_got, got, sizeof host_got, cudaMemcpyDeviceToHost));
    int granted = 0;
    for (void* p : host_got) granted += p != nullptr;
    EXPECT(granted > 0 && granted < hungry, "%d of %d requests of 1 MiB were granted from an 8 MiB heap", granted,
           hungry);
    std::printf("1 MiB requests from the default heap: some granted: %s, some NULL: %s\n", granted > 0 ? "yes" : "no",
                granted < hungry ? "yes" : "no");
    exhaust_check<<<1, hungry>>>(got, chunk, bad);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host_bad, bad, hungry * sizeof(int), cudaMemcpyDeviceToHost));
    wrong = 0;
    for (int i = 0; i < hungry; ++i) wrong += host_bad[i];
    std::printf("granted blocks overlap: %s\n", wrong ? "yes" : "no");
    // Everything was freed: the same requests are granted again.
    exhaust<<<1, hungry>>>(got, chunk);
    CHECK(cudaMemcpy(host_got, got, sizeof host_got, cudaMemcpyDeviceToHost));
    int again = 0;
    for (void* p : host_got) again += p != nullptr;
    EXPECT(again > 0, "after freeing everything no request was granted (%d the first time)", granted);
    exhaust_check<<<1, hungry>>>(got, chunk, bad);
    CHECK(cudaDeviceSynchronize());

    // The heap is in use: its size is fixed now.
    print_error("set the heap limit after a kernel used the heap",
                cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32u << 20));
    (void)cudaGetLastError(); // the runtime keeps the failure as its last error
    CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
    std::printf("heap limit now: %zu\n", limit);

    // Phase 2: a fresh context with a 32 MiB heap set before any kernel uses it.
    CHECK(cudaDeviceReset());
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32u << 20));
    CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
    std::printf("heap limit after reset and set: %zu\n", limit);
    int* out;
    CHECK(cudaMalloc(&out, 2 * sizeof(int)));
    big_requests<<<1, 1>>>(size_t(40) << 20, size_t(16) << 20, out);
    CHECK(cudaGetLastError());
    int host_out[2];
    CHECK(cudaMemcpy(host_out, out, sizeof host_out, cudaMemcpyDeviceToHost));
    std::printf("40 MiB from a 32 MiB heap is NULL: %s; 16 MiB is granted: %s\n", host_out[0] ? "yes" : "no",
                host_out[1] ? "yes" : "no");
    CHECK(cudaFree(out));
    return finish("rt_heap");
}
