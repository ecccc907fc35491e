// cpu backend: every cuMemcpy form. 1D, 2D and 3D copies are one operation: a box of WIDTH bytes x HEIGHT
// rows x DEPTH slices between two sides, each a host pointer, a device pointer or an array with its own
// pitch and slice height. Device sides (and arrays) are checked against the live allocations before
// anything is copied; host memory the API does not know is probed for being readable (a source) or
// writable (a destination) first, so a wild address is refused instead of faulting the process.
#include <cstring>
#include <vector>

#include "core/log.h"
#include "ptxsim/ptxsim_texture.h"
#include "runtime/backends/cpu/cpu_host_memory.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

struct Side {
    uint64_t base = 0;
    uint64_t x = 0, y = 0, z = 0;
    uint64_t pitch = 0;          // bytes per row
    uint64_t height = 0;         // rows per slice
    bool unchecked_host = false; // host memory unknown to the API (pageable)
    uint64_t sim_array = 0;      // a ptxsim array (2D): X, Y and the box address its texels
    uint64_t address(uint64_t row, uint64_t slice) const {
        return base + (z + slice) * pitch * height + (y + row) * pitch + x;
    }
};

struct Box {
    uint64_t width = 0, height = 1, depth = 1;
};

constexpr uint64_t kHuge = 1ull << 48;

// An enum field of a caller's struct read as the number it holds: a program may store any value there,
// and loading an out-of-range value as the enum type is undefined behaviour.
template <typename E>
unsigned raw(const E& field) {
    static_assert(sizeof(E) == sizeof(unsigned));
    unsigned v;
    std::memcpy(&v, &field, sizeof v);
    return v;
}

