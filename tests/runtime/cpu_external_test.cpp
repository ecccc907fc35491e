// cpu backend: external memory (a file descriptor another API exported, here a memfd laid out as a Mesa CPU Vulkan
// driver exports its allocations, or a plain one standing in for a dma-buf) and the external semaphores it refuses.
// tests/interop/vulkan_cuda_buffer.c does the same with lavapipe's own exported memory.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "cpu_test_util.h"
#include "runtime/backends/cpu/mesa_memory_fd.h"

namespace d4r::runtime::cpu_test {

namespace mesa = cpu::mesa;
namespace {

using CpuExternalTest = CpuBackendTest;

constexpr size_t kBytes = 64 * 1024;

// Where Mesa's CPU drivers put the data of memory they export: one page in, after their header (file size, data
// offset, driver UUID) and the data offset repeated in the 8 bytes before the data.
constexpr size_t kMesaDataOffset = 4096;
enum class Layout { Mesa, Plain };

// A memfd holding kBytes of 0, 1, 2, ... as words (after Mesa's header, or from byte 0), and the test's own view
// of those words (what the other API would see).
struct SharedFile {
    int fd = -1;
    uint8_t* map = nullptr;
    size_t file_size = 0;
    uint32_t* view = nullptr;
    explicit SharedFile(Layout layout = Layout::Mesa) {
        const size_t data = layout == Layout::Mesa ? kMesaDataOffset : 0;
        file_size = data + kBytes;
        fd = memfd_create("d4r-external-test", MFD_CLOEXEC);
        EXPECT_GE(fd, 0);
        EXPECT_EQ(ftruncate(fd, off_t(file_size)), 0);
        void* p = mmap(nullptr, file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        EXPECT_NE(p, MAP_FAILED);
        map = static_cast<uint8_t*>(p);
        if (layout == Layout::Mesa) {
            const uint64_t header[2] = {file_size, kMesaDataOffset};
            std::memcpy(map, header, sizeof header);
            std::memcpy(map + kMesaDataOffset - 8, &header[1], 8);
        }
        view = reinterpret_cast<uint32_t*>(map + data);
        std::iota(view, view + kBytes / 4, 0u);
    }
    ~SharedFile() {
        munmap(map, file_size);
        if (fd >= 0) close(fd);
    }
    // A descriptor to hand to the import (which owns it on success).
    int handoff() const { return dup(fd); }
    // Whether descriptor `other` is open on this file. The number alone does not say: once the import closes it,
    // any thread of the process (the runtime's, the sanitizer's) may be given the same number for another file.
    bool held_by(int other) const {
        struct stat mine{}, theirs{};
        return fstat(fd, &mine) == 0 && fstat(other, &theirs) == 0 && mine.st_dev == theirs.st_dev &&
               mine.st_ino == theirs.st_ino;
    }
};

CUDA_EXTERNAL_MEMORY_HANDLE_DESC fd_desc(int fd, unsigned long long size,
                                         CUexternalMemoryHandleType type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD) {
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d;
    std::memset(&d, 0, sizeof d);
    d.type = type;
    d.handle.fd = fd;
    d.size = size;
    return d;
}

CUDA_EXTERNAL_MEMORY_BUFFER_DESC buffer_desc(unsigned long long offset, unsigned long long size) {
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC b;
    std::memset(&b, 0, sizeof b);
    b.offset = offset;
    b.size = size;
    return b;
}

TEST_F(CpuExternalTest, ImportedMemoryIsSharedWithTheExporter) {
    SharedFile file;
    const int fd = file.handoff();
    CUexternalMemory mem = nullptr;
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc = fd_desc(fd, kBytes);
    ASSERT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_SUCCESS);
    EXPECT_FALSE(file.held_by(fd)) << "a successful import owns (and here closes) the descriptor";
    CUdeviceptr buf = 0;
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd = buffer_desc(4096, 8192);
    ASSERT_EQ(api().cuExternalMemoryGetMappedBuffer(&buf, mem, &bd), CUDA_SUCCESS);

