// cpu backend: external memory and semaphores (cuImportExternalMemory & co.).
//
// Promise: memory another API exported as a file descriptor (CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD or
// DMABUF_FD: a memfd from a CPU Vulkan driver such as lavapipe, a dma-buf, any mappable fd) is mapped
// MAP_SHARED once at import; cuExternalMemoryGetMappedBuffer hands out device pointers into that mapping
// that copies, memsets and kernels use like cuMemAlloc'd memory and that writes through to the other
// API's memory. As NVIDIA's driver does, a successful import owns the descriptor (closed here: the
// mapping keeps the memory), a buffer is freed with cuMemFree, and cuDestroyExternalMemory unmaps (a
// buffer not yet freed stops being usable, and cuMemFree still accepts it once).
//
// Deliberately unsupported on this backend, with CUDA_ERROR_NOT_SUPPORTED and one log line each:
//   * Win32, D3D11/D3D12 and NvSciBuf handles (the Windows bridge passes Linux descriptors or host
//     copies instead);
//   * mipmapped arrays over external memory (cpu arrays own their storage);
//   * overlapping buffers of one external memory (each buffer is its own address range);
//   * every external semaphore: the cpu backend runs a stream's work on the host in order and has no
//     device queue to order against another API's queue; order through the host instead (wait for the
//     other API's fence, then launch; cuStreamSynchronize, then signal).
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <unordered_map>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

struct ExternalMemory {
    uint8_t* base = nullptr;
    uint64_t size = 0;
    Context* ctx = nullptr;
    std::vector<std::pair<uint64_t, uint64_t>> buffers; // mapped [begin, end) device ranges
};

struct Imports final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::External;
    std::mutex mutex;
    std::unordered_map<void*, std::shared_ptr<ExternalMemory>> memories;
    std::multiset<uint64_t> orphan_buffers; // buffers of destroyed memories, awaiting their cuMemFree
};

Imports& imports() { return state().part<Imports>(); }

void log_once(const char* what) {
    if (log::once(what)) log::info("cpu backend: {}", what);
}

const char* memory_type_name(CUexternalMemoryHandleType t) {
    switch (t) {
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD:
        return "OPAQUE_FD";
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32:
        return "OPAQUE_WIN32";
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT:
        return "OPAQUE_WIN32_KMT";
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP:
        return "D3D12_HEAP";
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE:
        return "D3D12_RESOURCE";
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE:
        return "D3D11_RESOURCE";
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE_KMT:
        return "D3D11_RESOURCE_KMT";
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF:
        return "NVSCIBUF";
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD:
        return "DMABUF_FD";
    }
    return nullptr;
}

std::shared_ptr<ExternalMemory> find_memory(CUexternalMemory h) {
    std::lock_guard lock(imports().mutex);
    auto it = imports().memories.find(h);
    return it == imports().memories.end() ? nullptr : it->second;
}

bool all_zero(const unsigned int* words, size_t n) {
    return std::all_of(words, words + n, [](unsigned w) { return w == 0; });
}

