// cpu backend: memory the API maps rather than allocates: registered host memory, managed memory and
// virtual memory management (reservations, cuMemCreate allocations, mappings, access, shareable handles).
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <numeric>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuMappedMemoryTest = CpuBackendTest;

// add_one over N words at P (one block of up to 256 threads per 256 words).
CUresult add_one(CUfunction f, CUdeviceptr p, uint32_t n) {
    void* args[] = {&p, &n};
    return api().cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
}

TEST_F(CpuMappedMemoryTest, RegisteredHostMemoryIsUsedByKernels) {
    CUmodule m = load_test_module();
    CUfunction f = function(m, "add_one");
    alignas(64) static uint32_t words[1000];
    std::iota(words, words + 1000, 0u);
    // Not registered: a kernel faults on it (ptxsim only reaches memory the API knows).
    CUdeviceptr raw = reinterpret_cast<CUdeviceptr>(words);
    EXPECT_EQ(add_one(f, raw, 1000), CUDA_SUCCESS);
    EXPECT_NE(api().cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxDestroy_v2(m_ctx), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxCreate_v2(&m_ctx, 0, 0), CUDA_SUCCESS);
    m = load_test_module();
    f = function(m, "add_one");

    ASSERT_EQ(
        api().cuMemHostRegister_v2(words, sizeof words, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE),
        CUDA_SUCCESS);
    unsigned flags = 0;
    EXPECT_EQ(api().cuMemHostGetFlags(&flags, words + 10), CUDA_SUCCESS);
    EXPECT_EQ(flags, unsigned(CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE));
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemHostGetDevicePointer_v2(&d, words, 0), CUDA_SUCCESS);
    EXPECT_EQ(d, raw);
    ASSERT_EQ(add_one(f, d, 1000), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(words[i], i + 1) << i;
    // One word past the registered range is outside it: the kernel faults there.
    EXPECT_EQ(add_one(f, d + 4, 1000), CUDA_SUCCESS);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    ASSERT_EQ(api().cuCtxDestroy_v2(m_ctx), CUDA_SUCCESS); // drops the registration with the context
    ASSERT_EQ(api().cuCtxCreate_v2(&m_ctx, 0, 0), CUDA_SUCCESS);
    std::iota(words, words + 1000, 0u);

    // Copies and memset accept the registered range as device memory; pointer attributes describe it.
    ASSERT_EQ(api().cuMemHostRegister_v2(words, sizeof words, CU_MEMHOSTREGISTER_READ_ONLY), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD32_v2(d + 40, 7, 10), CUDA_SUCCESS);
    EXPECT_EQ(words[10], 7u);
    EXPECT_EQ(words[20], 20u);
    EXPECT_EQ(api().cuMemsetD32_v2(d + 40, 7, 1000), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr dev = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&dev, 64), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoD_v2(dev, d + 40, 64), CUDA_SUCCESS);
    uint32_t back[16] = {};
    EXPECT_EQ(api().cuMemcpyDtoH_v2(back, dev, 64), CUDA_SUCCESS);
    EXPECT_EQ(back[0], 7u);
    EXPECT_EQ(back[15], 25u);
    int mapped = 0;
    CUdeviceptr dp = 0;
    EXPECT_EQ(api().cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, d + 8), CUDA_SUCCESS);
    EXPECT_NE(mapped & 0xff, 0);
    EXPECT_EQ(api().cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 8), CUDA_SUCCESS);
    EXPECT_EQ(dp, d + 8);
    // The registered range is an address range of its own, as on NVIDIA's driver (registered_memory_probe.cu).
    CUdeviceptr range_base = 0;
    size_t range_size = 0;
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&range_base, &range_size, d + 100), CUDA_SUCCESS);
    EXPECT_EQ(range_base, d);
    EXPECT_EQ(range_size, sizeof words);
    EXPECT_EQ(api().cuMemHostGetFlags(nullptr, words), CUDA_ERROR_INVALID_VALUE);
    int local = 0;
    EXPECT_EQ(api().cuMemHostGetFlags(&flags, &local), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemHostUnregister(words), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(dev), CUDA_SUCCESS);
}

