// Needs two devices, so it waives (exit 2, as cuda-samples' EXIT_WAIVED) where there is one.
#include <standin_check.h>

int main() {
    int count = 0;
    STANDIN_CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        std::printf("%d device(s): this sample needs two; waiving\n", count);
        return STANDIN_EXIT_WAIVED;
    }
    std::printf("Test PASSED\n");
    return 0;
}