CUresult resolve_side(unsigned type, const void* host, CUdeviceptr dev, CUarray array, uint64_t pitch, uint64_t height,
                      uint64_t x, uint64_t y, uint64_t z, const Box& box, Side& out) {
    out.x = x;
    out.y = y;
    out.z = z;
    out.pitch = pitch;
    out.height = height;
    switch (type) {
    case CU_MEMORYTYPE_HOST:
        D4R_CPU_REFUSE_IF(!host, CUDA_ERROR_INVALID_VALUE);
        out.base = reinterpret_cast<uint64_t>(host);
        out.unchecked_host = !find_region(out.base, 0);
        break;
    case CU_MEMORYTYPE_DEVICE:
        D4R_CPU_REFUSE_IF(!dev, CUDA_ERROR_INVALID_VALUE);
        out.base = dev;
        break;
    case CU_MEMORYTYPE_UNIFIED:
        D4R_CPU_REFUSE_IF(!dev, CUDA_ERROR_INVALID_VALUE);
        out.base = dev;
        out.unchecked_host = !find_region(out.base, 0);
        break;
    case CU_MEMORYTYPE_ARRAY: {
        ArrayLayout a;
        if (CUresult r = array_layout(array, a)) return r;
        // A byte offset inside an element is accepted, as NVIDIA's driver accepts it (H200, driver 580:
        // tests/device/hostile.sh, memcpy2d_array_unaligned); the bytes land where the offset says.
        if (x + box.width > a.row_bytes || y + box.height > a.height || z + box.depth > a.depth)
            return CUDA_ERROR_INVALID_VALUE;
        out.x = x;
        out.y = y;
        out.z = z;
        out.base = a.base;
        out.pitch = a.row_bytes;
        out.height = a.height;
        out.sim_array = a.sim;
        return CUDA_SUCCESS;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    // A pitch only matters when there is more than one row (a slice height, more than one slice).
    if (box.height > 1 || box.depth > 1) {
        D4R_CPU_REFUSE_IF(out.pitch < x + box.width, CUDA_ERROR_INVALID_VALUE);
    } else if (out.pitch < x + box.width) {
        out.pitch = x + box.width;
    }
    if (box.depth > 1) {
        D4R_CPU_REFUSE_IF(out.height < y + box.height, CUDA_ERROR_INVALID_VALUE);
    } else if (out.height < y + box.height) {
        out.height = y + box.height;
    }
    D4R_CPU_REFUSE_IF(out.pitch > kHuge || out.height > kHuge || out.x > kHuge || out.y > kHuge || out.z > kHuge,
                      CUDA_ERROR_INVALID_VALUE);
    return CUDA_SUCCESS;
}

// The byte range a side touches, checked against the live allocations unless it is unknown host memory.
CUresult check_side(const Side& s, const Box& box) {
    if (s.sim_array) return CUDA_SUCCESS; // arrays: bounds checked by resolve_side
    uint64_t first = s.address(0, 0);
    uint64_t last = s.address(box.height - 1, box.depth - 1) + box.width;
    // Unknown memory is pageable host memory, except reserved virtual address space that is not (or not
    // yet) accessible: touching it would fault the process.
    if (s.unchecked_host) return overlaps_reservation(first, last - first) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    return check_range(first, last - first);
}

// Host memory the API does not know must be real: readable for a source, writable for a destination.
// Probed once, when the copy is called (the queued re-check only looks at allocations).
CUresult check_host_side(const Side& s, const Box& box, bool write) {
    if (!s.unchecked_host) return CUDA_SUCCESS;
    uint64_t first = s.address(0, 0);
    uint64_t bytes = s.address(box.height - 1, box.depth - 1) + box.width - first;
    if (write ? host_writable(first, bytes) : host_readable(first, bytes)) return CUDA_SUCCESS;
    return refuse(CUDA_ERROR_INVALID_VALUE,
                  "cpu backend: cuMemcpy: the {} [0x{:x}, +{}) is inside no allocation and is "
                  "not {} host memory",
                  write ? "destination" : "source", first, bytes, write ? "writable" : "readable");
}

CUresult copy_box(const Side& dst, const Side& src, const Box& box) {
    ptxsim::Device& device = state().device;
    auto ok = [](const Status& st) { return st ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; };
    uint32_t rows = static_cast<uint32_t>(box.height);
    if (dst.sim_array && src.sim_array) {
        std::vector<uint8_t> tmp(box.width * box.height);
        if (CUresult r = ok(ptxsim::copy_from_array(device, src.sim_array, src.x, uint32_t(src.y), tmp.data(),
                                                    box.width, box.width, rows)))
            return r;
        return ok(ptxsim::copy_to_array(device, dst.sim_array, dst.x, uint32_t(dst.y), tmp.data(), box.width, box.width,
                                        rows));
    }
    if (dst.sim_array)
        return ok(ptxsim::copy_to_array(device, dst.sim_array, dst.x, uint32_t(dst.y),
                                        reinterpret_cast<const void*>(src.address(0, 0)), src.pitch, box.width, rows));
    if (src.sim_array)
        return ok(ptxsim::copy_from_array(device, src.sim_array, src.x, uint32_t(src.y),
                                          reinterpret_cast<void*>(dst.address(0, 0)), dst.pitch, box.width, rows));
    for (uint64_t z = 0; z < box.depth; ++z)
        for (uint64_t y = 0; y < box.height; ++y)
            std::memmove(reinterpret_cast<void*>(dst.address(y, z)), reinterpret_cast<const void*>(src.address(y, z)),
                         box.width);
    return CUDA_SUCCESS;
}

CUresult copy(Side dst, Side src, Box box, CUstream stream, bool async) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (async) {
        if (CUresult r = resolve_stream(stream, ref)) return r;
    } else if (CUresult r = current_context(ref.ctx)) {
        return r;
    } else {
        ref.stream = &ref.ctx->null_stream;
    }
    if (box.width == 0 || box.height == 0 || box.depth == 0) return CUDA_SUCCESS;
    D4R_CPU_REFUSE_IF(box.width > kHuge || box.height > kHuge || box.depth > kHuge, CUDA_ERROR_INVALID_VALUE);
    if (CUresult r = check_side(src, box)) return r;
    if (CUresult r = check_side(dst, box)) return r;
    if (CUresult r = check_host_side(src, box, false)) return r;
    if (CUresult r = check_host_side(dst, box, true)) return r;
    // Pageable host memory: CUDA stages a host-to-device copy before returning and finishes a
    // device-to-host copy before returning; do the same.
    std::shared_ptr<std::vector<uint8_t>> staged;
    if (async && src.unchecked_host) {
        staged = std::make_shared<std::vector<uint8_t>>(box.width * box.height * box.depth);
        Side packed;
        packed.base = reinterpret_cast<uint64_t>(staged->data());
        packed.pitch = box.width;
        packed.height = box.height;
        packed.unchecked_host = true; // the staging buffer is ours, not an allocation
        if (CUresult r = copy_box(packed, src, box)) return r;
        src = packed;
    }
    if (dst.unchecked_host) async = false;
    return run_memory_op(ref, async, [dst, src, box, staged]() -> CUresult {
        if (CUresult r = check_side(src, box)) return r;
        if (CUresult r = check_side(dst, box)) return r;
        return copy_box(dst, src, box);
    });
}

Side host_side(const void* p) {
    Side s;
    s.base = reinterpret_cast<uint64_t>(p);
    s.unchecked_host = !find_region(s.base, 0);
    return s;
}

Side device_side(CUdeviceptr p) {
    Side s;
    s.base = p;
    return s;
}

CUresult linear(Side dst, Side src, size_t bytes, CUstream stream, bool async) {
    D4R_CPU_REFUSE_IF(bytes && (!dst.base || !src.base), CUDA_ERROR_INVALID_VALUE);
    Box box{bytes, 1, 1};
    dst.pitch = src.pitch = bytes;
    dst.height = src.height = 1;
    return copy(dst, src, box, stream, async);
}

// cuMemcpy: unified addressing; an address inside no allocation is host memory.
Side unified_side(CUdeviceptr p) {
    Side s = device_side(p);
    s.unchecked_host = !find_region(p, 0);
    return s;
}

CUresult cu_memcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    return linear(unified_side(dst), unified_side(src), n, nullptr, false);
}
CUresult cu_memcpy_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
    return linear(unified_side(dst), unified_side(src), n, s, true);
}
CUresult cu_memcpy_htod(CUdeviceptr dst, const void* src, size_t n) {
    return linear(device_side(dst), host_side(src), n, nullptr, false);
}
CUresult cu_memcpy_dtoh(void* dst, CUdeviceptr src, size_t n) {
    return linear(host_side(dst), device_side(src), n, nullptr, false);
}
CUresult cu_memcpy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    return linear(device_side(dst), device_side(src), n, nullptr, false);
}
CUresult cu_memcpy_htod_async(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
    return linear(device_side(dst), host_side(src), n, s, true);
}
CUresult cu_memcpy_dtoh_async(void* dst, CUdeviceptr src, size_t n, CUstream s) {
    return linear(host_side(dst), device_side(src), n, s, true);
}
CUresult cu_memcpy_dtod_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
    return linear(device_side(dst), device_side(src), n, s, true);
}

