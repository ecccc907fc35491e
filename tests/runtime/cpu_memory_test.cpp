// cpu backend: allocations, host memory, memset, every memcpy form (ranges checked), pointer attributes.
#include <cstring>
#include <numeric>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuMemoryTest = CpuBackendTest;

TEST_F(CpuMemoryTest, AllocFreeAndAddressRange) {
    CUdeviceptr p = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&p, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAlloc_v2(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuMemAlloc_v2(&p, 1000), CUDA_SUCCESS);
    EXPECT_EQ(p % 256, 0u);
    CUdeviceptr base = 0;
    size_t size = 0;
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &size, p + 999), CUDA_SUCCESS);
    EXPECT_EQ(base, p);
    EXPECT_EQ(size, 1000u);
    EXPECT_EQ(api().cuMemGetAddressRange_v2(&base, &size, p + 1000), CUDA_ERROR_NOT_FOUND);
    // New device memory reads as zeros here (ptxsim zero-fills).
    std::vector<uint8_t> host(1000, 0xff);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(host.data(), p, 1000), CUDA_SUCCESS);
    EXPECT_EQ(std::count(host.begin(), host.end(), 0), 1000);
    EXPECT_EQ(api().cuMemFree_v2(p + 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemFree_v2(p), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(host.data(), p, 4), CUDA_ERROR_INVALID_VALUE);
    size_t free_bytes = 0, total = 0;
    EXPECT_EQ(api().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
    EXPECT_GT(total, 0u);
    EXPECT_LE(free_bytes, total);
}

TEST_F(CpuMemoryTest, PitchAllocation) {
    CUdeviceptr p = 0;
    size_t pitch = 0;
    ASSERT_EQ(api().cuMemAllocPitch_v2(&p, &pitch, 100, 5, 4), CUDA_SUCCESS);
    EXPECT_EQ(pitch, 512u);
    size_t size = 0;
    EXPECT_EQ(api().cuMemGetAddressRange_v2(nullptr, &size, p), CUDA_SUCCESS);
    EXPECT_EQ(size, 512u * 5);
    CUdeviceptr q = 0;
    EXPECT_EQ(api().cuMemAllocPitch_v2(&q, &pitch, 513, 2, 16), CUDA_SUCCESS);
    EXPECT_EQ(pitch, 1024u);
    EXPECT_EQ(api().cuMemAllocPitch_v2(&q, &pitch, 100, 5, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemAllocPitch_v2(&q, &pitch, 0, 5, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemFree_v2(p), CUDA_SUCCESS);
}

TEST_F(CpuMemoryTest, LinearCopiesAreRangeChecked) {
    CUdeviceptr a = 0, b = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&a, 256), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemAlloc_v2(&b, 256), CUDA_SUCCESS);
    std::vector<uint8_t> src(256), dst(256, 0);
    std::iota(src.begin(), src.end(), 0);
    EXPECT_EQ(api().cuMemcpyHtoD_v2(a, src.data(), 256), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoD_v2(b + 16, a, 128), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(dst.data(), b, 256), CUDA_SUCCESS);
    for (int i = 0; i < 256; ++i) EXPECT_EQ(dst[i], (i >= 16 && i < 144) ? i - 16 : 0) << i;
    // One byte too many, on either side, anywhere: nothing is copied.
    EXPECT_EQ(api().cuMemcpyHtoD_v2(a + 1, src.data(), 256), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(dst.data(), b + 200, 57), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyDtoD_v2(b, a + 128, 129), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyDtoD_v2(0x1000, a, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyHtoD_v2(a, nullptr, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyHtoD_v2(a, src.data(), 0), CUDA_SUCCESS);
    // Unified cuMemcpy: device <-> device and device <-> host memory the API does not know.
    std::vector<uint8_t> back(64, 0);
    EXPECT_EQ(api().cuMemcpy(reinterpret_cast<CUdeviceptr>(back.data()), a + 100, 64), CUDA_SUCCESS);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(back[i], 100 + i);
    EXPECT_EQ(api().cuMemcpy(a, b + 250, 7), CUDA_ERROR_INVALID_VALUE);
    // Async forms with pageable memory: the source is staged at the call, so it may change right after.
    std::vector<uint8_t> pageable(32, 0xab);
    EXPECT_EQ(api().cuMemcpyHtoDAsync_v2(a, pageable.data(), 32, nullptr), CUDA_SUCCESS);
    std::fill(pageable.begin(), pageable.end(), 0);
    EXPECT_EQ(api().cuMemcpyDtoDAsync_v2(b, a, 32, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoHAsync_v2(pageable.data(), b, 32, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(std::count(pageable.begin(), pageable.end(), 0xab), 32); // DtoH to pageable memory returns done
    EXPECT_EQ(api().cuMemcpyHtoDAsync_v2(a + 250, pageable.data(), 32, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyAsync(a, b, 16, reinterpret_cast<CUstream>(0x1234)), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    api().cuMemFree_v2(a);
    api().cuMemFree_v2(b);
}

TEST_F(CpuMemoryTest, Memset) {
    CUdeviceptr p = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&p, 1024), CUDA_SUCCESS);
    std::vector<uint8_t> h(1024);
    EXPECT_EQ(api().cuMemsetD8_v2(p, 0x5a, 1024), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD16_v2(p + 2, 0x1234, 3), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD32Async(p + 16, 0xdeadbeef, 2, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(h.data(), p, 1024), CUDA_SUCCESS);
    const uint8_t expect_head[24] = {0x5a, 0x5a, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0x5a, 0x5a, 0x5a, 0x5a,
                                     0x5a, 0x5a, 0x5a, 0x5a, 0xef, 0xbe, 0xad, 0xde, 0xef, 0xbe, 0xad, 0xde};
    EXPECT_EQ(std::memcmp(h.data(), expect_head, 24), 0);
    EXPECT_EQ(h[24], 0x5a);
    EXPECT_EQ(api().cuMemsetD32_v2(p + 2, 1, 1), CUDA_ERROR_INVALID_VALUE);    // misaligned
    EXPECT_EQ(api().cuMemsetD32_v2(p + 1020, 1, 2), CUDA_ERROR_INVALID_VALUE); // past the end
    // 2D: 3 rows of 5 u16 in rows of 64 bytes starting at byte 128; the gaps keep their bytes.
    EXPECT_EQ(api().cuMemsetD8_v2(p, 0, 1024), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD2D16_v2(p + 128, 64, 0xbeef, 5, 3), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(h.data(), p, 1024), CUDA_SUCCESS);
    for (size_t i = 0; i < 1024; ++i) {
        bool inside = i >= 128 && (i - 128) / 64 < 3 && (i - 128) % 64 < 10;
        uint8_t want = inside ? ((i % 2) ? 0xbe : 0xef) : 0;
        ASSERT_EQ(h[i], want) << i;
    }
    EXPECT_EQ(api().cuMemsetD2D32_v2(p, 8, 0, 4, 2), CUDA_ERROR_INVALID_VALUE); // pitch below the row
    EXPECT_EQ(api().cuMemsetD2D8_v2(p + 512, 256, 1, 200, 3), CUDA_ERROR_INVALID_VALUE);
    // Pitches whose (height - 1) * pitch wraps past 2^64 (issue 14, item 1): refused, nothing written.
    EXPECT_EQ(api().cuMemsetD8_v2(p, 0x11, 1024), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD2D8_v2(p, size_t(1) << 63, 0x22, 4, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemsetD2D16_v2(p, ~size_t(0) - 1, 0x2222, 2, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemsetD2D32_v2(p, (size_t(1) << 62) + 4, 0x22222222, 1, 5), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemsetD2D32Async(p, size_t(1) << 63, 0x22222222, 1, 3, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(h.data(), p, 1024), CUDA_SUCCESS);
    for (size_t i = 0; i < 1024; ++i) ASSERT_EQ(h[i], 0x11) << i;
    api().cuMemFree_v2(p);
}

TEST_F(CpuMemoryTest, Copy2DWithPitchesAndOffsets) {
    CUdeviceptr d = 0;
    size_t pitch = 0;
    ASSERT_EQ(api().cuMemAllocPitch_v2(&d, &pitch, 100, 6, 4), CUDA_SUCCESS);
    ASSERT_EQ(api().cuMemsetD8_v2(d, 0, pitch * 6), CUDA_SUCCESS);
    // Host source: 7 rows of 120 bytes, value = row * 120 + column (mod 256).
    std::vector<uint8_t> src(7 * 120);
    for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i);
    CUDA_MEMCPY2D c{};
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src.data();
    c.srcPitch = 120;
    c.srcXInBytes = 10;
    c.srcY = 1;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = d;
    c.dstPitch = pitch;
    c.dstXInBytes = 4;
    c.dstY = 2;
    c.WidthInBytes = 90;
    c.Height = 4;
    ASSERT_EQ(api().cuMemcpy2D_v2(&c), CUDA_SUCCESS);
    // Back to a host image of 6 rows x 128 bytes, all of it.
    std::vector<uint8_t> out(6 * 128, 0xff);
    CUDA_MEMCPY2D b{};
    b.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    b.srcDevice = d;
    b.srcPitch = pitch;
    b.dstMemoryType = CU_MEMORYTYPE_HOST;
    b.dstHost = out.data();
    b.dstPitch = 128;
    b.WidthInBytes = 100;
    b.Height = 6;
    ASSERT_EQ(api().cuMemcpy2DAsync_v2(&b, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    for (size_t y = 0; y < 6; ++y)
        for (size_t x = 0; x < 128; ++x) {
            uint8_t want = 0xff; // untouched bytes past WidthInBytes
            if (x < 100) {
                bool copied = y >= 2 && y < 6 && x >= 4 && x < 94;
                want = copied ? uint8_t((y - 2 + 1) * 120 + (x - 4 + 10)) : 0;
            }
            ASSERT_EQ(out[y * 128 + x], want) << y << "," << x;
        }
    // Out of range: one row too many on the device side, a pitch smaller than the row, a bad type.
    CUDA_MEMCPY2D bad = c;
    bad.dstY = 3;
    EXPECT_EQ(api().cuMemcpy2D_v2(&bad), CUDA_ERROR_INVALID_VALUE);
    bad = c;
    bad.srcPitch = 50;
    EXPECT_EQ(api().cuMemcpy2D_v2(&bad), CUDA_ERROR_INVALID_VALUE);
    bad = c;
    bad.dstMemoryType = static_cast<CUmemorytype>(5);
    EXPECT_EQ(api().cuMemcpy2D_v2(&bad), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpy2D_v2(nullptr), CUDA_ERROR_INVALID_VALUE);
    api().cuMemFree_v2(d);
}

TEST_F(CpuMemoryTest, Copy3DAndArrays) {
    // Device volume: pitch 64, 5 rows per slice, 4 slices.
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 64 * 5 * 4), CUDA_SUCCESS);
    std::vector<uint8_t> src(32 * 3 * 2);
    for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 7 + 1);
    CUDA_MEMCPY3D c{};
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src.data();
    c.srcPitch = 32;
    c.srcHeight = 3;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = d;
    c.dstPitch = 64;
    c.dstHeight = 5;
    c.dstXInBytes = 8;
    c.dstY = 1;
    c.dstZ = 2;
    c.WidthInBytes = 32;
    c.Height = 3;
    c.Depth = 2;
    ASSERT_EQ(api().cuMemcpy3D_v2(&c), CUDA_SUCCESS);
    std::vector<uint8_t> all(64 * 5 * 4);
    ASSERT_EQ(api().cuMemcpyDtoH_v2(all.data(), d, all.size()), CUDA_SUCCESS);
    for (size_t z = 0; z < 4; ++z)
        for (size_t y = 0; y < 5; ++y)
            for (size_t x = 0; x < 64; ++x) {
                bool in = z >= 2 && y >= 1 && y < 4 && x >= 8 && x < 40;
                uint8_t want = in ? src[(z - 2) * 96 + (y - 1) * 32 + (x - 8)] : 0;
                ASSERT_EQ(all[(z * 5 + y) * 64 + x], want) << z << "," << y << "," << x;
            }
    CUDA_MEMCPY3D bad = c;
    bad.dstZ = 3; // the second slice would be past the allocation
    EXPECT_EQ(api().cuMemcpy3D_v2(&bad), CUDA_ERROR_INVALID_VALUE);
    bad = c;
    bad.srcHeight = 2; // slice height below Height
    EXPECT_EQ(api().cuMemcpy3D_v2(&bad), CUDA_ERROR_INVALID_VALUE);

    // A 3D float array (8 x 4 x 2 texels, 32 bytes a row): host -> array -> device -> host.
    CUDA_ARRAY3D_DESCRIPTOR ad{8, 4, 2, CU_AD_FORMAT_FLOAT, 1, 0};
    CUarray arr = nullptr;
    ASSERT_EQ(api().cuArray3DCreate_v2(&arr, &ad), CUDA_SUCCESS);
    CUDA_ARRAY3D_DESCRIPTOR got{};
    EXPECT_EQ(api().cuArray3DGetDescriptor_v2(&got, arr), CUDA_SUCCESS);
    EXPECT_EQ(got.Width, 8u);
    EXPECT_EQ(got.Depth, 2u);
    EXPECT_EQ(got.Format, CU_AD_FORMAT_FLOAT);
    CUDA_ARRAY_DESCRIPTOR got2{};
    // A 3D array's 2D descriptor: width, height, format, channels (NVIDIA's driver 580 answers so).
    EXPECT_EQ(api().cuArrayGetDescriptor_v2(&got2, arr), CUDA_SUCCESS);
    EXPECT_EQ(got2.Width, 8u);
    EXPECT_EQ(got2.Height, 4u);
    EXPECT_EQ(got2.Format, CU_AD_FORMAT_FLOAT);
    EXPECT_EQ(got2.NumChannels, 1u);
    std::vector<float> texels(8 * 4 * 2);
    for (size_t i = 0; i < texels.size(); ++i) texels[i] = float(i) * 0.5f;
    CUDA_MEMCPY3D to{};
    to.srcMemoryType = CU_MEMORYTYPE_HOST;
    to.srcHost = texels.data();
    to.srcPitch = 32;
    to.srcHeight = 4;
    to.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    to.dstArray = arr;
    to.WidthInBytes = 32;
    to.Height = 4;
    to.Depth = 2;
    ASSERT_EQ(api().cuMemcpy3DAsync_v2(&to, nullptr), CUDA_SUCCESS);
    // Array -> host: only texel column 2..5 of row 3 of slice 1.
    std::vector<float> part(4, -1.0f);
    CUDA_MEMCPY3D from{};
    from.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    from.srcArray = arr;
    from.srcXInBytes = 8;
    from.srcY = 3;
    from.srcZ = 1;
    from.dstMemoryType = CU_MEMORYTYPE_HOST;
    from.dstHost = part.data();
    from.dstPitch = 16;
    from.dstHeight = 1;
    from.WidthInBytes = 16;
    from.Height = 1;
    from.Depth = 1;
    ASSERT_EQ(api().cuMemcpy3D_v2(&from), CUDA_SUCCESS);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(part[i], float(1 * 32 + 3 * 8 + 2 + i) * 0.5f);
    from.srcXInBytes = 20; // 20 + 16 > 32 bytes a row
    EXPECT_EQ(api().cuMemcpy3D_v2(&from), CUDA_ERROR_INVALID_VALUE);
    // 1D view of the array.
    float one = 0;
    EXPECT_EQ(api().cuMemcpyAtoH_v2(&one, arr, 4 * 37, 4), CUDA_SUCCESS);
    EXPECT_EQ(one, 37 * 0.5f);
    float nine = 9.0f;
    EXPECT_EQ(api().cuMemcpyHtoA_v2(arr, 4 * 63, &nine, 4), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyAtoH_v2(&one, arr, 4 * 63, 4), CUDA_SUCCESS);
    EXPECT_EQ(one, 9.0f);
    EXPECT_EQ(api().cuMemcpyHtoA_v2(arr, 4 * 63, &nine, 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuArrayDestroy(arr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuArrayDestroy(arr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuMemcpyAtoH_v2(&one, arr, 0, 4), CUDA_ERROR_INVALID_HANDLE);
    CUDA_ARRAY_DESCRIPTOR bad_desc{16, 16, CU_AD_FORMAT_FLOAT, 3};
    EXPECT_EQ(api().cuArrayCreate_v2(&arr, &bad_desc), CUDA_ERROR_INVALID_VALUE);
    api().cuMemFree_v2(d);
}

TEST_F(CpuMemoryTest, HostMemoryAndPointerAttributes) {
    void* h = nullptr;
    ASSERT_EQ(api().cuMemHostAlloc(&h, 4096, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
    CUdeviceptr dh = 0;
    EXPECT_EQ(api().cuMemHostGetDevicePointer_v2(&dh, h, 0), CUDA_SUCCESS);
    EXPECT_EQ(dh, reinterpret_cast<CUdeviceptr>(h));
    CUdeviceptr refused = 1;
    EXPECT_EQ(api().cuMemHostGetDevicePointer_v2(&refused, h, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(refused, 0u); // out-parameters are cleared first
    unsigned type = 0;
    EXPECT_EQ(api().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dh), CUDA_SUCCESS);
    EXPECT_EQ(type, unsigned(CU_MEMORYTYPE_HOST));
    void* hp = nullptr;
    EXPECT_EQ(api().cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, dh + 8), CUDA_SUCCESS);
    EXPECT_EQ(hp, static_cast<char*>(h) + 8);

    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 300), CUDA_SUCCESS);
    EXPECT_EQ(api().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 10), CUDA_SUCCESS);
    EXPECT_EQ(type, unsigned(CU_MEMORYTYPE_DEVICE));
    CUcontext ctx = nullptr;
    EXPECT_EQ(api().cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, d), CUDA_SUCCESS);
    EXPECT_EQ(ctx, m_ctx);
    CUdeviceptr start = 0;
    size_t size = 0;
    EXPECT_EQ(api().cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 299), CUDA_SUCCESS);
    EXPECT_EQ(start, d);
    EXPECT_EQ(api().cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d), CUDA_SUCCESS);
    EXPECT_EQ(size, 300u);
    EXPECT_EQ(api().cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d), CUDA_ERROR_INVALID_VALUE);
    unsigned long long id1 = 0, id2 = 0;
    EXPECT_EQ(api().cuPointerGetAttribute(&id1, CU_POINTER_ATTRIBUTE_BUFFER_ID, d), CUDA_SUCCESS);
    EXPECT_EQ(api().cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, dh), CUDA_SUCCESS);
    EXPECT_NE(id1, id2);
    int local = 0;
    EXPECT_EQ(
        api().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(&local)),
        CUDA_ERROR_INVALID_VALUE);
    // The plural form answers for unknown pointers with zeros.
    CUpointer_attribute attrs[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
                                    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    unsigned mt = 7;
    CUcontext c2 = reinterpret_cast<CUcontext>(0x1);
    int ordinal = 5;
    void* data[3] = {&mt, &c2, &ordinal};
    EXPECT_EQ(api().cuPointerGetAttributes(3, attrs, data, reinterpret_cast<CUdeviceptr>(&local)), CUDA_SUCCESS);
    EXPECT_EQ(mt, 0u);
    EXPECT_EQ(c2, nullptr);
    EXPECT_EQ(api().cuPointerGetAttributes(3, attrs, data, d), CUDA_SUCCESS);
    EXPECT_EQ(mt, unsigned(CU_MEMORYTYPE_DEVICE));
    EXPECT_EQ(c2, m_ctx);
    EXPECT_EQ(ordinal, 0);

    EXPECT_EQ(api().cuMemFreeHost(reinterpret_cast<void*>(d)), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemFree_v2(dh), CUDA_ERROR_INVALID_VALUE); // host memory is not cuMemFree's
    EXPECT_EQ(api().cuMemFreeHost(h), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
    void* h2 = nullptr;
    EXPECT_EQ(api().cuMemAllocHost_v2(&h2, 64), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFreeHost(h2), CUDA_SUCCESS);
    api().cuMemFree_v2(d);
}

TEST_F(CpuMemoryTest, HostRegister) {
    std::vector<uint8_t> buf(8192, 3);
    EXPECT_EQ(api().cuMemHostRegister_v2(buf.data(), buf.size(), 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemHostRegister_v2(buf.data() + 100, 10, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    unsigned type = 0;
    EXPECT_EQ(
        api().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(buf.data())),
        CUDA_SUCCESS);
    EXPECT_EQ(type, unsigned(CU_MEMORYTYPE_HOST));
    // Async copies read registered memory when the stream gets there.
    CUdeviceptr d = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&d, 8192), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyHtoDAsync_v2(d, buf.data(), 8192, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyHtoDAsync_v2(d, buf.data(), 8193, nullptr),
              CUDA_ERROR_INVALID_VALUE); // past the allocation
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    uint8_t b = 0;
    EXPECT_EQ(api().cuMemcpyDtoH_v2(&b, d + 8191, 1), CUDA_SUCCESS);
    EXPECT_EQ(b, 3);
    // Registered memory is mapped at its own address (with or without DEVICEMAP).
    CUdeviceptr mapped = 0;
    EXPECT_EQ(api().cuMemHostGetDevicePointer_v2(&mapped, buf.data() + 16, 0), CUDA_SUCCESS);
    EXPECT_EQ(mapped, reinterpret_cast<CUdeviceptr>(buf.data() + 16));
    EXPECT_EQ(api().cuMemHostUnregister(buf.data() + 1), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT_EQ(api().cuMemHostUnregister(buf.data()), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemHostUnregister(buf.data()), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT_EQ(api().cuMemHostGetDevicePointer_v2(&mapped, buf.data(), 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(mapped, 0u);
    EXPECT_EQ(api().cuMemHostRegister_v2(buf.data(), buf.size(), CU_MEMHOSTREGISTER_IOMEMORY),
              CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(api().cuMemHostRegister_v2(buf.data(), buf.size(), 0x10), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemHostRegister_v2(nullptr, 16, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemHostRegister_v2(buf.data(), 0, 0), CUDA_ERROR_INVALID_VALUE);
    api().cuMemFree_v2(d);
}

TEST_F(CpuMemoryTest, StreamOrderedAllocation) {
    CUstream s = nullptr;
    ASSERT_EQ(api().cuStreamCreate(&s, 0), CUDA_SUCCESS);
    CUdeviceptr p = 0;
    ASSERT_EQ(api().cuMemAllocAsync(&p, 4096, s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD32Async(p, 0x01020304, 1024, s), CUDA_SUCCESS);
    uint32_t v = 0;
    EXPECT_EQ(api().cuMemcpyDtoHAsync_v2(&v, p + 4092, 4, s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFreeAsync(p, s), CUDA_SUCCESS);
    EXPECT_EQ(api().cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(v, 0x01020304u);
    EXPECT_EQ(api().cuMemFreeAsync(p, s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(&v, p, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
