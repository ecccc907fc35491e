// fuzz_cuda_api: contexts, primary contexts, devices and limits.
#include "fuzz_api.h"

namespace fuzz_api {

// ---- One call ---------------------------------------------------------------------------------------

void op_context(Input& in) {
    CUcontext c = nullptr;
    switch (in.u8() % 20) {
    case 0:
    case 1: {
        if (P->ctx.live.size() >= 4) return; // each context has a worker thread
        unsigned flags = in.u8() % 4 ? in.below(8) : in.u32();
        CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
        CUresult r;
        switch (in.u8() % 3) {
        case 0:
            r = T->cuCtxCreate_v2(&c, flags, dev);
            break;
        case 1:
            r = T->cuCtxCreate(&c, flags, dev);
            break;
        default: {
            CUctxCreateParams p;
            fill_ctx_params(in, p);
            r = T->cuCtxCreate_v4(&c, in.flip() ? &p : nullptr, flags, dev);
        }
        }
        if (r == CUDA_SUCCESS) {
            CHECK(c != nullptr);
            P->ctx.add(c);
        }
        return;
    }
    case 2: {
        c = pick_ctx(in);
        if (T->cuCtxDestroy_v2(c) == CUDA_SUCCESS) P->ctx.kill(c);
        return;
    }
    case 3:
        (void)T->cuCtxPushCurrent_v2(pick_ctx(in));
        return;
    case 4:
        (void)T->cuCtxPopCurrent_v2(in.flip() ? &c : nullptr);
        return;
    case 5:
        (void)T->cuCtxSetCurrent(pick_ctx(in));
        return;
    case 6: {
        (void)T->cuCtxGetCurrent(in.flip() ? &c : nullptr);
        CUdevice d;
        (void)T->cuCtxGetDevice(in.flip() ? &d : nullptr);
        unsigned f, v;
        (void)T->cuCtxGetFlags(in.flip() ? &f : nullptr);
        (void)T->cuCtxGetApiVersion(pick_ctx(in), in.flip() ? &v : nullptr);
        return;
    }
    case 7:
        (void)T->cuCtxSynchronize();
        return;
    case 8: {
        CUlimit limit = static_cast<CUlimit>(in.below(9));
        size_t value = in.flip() ? in.u16() : pick_size(in);
        (void)T->cuCtxSetLimit(limit, value);
        size_t got;
        (void)T->cuCtxGetLimit(in.flip() ? &got : nullptr, limit);
        return;
    }
    case 9: {
        CUfunc_cache cc;
        (void)T->cuCtxSetCacheConfig(static_cast<CUfunc_cache>(in.below(6)));
        (void)T->cuCtxGetCacheConfig(in.flip() ? &cc : nullptr);
        CUsharedconfig sc;
        (void)T->cuCtxSetSharedMemConfig(static_cast<CUsharedconfig>(in.below(5)));
        (void)T->cuCtxGetSharedMemConfig(in.flip() ? &sc : nullptr);
        int lo, hi;
        (void)T->cuCtxGetStreamPriorityRange(in.flip() ? &lo : nullptr, in.flip() ? &hi : nullptr);
        return;
    }
    case 10: {
        if (P->ctx.live.size() >= 4) return;
        CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
        if (T->cuDevicePrimaryCtxRetain(in.flip() ? &c : nullptr, dev) == CUDA_SUCCESS) {
            CHECK(c != nullptr);
            ++P->primary_refs;
            if (!P->ctx.has(c)) P->ctx.add(c);
        }
        return;
    }
    case 11:
        if (T->cuDevicePrimaryCtxRelease_v2(in.u8() % 8 ? 0 : CUdevice(in.u32())) == CUDA_SUCCESS) --P->primary_refs;
        return;
    case 12:
        (void)T->cuDevicePrimaryCtxReset_v2(in.u8() % 8 ? 0 : CUdevice(in.u32()));
        return;
    case 13: {
        unsigned flags;
        int active;
        (void)T->cuDevicePrimaryCtxGetState(in.u8() % 8 ? 0 : CUdevice(in.u32()), in.flip() ? &flags : nullptr,
                                            in.flip() ? &active : nullptr);
        (void)T->cuDevicePrimaryCtxSetFlags_v2(0, in.u8() % 4 ? in.below(8) : in.u32());
        return;
    }
    case 14: {
        if (P->ctx.live.size() >= 4) return;
        if (T->cuCtxAttach(in.flip() ? &c : nullptr, in.u8() % 4 ? 0 : in.u32()) == CUDA_SUCCESS && c)
            (void)T->cuCtxDetach(c);
        (void)T->cuCtxDetach(pick_ctx(in));
        return;
    }
    case 15: {
        int can;
        (void)T->cuDeviceCanAccessPeer(in.flip() ? &can : nullptr, CUdevice(in.below(3)), CUdevice(in.below(3)));
        (void)T->cuCtxEnablePeerAccess(pick_ctx(in), in.u8() % 4 ? 0 : in.u32());
        (void)T->cuCtxDisablePeerAccess(pick_ctx(in));
        return;
    }
    case 16:
        (void)T->cuMemcpyPeer(pick_dptr(in), pick_ctx(in), pick_dptr(in), pick_ctx(in), pick_size(in));
        (void)T->cuMemcpyPeerAsync(pick_dptr(in), pick_ctx(in), pick_dptr(in), pick_ctx(in), pick_size(in),
                                   pick_stream(in));
        return;
    default: {
        // Push a context from the pool and pop it again: most programs keep one current context.
        if (!P->ctx.live.empty()) (void)T->cuCtxSetCurrent(P->ctx.live[in.below(P->ctx.live.size())]);
        return;
    }
    }
}

void op_device(Input& in) {
    CUdevice dev = in.u8() % 8 ? 0 : CUdevice(in.u32());
    switch (in.u8() % 12) {
    case 0: {
        CUdevice d;
        int count;
        (void)T->cuDeviceGet(in.flip() ? &d : nullptr, in.u8() % 4 ? 0 : int(in.u32()));
        (void)T->cuDeviceGetCount(in.flip() ? &count : nullptr);
        return;
    }
    case 1: {
        char name[256];
        int len = in.u8() % 4 ? int(in.below(256)) : -int(in.below(4));
        (void)T->cuDeviceGetName(in.flip() ? name : nullptr, len, dev);
        return;
    }
    case 2: {
        CUuuid u;
        size_t bytes;
        (void)T->cuDeviceGetUuid_v2(in.flip() ? &u : nullptr, dev);
        (void)T->cuDeviceTotalMem_v2(in.flip() ? &bytes : nullptr, dev);
        return;
    }
    case 3: {
        int v;
        auto attr = static_cast<CUdevice_attribute>(in.u8() % 4 ? in.below(140) : int(in.u32()));
        (void)T->cuDeviceGetAttribute(in.flip() ? &v : nullptr, attr, dev);
        return;
    }
    case 4: {
        int major, minor;
        CUdevprop prop;
        (void)T->cuDeviceComputeCapability(in.flip() ? &major : nullptr, in.flip() ? &minor : nullptr, dev);
        (void)T->cuDeviceGetProperties(in.flip() ? &prop : nullptr, dev);
        return;
    }
    case 5: {
        char bus[64];
        int len = in.u8() % 4 ? int(in.below(64)) : -1;
        (void)T->cuDeviceGetPCIBusId(in.flip() ? bus : nullptr, len, dev);
        std::string id;
        switch (in.u8() % 4) {
        case 0:
            id = "0000:00:00.0";
            break;
        case 1:
            id = "";
            break;
        default:
            id.assign(in.below(32), char('0' + in.below(60)));
        }
        CUdevice d;
        (void)T->cuDeviceGetByPCIBusId(in.flip() ? &d : nullptr, in.u8() % 8 ? id.c_str() : nullptr);
        return;
    }
    case 6: {
        const char* s = nullptr;
        auto code = static_cast<CUresult>(in.u8() % 2 ? int(in.u16() % 1000) : int(in.u32()));
        if (T->cuGetErrorName(code, in.flip() ? &s : nullptr) == CUDA_SUCCESS && s) (void)std::strlen(s);
        s = nullptr;
        if (T->cuGetErrorString(code, in.flip() ? &s : nullptr) == CUDA_SUCCESS && s) (void)std::strlen(s);
        return;
    }
    case 7: {
        std::string sym;
        const char* s = nullptr;
        switch (in.u8() % 4) {
        case 0:
            s = "cuMemAlloc";
            break;
        case 1:
            s = "cuLaunchKernel";
            break;
        case 2: {
            sym.assign(in.below(48), 'c');
            for (char& ch : sym) ch = char(in.u8() | 1);
            s = sym.c_str();
            break;
        }
        default:
            s = nullptr;
        }
        void* fn;
        CUdriverProcAddressQueryResult status;
        int version = in.u8() % 4 ? 12000 : int(in.u32());
        cuuint64_t flags = in.u8() % 4 ? in.below(3) : in.u64();
        if (in.flip())
            (void)T->cuGetProcAddress_v2(s, in.flip() ? &fn : nullptr, version, flags, in.flip() ? &status : nullptr);
        else
            (void)T->cuGetProcAddress(s, in.flip() ? &fn : nullptr, version, flags);
        return;
    }
    case 8: {
        int v;
        (void)T->cuDriverGetVersion(in.flip() ? &v : nullptr);
        const void* table;
        CUuuid id;
        in.fill(&id, sizeof id);
        (void)T->cuGetExportTable(in.flip() ? &table : nullptr, in.flip() ? &id : nullptr);
        (void)T->cuProfilerStart();
        (void)T->cuProfilerStop();
        return;
    }
    case 9: {
        CUipcMemHandle mh;
        CUipcEventHandle eh;
        (void)T->cuIpcGetMemHandle(in.flip() ? &mh : nullptr, pick_dptr(in));
        in.fill(&mh, sizeof mh);
        CUdeviceptr p;
        if (T->cuIpcOpenMemHandle_v2(&p, mh, in.below(3)) == CUDA_SUCCESS) (void)T->cuIpcCloseMemHandle(p);
        (void)T->cuIpcCloseMemHandle(pick_dptr(in));
        (void)T->cuIpcGetEventHandle(in.flip() ? &eh : nullptr, pick(in, P->event));
        in.fill(&eh, sizeof eh);
        CUevent e;
        if (T->cuIpcOpenEventHandle(&e, eh) == CUDA_SUCCESS) P->event.add(e);
        return;
    }
    case 10: {
        // Graphics interoperability and texture references: nothing to map on the cpu backend.
        auto res = junk_handle<CUgraphicsResource>(in);
        CUarray a;
        CUdeviceptr p;
        size_t size;
        (void)T->cuGraphicsUnregisterResource(res);
        (void)T->cuGraphicsSubResourceGetMappedArray(in.flip() ? &a : nullptr, res, in.u8(), in.u8());
        (void)T->cuGraphicsResourceGetMappedPointer_v2(in.flip() ? &p : nullptr, in.flip() ? &size : nullptr, res);
        (void)T->cuGraphicsResourceSetMapFlags_v2(res, in.u32());
        CUgraphicsResource list[2] = {res, res};
        (void)T->cuGraphicsMapResources(in.below(3), in.flip() ? list : nullptr, pick_stream(in));
        (void)T->cuGraphicsUnmapResources(in.below(3), in.flip() ? list : nullptr, pick_stream(in));
        return;
    }
    default: {
        CUtexref t = nullptr;
        if (T->cuTexRefCreate(in.flip() ? &t : nullptr) == CUDA_SUCCESS && t) P->texref.add(t);
        t = pick(in, P->texref);
        (void)T->cuTexRefSetArray(t, pick(in, P->array), in.u8() % 4 ? 1 : in.u32());
        size_t off;
        (void)T->cuTexRefSetAddress_v2(in.flip() ? &off : nullptr, t, pick_dptr(in), pick_size(in));
        CUDA_ARRAY_DESCRIPTOR d{pick_extent(in), pick_extent(in), pick_format(in), unsigned(in.below(6))};
        (void)T->cuTexRefSetAddress2D_v3(t, in.flip() ? &d : nullptr, pick_dptr(in), pick_size(in));
        (void)T->cuTexRefSetFormat(t, pick_format(in), int(in.below(6)));
        (void)T->cuTexRefSetAddressMode(t, int(in.below(5)) - 1, static_cast<CUaddress_mode>(in.below(6)));
        (void)T->cuTexRefSetFilterMode(t, static_cast<CUfilter_mode>(in.below(3)));
        (void)T->cuTexRefSetFlags(t, in.u32());
        CUdeviceptr p;
        CUarray a;
        CUaddress_mode am;
        CUfilter_mode fm;
        CUarray_format fmt;
        int ch;
        unsigned fl;
        (void)T->cuTexRefGetAddress_v2(in.flip() ? &p : nullptr, t);
        (void)T->cuTexRefGetArray(in.flip() ? &a : nullptr, t);
        (void)T->cuTexRefGetAddressMode(in.flip() ? &am : nullptr, t, int(in.below(5)) - 1);
        (void)T->cuTexRefGetFilterMode(in.flip() ? &fm : nullptr, t);
        (void)T->cuTexRefGetFormat(in.flip() ? &fmt : nullptr, in.flip() ? &ch : nullptr, t);
        (void)T->cuTexRefGetFlags(in.flip() ? &fl : nullptr, t);
        CUsurfref sr = junk_handle<CUsurfref>(in);
        (void)T->cuSurfRefSetArray(sr, pick(in, P->array), 0);
        (void)T->cuSurfRefGetArray(in.flip() ? &a : nullptr, sr);
        if (in.u8() % 4 == 0 && T->cuTexRefDestroy(t) == CUDA_SUCCESS) P->texref.kill(t);
        return;
    }
    }
}

} // namespace fuzz_api