CUresult cu_import_external_memory(CUexternalMemory* out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC* desc) {
    if (out) *out = nullptr;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    if (!out || !desc || desc->size == 0 || (desc->flags & ~CUDA_EXTERNAL_MEMORY_DEDICATED) ||
        !all_zero(desc->reserved, 16)) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuImportExternalMemory: refused: missing output or descriptor, size 0, unknown "
                      "flags or non-zero reserved words");
    }
    const char* type = memory_type_name(desc->type);
    if (!type) {
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuImportExternalMemory: refused: unknown handle type {}",
                      int(desc->type));
    }
    if (desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD &&
        desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD) {
        log_once("cuImportExternalMemory: only file-descriptor handles (OPAQUE_FD, DMABUF_FD) can be imported on "
                 "the cpu backend; Win32, D3D and NvSciBuf handles are CUDA_ERROR_NOT_SUPPORTED");
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cpu backend: cuImportExternalMemory: refused handle type {}", type);
    }
    const int fd = desc->handle.fd;
    struct stat st{};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuImportExternalMemory: refused: {} is not an open file descriptor", fd);
    }
    if (S_ISREG(st.st_mode) && uint64_t(st.st_size) < desc->size) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuImportExternalMemory: refused: size {} exceeds the descriptor's {} bytes",
                      desc->size, uint64_t(st.st_size));
    }
    void* p = ::mmap(nullptr, desc->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuImportExternalMemory: refused: mmap of descriptor {} ({} bytes) failed: {}", fd,
                      desc->size, std::strerror(errno));
    }
    ::close(fd); // the driver owns the descriptor after a successful import
    auto m = std::make_shared<ExternalMemory>();
    m->base = static_cast<uint8_t*>(p);
    m->size = desc->size;
    m->ctx = ref.ctx.get();
    std::lock_guard lock(imports().mutex);
    imports().memories[m.get()] = m;
    *out = reinterpret_cast<CUexternalMemory>(m.get());
    return CUDA_SUCCESS;
}

CUresult cu_external_memory_get_mapped_buffer(CUdeviceptr* out, CUexternalMemory h,
                                              const CUDA_EXTERNAL_MEMORY_BUFFER_DESC* desc) {
    if (out) *out = 0;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!out || !desc, CUDA_ERROR_INVALID_VALUE);
    auto m = find_memory(h);
    D4R_CPU_REFUSE_IF(!m, CUDA_ERROR_INVALID_HANDLE);
    if (desc->flags != 0 || !all_zero(desc->reserved, 16) || desc->size == 0 || desc->offset > m->size ||
        desc->size > m->size - desc->offset) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuExternalMemoryGetMappedBuffer: refused: offset {} + size {} outside the {} bytes "
                      "imported, size 0, or flags/reserved not zero",
                      desc->offset, desc->size, m->size);
    }
    const uint64_t begin = reinterpret_cast<uint64_t>(m->base) + desc->offset, end = begin + desc->size;
    {
        std::lock_guard lock(imports().mutex);
        for (auto& [b, e] : m->buffers) {
            if (begin < e && b < end) {
                log_once("cuExternalMemoryGetMappedBuffer: buffers of one external memory may not overlap on the "
                         "cpu backend (CUDA_ERROR_NOT_SUPPORTED)");
                return CUDA_ERROR_NOT_SUPPORTED;
            }
        }
        m->buffers.emplace_back(begin, end);
    }
    add_region(Region{begin, desc->size, RegionKind::External, ref.ctx.get(), 0, 0});
    expose_to_kernels(begin, desc->size);
    *out = begin;
    return CUDA_SUCCESS;
}

CUresult cu_external_memory_get_mapped_mipmapped_array(CUmipmappedArray* out, CUexternalMemory h,
                                                       const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC* desc) {
    if (out) *out = nullptr;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!out || !desc, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(!find_memory(h), CUDA_ERROR_INVALID_HANDLE);
    log_once("cuExternalMemoryGetMappedMipmappedArray: arrays over external memory are not supported on the cpu "
             "backend (CUDA_ERROR_NOT_SUPPORTED); map a buffer and copy into an array instead");
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cu_destroy_external_memory(CUexternalMemory h) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<ExternalMemory> m;
    {
        std::lock_guard lock(imports().mutex);
        auto it = imports().memories.find(h);
        D4R_CPU_REFUSE_IF(it == imports().memories.end(), CUDA_ERROR_INVALID_HANDLE);
        m = it->second;
        imports().memories.erase(it);
    }
    // Work queued before may still use the buffers: let it finish before the memory goes away.
    if (auto ctx = find_context(reinterpret_cast<CUcontext>(m->ctx))) ctx->drain();
    for (auto& [begin, end] : m->buffers) {
        if (remove_region(begin)) hide_from_kernels(begin);
        std::lock_guard lock(imports().mutex);
        imports().orphan_buffers.insert(begin);
    }
    ::munmap(m->base, m->size);
    return CUDA_SUCCESS;
}

