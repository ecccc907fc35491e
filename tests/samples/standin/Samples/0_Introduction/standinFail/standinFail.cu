// Computes 6 * 7 on the device and compares it with a wrong expectation on purpose: the sweep must report the
// sample's own failed check (exit 1) as a failure, with its last line.
#include <standin_check.h>

__global__ void product(int* out) { *out = 6 * 7; }

int main() {
    int* d;
    int h = 0;
    STANDIN_CHECK(cudaMalloc(&d, sizeof(int)));
    product<<<1, 1>>>(d);
    STANDIN_CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
    const int expected = 43;
    if (h != expected) {
        std::printf("6 * 7 = %d, this sample expects %d\nTest FAILED\n", h, expected);
        return EXIT_FAILURE;
    }
    return 0;
}