    // Reads see the exporter's bytes at the offset; writes reach the exporter's view.
    uint32_t words[4] = {};
    ASSERT_EQ(api().cuMemcpyDtoH_v2(words, buf, sizeof words), CUDA_SUCCESS);
    EXPECT_EQ(words[0], 1024u);
    EXPECT_EQ(words[3], 1027u);
    ASSERT_EQ(api().cuMemsetD32_v2(buf + 16, 0xabcd, 4), CUDA_SUCCESS);
    EXPECT_EQ(file.view[1024 + 4], 0xabcdu);
    EXPECT_EQ(file.view[1024 + 8], 1024u + 8);
    // A kernel uses the buffer like device memory; one word past it faults.
    CUmodule m = load_test_module();
    CUfunction add_one = function(m, "add_one");
    uint32_t n = 2048;
    void* args[] = {&buf, &n};
    ASSERT_EQ(api().cuLaunchKernel(add_one, 8, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(file.view[1024], 1025u);
    EXPECT_EQ(file.view[1024 + 2047], 1024u + 2047 + 1);
    EXPECT_EQ(file.view[1024 + 2048], 1024u + 2048) << "past the buffer";
    EXPECT_EQ(file.view[1023], 1023u) << "before the buffer";
    // Pointer attributes: device memory.
    unsigned type = 0;
    EXPECT_EQ(api().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, buf + 8), CUDA_SUCCESS);
    EXPECT_EQ(type, unsigned(CU_MEMORYTYPE_DEVICE));

    // A second buffer elsewhere; an overlapping one is refused.
    CUdeviceptr buf2 = 0;
    bd = buffer_desc(0, 4096);
    ASSERT_EQ(api().cuExternalMemoryGetMappedBuffer(&buf2, mem, &bd), CUDA_SUCCESS);
    EXPECT_EQ(buf2 + 4096, buf);
    CUdeviceptr overlap = 1;
    bd = buffer_desc(8192, 4096);
    EXPECT_EQ(api().cuExternalMemoryGetMappedBuffer(&overlap, mem, &bd), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(overlap, 0u);

    // Freed with cuMemFree, once; destroying the memory makes a buffer not yet freed unusable, and
    // cuMemFree still accepts it once.
    EXPECT_EQ(api().cuMemFree_v2(buf2), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(buf2), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuDestroyExternalMemory(mem), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDestroyExternalMemory(mem), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuMemsetD32_v2(buf, 1, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemFree_v2(buf), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(buf), CUDA_ERROR_INVALID_VALUE);
    // The exporter's memory is untouched by the unmapping.
    EXPECT_EQ(file.view[1024 + 4], 0xabcdu + 1);
}

TEST_F(CpuExternalTest, BadImportsAreRefusedAndKeepTheDescriptor) {
    SharedFile file;
    const int fd = file.handoff();
    CUexternalMemory mem = reinterpret_cast<CUexternalMemory>(1);
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc = fd_desc(fd, kBytes);
    EXPECT_EQ(api().cuImportExternalMemory(nullptr, &desc), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuImportExternalMemory(&mem, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(mem, nullptr) << "the output is nulled";
    desc = fd_desc(fd, 0);
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_INVALID_VALUE);
    desc = fd_desc(fd, kBytes * 2); // larger than the file
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_INVALID_VALUE);
    desc = fd_desc(fd, kBytes + 8); // fits the file, not the data after Mesa's header
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_INVALID_VALUE);
    desc = fd_desc(fd, kBytes);
    desc.flags = 0x100;
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_INVALID_VALUE);
    desc = fd_desc(fd, kBytes);
    desc.reserved[3] = 1;
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_INVALID_VALUE);
    desc = fd_desc(-1, kBytes); // no descriptor: NVIDIA's UNKNOWN (tests/device/external_memory_errors_probe.cu)
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_UNKNOWN);
    desc = fd_desc(fd, kBytes);
    desc.type = static_cast<CUexternalMemoryHandleType>(77);
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_INVALID_VALUE);
    desc = fd_desc(fd, kBytes);
    desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE;
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_NOT_SUPPORTED);
    desc = fd_desc(0, kBytes); // a null Win32 handle: NVIDIA's INVALID_VALUE
    desc.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32;
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_INVALID_VALUE);
    EXPECT_TRUE(file.held_by(fd)) << "a failed import leaves the descriptor to the caller";

    // Buffers outside the memory, with flags, and of unknown memories.
    desc = fd_desc(fd, kBytes);
    desc.flags = CUDA_EXTERNAL_MEMORY_DEDICATED;
    ASSERT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_SUCCESS);
    CUdeviceptr buf = 7;
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd = buffer_desc(kBytes - 4, 8);
    EXPECT_EQ(api().cuExternalMemoryGetMappedBuffer(&buf, mem, &bd), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(buf, 0u);
    bd = buffer_desc(~0ull - 2, 8);
    EXPECT_EQ(api().cuExternalMemoryGetMappedBuffer(&buf, mem, &bd), CUDA_ERROR_INVALID_VALUE);
    bd = buffer_desc(0, 0);
    EXPECT_EQ(api().cuExternalMemoryGetMappedBuffer(&buf, mem, &bd), CUDA_ERROR_INVALID_VALUE);
    bd = buffer_desc(0, 64);
    bd.flags = 1;
    EXPECT_EQ(api().cuExternalMemoryGetMappedBuffer(&buf, mem, &bd), CUDA_ERROR_INVALID_VALUE);
    bd = buffer_desc(0, 64);
    EXPECT_EQ(api().cuExternalMemoryGetMappedBuffer(&buf, reinterpret_cast<CUexternalMemory>(&buf), &bd),
              CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuExternalMemoryGetMappedBuffer(&buf, mem, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuExternalMemoryGetMappedBuffer(&buf, nullptr, &bd), CUDA_ERROR_INVALID_VALUE); // NVIDIA's
    EXPECT_EQ(api().cuDestroyExternalMemory(mem), CUDA_SUCCESS);
    EXPECT_EQ(api().cuDestroyExternalMemory(nullptr), CUDA_ERROR_INVALID_VALUE);
}

// OPAQUE_FD is memory a Mesa CPU Vulkan driver exported: a descriptor without its header, or with a damaged one,
// is no driver's export (UNKNOWN, as NVIDIA answers for a plain memfd) and stays the caller's; DMABUF_FD is not
// supported (NVIDIA answers NOT_SUPPORTED for a memfd given as one).
TEST_F(CpuExternalTest, OpaqueFdNeedsMesasHeaderDmabufIsNotSupported) {
    CUexternalMemory mem = nullptr;
    SharedFile plain(Layout::Plain);
    int fd = plain.handoff();
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc = fd_desc(fd, kBytes);
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_UNKNOWN);
    EXPECT_EQ(mem, nullptr);
    EXPECT_TRUE(plain.held_by(fd)) << "a failed import leaves the descriptor to the caller";
    desc = fd_desc(fd, kBytes, CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD);
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_TRUE(plain.held_by(fd));

    SharedFile mesa;
    uint64_t* header = reinterpret_cast<uint64_t*>(mesa.map);
    fd = mesa.handoff();
    header[1] = 100; // a data offset that is not a page
    desc = fd_desc(fd, kBytes);
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_UNKNOWN);
    header[1] = kMesaDataOffset;
    std::memset(mesa.map + kMesaDataOffset - 8, 0, 8); // the offset not repeated before the data
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_UNKNOWN);
    std::memcpy(mesa.map + kMesaDataOffset - 8, &header[1], 8);
    header[0] = 12345; // not the file's size
    EXPECT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_ERROR_UNKNOWN);
    EXPECT_TRUE(mesa.held_by(fd));
    header[0] = mesa.file_size;
    ASSERT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_SUCCESS) << "the header mended";
    EXPECT_FALSE(mesa.held_by(fd));
    EXPECT_EQ(api().cuDestroyExternalMemory(mem), CUDA_SUCCESS);
}

