// cpu backend: external memory and semaphores (cuImportExternalMemory & co.).
//
// Promise: memory another API exported as a file descriptor is mapped MAP_SHARED once at import:
//   * CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD: memory a Mesa CPU Vulkan driver (lavapipe) exported, a sealed
//     memfd whose data follows Mesa's header (docs/runtime.md, "External memory"): the header is checked and the
//     memory starts at its data, as the exporting Vulkan device sees it; any other descriptor is refused
//     (CUDA_ERROR_INVALID_VALUE, with the reason at debug level): its layout is not known;
//   * DMABUF_FD: any mappable descriptor, the memory starting at its first byte.
// cuExternalMemoryGetMappedBuffer hands out device pointers into that mapping
// that copies, memsets and kernels use like cuMemAlloc'd memory and that writes through to the other
// API's memory. As NVIDIA's driver does, a successful import owns the descriptor (closed here: the
// mapping keeps the memory), a buffer is freed with cuMemFree, and cuDestroyExternalMemory unmaps (a
// buffer not yet freed stops being usable, and cuMemFree still accepts it once).
//
// cuExternalMemoryGetMappedMipmappedArray maps 1D and 2D images of a Mesa export: one CUarray per level over the
// memory itself, in llvmpipe's layout (mesa_memory_fd.h), freed by cuMipmappedArrayDestroy, keeping the mapping.
//
// Deliberately unsupported on this backend, with CUDA_ERROR_NOT_SUPPORTED and one log line each:
//   * Win32, D3D11/D3D12 and NvSciBuf handles (the Windows bridge passes Linux descriptors or host
//     copies instead);
//   * images with depth, layers or cube faces, 1D images of more than one level, and images over a DMABUF_FD
//     (layouts not known);
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
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "core/log.h"
#include "ptxsim/ptxsim_texture.h"
#include "runtime/backends/cpu/cpu_array.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/backends/cpu/mesa_memory_fd.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

// An import: the mapping lives as long as the import or a mipmapped array over it.
struct ExternalMemory {
    uint8_t* map = nullptr; // the whole file, as mapped
    uint64_t map_size = 0;
    uint8_t* base = nullptr; // the memory's first byte: past Mesa's header for OPAQUE_FD
    uint64_t size = 0;
    Context* ctx = nullptr;
    std::vector<std::pair<uint64_t, uint64_t>> buffers; // mapped [begin, end) device ranges
    ExternalMemory() = default;
    ExternalMemory(const ExternalMemory&) = delete;
    ExternalMemory& operator=(const ExternalMemory&) = delete;
    ~ExternalMemory() {
        if (map) ::munmap(map, map_size);
    }
};

// cuExternalMemoryGetMappedMipmappedArray's result: one CUarray per level over the memory (Array::mipmap_level).
struct MipmappedArray {
    std::shared_ptr<ExternalMemory> memory;
    Context* ctx = nullptr;
    std::vector<CUarray> levels;
};

