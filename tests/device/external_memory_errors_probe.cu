// What the CUDA driver answers when external memory and semaphores are imported with bad arguments (no Vulkan
// needed): null pointers, bad descriptors, unknown types and flags, a size of 0, and file descriptors that are not
// a GPU driver's export (a closed one, a plain memfd). One line per case, so runs on NVIDIA's driver, through
// libd4rcuda's driver backend and on its cpu backend can be diffed (compare-probe.sh); the cpu backend's codes for
// these (src/runtime/backends/cpu/cpu_external.cpp) are meant to be NVIDIA's.
#include <cuda.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "probe_util.h"

namespace {

using probe::name;

int memfd(size_t bytes) {
    int fd = memfd_create("probe", 0);
    if (fd >= 0 && ftruncate(fd, off_t(bytes)) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

void import_memory(const char* what, CUDA_EXTERNAL_MEMORY_HANDLE_DESC d, bool null_out = false) {
    CUexternalMemory m = nullptr;
    CUresult r = cuImportExternalMemory(null_out ? nullptr : &m, &d);
    std::printf("cuImportExternalMemory(%s) = %s\n", what, name(r));
    if (r == CUDA_SUCCESS) cuDestroyExternalMemory(m);
}

void import_semaphore(const char* what, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC* d) {
    CUexternalSemaphore s = nullptr;
    CUresult r = cuImportExternalSemaphore(&s, d);
    std::printf("cuImportExternalSemaphore(%s) = %s\n", what, name(r));
    if (r == CUDA_SUCCESS) cuDestroyExternalSemaphore(s);
}

} // namespace

int main() {
    if (!probe::open_context()) return 1;
    CUexternalMemory m = nullptr;
    std::printf("cuImportExternalMemory(null descriptor) = %s\n", name(cuImportExternalMemory(&m, nullptr)));
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d{};
    d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    d.size = 4096;
    d.handle.fd = memfd(4096);
    import_memory("null output", d, true);
    d.handle.fd = -1;
    import_memory("OPAQUE_FD -1", d);
    d.handle.fd = memfd(4096);
    import_memory("OPAQUE_FD of a plain memfd", d);
    d.handle.fd = memfd(4096);
    d.size = 0;
    import_memory("OPAQUE_FD, size 0", d);
    d.size = 4096;
    d.handle.fd = memfd(4096);
    d.flags = 0x100;
    import_memory("OPAQUE_FD, unknown flag 0x100", d);
    d.flags = 0;
    d.type = static_cast<CUexternalMemoryHandleType>(0);
    d.handle.fd = memfd(4096);
    import_memory("handle type 0", d);
    d.type = static_cast<CUexternalMemoryHandleType>(99);
    import_memory("handle type 99", d);
    d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32;
    d.handle.win32.handle = nullptr;
    d.handle.win32.name = nullptr;
    import_memory("OPAQUE_WIN32, null handle", d);
    d = CUDA_EXTERNAL_MEMORY_HANDLE_DESC{};
    d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD;
    d.size = 4096;
    d.handle.fd = memfd(4096);
    import_memory("DMABUF_FD of a plain memfd", d);

    CUdeviceptr p = 0;
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC b{};
    b.size = 4096;
    std::printf("cuExternalMemoryGetMappedBuffer(null memory) = %s\n",
                name(cuExternalMemoryGetMappedBuffer(&p, nullptr, &b)));
    std::printf("cuDestroyExternalMemory(null) = %s\n", name(cuDestroyExternalMemory(nullptr)));

    CUexternalSemaphore s = nullptr;
    std::printf("cuImportExternalSemaphore(null descriptor) = %s\n", name(cuImportExternalSemaphore(&s, nullptr)));
    CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC sd{};
    sd.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
    sd.handle.fd = -1;
    import_semaphore("OPAQUE_FD -1", &sd);
    sd.handle.fd = memfd(64);
    import_semaphore("OPAQUE_FD of a plain memfd", &sd);
    sd.type = static_cast<CUexternalSemaphoreHandleType>(99);
    sd.handle.fd = memfd(64);
    import_semaphore("handle type 99", &sd);
    std::printf("cuDestroyExternalSemaphore(null) = %s\n", name(cuDestroyExternalSemaphore(nullptr)));
    return 0;
}
