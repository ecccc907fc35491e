// cpu backend: copies given addresses that are no allocation and no usable host memory (issue 14, item 2).
// With unified addressing such an address is taken for pageable host memory; a wild one (0x10, a freed
// block, an arbitrary value, a guard page, read-only memory as a destination) must be refused with
// CUDA_ERROR_INVALID_VALUE, never fault the process, while real pageable memory keeps working.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuWildCopyTest = CpuBackendTest;

CUdeviceptr addr(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

// An address that was a 64 MiB allocation (large enough for the allocator to return it to the system).
CUdeviceptr freed_block() {
    CUdeviceptr p = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&p, 64ull << 20), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(p), CUDA_SUCCESS);
    return p + (1 << 20);
}

TEST_F(CpuWildCopyTest, UnifiedCopiesRefuseAddressesThatAreNoMemory) {
    CUdeviceptr dev = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&dev, 1 << 16), CUDA_SUCCESS);
    const CUdeviceptr freed = freed_block();
    const CUdeviceptr wild[] = {0x10, freed, 0x123456789ab0ull, 0x7ffffffff000ull, ~0ull - 64};
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
    for (CUdeviceptr w : wild) {
        SCOPED_TRACE(w);
        EXPECT_EQ(api().cuMemcpy(dev, w, 64), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpy(w, dev, 64), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpyAsync(dev, w, 64, s), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpyAsync(w, dev, 64, s), CUDA_ERROR_INVALID_VALUE);
        // The explicit host sides are probed the same way.
        EXPECT_EQ(api().cuMemcpyHtoD_v2(dev, reinterpret_cast<const void*>(w), 64), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpyDtoH_v2(reinterpret_cast<void*>(w), dev, 64), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpyDtoHAsync_v2(reinterpret_cast<void*>(w), dev, 64, s), CUDA_ERROR_INVALID_VALUE);
        CUDA_MEMCPY2D c{};
        c.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
        c.srcDevice = w;
        c.srcPitch = 64;
        c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
        c.dstDevice = dev;
        c.dstPitch = 64;
        c.WidthInBytes = 32;
        c.Height = 4;
        EXPECT_EQ(api().cuMemcpy2D_v2(&c), CUDA_ERROR_INVALID_VALUE);
        std::swap(c.srcDevice, c.dstDevice);
        EXPECT_EQ(api().cuMemcpy2DAsync_v2(&c, s), CUDA_ERROR_INVALID_VALUE);
    }
    // Nothing was queued that could fail later: the context is healthy.
    EXPECT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(dev), CUDA_SUCCESS);
}

// A device pointer that was freed, given as the host side of a copy (issue 14, hardening): cuMemFree gives
// the memory back and keeps the addresses reserved and inaccessible, whatever the size (and under
// AddressSanitizer, whose allocator maps pages often, too), so the host-memory probe refuses it with
// CUDA_ERROR_INVALID_VALUE instead of reading or writing memory the heap may have handed out again.
TEST_F(CpuWildCopyTest, FreedDevicePointersAreNoHostMemory) {
    CUdeviceptr dev = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&dev, 1 << 16), CUDA_SUCCESS);
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
    for (size_t bytes : {size_t(64), size_t(4096), size_t(100000), size_t(1) << 20}) {
        SCOPED_TRACE(bytes);
        CUdeviceptr p = 0;
        ASSERT_EQ(api().cuMemAlloc_v2(&p, bytes), CUDA_SUCCESS);
        // While it lives it is a device operand (every copy direction accepts it).
        ASSERT_EQ(api().cuMemcpyDtoH_v2(reinterpret_cast<void*>(p), dev, 64), CUDA_SUCCESS);
        ASSERT_EQ(api().cuMemFree_v2(p), CUDA_SUCCESS);
        void* host = reinterpret_cast<void*>(p);
        EXPECT_EQ(api().cuMemcpyHtoD_v2(dev, host, 64), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpyDtoH_v2(host, dev, 64), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpyHtoDAsync_v2(dev, host, 64, s), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpyDtoHAsync_v2(host, dev, 64, s), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpy(dev, p, 64), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemcpy(p, dev, 64), CUDA_ERROR_INVALID_VALUE);
        // As a device operand it is no allocation either.
        EXPECT_EQ(api().cuMemcpyDtoD_v2(dev, p, 64), CUDA_ERROR_INVALID_VALUE);
        EXPECT_EQ(api().cuMemsetD8_v2(p, 0, 64), CUDA_ERROR_INVALID_VALUE);
    }
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(dev), CUDA_SUCCESS);
}