struct Imports final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::External;
    std::mutex mutex;
    std::unordered_map<void*, std::shared_ptr<ExternalMemory>> memories;
    std::multiset<uint64_t> orphan_buffers; // buffers of destroyed memories, awaiting their cuMemFree
    std::unordered_map<void*, std::shared_ptr<MipmappedArray>> mipmapped;
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
    // The codes below are NVIDIA's (an H100 with tests/device/external_memory_errors_probe.cu): a handle of the
    // Win32 family that is null, INVALID_VALUE; a descriptor that is no driver's export, UNKNOWN; DMABUF_FD of a
    // descriptor that is no dma-buf, NOT_SUPPORTED.
    const bool win32 = desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD &&
                       desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD &&
                       desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF;
    if (win32 && !desc->handle.win32.handle && !desc->handle.win32.name)
        return refuse(CUDA_ERROR_INVALID_VALUE, "cpu backend: cuImportExternalMemory: refused: a null {} handle", type);
    if (desc->type != CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD) {
        log_once("cuImportExternalMemory: only OPAQUE_FD memory (a CPU Vulkan driver's export) can be imported on the "
                 "cpu backend; DMABUF_FD, Win32, D3D and NvSciBuf handles are CUDA_ERROR_NOT_SUPPORTED (a dma-buf's "
                 "CPU access needs its exporter's synchronisation, and lavapipe exports OPAQUE_FD)");
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cpu backend: cuImportExternalMemory: refused handle type {}", type);
    }
    const int fd = desc->handle.fd;
    struct stat st{};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
        return refuse(CUDA_ERROR_UNKNOWN,
                      "cpu backend: cuImportExternalMemory: refused: {} is not an open file descriptor", fd);
    }
    if (S_ISREG(st.st_mode) && uint64_t(st.st_size) < desc->size) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuImportExternalMemory: refused: size {} exceeds the descriptor's {} bytes",
                      desc->size, uint64_t(st.st_size));
    }
    if (!S_ISREG(st.st_mode)) {
        return refuse(CUDA_ERROR_UNKNOWN,
                      "cpu backend: cuImportExternalMemory: refused OPAQUE_FD {}: not a memory file a CPU Vulkan "
                      "driver exported",
                      fd);
    }
    // The whole file, Mesa's header included.
    const uint64_t map_size = uint64_t(st.st_size);
    void* p = ::mmap(nullptr, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        return refuse(CUDA_ERROR_UNKNOWN,
                      "cpu backend: cuImportExternalMemory: refused: mmap of descriptor {} ({} bytes) failed: {}", fd,
                      map_size, std::strerror(errno));
    }
    // Mesa's header (no header: no driver's export, UNKNOWN), then the size asked against the data after it.
    std::string why;
    const std::optional<uint64_t> offset = mesa::data_offset(static_cast<uint8_t*>(p), map_size, 0, why);
    if (!offset) {
        ::munmap(p, map_size);
        log_once("cuImportExternalMemory: OPAQUE_FD is read as memory a Mesa CPU Vulkan driver (lavapipe) "
                 "exported; other descriptors are refused (docs/runtime.md, \"External memory\")");
        return refuse(CUDA_ERROR_UNKNOWN, "cpu backend: cuImportExternalMemory: refused OPAQUE_FD {}: {}", fd, why);
    }
    if (desc->size > map_size - *offset) {
        ::munmap(p, map_size);
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuImportExternalMemory: refused: size {} exceeds the {} bytes after Mesa's header",
                      desc->size, map_size - *offset);
    }
    const uint64_t data_offset = *offset;
    ::close(fd); // the driver owns the descriptor after a successful import
    auto m = std::make_shared<ExternalMemory>();
    m->map = static_cast<uint8_t*>(p);
    m->map_size = map_size;
    m->base = m->map + data_offset;
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
    D4R_CPU_REFUSE_IF(!out || !desc || !h, CUDA_ERROR_INVALID_VALUE); // a null memory: NVIDIA's INVALID_VALUE
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

constexpr unsigned kImageFlags =
    CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_COLOR_ATTACHMENT;

// Unregisters and frees the level arrays made so far.
void destroy_levels(const std::vector<CUarray>& levels) {
    State& s = state();
    for (CUarray level : levels) {
        std::shared_ptr<Array> a;
        {
            std::lock_guard lock(s.mutex);
            auto it = s.arrays.find(level);
            if (it == s.arrays.end()) continue;
            a = it->second;
            s.arrays.erase(it);
        }
        (void)ptxsim::destroy_array(s.device, a->sim);
    }
}