// llvmpipe's image layout as measured (Mesa 22.3.6: rows of align(align(w, 4) x texel, 64) bytes, align(h, 4) rows a
// level, levels back to back): a 67x45 RGBA8 image of 3 levels takes 20736 bytes, as lavapipe's
// vkGetImageMemoryRequirements says (tests/interop/vulkan_cuda_image.c).
TEST(MesaMemoryFd, LlvmpipeImageLevels) {
    mesa::ImageLevel l0 = mesa::llvmpipe_image_level(67, 45, 4, 0);
    EXPECT_EQ(l0.pitch, 320u);
    EXPECT_EQ(l0.bytes, 320u * 48);
    EXPECT_EQ(l0.offset, 0u);
    mesa::ImageLevel l1 = mesa::llvmpipe_image_level(67, 45, 4, 1);
    EXPECT_EQ(l1.width, 33u);
    EXPECT_EQ(l1.height, 22u);
    EXPECT_EQ(l1.pitch, 192u);
    EXPECT_EQ(l1.offset, 15360u);
    mesa::ImageLevel l2 = mesa::llvmpipe_image_level(67, 45, 4, 2);
    EXPECT_EQ(l2.offset + l2.bytes, 20736u);
    mesa::ImageLevel row = mesa::llvmpipe_image_level(3, 1, 4, 0);
    EXPECT_EQ(row.pitch, 64u);
    EXPECT_EQ(row.bytes, 256u);
    mesa::ImageLevel tiny = mesa::llvmpipe_image_level(67, 45, 4, 6);
    EXPECT_EQ(tiny.width, 1u);
    EXPECT_EQ(tiny.height, 1u);
}

CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC image_desc(size_t width, size_t height, unsigned levels) {
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC d;
    std::memset(&d, 0, sizeof d);
    d.arrayDesc.Width = width;
    d.arrayDesc.Height = height;
    d.arrayDesc.Format = CU_AD_FORMAT_UNSIGNED_INT8;
    d.arrayDesc.NumChannels = 4;
    d.arrayDesc.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    d.numLevels = levels;
    return d;
}

// Mipmapped arrays over a Mesa export: one CUarray per level in llvmpipe's layout, row padding skipped; the levels
// go with their mipmapped array (not cuArrayDestroy), which keeps the mapping after the memory is destroyed.
TEST_F(CpuExternalTest, ImagesMapOverMesaMemoryInLlvmpipesLayout) {
    SharedFile file;
    const int fd = file.handoff();
    CUexternalMemory mem = nullptr;
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc = fd_desc(fd, kBytes);
    ASSERT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_SUCCESS);
    CUmipmappedArray mm = nullptr;
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC id = image_desc(67, 45, 3);
    id.offset = 4096;
    ASSERT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, &id), CUDA_SUCCESS);
    CUarray level1 = nullptr, none = reinterpret_cast<CUarray>(1);
    ASSERT_EQ(api().cuMipmappedArrayGetLevel(&level1, mm, 1), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMipmappedArrayGetLevel(&none, mm, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(none, nullptr);
    CUDA_ARRAY3D_DESCRIPTOR ad{};
    ASSERT_EQ(api().cuArray3DGetDescriptor_v2(&ad, level1), CUDA_SUCCESS);
    EXPECT_EQ(ad.Width, 33u);
    EXPECT_EQ(ad.Height, 22u);
    EXPECT_EQ(ad.Flags, unsigned(CUDA_ARRAY3D_SURFACE_LDST));

    // Level 1 starts 15360 bytes into the image, rows 192 bytes apart: texel (x, y) is word
    // (4096 + 15360 + y * 192 + x * 4) / 4 of the memory.
    auto word = [](uint32_t x, uint32_t y) { return (4096 + 15360 + y * 192 + x * 4) / 4; };
    std::vector<uint32_t> texels(33 * 22);
    CUDA_MEMCPY2D c{};
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = level1;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = texels.data();
    c.dstPitch = 33 * 4;
    c.WidthInBytes = 33 * 4;
    c.Height = 22;
    ASSERT_EQ(api().cuMemcpy2D_v2(&c), CUDA_SUCCESS);
    EXPECT_EQ(texels[0], word(0, 0));
    EXPECT_EQ(texels[7 * 33 + 5], word(5, 7));
    EXPECT_EQ(texels[21 * 33 + 32], word(32, 21));
    EXPECT_EQ(api().cuArrayDestroy(level1), CUDA_ERROR_INVALID_VALUE) << "a level goes with its mipmapped array";

    // The memory destroyed first: the levels still reach it; then the mipmapped array goes, once.
    ASSERT_EQ(api().cuDestroyExternalMemory(mem), CUDA_SUCCESS);
    file.view[word(5, 7)] = 0xfeedu;
    ASSERT_EQ(api().cuMemcpy2D_v2(&c), CUDA_SUCCESS);
    EXPECT_EQ(texels[7 * 33 + 5], 0xfeedu);
    EXPECT_EQ(api().cuMipmappedArrayDestroy(mm), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMipmappedArrayDestroy(mm), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuMipmappedArrayGetLevel(&level1, mm, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuArray3DGetDescriptor_v2(&ad, level1), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(CpuExternalTest, BadImagesAreRefused) {
    SharedFile file;
    CUexternalMemory mem = nullptr;
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC desc = fd_desc(file.handoff(), kBytes);
    ASSERT_EQ(api().cuImportExternalMemory(&mem, &desc), CUDA_SUCCESS);
    CUmipmappedArray mm = reinterpret_cast<CUmipmappedArray>(1);
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC id = image_desc(67, 45, 0);
    EXPECT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, &id), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(mm, nullptr);
    id = image_desc(67, 45, 8); // 67 px has 7 levels
    EXPECT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, &id), CUDA_ERROR_INVALID_VALUE);
    id = image_desc(256, 256, 1); // 256 KiB do not fit the 64 KiB
    EXPECT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, &id), CUDA_ERROR_INVALID_VALUE);
    id = image_desc(67, 45, 1);
    id.offset = kBytes - 1024;
    EXPECT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, &id), CUDA_ERROR_INVALID_VALUE);
    id = image_desc(67, 45, 1);
    id.reserved[2] = 1;
    EXPECT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, &id), CUDA_ERROR_INVALID_VALUE);
    id = image_desc(16, 0, 2); // a 1D image's further levels: layout not measured
    EXPECT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, &id), CUDA_ERROR_NOT_SUPPORTED);
    id = image_desc(16, 0, 1); // one level of a 1D image is one row: mapped
    ASSERT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, &id), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMipmappedArrayDestroy(mm), CUDA_SUCCESS);
    id = image_desc(16, 16, 1);
    id.arrayDesc.Depth = 4; // a 3D image
    EXPECT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, &id), CUDA_ERROR_NOT_SUPPORTED);
    id = image_desc(16, 16, 1);
    EXPECT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, reinterpret_cast<CUexternalMemory>(&id), &id),
              CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuExternalMemoryGetMappedMipmappedArray(&mm, mem, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuDestroyExternalMemory(mem), CUDA_SUCCESS);

    EXPECT_EQ(api().cuMipmappedArrayDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(CpuExternalTest, SemaphoresAreNotSupported) {
    CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
    std::memset(&desc, 0, sizeof desc);
    desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0); // a descriptor that is not a plain file: what a driver's export could be
    desc.handle.fd = pipe_fds[0];
    CUexternalSemaphore sem = reinterpret_cast<CUexternalSemaphore>(1);
    EXPECT_EQ(api().cuImportExternalSemaphore(&sem, &desc), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(sem, nullptr);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    // No descriptor, or a plain file: no driver's export, NVIDIA's UNKNOWN (external_memory_errors_probe.cu).
    desc.handle.fd = -1;
    EXPECT_EQ(api().cuImportExternalSemaphore(&sem, &desc), CUDA_ERROR_UNKNOWN);
    SharedFile plain(Layout::Plain);
    const int plain_fd = plain.handoff();
    desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
    desc.handle.fd = plain_fd;
    EXPECT_EQ(api().cuImportExternalSemaphore(&sem, &desc), CUDA_ERROR_UNKNOWN);
    ::close(plain_fd);
    desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
    EXPECT_EQ(api().cuImportExternalSemaphore(&sem, nullptr), CUDA_ERROR_INVALID_VALUE);
    desc.type = static_cast<CUexternalSemaphoreHandleType>(0);
    EXPECT_EQ(api().cuImportExternalSemaphore(&sem, &desc), CUDA_ERROR_INVALID_VALUE);
    CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp;
    std::memset(&sp, 0, sizeof sp);
    CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp;
    std::memset(&wp, 0, sizeof wp);
    CUexternalSemaphore fake = reinterpret_cast<CUexternalSemaphore>(&sp);
    EXPECT_EQ(api().cuSignalExternalSemaphoresAsync(nullptr, nullptr, 0, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api().cuSignalExternalSemaphoresAsync(&fake, &sp, 1, nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuSignalExternalSemaphoresAsync(nullptr, &sp, 1, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuWaitExternalSemaphoresAsync(&fake, &wp, 1, nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuWaitExternalSemaphoresAsync(&fake, nullptr, 1, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuWaitExternalSemaphoresAsync(&fake, &wp, 1, reinterpret_cast<CUstream>(&wp)),
              CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuDestroyExternalSemaphore(fake), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(api().cuDestroyExternalSemaphore(nullptr), CUDA_ERROR_INVALID_VALUE);
}

} // namespace
} // namespace d4r::runtime::cpu_test
