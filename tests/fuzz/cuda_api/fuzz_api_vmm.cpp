// fuzz_cuda_api: memory pools, virtual memory management and external memory.
#include "fuzz_api.h"

namespace fuzz_api {

void op_mempool(Input& in) {
    CUmemoryPool p = pick(in, P->mempool);
    CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
    switch (in.u8() % 8) {
    case 0: {
        if (P->mempool.live.size() >= 4) return;
        CUmemPoolProps props;
        fill_pool_props(in, props);
        CUmemoryPool np = nullptr;
        if (T->cuMemPoolCreate(in.u8() % 16 ? &np : nullptr, in.u8() % 16 ? &props : nullptr) == CUDA_SUCCESS) {
            CHECK(np != nullptr);
            P->mempool.add(np);
        }
        return;
    }
    case 1:
        if (T->cuMemPoolDestroy(p) == CUDA_SUCCESS) P->mempool.kill(p);
        return;
    case 2:
    case 3: {
        // Every attribute is an int or a cuuint64_t: 8 bytes hold either.
        alignas(8) uint64_t value = in.u8() % 4 ? in.below(2) : in.u64();
        auto attr = static_cast<CUmemPool_attribute>(in.u8() % 4 ? 1 + in.below(8) : int(in.u32()));
        if (in.flip())
            (void)T->cuMemPoolSetAttribute(p, attr, in.u8() % 16 ? &value : nullptr);
        else
            (void)T->cuMemPoolGetAttribute(p, attr, in.u8() % 16 ? &value : nullptr);
        return;
    }
    case 4:
        (void)T->cuMemPoolTrimTo(p, pick_size(in));
        return;
    case 5: {
        CUmemAccessDesc map[2];
        for (auto& m : map) {
            m.location = pick_location(in);
            m.flags = static_cast<CUmemAccess_flags>(in.u8() % 4 ? in.below(4) : in.u32());
        }
        (void)T->cuMemPoolSetAccess(p, in.u8() % 8 ? map : nullptr, in.below(3));
        CUmemAccess_flags flags;
        CUmemLocation loc = pick_location(in);
        (void)T->cuMemPoolGetAccess(in.flip() ? &flags : nullptr, p, in.u8() % 8 ? &loc : nullptr);
        return;
    }
    default: {
        CUmemoryPool out;
        (void)T->cuDeviceGetDefaultMemPool(in.flip() ? &out : nullptr, dev);
        (void)T->cuDeviceGetMemPool(in.flip() ? &out : nullptr, dev);
        if (in.flip()) (void)T->cuDeviceSetMemPool(dev, p);
        return;
    }
    }
}

void op_vmm(Input& in) {
    CUmemAllocationProp prop;
    fill_mem_prop(in, prop);
    // cuMemCreate is not within the memory budget yet (docs/runtime.md): sizes stay small.
    size_t size = in.u8() % 4 ? (size_t(1) + in.below(16)) << 21 : pick_size(in);
    if (size > (64u << 20) && size < (1ull << 40)) size = 64u << 20;
    switch (in.u8() % 8) {
    case 0: {
        size_t g;
        (void)T->cuMemGetAllocationGranularity(in.flip() ? &g : nullptr, in.u8() % 16 ? &prop : nullptr,
                                               static_cast<CUmemAllocationGranularity_flags>(in.below(3)));
        return;
    }
    case 1: {
        if (P->vmm.live.size() >= 8) return;
        CUmemGenericAllocationHandle h = 0;
        if (T->cuMemCreate(in.u8() % 16 ? &h : nullptr, size, in.u8() % 16 ? &prop : nullptr,
                           in.u8() % 8 ? 0 : in.u64()) == CUDA_SUCCESS) {
            CHECK(h != 0);
            P->vmm.add(h);
        }
        return;
    }
    case 2: {
        CUmemGenericAllocationHandle h = pick(in, P->vmm);
        if (T->cuMemRelease(h) == CUDA_SUCCESS) P->vmm.kill(h);
        CUmemAllocationProp out;
        (void)T->cuMemGetAllocationPropertiesFromHandle(in.flip() ? &out : nullptr, pick(in, P->vmm));
        return;
    }
    case 3: {
        if (P->reservations.size() >= 8) return;
        CUdeviceptr p = 0;
        size_t align = in.u8() % 4 ? 0 : size_t(1) << in.below(40);
        CUdeviceptr hint = in.u8() % 4 ? 0 : pick_dptr(in);
        size_t rsize = in.u8() % 4 ? (size_t(1) + in.below(64)) << 21 : pick_size(in);
        if (T->cuMemAddressReserve(in.u8() % 16 ? &p : nullptr, rsize, align, hint, in.u8() % 8 ? 0 : in.u64()) ==
            CUDA_SUCCESS) {
            CHECK(p != 0);
            P->reservations.push_back({p, rsize});
            remember_range(p, rsize);
        }
        return;
    }
    case 4: {
        Ptr r = !P->reservations.empty() && in.u8() % 4 ? P->reservations[in.below(P->reservations.size())]
                                                        : Ptr{pick_dptr(in), pick_size(in)};
        if (in.u8() % 4 == 0) r.size = pick_size(in);
        if (T->cuMemAddressFree(r.p, r.size) == CUDA_SUCCESS) {
            auto it =
                std::find_if(P->reservations.begin(), P->reservations.end(), [&](const Ptr& x) { return x.p == r.p; });
            if (it != P->reservations.end()) P->reservations.erase(it);
        }
        return;
    }
    case 5: {
        Ptr r = !P->reservations.empty() && in.u8() % 4 ? P->reservations[in.below(P->reservations.size())]
                                                        : Ptr{pick_dptr(in), pick_size(in)};
        size_t offset = in.u8() % 4 ? 0 : pick_size(in);
        size_t msize = in.u8() % 2 ? size_t(2) << 20 : pick_size(in);
        CUdeviceptr at = r.p + (in.u8() % 4 ? 0 : (in.below(8) << 21));
        if (T->cuMemMap(at, msize, offset, pick(in, P->vmm), in.u8() % 8 ? 0 : in.u64()) == CUDA_SUCCESS) {
            CUmemAccessDesc desc{pick_location(in), static_cast<CUmemAccess_flags>(in.u8() % 4 ? 3 : in.below(5))};
            if (T->cuMemSetAccess(at, msize, in.u8() % 16 ? &desc : nullptr, in.u8() % 8 ? 1 : in.below(3)) ==
                CUDA_SUCCESS)
                remember_dev(at, msize);
        }
        return;
    }
    case 6: {
        Ptr r = !P->reservations.empty() && in.u8() % 4 ? P->reservations[in.below(P->reservations.size())]
                                                        : Ptr{pick_dptr(in), pick_size(in)};
        size_t usize = in.u8() % 2 ? size_t(2) << 20 : pick_size(in);
        if (T->cuMemUnmap(r.p, usize) == CUDA_SUCCESS) {
            for (size_t i = 0; i < P->dev.size();) {
                if (P->dev[i].p >= r.p && P->dev[i].p < r.p + usize) {
                    P->dev_dead.push_back(P->dev[i]);
                    P->dev.erase(P->dev.begin() + i);
                } else {
                    ++i;
                }
            }
        }
        unsigned long long flags;
        CUmemLocation loc = pick_location(in);
        (void)T->cuMemGetAccess(in.flip() ? &flags : nullptr, in.u8() % 8 ? &loc : nullptr, pick_dptr(in));
        return;
    }
    default: {
        CUmemGenericAllocationHandle h = 0;
        void* addr = in.flip() ? reinterpret_cast<void*>(pick_dptr(in)) : pick_host(in);
        if (T->cuMemRetainAllocationHandle(in.u8() % 16 ? &h : nullptr, addr) == CUDA_SUCCESS && h)
            (void)T->cuMemRelease(h);
        // Export: only the none handle type (a real descriptor would have to be closed again).
        alignas(8) uint8_t shareable[64] = {};
        (void)T->cuMemExportToShareableHandle(in.flip() ? shareable : nullptr, pick(in, P->vmm),
                                              static_cast<CUmemAllocationHandleType>(0), 0);
        CUmemGenericAllocationHandle imported = 0;
        // An OS handle of -1 or junk: importing a real descriptor would take it from the fuzzer.
        // Types whose handle is a value (descriptor, Windows HANDLE), not a pointer to a fabric handle.
        static const unsigned types[] = {0, 1, 2, 4, 0x10};
        if (T->cuMemImportFromShareableHandle(&imported, reinterpret_cast<void*>(intptr_t(in.flip() ? -1 : 1 << 20)),
                                              static_cast<CUmemAllocationHandleType>(types[in.below(5)])) ==
                CUDA_SUCCESS &&
            imported)
            (void)T->cuMemRelease(imported);
        return;
    }
    }
}

void op_external(Input& in) {
    switch (in.u8() % 4) {
    case 0: {
        if (P->extmem.live.size() >= 4) return;
        // A memfd of 64 KiB that d4r owns after a successful import; the size asked for may exceed it. Mostly laid out
        // as a Mesa CPU Vulkan driver exports memory (a page of header first), which OPAQUE_FD imports need.
        CUDA_EXTERNAL_MEMORY_HANDLE_DESC d;
        std::memset(&d, 0, sizeof d);
        d.type = static_cast<CUexternalMemoryHandleType>(in.u8() % 4 ? 1 : in.below(10));
        int fd = -1;
        if (in.u8() % 4) {
            const bool mesa = in.u8() % 4 != 0;
            const uint64_t header[2] = {64 * 1024 + 4096, 4096};
            fd = memfd_create("fuzz_cuda_api", MFD_CLOEXEC);
            if (fd >= 0 && (ftruncate(fd, off_t(mesa ? header[0] : 64 * 1024)) != 0 ||
                            (mesa && (pwrite(fd, header, sizeof header, 0) != sizeof header ||
                                      pwrite(fd, &header[1], 8, 4096 - 8) != 8)))) {
                close(fd);
                fd = -1;
            }
        }
        d.handle.fd = fd;
        d.size = in.u8() % 4 ? (size_t(1) + in.below(16)) << 12 : pick_size(in);
        d.flags = in.u8() % 4 ? 0 : in.u32();
        if (in.u8() % 8 == 0) d.reserved[in.below(16)] = 1;
        CUexternalMemory m = nullptr;
        if (T->cuImportExternalMemory(in.u8() % 16 ? &m : nullptr, in.u8() % 16 ? &d : nullptr) == CUDA_SUCCESS) {
            CHECK(m != nullptr);
            P->extmem.add(m);
        } else if (fd >= 0) {
            close(fd);
        }
        return;
    }
    case 1: {
        CUDA_EXTERNAL_MEMORY_BUFFER_DESC b;
        std::memset(&b, 0, sizeof b);
        b.offset = in.u8() % 4 ? in.below(16) << 12 : pick_size(in);
        b.size = in.u8() % 4 ? (size_t(1) + in.below(16)) << 12 : pick_size(in);
        b.flags = in.u8() % 8 ? 0 : in.u32();
        CUdeviceptr p = 0;
        if (T->cuExternalMemoryGetMappedBuffer(in.u8() % 16 ? &p : nullptr, pick(in, P->extmem),
                                               in.u8() % 16 ? &b : nullptr) == CUDA_SUCCESS) {
            CHECK(p != 0);
            remember_dev(p, b.size);
        }
        CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC md;
        std::memset(&md, 0, sizeof md);
        fill_array3d(in, md.arrayDesc);
        md.numLevels = in.below(4);
        CUmipmappedArray mm = nullptr;
        if (T->cuExternalMemoryGetMappedMipmappedArray(&mm, pick(in, P->extmem), &md) == CUDA_SUCCESS && mm)
            P->mipmap.add(mm);
        return;
    }
    case 2: {
        CUexternalMemory m = pick(in, P->extmem);
        if (T->cuDestroyExternalMemory(m) == CUDA_SUCCESS) {
            P->extmem.kill(m);
            // Its buffers are gone: drop what the pool may still point into (nothing else knows the range).
        }
        return;
    }
    default: {
        CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC d;
        std::memset(&d, 0, sizeof d);
        d.type = static_cast<CUexternalSemaphoreHandleType>(in.below(11));
        d.handle.fd = -1;
        CUexternalSemaphore sem = nullptr;
        if (T->cuImportExternalSemaphore(in.flip() ? &sem : nullptr, in.u8() % 16 ? &d : nullptr) == CUDA_SUCCESS &&
            sem)
            (void)T->cuDestroyExternalSemaphore(sem);
        CUexternalSemaphore sems[2] = {junk_handle<CUexternalSemaphore>(in), sem};
        CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp[2];
        CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp[2];
        std::memset(sp, 0, sizeof sp);
        std::memset(wp, 0, sizeof wp);
        unsigned n = unsigned(in.below(3));
        (void)T->cuSignalExternalSemaphoresAsync(in.u8() % 8 ? sems : nullptr, in.u8() % 8 ? sp : nullptr, n,
                                                 pick_stream(in));
        (void)T->cuWaitExternalSemaphoresAsync(in.u8() % 8 ? sems : nullptr, in.u8() % 8 ? wp : nullptr, n,
                                               pick_stream(in));
        (void)T->cuDestroyExternalSemaphore(sems[0]);
        return;
    }
    }
}

} // namespace fuzz_api
