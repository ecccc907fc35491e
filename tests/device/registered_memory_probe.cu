// What the CUDA driver says about page-locked host memory registered for the device (cuMemHostRegister with
// DEVICEMAP), as the NGX shim's D3D12 mapped path registers D3D12's mapped buffers and the open core checks the
// pointers it is given (src/upscaler/pipeline.cpp: check_buffers): cuMemGetAddressRange and the pointer attributes
// memory type, range start and range size, at an address inside the range. One line per query, so runs on NVIDIA's
// driver, through libd4rcuda's driver backend and on its cpu backend can be diffed (compare-probe.sh).
#include <cuda.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

#include "probe_util.h"

namespace {

using probe::name;

void registered(const char* what, void* p, size_t bytes) {
    CUresult r = cuMemHostRegister(p, bytes, CU_MEMHOSTREGISTER_DEVICEMAP);
    std::printf("%s: cuMemHostRegister(%zu bytes, DEVICEMAP) = %s\n", what, bytes, name(r));
    if (r != CUDA_SUCCESS) return;
    CUdeviceptr d = 0;
    r = cuMemHostGetDevicePointer(&d, p, 0);
    std::printf("%s: cuMemHostGetDevicePointer = %s, same address as the host's: %s\n", what, name(r),
                d == CUdeviceptr(p) ? "yes" : "no");
    const CUdeviceptr inside = d + 100;
    CUdeviceptr base = 0;
    size_t size = 0;
    r = cuMemGetAddressRange(&base, &size, inside);
    std::printf("%s: cuMemGetAddressRange(+100) = %s", what, name(r));
    if (r == CUDA_SUCCESS) std::printf(", base %s, size %zu", base == d ? "the range's" : "elsewhere", size);
    std::printf("\n");
    unsigned type = 0;
    r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, inside);
    std::printf("%s: MEMORY_TYPE(+100) = %s, %u (host %u, device %u)\n", what, name(r), type, CU_MEMORYTYPE_HOST,
                CU_MEMORYTYPE_DEVICE);
    CUdeviceptr start = 0;
    r = cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, inside);
    std::printf("%s: RANGE_START_ADDR(+100) = %s%s\n", what, name(r),
                r == CUDA_SUCCESS ? (start == d ? ", the range's start" : ", another address") : "");
    size_t range = 0;
    r = cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, inside);
    std::printf("%s: RANGE_SIZE(+100) = %s, %zu\n", what, name(r), range);
    r = cuMemHostUnregister(p);
    std::printf("%s: cuMemHostUnregister = %s\n", what, name(r));
}

} // namespace

int main() {
    if (!probe::open_context()) return 1;
    const size_t bytes = size_t(1) << 20;
    void* heap = std::aligned_alloc(4096, bytes);
    registered("aligned_alloc", heap, bytes);
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    registered("mmap", mapped, bytes);
    // A D3D12 buffer is not page-aligned in size: a range of 65 KB + 256 bytes at an offset into the mapping.
    registered("mmap+4096 (66 KB)", static_cast<char*>(mapped) + 4096, 65536 + 256);
    std::free(heap);
    munmap(mapped, bytes);
    return 0;
}
