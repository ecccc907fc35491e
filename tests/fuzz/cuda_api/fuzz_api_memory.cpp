// fuzz_cuda_api: allocation, free, memset, copies and memory queries.
#include "fuzz_api.h"

namespace fuzz_api {

void op_alloc(Input& in) {
    CUdeviceptr p = 0;
    void* h = nullptr;
    size_t size = alloc_size(in);
    switch (in.u8() % 10) {
    case 0:
    case 1:
    case 2:
        if (T->cuMemAlloc_v2(in.u8() % 16 ? &p : nullptr, size) == CUDA_SUCCESS) {
            CHECK(p != 0);
            CUdeviceptr base = 0;
            size_t bytes = 0;
            CHECK(T->cuMemGetAddressRange_v2(&base, &bytes, p) == CUDA_SUCCESS && base == p && bytes == size);
            remember_dev(p, size);
        }
        return;
    case 3: {
        size_t pitch = 0;
        size_t width = in.u8() % 8 ? in.u16() : size;
        size_t height = in.u8() % 8 ? in.below(64) : pick_size(in);
        unsigned elem = in.u8() % 4 ? 4u << in.below(3) : in.u32();
        if (width * std::max<size_t>(height, 1) > (64u << 20) && !g_budget && width < (1ull << 32) &&
            height < (1ull << 32))
            height = 1;
        if (T->cuMemAllocPitch_v2(&p, in.u8() % 16 ? &pitch : nullptr, width, height, elem) == CUDA_SUCCESS) {
            CHECK(p != 0 && pitch >= width);
            remember_dev(p, pitch * height);
        }
        return;
    }
    case 4:
        if (T->cuMemAllocHost_v2(in.u8() % 16 ? &h : nullptr, size) == CUDA_SUCCESS && h)
            if (P->host.size() < 64) {
                P->host.push_back({reinterpret_cast<CUdeviceptr>(h), size});
                remember_range(reinterpret_cast<CUdeviceptr>(h), size);
            }
        return;
    case 5:
        if (T->cuMemHostAlloc(&h, size, in.u8() % 4 ? in.below(16) : in.u32()) == CUDA_SUCCESS && h)
            if (P->host.size() < 64) {
                P->host.push_back({reinterpret_cast<CUdeviceptr>(h), size});
                remember_range(reinterpret_cast<CUdeviceptr>(h), size);
            }
        return;
    case 6:
        // Managed memory is not within the memory budget yet (docs/runtime.md): sizes stay small.
        if (size > (64u << 20) && size < (1ull << 40)) size = 64u << 20;
        if (T->cuMemAllocManaged(&p, size, in.u8() % 4 ? 1 + in.below(2) : in.u32()) == CUDA_SUCCESS) {
            CHECK(p != 0);
            remember_dev(p, size);
        }
        return;
    case 7:
        if (size > (64u << 20) && size < (1ull << 40)) size = 64u << 20;
        if (T->cuMemAllocAsync(&p, size, pick_stream(in)) == CUDA_SUCCESS) {
            CHECK(p != 0);
            remember_dev(p, size);
        }
        return;
    case 8:
        if (size > (64u << 20) && size < (1ull << 40)) size = 64u << 20;
        if (T->cuMemAllocFromPoolAsync(&p, size, pick(in, P->mempool), pick_stream(in)) == CUDA_SUCCESS) {
            CHECK(p != 0);
            remember_dev(p, size);
        }
        return;
    default: {
        // The legacy 32-bit entry points: a 64-bit allocation does not fit in their pointers.
        CUdeviceptr_v1 p32 = 0;
        if (T->cuMemAlloc(&p32, unsigned(size)) == CUDA_SUCCESS && p32) (void)T->cuMemFree(p32);
        unsigned f, t;
        (void)T->cuMemGetInfo(in.flip() ? &f : nullptr, &t);
        return;
    }
    }
}

void op_free(Input& in) {
    switch (in.u8() % 4) {
    case 0:
    case 1: {
        CUdeviceptr p = in.u8() % 4 || P->dev.empty() ? pick_dptr(in) : P->dev[in.below(P->dev.size())].p;
        if (T->cuMemFree_v2(p) == CUDA_SUCCESS) forget(P->dev, P->dev_dead, p);
        return;
    }
    case 2: {
        CUdeviceptr p = in.u8() % 4 || P->dev.empty() ? pick_dptr(in) : P->dev[in.below(P->dev.size())].p;
        // A stream-ordered free: the memory goes when the stream gets there.
        if (T->cuMemFreeAsync(p, pick_stream(in)) == CUDA_SUCCESS) forget(P->dev, P->dev_dead, p);
        return;
    }
    default: {
        void* h = !P->host.empty() && in.u8() % 4 ? reinterpret_cast<void*>(P->host[in.below(P->host.size())].p)
                                                  : reinterpret_cast<void*>(pick_dptr(in));
        if (T->cuMemFreeHost(h) == CUDA_SUCCESS) forget(P->host, P->host_dead, reinterpret_cast<CUdeviceptr>(h));
        return;
    }
    }
}

void op_memset(Input& in) {
    CUdeviceptr p = pick_dptr(in);
    size_t n = pick_size(in);
    CUstream s = pick_stream(in);
    size_t pitch;
    switch (in.u8() % 8) {
    case 0:
        pitch = ~0ull - in.below(1024);
        break; // (Height - 1) * pitch wraps (issue 14, item 1)
    case 1:
        pitch = huge_size(in);
        break;
    case 2:
        pitch = 0;
        break;
    default:
        pitch = in.u16() % 4096;
    }
    size_t w = in.u8() % 8 ? in.u16() % 1024 : pick_size(in);
    size_t h = in.u8() % 8 ? in.below(16) : pick_size(in);
    switch (in.u8() % 12) {
    case 0:
        (void)T->cuMemsetD8_v2(p, in.u8(), n);
        return;
    case 1:
        (void)T->cuMemsetD16_v2(p, in.u16(), n);
        return;
    case 2:
        (void)T->cuMemsetD32_v2(p, in.u32(), n);
        return;
    case 3:
        (void)T->cuMemsetD8Async(p, in.u8(), n, s);
        return;
    case 4:
        (void)T->cuMemsetD16Async(p, in.u16(), n, s);
        return;
    case 5:
        (void)T->cuMemsetD32Async(p, in.u32(), n, s);
        return;
    case 6:
        (void)T->cuMemsetD2D8_v2(p, pitch, in.u8(), w, h);
        return;
    case 7:
        (void)T->cuMemsetD2D16_v2(p, pitch, in.u16(), w, h);
        return;
    case 8:
        (void)T->cuMemsetD2D32_v2(p, pitch, in.u32(), w, h);
        return;
    case 9:
        (void)T->cuMemsetD2D8Async(p, pitch, in.u8(), w, h, s);
        return;
    case 10:
        (void)T->cuMemsetD2D16Async(p, pitch, in.u16(), w, h, s);
        return;
    default:
        (void)T->cuMemsetD2D32Async(p, pitch, in.u32(), w, h, s);
        return;
    }
}

void op_memcpy(Input& in) {
    size_t n = pick_size(in);
    CUstream s = pick_stream(in);
    switch (in.u8() % 14) {
    case 0:
        (void)T->cuMemcpyHtoD_v2(pick_dptr(in), pick_host(in), n);
        return;
    case 1:
        (void)T->cuMemcpyDtoH_v2(pick_host(in), pick_dptr(in), n);
        return;
    case 2:
        (void)T->cuMemcpyDtoD_v2(pick_dptr(in), pick_dptr(in), n);
        return;
    case 3:
        (void)T->cuMemcpyHtoDAsync_v2(pick_dptr(in), pick_host(in), n, s);
        return;
    case 4:
        (void)T->cuMemcpyDtoHAsync_v2(pick_host(in), pick_dptr(in), n, s);
        return;
    case 5:
        (void)T->cuMemcpyDtoDAsync_v2(pick_dptr(in), pick_dptr(in), n, s);
        return;
    case 6:
        (void)T->cuMemcpy(pick_unified(in), pick_unified(in), n);
        return;
    case 7:
        (void)T->cuMemcpyAsync(pick_unified(in), pick_unified(in), n, s);
        return;
    case 8: {
        // The legacy 32-bit forms.
        (void)T->cuMemcpyHtoD(CUdeviceptr_v1(pick_dptr(in)), pick_host(in), unsigned(n));
        (void)T->cuMemcpyDtoH(pick_host(in), CUdeviceptr_v1(pick_dptr(in)), unsigned(n));
        (void)T->cuMemcpyDtoDAsync(CUdeviceptr_v1(pick_dptr(in)), CUdeviceptr_v1(pick_dptr(in)), unsigned(n), s);
        return;
    }
    case 9: {
        CUDA_MEMCPY2D c;
        fill_copy2d(in, c);
        switch (in.u8() % 3) {
        case 0:
            (void)T->cuMemcpy2D_v2(in.u8() % 16 ? &c : nullptr);
            return;
        case 1:
            (void)T->cuMemcpy2DUnaligned_v2(&c);
            return;
        default:
            (void)T->cuMemcpy2DAsync_v2(&c, s);
            return;
        }
    }
    case 10: {
        CUDA_MEMCPY3D c;
        fill_copy3d(in, c);
        if (in.flip())
            (void)T->cuMemcpy3D_v2(in.u8() % 16 ? &c : nullptr);
        else
            (void)T->cuMemcpy3DAsync_v2(&c, s);
        return;
    }
    case 11: {
        // A round trip through fresh memory must give the bytes back.
        CUdeviceptr d = 0;
        size_t k = 1 + in.below(255);
        if (T->cuMemAlloc_v2(&d, k) != CUDA_SUCCESS) return;
        uint8_t* src = rw();
        uint8_t* dst = rw() + 1024;
        for (size_t i = 0; i < k; ++i) src[i] = uint8_t(i * 7 + 1);
        std::memset(dst, 0, k);
        if (T->cuMemcpyHtoD_v2(d, src, k) == CUDA_SUCCESS && T->cuMemcpyDtoH_v2(dst, d, k) == CUDA_SUCCESS)
            CHECK(std::memcmp(src, dst, k) == 0);
        (void)T->cuMemFree_v2(d);
        return;
    }
    default: {
        CUarray a = pick(in, P->array);
        size_t off = in.flip() ? in.u16() % 512 : pick_size(in);
        switch (in.u8() % 7) {
        case 0:
            (void)T->cuMemcpyHtoA_v2(a, off, pick_host(in), n);
            return;
        case 1:
            (void)T->cuMemcpyAtoH_v2(pick_host(in), a, off, n);
            return;
        case 2:
            (void)T->cuMemcpyHtoAAsync_v2(a, off, pick_host(in), n, s);
            return;
        case 3:
            (void)T->cuMemcpyAtoHAsync_v2(pick_host(in), a, off, n, s);
            return;
        case 4:
            (void)T->cuMemcpyDtoA_v2(a, off, pick_dptr(in), n);
            return;
        case 5:
            (void)T->cuMemcpyAtoD_v2(pick_dptr(in), a, off, n);
            return;
        default:
            (void)T->cuMemcpyAtoA_v2(a, off, pick(in, P->array), in.u16() % 512, n);
            return;
        }
    }
    }
}

void op_memory_info(Input& in) {
    CUdeviceptr p = pick_dptr(in);
    switch (in.u8() % 10) {
    case 0: {
        CUdeviceptr base;
        size_t size;
        (void)T->cuMemGetAddressRange_v2(in.flip() ? &base : nullptr, in.flip() ? &size : nullptr, p);
        size_t f, t;
        (void)T->cuMemGetInfo_v2(in.flip() ? &f : nullptr, in.flip() ? &t : nullptr);
        return;
    }
    case 1: {
        alignas(16) uint8_t data[64];
        auto attr = static_cast<CUpointer_attribute>(in.u8() % 4 ? 1 + in.below(24) : int(in.u32()));
        (void)T->cuPointerGetAttribute(in.flip() ? data : nullptr, attr, p);
        return;
    }
    case 2: {
        // Every attribute writes at most 8 bytes (the P2P tokens 16): give each 64.
        alignas(16) uint8_t data[4][64];
        void* ptrs[4] = {data[0], data[1], data[2], in.flip() ? data[3] : nullptr};
        CUpointer_attribute attrs[4];
        for (auto& a : attrs) a = static_cast<CUpointer_attribute>(in.u8() % 4 ? 1 + in.below(24) : int(in.u32()));
        (void)T->cuPointerGetAttributes(in.below(5), in.flip() ? attrs : nullptr, in.flip() ? ptrs : nullptr, p);
        return;
    }
    case 3: {
        alignas(16) uint8_t data[64];
        auto attr = static_cast<CUmem_range_attribute>(in.u8() % 4 ? 1 + in.below(8) : int(in.u32()));
        size_t bytes = in.u8() % 4 ? 4u << in.below(3) : in.below(65);
        (void)T->cuMemRangeGetAttribute(in.flip() ? data : nullptr, bytes, attr, p, pick_size(in));
        alignas(16) uint8_t d2[2][64];
        void* dd[2] = {d2[0], d2[1]};
        size_t sizes[2] = {4, in.below(65)};
        CUmem_range_attribute attrs[2] = {attr, static_cast<CUmem_range_attribute>(1 + in.below(4))};
        (void)T->cuMemRangeGetAttributes(in.flip() ? dd : nullptr, in.flip() ? sizes : nullptr,
                                         in.flip() ? attrs : nullptr, in.below(3), p, pick_size(in));
        return;
    }
    case 4:
        (void)T->cuMemPrefetchAsync(p, pick_size(in), CUdevice(int(in.below(4)) - 2), pick_stream(in));
        (void)T->cuMemPrefetchAsync_v2(p, pick_size(in), pick_location(in), in.u8() % 4 ? 0 : in.u32(),
                                       pick_stream(in));
        return;
    case 5:
        (void)T->cuMemAdvise(p, pick_size(in), static_cast<CUmem_advise>(in.below(8)), CUdevice(int(in.below(4)) - 2));
        (void)T->cuMemAdvise_v2(p, pick_size(in), static_cast<CUmem_advise>(in.below(8)), pick_location(in));
        return;
    case 6:
        (void)T->cuStreamAttachMemAsync(pick_stream(in), p, pick_size(in), in.u8() % 4 ? 1u << in.below(3) : in.u32());
        return;
    case 7: {
        // Registering a piece of the arena: the arena's pages, its inaccessible or read-only page, or junk.
        void* h;
        size_t bytes;
        uint8_t which = in.u8() % 6;
        if (!kRegisterUnmapped && which < 4) which = 4;
        switch (which) {
        case 0:
            h = guard();
            bytes = kPage;
            break;
        case 1:
            h = read_only();
            bytes = kPage;
            break;
        case 2:
            h = reinterpret_cast<void*>(0x10);
            bytes = kPage;
            break;
        case 3:
            h = rw() + kRwBytes - kPage;
            bytes = 2 * kPage;
            break; // runs into the inaccessible page
        default: {
            size_t page = in.below(kRwBytes / kPage);
            h = rw() + kPage * page;
            bytes = kPage * std::min<size_t>(1 + in.below(3), kRwBytes / kPage - page);
            break;
        }
        }
        if (in.u8() % 8 == 0)
            bytes = kRegisterUnmapped ? pick_size(in)
                                      : std::min(pick_size(in), kRwBytes - (static_cast<uint8_t*>(h) - rw()));
        unsigned flags = in.u8() % 4 ? in.below(16) : in.u32();
        CUresult r = in.flip() ? T->cuMemHostRegister_v2(h, bytes, flags) : T->cuMemHostRegister(h, bytes, flags);
        if (r == CUDA_SUCCESS && P->registered.size() < 16)
            P->registered.push_back({reinterpret_cast<CUdeviceptr>(h), bytes});
        return;
    }
    case 8: {
        void* h = !P->registered.empty() && in.flip()
                      ? reinterpret_cast<void*>(P->registered[in.below(P->registered.size())].p)
                      : pick_host(in);
        if (T->cuMemHostUnregister(h) == CUDA_SUCCESS) {
            auto it = std::find_if(P->registered.begin(), P->registered.end(),
                                   [&](const Ptr& r) { return r.p == reinterpret_cast<CUdeviceptr>(h); });
            if (it != P->registered.end()) P->registered.erase(it);
        }
        return;
    }
    default: {
        unsigned flags;
        CUdeviceptr d;
        void* h = in.flip() ? reinterpret_cast<void*>(p) : pick_host(in);
        (void)T->cuMemHostGetFlags(in.flip() ? &flags : nullptr, h);
        (void)T->cuMemHostGetDevicePointer_v2(in.flip() ? &d : nullptr, h, in.u8() % 4 ? 0 : in.u32());
        return;
    }
    }
}

} // namespace fuzz_api