CUresult cu_external_memory_get_mapped_mipmapped_array(CUmipmappedArray* out, CUexternalMemory h,
                                                       const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC* desc) {
    if (out) *out = nullptr;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    D4R_CPU_REFUSE_IF(!out || !desc, CUDA_ERROR_INVALID_VALUE);
    auto m = find_memory(h);
    D4R_CPU_REFUSE_IF(!m, CUDA_ERROR_INVALID_HANDLE);
    const CUDA_ARRAY3D_DESCRIPTOR& d = desc->arrayDesc;
    ptxsim::ChannelFormat format;
    const uint64_t texel = to_channel_format(d.Format, format) ? ptxsim::texel_bytes(format, d.NumChannels) : 0;
    if (texel == 0 || d.Width == 0 || desc->numLevels == 0 || !all_zero(desc->reserved, 16) ||
        (d.Flags & ~(kImageFlags | CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) || d.Width > 65536 ||
        d.Height > 65536) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuExternalMemoryGetMappedMipmappedArray: refused: format {} x {} channels, "
                      "{}x{}x{}, {} levels, flags {:#x} or non-zero reserved words",
                      int(d.Format), d.NumChannels, d.Width, d.Height, d.Depth, desc->numLevels, d.Flags);
    }
    if (d.Height == 0 && desc->numLevels > 1) {
        // Measured for 2D images only (a one-row 2D image included): where llvmpipe puts a 1D image's further
        // levels is not known, and a guess could hand out the wrong texels.
        log_once("cuExternalMemoryGetMappedMipmappedArray: 1D images with more than one level are not mapped on the "
                 "cpu backend (llvmpipe's layout of their levels is not known; CUDA_ERROR_NOT_SUPPORTED)");
        return refuse(CUDA_ERROR_NOT_SUPPORTED,
                      "cpu backend: cuExternalMemoryGetMappedMipmappedArray: refused a 1D image of {} levels",
                      desc->numLevels);
    }
    if (d.Depth != 0 || (d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP))) {
        log_once("cuExternalMemoryGetMappedMipmappedArray: only 1D and 2D images (no depth, layers or cube faces) "
                 "are mapped on the cpu backend; others are CUDA_ERROR_NOT_SUPPORTED");
        return refuse(CUDA_ERROR_NOT_SUPPORTED,
                      "cpu backend: cuExternalMemoryGetMappedMipmappedArray: refused a {}x{}x{} image with flags "
                      "{:#x}",
                      d.Width, d.Height, d.Depth, d.Flags);
    }
    const auto width = static_cast<uint32_t>(d.Width), height = static_cast<uint32_t>(d.Height ? d.Height : 1);
    uint32_t max_levels = 1;
    while ((std::max(width, height) >> max_levels) != 0) ++max_levels;
    D4R_CPU_REFUSE_IF(desc->numLevels > max_levels, CUDA_ERROR_INVALID_VALUE);
    const mesa::ImageLevel last = mesa::llvmpipe_image_level(width, height, uint32_t(texel), desc->numLevels - 1);
    if (desc->offset > m->size || last.offset + last.bytes > m->size - desc->offset) {
        return refuse(CUDA_ERROR_INVALID_VALUE,
                      "cpu backend: cuExternalMemoryGetMappedMipmappedArray: refused: {} levels of {}x{} take {} "
                      "bytes from offset {}, outside the {} bytes imported",
                      desc->numLevels, width, height, last.offset + last.bytes, desc->offset, m->size);
    }
    auto mm = std::make_shared<MipmappedArray>();
    mm->memory = m;
    mm->ctx = ref.ctx.get();
    State& s = state();
    for (uint32_t i = 0; i < desc->numLevels; ++i) {
        const mesa::ImageLevel level = mesa::llvmpipe_image_level(width, height, uint32_t(texel), i);
        ptxsim::ArrayDesc sd;
        sd.width = level.width;
        sd.height = level.height;
        sd.format = format;
        sd.channels = d.NumChannels;
        sd.surface = d.Flags & CUDA_ARRAY3D_SURFACE_LDST;
        auto id = ptxsim::create_array_over(
            s.device, sd, reinterpret_cast<uint64_t>(m->base) + desc->offset + level.offset, level.pitch);
        if (!id) {
            destroy_levels(mm->levels);
            return refuse(CUDA_ERROR_INVALID_VALUE,
                          "cpu backend: cuExternalMemoryGetMappedMipmappedArray: level {}: {}", i, id.error().text());
        }
        auto a = std::make_shared<Array>();
        a->ctx = ref.ctx.get();
        a->desc = d;
        a->desc.Width = level.width;
        a->desc.Height = d.Height ? level.height : 0;
        a->sim = *id;
        a->element_bytes = texel;
        a->mipmap_level = true;
        std::lock_guard lock(s.mutex);
        s.arrays[a.get()] = a;
        mm->levels.push_back(reinterpret_cast<CUarray>(a.get()));
    }
    std::lock_guard lock(imports().mutex);
    imports().mipmapped[mm.get()] = mm;
    *out = reinterpret_cast<CUmipmappedArray>(mm.get());
    return CUDA_SUCCESS;
}

