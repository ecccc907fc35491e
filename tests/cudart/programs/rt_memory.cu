// Runtime API conformance: allocation, copies, memset, symbols, pinned memory and errors.
// Prints device-independent results only (checksums, error codes), compared byte for byte with the H200.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "rt_check.h"

__device__ float g_scale = 2.0f;
__constant__ int c_offset[4];
__device__ uint32_t g_table[256];

__global__ void scale_add(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * g_scale + static_cast<float>(c_offset[i & 3]);
}

__global__ void fill_table(uint32_t seed) {
    uint32_t i = threadIdx.x;
    g_table[i] = (i * 2654435761u) ^ seed;
}

int main() {
    const int n = 4099; // not a multiple of the block size
    std::vector<float> host(n), back(n, -1.0f);
    for (int i = 0; i < n; ++i) host[i] = 0.25f * static_cast<float>(i) - 100.0f;

    float *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemset(out, 0xff, n * sizeof(float)));
    CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    float scale = 3.0f;
    int offsets[4] = {1, -2, 3, -4};
    CHECK(cudaMemcpyToSymbol(g_scale, &scale, sizeof scale));
    CHECK(cudaMemcpyToSymbol(c_offset, offsets, sizeof offsets));
    scale_add<<<(n + 127) / 128, 128>>>(in, out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(back.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        EXPECT(back[i] == host[i] * 3.0f + static_cast<float>(offsets[i & 3]), "scale_add at %d", i);
    print_digest("scale_add", back.data(), n * sizeof(float));

    // Device to device, then a partial memset and back.
    CHECK(cudaMemcpy(in, out, n * sizeof(float), cudaMemcpyDeviceToDevice));
    CHECK(cudaMemset(in, 0, 64 * sizeof(float)));
    CHECK(cudaMemcpy(back.data(), in, n * sizeof(float), cudaMemcpyDefault));
    EXPECT(back[0] == 0.0f && back[63] == 0.0f && back[64] == host[64] * 3.0f + 1.0f, "memset window");
    print_digest("d2d_memset", back.data(), n * sizeof(float));

    // A symbol read back, and its address.
    fill_table<<<1, 256>>>(0x9e3779b9u);
    CHECK(cudaGetLastError());
    uint32_t table[256];
    CHECK(cudaMemcpyFromSymbol(table, g_table, sizeof table));
    EXPECT(table[5] == ((5u * 2654435761u) ^ 0x9e3779b9u), "g_table[5]");
    void* table_address = nullptr;
    size_t table_size = 0;
    CHECK(cudaGetSymbolAddress(&table_address, g_table));
    CHECK(cudaGetSymbolSize(&table_size, g_table));
    EXPECT(table_address != nullptr && table_size == sizeof table, "symbol address and size");
    print_digest("g_table", table, sizeof table);

    // Pinned host memory and async copies on the default stream.
    float* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
    CHECK(cudaMemcpyAsync(pinned, out, n * sizeof(float), cudaMemcpyDeviceToHost, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(pinned[n - 1] == back[n - 1] || n < 64, "pinned copy");
    print_digest("pinned", pinned, n * sizeof(float));
    CHECK(cudaFreeHost(pinned));

    // 2D copies with pitches.
    size_t pitch = 0;
    float* img = nullptr;
    CHECK(cudaMallocPitch(&img, &pitch, 37 * sizeof(float), 19));
    EXPECT(pitch >= 37 * sizeof(float), "pitch");
    CHECK(cudaMemcpy2D(img, pitch, host.data(), 37 * sizeof(float), 37 * sizeof(float), 19, cudaMemcpyHostToDevice));
    std::vector<float> img_back(37 * 19);
    CHECK(
        cudaMemcpy2D(img_back.data(), 37 * sizeof(float), img, pitch, 37 * sizeof(float), 19, cudaMemcpyDeviceToHost));
    EXPECT(img_back[37 * 18 + 36] == host[37 * 18 + 36], "memcpy2D");
    print_digest("memcpy2d", img_back.data(), img_back.size() * sizeof(float));
    CHECK(cudaFree(img));

    // Errors: codes and names, and the sticky state they leave (none).
    void* huge = nullptr;
    print_error("malloc_huge", cudaMalloc(&huge, size_t(1) << 62));
    print_error("last_after_malloc", cudaGetLastError());
    print_error("free_bad", cudaFree(reinterpret_cast<void*>(0x10)));
    print_error("last_after_free", cudaGetLastError());
    scale_add<<<1, 4096>>>(in, out, n); // too many threads per block
    print_error("launch_too_big", cudaGetLastError());
    print_error("peek_after", cudaPeekAtLastError());
    print_error("memcpy_bad_kind", cudaMemcpy(out, in, 4, static_cast<cudaMemcpyKind>(7)));
    print_error("sync", cudaDeviceSynchronize());

    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return finish("rt_memory");
}
