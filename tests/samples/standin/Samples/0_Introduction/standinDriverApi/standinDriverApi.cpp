// Driver API only (linked with -lcuda, as CUDA::cuda_driver samples are): a context, a 32-bit memset of device
// memory and the copy back, checked on the host.
#include <cuda.h>
#include <standin_check.h>

#include <vector>

int main() {
    STANDIN_CHECK(cuInit(0));
    CUdevice device;
    STANDIN_CHECK(cuDeviceGet(&device, 0));
    char name[128] = {};
    STANDIN_CHECK(cuDeviceGetName(name, sizeof(name), device));
    CUcontext context;
    STANDIN_CHECK(cuDevicePrimaryCtxRetain(&context, device));
    STANDIN_CHECK(cuCtxSetCurrent(context));
    const size_t n = 4096;
    CUdeviceptr p;
    STANDIN_CHECK(cuMemAlloc(&p, n * 4));
    STANDIN_CHECK(cuMemsetD32(p, 0x5eed1234u, n));
    std::vector<unsigned> host(n);
    STANDIN_CHECK(cuMemcpyDtoH(host.data(), p, n * 4));
    for (size_t i = 0; i < n; ++i)
        if (host[i] != 0x5eed1234u) {
            std::printf("word %zu: %08x\nTest FAILED\n", i, host[i]);
            return EXIT_FAILURE;
        }
    STANDIN_CHECK(cuMemFree(p));
    STANDIN_CHECK(cuDevicePrimaryCtxRelease(device));
    std::printf("device 0 has a name: %s\nTest PASSED\n", name[0] ? "yes" : "no");
    return 0;
}