std::shared_ptr<MipmappedArray> find_mipmapped(CUmipmappedArray h) {
    std::lock_guard lock(imports().mutex);
    auto it = imports().mipmapped.find(h);
    return it == imports().mipmapped.end() ? nullptr : it->second;
}

CUresult cu_mipmapped_array_get_level(CUarray* out, CUmipmappedArray h, unsigned int level) {
    if (out) *out = nullptr;
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    auto mm = find_mipmapped(h);
    D4R_CPU_REFUSE_IF(!mm, CUDA_ERROR_INVALID_HANDLE);
    D4R_CPU_REFUSE_IF(level >= mm->levels.size(), CUDA_ERROR_INVALID_VALUE);
    *out = mm->levels[level];
    return CUDA_SUCCESS;
}

CUresult cu_mipmapped_array_destroy(CUmipmappedArray h) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<MipmappedArray> mm;
    {
        std::lock_guard lock(imports().mutex);
        auto it = imports().mipmapped.find(h);
        D4R_CPU_REFUSE_IF(it == imports().mipmapped.end(), CUDA_ERROR_INVALID_HANDLE);
        mm = it->second;
        imports().mipmapped.erase(it);
    }
    // Work queued before may still use the levels: let it finish before they go.
    if (auto ctx = find_context(reinterpret_cast<CUcontext>(mm->ctx))) ctx->drain();
    destroy_levels(mm->levels);
    return CUDA_SUCCESS;
}

CUresult cu_destroy_external_memory(CUexternalMemory h) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!h, CUDA_ERROR_INVALID_VALUE); // NVIDIA's answer for a null handle
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
    // The mapping goes with the last holder: this import, or a mipmapped array over it.
    return CUDA_SUCCESS;
}

CUresult cu_import_external_semaphore(CUexternalSemaphore* out, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC* desc) {
    if (out) *out = nullptr;
    StreamRef ref;
    if (CUresult r = current_stream(ref)) return r;
    if (!out || !desc || desc->type < CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD ||
        desc->type > CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_WIN32)
        return CUDA_ERROR_INVALID_VALUE;
    // A descriptor that is no driver's export (closed, or a plain file): UNKNOWN, as NVIDIA's driver answers.
    if (desc->type == CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD ||
        desc->type == CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD) {
        struct stat st{};
        if (desc->handle.fd < 0 || ::fstat(desc->handle.fd, &st) != 0 || S_ISREG(st.st_mode))
            return refuse(CUDA_ERROR_UNKNOWN,
                          "cpu backend: cuImportExternalSemaphore: refused: descriptor {} is no semaphore export",
                          desc->handle.fd);
    }
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
    if (!h) return CUDA_ERROR_INVALID_VALUE; // NVIDIA's answer for a null handle
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
    t.cuMipmappedArrayGetLevel = cu_mipmapped_array_get_level;
    t.cuMipmappedArrayDestroy = cu_mipmapped_array_destroy;
    t.cuImportExternalSemaphore = cu_import_external_semaphore;
    t.cuSignalExternalSemaphoresAsync = cu_signal_external_semaphores_async;
    t.cuWaitExternalSemaphoresAsync = cu_wait_external_semaphores_async;
    t.cuDestroyExternalSemaphore = cu_destroy_external_semaphore;
}

} // namespace d4r::runtime::cpu