// 1D copies to and from an array treat its texels as one byte range, row after row.
CUresult array_linear(CUarray array, size_t offset, void* host, size_t bytes, bool to_array) {
    if (CUresult r = check_init()) return r;
    ArrayLayout a;
    if (CUresult r = array_layout(array, a)) return r;
    uint64_t total = a.row_bytes * a.height * a.depth;
    D4R_CPU_REFUSE_IF(offset > total || bytes > total - offset, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(bytes && !host, CUDA_ERROR_INVALID_VALUE);
    if (!a.sim) {
        Side arr = device_side(a.base + offset);
        return to_array ? linear(arr, host_side(host), bytes, nullptr, false)
                        : linear(host_side(host), arr, bytes, nullptr, false);
    }
    // A ptxsim array is reached row by row through its own copy functions.
    auto* h = static_cast<uint8_t*>(host);
    while (bytes) {
        uint64_t row = offset / a.row_bytes, x = offset % a.row_bytes;
        uint64_t chunk = std::min<uint64_t>(bytes, a.row_bytes - x);
        Box box{chunk, 1, 1};
        Side arr;
        arr.sim_array = a.sim;
        arr.x = x;
        arr.y = row;
        Side hs = host_side(h);
        hs.pitch = chunk;
        hs.height = 1;
        if (CUresult r = to_array ? copy(arr, hs, box, nullptr, false) : copy(hs, arr, box, nullptr, false)) return r;
        h += chunk;
        offset += chunk;
        bytes -= chunk;
    }
    return CUDA_SUCCESS;
}

CUresult cu_memcpy_htoa(CUarray dst, size_t offset, const void* src, size_t n) {
    return array_linear(dst, offset, const_cast<void*>(src), n, true);
}

CUresult cu_memcpy_atoh(void* dst, CUarray src, size_t offset, size_t n) {
    return array_linear(src, offset, dst, n, false);
}

CUresult memcpy_2d(const CUDA_MEMCPY2D* p, CUstream stream, bool async) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    Box box{p->WidthInBytes, p->Height, 1};
    if (box.width == 0 || box.height == 0) return CUDA_SUCCESS;
    Side src, dst;
    if (CUresult r = resolve_side(raw(p->srcMemoryType), p->srcHost, p->srcDevice, p->srcArray, p->srcPitch, p->Height,
                                  p->srcXInBytes, p->srcY, 0, box, src))
        return r;
    if (CUresult r = resolve_side(raw(p->dstMemoryType), p->dstHost, p->dstDevice, p->dstArray, p->dstPitch, p->Height,
                                  p->dstXInBytes, p->dstY, 0, box, dst))
        return r;
    // Rows are addressed y * pitch from the base: the slice height plays no part in a 2D copy.
    src.height = std::max<uint64_t>(src.height, src.y + box.height);
    dst.height = std::max<uint64_t>(dst.height, dst.y + box.height);
    return copy(dst, src, box, stream, async);
}