TEST_F(CpuWildCopyTest, HostMemoryIsCheckedForItsProtection) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    CUdeviceptr dev = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&dev, 4 * page), CUDA_SUCCESS);
    auto* none = static_cast<uint8_t*>(mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    auto* ro = static_cast<uint8_t*>(mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    // Two pages of which only the first stays mapped: a range that runs off the end of real memory.
    auto* half =
        static_cast<uint8_t*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(none, MAP_FAILED);
    ASSERT_NE(ro, MAP_FAILED);
    ASSERT_NE(half, MAP_FAILED);
    ASSERT_EQ(munmap(half + page, page), 0);

    EXPECT_EQ(api().cuMemcpy(dev, addr(none), 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpy(addr(none), dev, 16), CUDA_ERROR_INVALID_VALUE);
    // Read-only memory is a valid source, not a destination.
    EXPECT_EQ(api().cuMemcpy(dev, addr(ro), page), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpy(addr(ro), dev, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(ro + 8, dev, 16), CUDA_ERROR_INVALID_VALUE);
    // The first page is fine, the range past it is not; nothing is copied.
    std::memset(half, 0x5a, page);
    EXPECT_EQ(api().cuMemcpy(addr(half), dev, page), CUDA_SUCCESS); // device memory is zero
    EXPECT_EQ(half[0], 0);
    std::memset(half, 0x5a, page);
    EXPECT_EQ(api().cuMemcpy(dev, addr(half), page + 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpy(addr(half) + page - 8, dev, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(half[page - 8], 0x5a);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);

    munmap(none, page);
    munmap(ro, page);
    munmap(half, page);
    EXPECT_EQ(api().cuMemFree_v2(dev), CUDA_SUCCESS);
}

TEST_F(CpuWildCopyTest, OrdinaryPageableMemoryStillCopies) {
    CUdeviceptr dev = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&dev, 1 << 20), CUDA_SUCCESS);
    std::vector<uint32_t> in(1 << 18), out(1 << 18, 0);
    for (size_t i = 0; i < in.size(); ++i) in[i] = uint32_t(i * 2654435761u);
    // Unaligned start and end: the probe covers every page the range touches, no more.
    EXPECT_EQ(api().cuMemcpy(dev, addr(in.data()) + 3, (1 << 20) - 7), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpy(addr(out.data()) + 3, dev, (1 << 20) - 7), CUDA_SUCCESS);
    EXPECT_EQ(std::memcmp(reinterpret_cast<uint8_t*>(in.data()) + 3, reinterpret_cast<uint8_t*>(out.data()) + 3,
                          (1 << 20) - 7),
              0);
    // Host to host through unified addresses, and an async copy from a stack array.
    std::vector<uint32_t> copy(in.size());
    EXPECT_EQ(api().cuMemcpy(addr(copy.data()), addr(in.data()), in.size() * 4), CUDA_SUCCESS);
    EXPECT_EQ(copy, in);
    uint32_t local[4] = {1, 2, 3, 4}, back[4] = {};
    EXPECT_EQ(api().cuMemcpyAsync(dev, addr(local), sizeof local, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyAsync(addr(back), dev, sizeof back, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(std::memcmp(local, back, sizeof local), 0);
    EXPECT_EQ(api().cuMemFree_v2(dev), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
