// cpu backend: peer access and interprocess handles on a one-device system. The device is not a peer of
// itself (cuDeviceCanAccessPeer(0, 0) = 0, as on a one-GPU machine), so enabling peer access is refused
// with CUDA_ERROR_PEER_ACCESS_UNSUPPORTED and disabling it with CUDA_ERROR_PEER_ACCESS_NOT_ENABLED; peer
// copies between contexts of the device are ordinary device-to-device copies. Memory lives in this
// process only, so IPC handles are CUDA_ERROR_NOT_SUPPORTED (logged once).
#include "core/log.h"
#include "runtime/backends/cpu/cpu_state.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

PFN_cuMemcpyDtoD_v2 g_dtod = nullptr;
PFN_cuMemcpyDtoDAsync_v2 g_dtod_async = nullptr;

CUresult check_peer_context(CUcontext peer) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    D4R_CPU_REFUSE_IF(!peer || !find_context(peer), CUDA_ERROR_INVALID_CONTEXT);
    return CUDA_SUCCESS;
}

CUresult cu_ctx_enable_peer_access(CUcontext peer, unsigned int flags) {
    if (CUresult r = check_peer_context(peer)) return r;
    D4R_CPU_REFUSE_IF(flags != 0, CUDA_ERROR_INVALID_VALUE);
    return refuse(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
                  "cpu backend: cuCtxEnablePeerAccess: one device, which is not its own peer");
}

CUresult cu_ctx_disable_peer_access(CUcontext peer) {
    if (CUresult r = check_peer_context(peer)) return r;
    return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}

CUresult check_copy_contexts(CUcontext dst, CUcontext src) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!dst || !src || !find_context(dst) || !find_context(src), CUDA_ERROR_INVALID_CONTEXT);
    return CUDA_SUCCESS;
}

CUresult cu_memcpy_peer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n) {
    if (CUresult r = check_copy_contexts(dctx, sctx)) return r;
    return g_dtod(dst, src, n);
}

CUresult cu_memcpy_peer_async(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n, CUstream s) {
    if (CUresult r = check_copy_contexts(dctx, sctx)) return r;
    return g_dtod_async(dst, src, n, s);
}

CUresult ipc_unsupported(const char* what) {
    if (CUresult r = check_init()) return r;
    if (log::once("cpu:ipc"))
        log::info(
            "cpu backend: {} (and every IPC call) returns CUDA_ERROR_NOT_SUPPORTED: device memory lives in this process only",
            what);
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cu_ipc_get_mem_handle(CUipcMemHandle* handle, CUdeviceptr) {
    if (handle) *handle = CUipcMemHandle{};
    return ipc_unsupported("cuIpcGetMemHandle");
}
CUresult cu_ipc_open_mem_handle(CUdeviceptr* dptr, CUipcMemHandle, unsigned int) {
    if (dptr) *dptr = 0;
    return ipc_unsupported("cuIpcOpenMemHandle");
}
CUresult cu_ipc_close_mem_handle(CUdeviceptr) { return ipc_unsupported("cuIpcCloseMemHandle"); }
CUresult cu_ipc_get_event_handle(CUipcEventHandle* handle, CUevent) {
    if (handle) *handle = CUipcEventHandle{};
    return ipc_unsupported("cuIpcGetEventHandle");
}
CUresult cu_ipc_open_event_handle(CUevent* ev, CUipcEventHandle) {
    if (ev) *ev = nullptr;
    return ipc_unsupported("cuIpcOpenEventHandle");
}

} // namespace

void fill_peer(ApiTable& t) {
    g_dtod = t.cuMemcpyDtoD_v2;
    g_dtod_async = t.cuMemcpyDtoDAsync_v2;
    t.cuCtxEnablePeerAccess = cu_ctx_enable_peer_access;
    t.cuCtxDisablePeerAccess = cu_ctx_disable_peer_access;
    t.cuMemcpyPeer = cu_memcpy_peer;
    t.cuMemcpyPeerAsync = cu_memcpy_peer_async;
    t.cuIpcGetMemHandle = cu_ipc_get_mem_handle;
    t.cuIpcOpenMemHandle = cu_ipc_open_mem_handle;
    t.cuIpcOpenMemHandle_v2 = cu_ipc_open_mem_handle;
    t.cuIpcCloseMemHandle = cu_ipc_close_mem_handle;
    t.cuIpcGetEventHandle = cu_ipc_get_event_handle;
    t.cuIpcOpenEventHandle = cu_ipc_open_event_handle;
}

} // namespace d4r::runtime::cpu
