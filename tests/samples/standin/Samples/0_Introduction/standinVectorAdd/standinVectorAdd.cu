// Runtime API: c = a + b over 50000 floats, checked on the host; exit 0 when every element is right.
#include <standin_check.h>

#include <vector>

__global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 50000;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; ++i) {
        a[i] = 0.5f * float(i);
        b[i] = float(n - i);
    }
    float *da, *db, *dc;
    STANDIN_CHECK(cudaMalloc(&da, n * sizeof(float)));
    STANDIN_CHECK(cudaMalloc(&db, n * sizeof(float)));
    STANDIN_CHECK(cudaMalloc(&dc, n * sizeof(float)));
    STANDIN_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    STANDIN_CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    STANDIN_CHECK(cudaGetLastError());
    STANDIN_CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (c[i] != a[i] + b[i]) {
            std::printf("element %d: %f, expected %f\nTest FAILED\n", i, c[i], a[i] + b[i]);
            return EXIT_FAILURE;
        }
    STANDIN_CHECK(cudaFree(da));
    STANDIN_CHECK(cudaFree(db));
    STANDIN_CHECK(cudaFree(dc));
    std::printf("Test PASSED\n");
    return 0;
}