CUresult cu_import_external_semaphore(CUexternalSemaphore* out, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC* desc) {
    if (out) *out = nullptr;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    if (!out || !desc || desc->type < CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD ||
        desc->type > CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_WIN32)
        return CUDA_ERROR_INVALID_VALUE;
    log_once("cuImportExternalSemaphore: external semaphores are not supported on the cpu backend "
             "(CUDA_ERROR_NOT_SUPPORTED): it has no device queue to order against another API's; synchronise "
             "through the host");
    return CUDA_ERROR_NOT_SUPPORTED;
}

// No external semaphore exists on this backend, so any handle given is invalid.
CUresult semaphores_async(const CUexternalSemaphore* sems, const void* params, unsigned int n, CUstream stream) {
    StreamRef ref;
    if (CUresult r = resolve_stream(stream, ref)) return r;
    if (n == 0) return CUDA_SUCCESS;
    D4R_CPU_REFUSE_IF(!sems || !params, CUDA_ERROR_INVALID_VALUE);
    return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cu_signal_external_semaphores_async(const CUexternalSemaphore* sems,
                                             const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS* params, unsigned int n,
                                             CUstream stream) {
    return semaphores_async(sems, params, n, stream);
}

CUresult cu_wait_external_semaphores_async(const CUexternalSemaphore* sems,
                                           const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS* params, unsigned int n,
                                           CUstream stream) {
    return semaphores_async(sems, params, n, stream);
}

CUresult cu_destroy_external_semaphore(CUexternalSemaphore h) {
    if (CUresult r = check_init()) return r;
    return CUDA_ERROR_INVALID_HANDLE;
}

} // namespace

CUresult free_external_buffer(CUdeviceptr p) {
    Region r;
    if (find_region(p, 0, &r) && r.base == p && r.kind == RegionKind::External) {
        if (auto ctx = find_context(reinterpret_cast<CUcontext>(r.ctx))) ctx->drain();
        D4R_CPU_REFUSE_IF(!remove_region(p), CUDA_ERROR_INVALID_VALUE);
        hide_from_kernels(p);
        std::lock_guard lock(imports().mutex);
        for (auto& [h, m] : imports().memories) std::erase_if(m->buffers, [&](const auto& b) { return b.first == p; });
        return CUDA_SUCCESS;
    }
    std::lock_guard lock(imports().mutex);
    auto it = imports().orphan_buffers.find(p);
    D4R_CPU_REFUSE_IF(it == imports().orphan_buffers.end(), CUDA_ERROR_INVALID_VALUE);
    imports().orphan_buffers.erase(it);
    return CUDA_SUCCESS;
}

bool is_external_buffer(CUdeviceptr p) {
    Region r;
    if (find_region(p, 0, &r) && r.base == p && r.kind == RegionKind::External) return true;
    std::lock_guard lock(imports().mutex);
    return imports().orphan_buffers.count(p) != 0;
}

void fill_external(ApiTable& t) {
    t.cuImportExternalMemory = cu_import_external_memory;
    t.cuExternalMemoryGetMappedBuffer = cu_external_memory_get_mapped_buffer;
    t.cuExternalMemoryGetMappedMipmappedArray = cu_external_memory_get_mapped_mipmapped_array;
    t.cuDestroyExternalMemory = cu_destroy_external_memory;
    t.cuImportExternalSemaphore = cu_import_external_semaphore;
    t.cuSignalExternalSemaphoresAsync = cu_signal_external_semaphores_async;
    t.cuWaitExternalSemaphoresAsync = cu_wait_external_semaphores_async;
    t.cuDestroyExternalSemaphore = cu_destroy_external_semaphore;
}

} // namespace d4r::runtime::cpu