CUresult memcpy_3d(const CUDA_MEMCPY3D* p, CUstream stream, bool async) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!p, CUDA_ERROR_INVALID_VALUE);
    if (p->srcLOD || p->dstLOD) return CUDA_ERROR_INVALID_VALUE; // mipmap levels: no mipmapped arrays here
    Box box{p->WidthInBytes, p->Height, p->Depth};
    if (box.width == 0 || box.height == 0 || box.depth == 0) return CUDA_SUCCESS;
    Side src, dst;
    if (CUresult r = resolve_side(raw(p->srcMemoryType), p->srcHost, p->srcDevice, p->srcArray, p->srcPitch,
                                  p->srcHeight, p->srcXInBytes, p->srcY, p->srcZ, box, src))
        return r;
    if (CUresult r = resolve_side(raw(p->dstMemoryType), p->dstHost, p->dstDevice, p->dstArray, p->dstPitch,
                                  p->dstHeight, p->dstXInBytes, p->dstY, p->dstZ, box, dst))
        return r;
    return copy(dst, src, box, stream, async);
}

CUresult cu_memcpy_2d(const CUDA_MEMCPY2D* p) { return memcpy_2d(p, nullptr, false); }
CUresult cu_memcpy_2d_async(const CUDA_MEMCPY2D* p, CUstream s) { return memcpy_2d(p, s, true); }
CUresult cu_memcpy_3d(const CUDA_MEMCPY3D* p) { return memcpy_3d(p, nullptr, false); }
CUresult cu_memcpy_3d_async(const CUDA_MEMCPY3D* p, CUstream s) { return memcpy_3d(p, s, true); }

} // namespace

void fill_memcpy(ApiTable& t) {
    t.cuMemcpy = cu_memcpy;
    t.cuMemcpyAsync = cu_memcpy_async;
    t.cuMemcpyHtoD_v2 = cu_memcpy_htod;
    t.cuMemcpyDtoH_v2 = cu_memcpy_dtoh;
    t.cuMemcpyDtoD_v2 = cu_memcpy_dtod;
    t.cuMemcpyHtoDAsync_v2 = cu_memcpy_htod_async;
    t.cuMemcpyDtoHAsync_v2 = cu_memcpy_dtoh_async;
    t.cuMemcpyDtoDAsync_v2 = cu_memcpy_dtod_async;
    t.cuMemcpyHtoA_v2 = cu_memcpy_htoa;
    t.cuMemcpyAtoH_v2 = cu_memcpy_atoh;
    t.cuMemcpy2D_v2 = cu_memcpy_2d;
    t.cuMemcpy2DUnaligned_v2 = cu_memcpy_2d;
    t.cuMemcpy2DAsync_v2 = cu_memcpy_2d_async;
    t.cuMemcpy3D_v2 = cu_memcpy_3d;
    t.cuMemcpy3DAsync_v2 = cu_memcpy_3d_async;
}

} // namespace d4r::runtime::cpu