TEST_F(CpuMappedMemoryTest, ManagedMemory) {
    int v = 0;
    EXPECT_EQ(api().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 0), CUDA_SUCCESS);
    EXPECT_EQ(v, 1);
    EXPECT_EQ(api().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 0), CUDA_SUCCESS);
    EXPECT_EQ(v, 1);
    EXPECT_EQ(api().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0), CUDA_SUCCESS);
    EXPECT_EQ(v, 0);

    CUdeviceptr p = 0;
    EXPECT_EQ(api().cuMemAllocManaged(&p, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAllocManaged(&p, 64, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAllocManaged(&p, 64, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAllocManaged(nullptr, 64, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    auto* host = reinterpret_cast<uint32_t*>(p);
    for (uint32_t i = 0; i < 1024; ++i) host[i] = 10 * i; // the host writes it directly
    CUmodule m = load_test_module();
    ASSERT_EQ(add_one(function(m, "add_one"), p, 1024), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    for (uint32_t i = 0; i < 1024; ++i) ASSERT_EQ(host[i], 10 * i + 1) << i;

    int managed = 0;
    EXPECT_EQ(api().cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p + 100), CUDA_SUCCESS);
    EXPECT_EQ(managed & 0xff, 1);
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 64), CUDA_SUCCESS);
    managed = 0x55;
    EXPECT_EQ(api().cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d), CUDA_SUCCESS);
    EXPECT_EQ(managed & 0xff, 0);

    // Advice and prefetches are recorded and read back per range.
    int value = 0;
    EXPECT_EQ(api().cuMemRangeGetAttribute(&value, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 4096),
              CUDA_SUCCESS);
    EXPECT_EQ(value, -2); // CU_DEVICE_INVALID: never prefetched
    EXPECT_EQ(api().cuMemPrefetchAsync(p, 4096, 0, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemRangeGetAttribute(&value, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 4096),
              CUDA_SUCCESS);
    EXPECT_EQ(value, 0);
    CUmemLocation host_loc{CU_MEM_LOCATION_TYPE_HOST, 0};
    EXPECT_EQ(api().cuMemPrefetchAsync_v2(p, 1024, host_loc, 0, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemRangeGetAttribute(&value, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 4096),
              CUDA_SUCCESS);
    EXPECT_EQ(value, -1); // CU_DEVICE_CPU
    EXPECT_EQ(api().cuMemPrefetchAsync(p, 4096, 3, nullptr), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_EQ(api().cuMemPrefetchAsync(p, 4097, 0, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemPrefetchAsync(d, 64, 0, nullptr), CUDA_ERROR_INVALID_VALUE); // not managed
    EXPECT_EQ(api().cuMemPrefetchAsync_v2(p, 64, host_loc, 1, nullptr), CUDA_ERROR_INVALID_VALUE);

    EXPECT_EQ(api().cuMemAdvise(p, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemAdvise(p, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, -1), CUDA_SUCCESS);
    CUmemLocation dev_loc{CU_MEM_LOCATION_TYPE_DEVICE, 0};
    EXPECT_EQ(api().cuMemAdvise_v2(p, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, dev_loc), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemAdvise(p, 4096, static_cast<CUmem_advise>(9), 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAdvise(p, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, 5), CUDA_ERROR_INVALID_DEVICE);
    int read_mostly = 0, preferred = 0, accessed[3] = {7, 7, 7};
    void* data[] = {&read_mostly, &preferred, accessed};
    size_t sizes[] = {4, 4, sizeof accessed};
    CUmem_range_attribute attrs[] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
                                     CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY};
    EXPECT_EQ(api().cuMemRangeGetAttributes(data, sizes, attrs, 3, p, 4096), CUDA_SUCCESS);
    EXPECT_EQ(read_mostly, 1);
    EXPECT_EQ(preferred, -1);
    EXPECT_EQ(accessed[0], 0);
    EXPECT_EQ(accessed[1], -2);
    EXPECT_EQ(api().cuMemRangeGetAttribute(&value, 8, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4096),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemRangeGetAttribute(&value, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 64),
              CUDA_ERROR_INVALID_VALUE);

    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamAttachMemAsync(s, p, 0, CU_MEM_ATTACH_SINGLE), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamAttachMemAsync(s, p, 4096, CU_MEM_ATTACH_HOST), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamAttachMemAsync(s, p, 100, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuStreamAttachMemAsync(s, p, 0, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuStreamAttachMemAsync(s, d, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);

    EXPECT_EQ(api().cuMemFree_v2(p), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemRangeGetAttribute(&value, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemFree_v2(d), CUDA_SUCCESS);
}

CUmemAllocationProp device_prop(unsigned handle_types = 0) {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, 0};
    prop.requestedHandleTypes = static_cast<CUmemAllocationHandleType>(handle_types);
    return prop;
}

TEST_F(CpuMappedMemoryTest, VirtualMemoryTwoMappingsShareTheirBytes) {
    int v = 0;
    EXPECT_EQ(api().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0), CUDA_SUCCESS);
    EXPECT_EQ(v, 1);
    CUmemAllocationProp prop = device_prop(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    size_t gran = 0, rec = 0;
    ASSERT_EQ(api().cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemGetAllocationGranularity(&rec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
    EXPECT_EQ(gran, size_t(sysconf(_SC_PAGE_SIZE)));
    EXPECT_EQ(rec % gran, 0u);
    const size_t size = 4 * gran;

    CUmemGenericAllocationHandle h = 0;
    ASSERT_EQ(api().cuMemCreate(&h, size, &prop, 0), CUDA_SUCCESS);
    CUdeviceptr a = 0, b = 0;
    ASSERT_EQ(api().cuMemAddressReserve(&a, size, 0, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemAddressReserve(&b, 2 * size, rec, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(b % rec, 0u);
    ASSERT_EQ(api().cuMemMap(a, size, 0, h, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemMap(b + size, size, 0, h, 0), CUDA_SUCCESS);      // the same memory, a second address
    EXPECT_EQ(api().cuMemMap(a, size, 0, h, 0), CUDA_ERROR_INVALID_VALUE); // already mapped there
    EXPECT_EQ(api().cuMemRelease(h), CUDA_SUCCESS);                        // the mappings keep the memory

    // Mapped but not yet accessible: no copy may touch it.
    std::vector<uint32_t> src(size / 4);
    std::iota(src.begin(), src.end(), 1u);
    EXPECT_EQ(api().cuMemcpyHtoD_v2(a, src.data(), size), CUDA_ERROR_INVALID_VALUE);
    // Nor a unified copy, which takes unknown memory for pageable host memory (but not reserved space).
    EXPECT_EQ(api().cuMemcpy(a, reinterpret_cast<CUdeviceptr>(src.data()), 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(src.data(), b, 16), CUDA_ERROR_INVALID_VALUE); // reserved, never mapped
    CUmemLocation loc{CU_MEM_LOCATION_TYPE_DEVICE, 0};
    unsigned long long access = 99;
    EXPECT_EQ(api().cuMemGetAccess(&access, &loc, a), CUDA_SUCCESS);
    EXPECT_EQ(access, 0u);
    CUmemAccessDesc desc{loc, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    ASSERT_EQ(api().cuMemSetAccess(a, size, &desc, 1), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemSetAccess(b + size, size, &desc, 1), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemGetAccess(&access, &loc, a + 100), CUDA_SUCCESS);
    EXPECT_EQ(access, unsigned(CU_MEM_ACCESS_FLAGS_PROT_READWRITE));

    // Written through one mapping, read through the other (by a copy and by a kernel).
    ASSERT_EQ(api().cuMemcpyHtoD_v2(a, src.data(), size), CUDA_SUCCESS);
    std::vector<uint32_t> back(size / 4);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(back.data(), b + size, size), CUDA_SUCCESS);
    EXPECT_EQ(back, src);
    CUmodule m = load_test_module();
    ASSERT_EQ(add_one(function(m, "add_one"), b + size, uint32_t(size / 4)), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(back.data(), a, size), CUDA_SUCCESS);
    for (size_t i = 0; i < back.size(); ++i) ASSERT_EQ(back[i], src[i] + 1) << i;
    CUdeviceptr base = 0;
    size_t range = 0;
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &range, a + 10), CUDA_SUCCESS);
    EXPECT_EQ(base, a);
    EXPECT_EQ(range, size);

    // The handle of a mapping, its properties, a POSIX descriptor that imports the same memory.
    CUmemGenericAllocationHandle again = 0;
    ASSERT_EQ(api().cuMemRetainAllocationHandle(&again, reinterpret_cast<void*>(b + size + 8)), CUDA_SUCCESS);
    CUmemAllocationProp got{};
    EXPECT_EQ(api().cuMemGetAllocationPropertiesFromHandle(&got, again), CUDA_SUCCESS);
    EXPECT_EQ(got.type, CU_MEM_ALLOCATION_TYPE_PINNED);
    EXPECT_EQ(got.location.type, CU_MEM_LOCATION_TYPE_DEVICE);
    EXPECT_EQ(got.requestedHandleTypes, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    int fd = -1;
    ASSERT_EQ(api().cuMemExportToShareableHandle(&fd, again, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
              CUDA_SUCCESS);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(api().cuMemExportToShareableHandle(&fd, again, CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_NOT_SUPPORTED);
    CUmemGenericAllocationHandle imported = 0;
    ASSERT_EQ(api().cuMemImportFromShareableHandle(&imported, reinterpret_cast<void*>(intptr_t(fd)),
                                                   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
              CUDA_SUCCESS);
    close(fd);
    CUdeviceptr c = 0;
    ASSERT_EQ(api().cuMemAddressReserve(&c, size, 0, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemMap(c, gran, gran, imported, 0), CUDA_SUCCESS); // the second page only
    ASSERT_EQ(api().cuMemSetAccess(c, gran, &desc, 1), CUDA_SUCCESS);
    uint32_t word = 0;
    ASSERT_EQ(api().cuMemcpyDtoH_v2(&word, c, 4), CUDA_SUCCESS);
    EXPECT_EQ(word, src[gran / 4] + 1);
    EXPECT_EQ(api().cuMemUnmap(c, gran), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemRelease(imported), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemAddressFree(c, size), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemRelease(again), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemRelease(again), CUDA_ERROR_INVALID_VALUE);

    // Access taken away, then unmapped: copies are refused again; the reservation must be empty to go.
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    EXPECT_EQ(api().cuMemSetAccess(b + size, size, &desc, 1), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(back.data(), b + size, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemUnmap(a, gran), CUDA_ERROR_INVALID_VALUE);       // part of a mapping
    EXPECT_EQ(api().cuMemAddressFree(a, size), CUDA_ERROR_INVALID_VALUE); // still mapped
    EXPECT_EQ(api().cuMemUnmap(a, size), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemUnmap(b + size, size), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(back.data(), a, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpy(reinterpret_cast<CUdeviceptr>(back.data()), a, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemGetAccess(&access, &loc, a), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAddressFree(a, size), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemAddressFree(b, 2 * size), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemAddressFree(b, 2 * size), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(CpuMappedMemoryTest, VirtualMemoryPiecesMappedBackToBackAreOneRange) {
    CUmemAllocationProp prop = device_prop();
    size_t gran = 0;
    ASSERT_EQ(api().cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
    CUmemGenericAllocationHandle first = 0, second = 0;
    ASSERT_EQ(api().cuMemCreate(&first, gran, &prop, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemCreate(&second, 2 * gran, &prop, 0), CUDA_SUCCESS);
    CUdeviceptr r = 0;
    ASSERT_EQ(api().cuMemAddressReserve(&r, 4 * gran, 0, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemMap(r, gran, 0, first, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemMap(r + gran, 2 * gran, 0, second, 0), CUDA_SUCCESS);
    CUmemAccessDesc desc{{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    ASSERT_EQ(api().cuMemSetAccess(r, 3 * gran, &desc, 1), CUDA_SUCCESS); // both pieces at once
    // A copy and a memset across the seam, as a growable allocator does.
    std::vector<uint8_t> in(2 * gran), out(2 * gran, 0);
    std::iota(in.begin(), in.end(), uint8_t(3));
    ASSERT_EQ(api().cuMemcpyHtoD_v2(r + gran / 2, in.data(), in.size()), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(out.data(), r + gran / 2, out.size()), CUDA_SUCCESS);
    EXPECT_EQ(out, in);
    EXPECT_EQ(api().cuMemsetD8_v2(r, 0x5a, 3 * gran), CUDA_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uint8_t*>(r)[3 * gran - 1], 0x5a);
    EXPECT_EQ(api().cuMemsetD8_v2(r, 0x5a, 3 * gran + 1), CUDA_ERROR_INVALID_VALUE); // past the last piece
    EXPECT_EQ(api().cuMemUnmap(r, 3 * gran), CUDA_SUCCESS);                          // both pieces
    EXPECT_EQ(api().cuMemRelease(first), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemRelease(second), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemAddressFree(r, 4 * gran), CUDA_SUCCESS);
}

TEST_F(CpuMappedMemoryTest, VirtualMemoryRefusals) {
    CUmemAllocationProp prop = device_prop();
    size_t gran = 0;
    EXPECT_EQ(api().cuMemGetAllocationGranularity(nullptr, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemGetAllocationGranularity(&gran, nullptr, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
              CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
    CUmemGenericAllocationHandle h = 0;
    EXPECT_EQ(api().cuMemCreate(&h, gran + 1, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemCreate(&h, gran, &prop, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemCreate(nullptr, gran, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    CUmemAllocationProp other = prop;
    other.location.id = 3;
    EXPECT_EQ(api().cuMemCreate(&h, gran, &other, 0), CUDA_ERROR_INVALID_DEVICE);
    other = prop;
    other.type = CU_MEM_ALLOCATION_TYPE_MANAGED;
    EXPECT_EQ(api().cuMemCreate(&h, gran, &other, 0), CUDA_ERROR_INVALID_VALUE);
    other = prop;
    other.requestedHandleTypes = CU_MEM_HANDLE_TYPE_WIN32;
    EXPECT_EQ(api().cuMemCreate(&h, gran, &other, 0), CUDA_ERROR_NOT_SUPPORTED);
    other = prop;
    other.allocFlags.compressionType = 2; // neither none nor generic
    EXPECT_EQ(api().cuMemCreate(&h, gran, &other, 0), CUDA_ERROR_INVALID_VALUE);
    int compression = 0;
    EXPECT_EQ(api().cuDeviceGetAttribute(&compression, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0),
              CUDA_SUCCESS);
    EXPECT_EQ(compression, 1);                                         // as the H200
    other.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC; // granted, and said so
    ASSERT_EQ(api().cuMemCreate(&h, gran, &other, 0), CUDA_SUCCESS);
    CUmemAllocationProp got{};
    EXPECT_EQ(api().cuMemGetAllocationPropertiesFromHandle(&got, h), CUDA_SUCCESS);
    EXPECT_EQ(got.allocFlags.compressionType, CU_MEM_ALLOCATION_COMP_GENERIC);
    int fd = -1;
    EXPECT_EQ(api().cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
              CUDA_ERROR_INVALID_VALUE);

    CUdeviceptr r = 0;
    EXPECT_EQ(api().cuMemAddressReserve(&r, gran + 1, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAddressReserve(&r, gran, 3, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAddressReserve(nullptr, gran, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuMemAddressReserve(&r, 2 * gran, 0, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemMap(r, 2 * gran, 0, h, 0), CUDA_ERROR_INVALID_VALUE);        // larger than the allocation
    EXPECT_EQ(api().cuMemMap(r + 2 * gran, gran, 0, h, 0), CUDA_ERROR_INVALID_VALUE); // outside the reservation
    EXPECT_EQ(api().cuMemMap(r, gran, 0, 0x1234, 0), CUDA_ERROR_INVALID_VALUE);       // no such handle
    EXPECT_EQ(api().cuMemMap(r, gran, 0, h, 0), CUDA_SUCCESS);
    CUmemAccessDesc desc{{CU_MEM_LOCATION_TYPE_DEVICE, 1}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    EXPECT_EQ(api().cuMemSetAccess(r, gran, &desc, 1), CUDA_ERROR_INVALID_DEVICE);
    desc.location.id = 0;
    EXPECT_EQ(api().cuMemSetAccess(r, 2 * gran, &desc, 1), CUDA_ERROR_INVALID_VALUE); // not all mapped
    EXPECT_EQ(api().cuMemSetAccess(r, gran, nullptr, 1), CUDA_ERROR_INVALID_VALUE);
    desc.flags = static_cast<CUmemAccess_flags>(2);
    EXPECT_EQ(api().cuMemSetAccess(r, gran, &desc, 1), CUDA_ERROR_INVALID_VALUE);
    CUmemGenericAllocationHandle none = 1;
    EXPECT_EQ(api().cuMemRetainAllocationHandle(&none, reinterpret_cast<void*>(r + gran)), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(none, 0u);
    EXPECT_EQ(api().cuMemUnmap(r, gran), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemRelease(h), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAddressFree(r, gran), CUDA_ERROR_INVALID_VALUE); // not the reserved size
    EXPECT_EQ(api().cuMemAddressFree(r, 2 * gran), CUDA_SUCCESS);
    CUmemGenericAllocationHandle imported = 0;
    EXPECT_EQ(api().cuMemImportFromShareableHandle(&imported, reinterpret_cast<void*>(intptr_t(-1)),
                                                   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
              CUDA_ERROR_INVALID_VALUE);
}

} // namespace
} // namespace d4r::runtime::cpu_test
