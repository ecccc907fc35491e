// cpu backend: stream capture, as a layer over the rest of the backend's table (fill_capture runs last).
//
// While a stream captures, the work queued on it (kernel launches, async copies and memsets, host
// functions, graph launches, stream-ordered allocations) becomes nodes of the capture's graph instead of
// running; each stream of a capture remembers its current dependency set (the nodes the next one
// follows). An event recorded in a capturing stream remembers that set, and a stream that waits for it
// joins the capture with it (cross-stream fork and join). Outside capture every call goes straight to
// the entry point below. The rules NVIDIA's driver documents are kept: synchronising a capturing stream,
// "potentially unsafe" calls (synchronous allocation, copies, memsets, context synchronisation) while a
// capture forbids them (cuThreadExchangeStreamCaptureMode), and legacy-stream work that would depend on a
// capturing blocking stream all fail and invalidate the capture; cuStreamEndCapture then answers
// CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
#include <set>
#include <thread>
#include <unordered_set>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_graph.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

ApiTable g_direct; // the table below this layer

struct Capture {
    uint64_t id = 0;
    std::shared_ptr<Graph> graph;
    CUgraph handle = nullptr;
    Stream* origin = nullptr;
    Context* ctx = nullptr;
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
    std::thread::id thread;
    bool invalidated = false;
    bool ended = false;
    bool into_existing = false; // cuStreamBeginCaptureToGraph: GRAPH is the application's, HANDLE its handle
};

struct StreamCapture {
    std::shared_ptr<Capture> capture;
    std::vector<Node*> deps;
    std::vector<CUgraphEdgeData> edge_data; // default edges, for cuStreamGetCaptureInfo_v3
};

struct EventCapture {
    std::shared_ptr<Capture> capture;
    std::vector<Node*> deps;
};

struct Captures final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Captures;
    std::unordered_map<Stream*, StreamCapture> streams;
    std::unordered_map<void*, EventCapture> events; // events last recorded in a capture
    std::vector<std::shared_ptr<Capture>> active;
    uint64_t next_id = 1;
};

// Guarded by graph_mutex().
Captures& captures() { return state().part<Captures>(); }

thread_local CUstreamCaptureMode t_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

StreamCapture* capturing(Stream* s) {
    auto it = captures().streams.find(s);
    return it == captures().streams.end() ? nullptr : &it->second;
}

void invalidate(Capture& c, const char* why) {
    if (!c.invalidated) log::debug("cpu backend: stream capture {} invalidated: {}", c.id, why);
    c.invalidated = true;
}

// Legacy-stream work in CTX would wait for a capturing blocking stream: that capture is invalidated.
bool legacy_conflict(CUstream h, Context* ctx) {
    if (h != nullptr && h != D4R_CU_STREAM_LEGACY) return false;
    bool conflict = false;
    for (auto& [stream, sc] : captures().streams)
        if (stream->ctx == ctx && !(stream->flags & CU_STREAM_NON_BLOCKING)) {
            invalidate(*sc.capture, "the legacy stream would depend on the capturing stream");
            conflict = true;
        }
    return conflict;
}

// "Potentially unsafe" calls (cuThreadExchangeStreamCaptureMode): refused, and the captures that forbid
// them invalidated, when this thread has a non-relaxed capture, or when this thread's mode is global and
// any thread has a global capture.
CUresult check_unsafe(const char* what) {
    if (t_mode == CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_SUCCESS;
    std::lock_guard lock(graph_mutex());
    bool forbidden = false;
    for (auto& c : captures().active) {
        if (c->mode == CU_STREAM_CAPTURE_MODE_RELAXED) continue;
        bool mine = c->thread == std::this_thread::get_id();
        if (mine || (t_mode == CU_STREAM_CAPTURE_MODE_GLOBAL && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
            invalidate(*c, what);
            forbidden = true;
        }
    }
    if (!forbidden) return CUDA_SUCCESS;
    return refuse(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  "cpu backend: {} refused during stream capture (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)", what);
}

template <auto Slot>
struct Unsafe;
template <typename... A, CUresult (*ApiTable::*Slot)(A...)>
struct Unsafe<Slot> {
    static CUresult call(A... args) {
        if (state().initialized.load())
            if (CUresult r = check_unsafe("a synchronous allocation, copy or memset")) return r;
        return (g_direct.*Slot)(args...);
    }
};

// The common path of every capturable call on stream H: MAKE fills a node when H captures (then it is
// added after the stream's dependencies and becomes them); DIRECT runs the call otherwise.
template <typename Make, typename Direct>
CUresult capturable(CUstream h, Make make, Direct direct) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    {
        std::lock_guard lock(graph_mutex());
        if (StreamCapture* sc = capturing(ref.stream)) {
            D4R_CPU_REFUSE_IF(sc->capture->invalidated, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
            auto node = std::make_unique<Node>();
            if (CUresult r = make(*node)) {
                invalidate(*sc->capture, "a captured call failed");
                return r;
            }
            Node* added = nullptr;
            if (CUresult r = add_node(*sc->capture->graph, std::move(node), sc->deps, &added)) return r;
            sc->deps = {added};
            return CUDA_SUCCESS;
        }
        D4R_CPU_REFUSE_IF(legacy_conflict(h, ref.ctx.get()), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    }
    return direct();
}

// ---- Capturable calls ------------------------------------------------------------------------------------

CUresult kernel_node(Node& n, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                     unsigned bz, unsigned shared, void** params, void** extra) {
    n.type = CU_GRAPH_NODE_TYPE_KERNEL;
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = f;
    p.gridDimX = gx, p.gridDimY = gy, p.gridDimZ = gz;
    p.blockDimX = bx, p.blockDimY = by, p.blockDimZ = bz;
    p.sharedMemBytes = shared;
    p.kernelParams = params;
    p.extra = extra;
    return set_kernel_params(n, p);
}

CUresult cap_launch_kernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           unsigned shared, CUstream h, void** params, void** extra) {
    return capturable(
        h, [&](Node& n) { return kernel_node(n, f, gx, gy, gz, bx, by, bz, shared, params, extra); },
        [&] { return g_direct.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, h, params, extra); });
}

CUresult cap_launch_kernel_ex(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
    if (!c) return g_direct.cuLaunchKernelEx(c, f, params, extra);
    return capturable(
        c->hStream,
        [&](Node& n) {
            return kernel_node(n, f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                               c->sharedMemBytes, params, extra);
        },
        [&] { return g_direct.cuLaunchKernelEx(c, f, params, extra); });
}

CUresult copy_node(Node& n, const CUDA_MEMCPY3D& p) {
    n.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    return set_memcpy_params(n, p);
}

CUDA_MEMCPY3D linear_copy(unsigned dst_type, CUdeviceptr dst, void* dst_host, unsigned src_type, CUdeviceptr src,
                          const void* src_host, size_t bytes) {
    CUDA_MEMCPY3D p{};
    p.dstMemoryType = static_cast<CUmemorytype>(dst_type);
    p.dstDevice = dst;
    p.dstHost = dst_host;
    p.srcMemoryType = static_cast<CUmemorytype>(src_type);
    p.srcDevice = src;
    p.srcHost = src_host;
    p.WidthInBytes = bytes;
    p.Height = 1;
    p.Depth = 1;
    return p;
}

template <typename Direct>
CUresult capture_copy(CUstream h, const CUDA_MEMCPY3D& p, Direct direct) {
    // A zero-byte copy is no work: nothing is captured (NVIDIA adds no node either).
    if (p.WidthInBytes == 0)
        return capturable(
            h,
            [](Node& n) {
                n.type = CU_GRAPH_NODE_TYPE_EMPTY;
                return CUDA_SUCCESS;
            },
            direct);
    return capturable(h, [&](Node& n) { return copy_node(n, p); }, direct);
}

CUresult cap_memcpy_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h) {
    return capture_copy(h, linear_copy(CU_MEMORYTYPE_UNIFIED, dst, nullptr, CU_MEMORYTYPE_UNIFIED, src, nullptr, n),
                        [&] { return g_direct.cuMemcpyAsync(dst, src, n, h); });
}
CUresult cap_memcpy_htod_async(CUdeviceptr dst, const void* src, size_t n, CUstream h) {
    return capture_copy(h, linear_copy(CU_MEMORYTYPE_DEVICE, dst, nullptr, CU_MEMORYTYPE_HOST, 0, src, n),
                        [&] { return g_direct.cuMemcpyHtoDAsync_v2(dst, src, n, h); });
}
CUresult cap_memcpy_dtoh_async(void* dst, CUdeviceptr src, size_t n, CUstream h) {
    return capture_copy(h, linear_copy(CU_MEMORYTYPE_HOST, 0, dst, CU_MEMORYTYPE_DEVICE, src, nullptr, n),
                        [&] { return g_direct.cuMemcpyDtoHAsync_v2(dst, src, n, h); });
}
CUresult cap_memcpy_dtod_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h) {
    return capture_copy(h, linear_copy(CU_MEMORYTYPE_DEVICE, dst, nullptr, CU_MEMORYTYPE_DEVICE, src, nullptr, n),
                        [&] { return g_direct.cuMemcpyDtoDAsync_v2(dst, src, n, h); });
}
CUresult cap_memcpy_peer_async(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc, size_t n, CUstream h) {
    return capture_copy(h, linear_copy(CU_MEMORYTYPE_DEVICE, dst, nullptr, CU_MEMORYTYPE_DEVICE, src, nullptr, n),
                        [&] { return g_direct.cuMemcpyPeerAsync(dst, dc, src, sc, n, h); });
}
CUresult cap_memcpy_2d_async(const CUDA_MEMCPY2D* p, CUstream h) {
    if (!p) return g_direct.cuMemcpy2DAsync_v2(p, h);
    CUDA_MEMCPY3D c{};
    c.srcXInBytes = p->srcXInBytes, c.srcY = p->srcY, c.srcMemoryType = p->srcMemoryType;
    c.srcHost = p->srcHost, c.srcDevice = p->srcDevice, c.srcArray = p->srcArray, c.srcPitch = p->srcPitch;
    c.dstXInBytes = p->dstXInBytes, c.dstY = p->dstY, c.dstMemoryType = p->dstMemoryType;
    c.dstHost = p->dstHost, c.dstDevice = p->dstDevice, c.dstArray = p->dstArray, c.dstPitch = p->dstPitch;
    c.WidthInBytes = p->WidthInBytes, c.Height = p->Height, c.Depth = 1;
    return capture_copy(h, c, [&] { return g_direct.cuMemcpy2DAsync_v2(p, h); });
}
CUresult cap_memcpy_3d_async(const CUDA_MEMCPY3D* p, CUstream h) {
    if (!p) return g_direct.cuMemcpy3DAsync_v2(p, h);
    return capture_copy(h, *p, [&] { return g_direct.cuMemcpy3DAsync_v2(p, h); });
}

template <typename Direct>
CUresult capture_memset(CUstream h, CUdeviceptr dst, size_t pitch, unsigned value, unsigned element, size_t w,
                        size_t hgt, Direct direct) {
    return capturable(
        h,
        [&](Node& n) {
            n.type = CU_GRAPH_NODE_TYPE_MEMSET;
            return set_memset_params(n, CUDA_MEMSET_NODE_PARAMS{dst, pitch, value, element, w, hgt});
        },
        direct);
}

CUresult cap_memset_d8_async(CUdeviceptr d, unsigned char v, size_t n, CUstream h) {
    return capture_memset(h, d, n, v, 1, n, 1, [&] { return g_direct.cuMemsetD8Async(d, v, n, h); });
}
CUresult cap_memset_d16_async(CUdeviceptr d, unsigned short v, size_t n, CUstream h) {
    return capture_memset(h, d, 2 * n, v, 2, n, 1, [&] { return g_direct.cuMemsetD16Async(d, v, n, h); });
}
CUresult cap_memset_d32_async(CUdeviceptr d, unsigned int v, size_t n, CUstream h) {
    return capture_memset(h, d, 4 * n, v, 4, n, 1, [&] { return g_direct.cuMemsetD32Async(d, v, n, h); });
}
CUresult cap_memset_d2d8_async(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t hgt, CUstream h) {
    return capture_memset(h, d, pitch, v, 1, w, hgt,
                          [&] { return g_direct.cuMemsetD2D8Async(d, pitch, v, w, hgt, h); });
}
CUresult cap_memset_d2d16_async(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t hgt, CUstream h) {
    return capture_memset(h, d, pitch, v, 2, w, hgt,
                          [&] { return g_direct.cuMemsetD2D16Async(d, pitch, v, w, hgt, h); });
}
CUresult cap_memset_d2d32_async(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t hgt, CUstream h) {
    return capture_memset(h, d, pitch, v, 4, w, hgt,
                          [&] { return g_direct.cuMemsetD2D32Async(d, pitch, v, w, hgt, h); });
}

CUresult cap_launch_host_func(CUstream h, CUhostFn fn, void* user) {
    return capturable(
        h,
        [&](Node& n) {
            D4R_CPU_REFUSE_IF(!fn, CUDA_ERROR_INVALID_VALUE);
            n.type = CU_GRAPH_NODE_TYPE_HOST;
            n.host = CUDA_HOST_NODE_PARAMS{fn, user};
            return CUDA_SUCCESS;
        },
        [&] { return g_direct.cuLaunchHostFunc(h, fn, user); });
}

CUresult cap_graph_launch(CUgraphExec e, CUstream h) {
    return capturable(
        h,
        [&](Node& n) {
            n.type = CU_GRAPH_NODE_TYPE_GRAPH;
            n.child = exec_graph_copy(e);
            return n.child ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
        },
        [&] { return g_direct.cuGraphLaunch(e, h); });
}

// A captured cuMemAllocAsync allocates at once (the address is fixed for every launch of the graph) and
// records a MEM_ALLOC node; a captured cuMemFreeAsync records a MEM_FREE node and frees nothing then.
// Memory the graph allocates stays mapped while the graph lives; what it both allocates and frees is returned
// with the graph's last copy (GraphMemory); what it allocates and does not free is the application's to free
// after a launch (and the next launch allocates it again).
CUresult cap_mem_alloc_async(CUdeviceptr* dptr, size_t bytes, CUstream h) {
    return capturable(
        h,
        [&](Node& n) {
            if (CUresult r = g_direct.cuMemAllocAsync(dptr, bytes, h)) return r;
            note_graph_allocation(*dptr);
            n.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
            n.dptr = *dptr;
            n.bytes = bytes;
            return CUDA_SUCCESS;
        },
        [&] { return g_direct.cuMemAllocAsync(dptr, bytes, h); });
}
CUresult cap_mem_alloc_from_pool_async(CUdeviceptr* dptr, size_t bytes, CUmemoryPool pool, CUstream h) {
    return capturable(
        h,
        [&](Node& n) {
            if (CUresult r = g_direct.cuMemAllocFromPoolAsync(dptr, bytes, pool, h)) return r;
            note_graph_allocation(*dptr);
            n.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
            n.dptr = *dptr;
            n.bytes = bytes;
            return CUDA_SUCCESS;
        },
        [&] { return g_direct.cuMemAllocFromPoolAsync(dptr, bytes, pool, h); });
}
CUresult cap_mem_free_async(CUdeviceptr dptr, CUstream h) {
    return capturable(
        h,
        [&](Node& n) {
            D4R_CPU_REFUSE_IF(!find_region(dptr, 0), CUDA_ERROR_INVALID_VALUE);
            n.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
            n.dptr = dptr;
            return CUDA_SUCCESS;
        },
        [&] { return g_direct.cuMemFreeAsync(dptr, h); });
}

// ---- Events across streams ---------------------------------------------------------------------------------

CUresult cap_event_record_with_flags(CUevent ev, CUstream h, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    {
        std::lock_guard lock(graph_mutex());
        if (StreamCapture* sc = capturing(ref.stream)) {
            D4R_CPU_REFUSE_IF(flags > CU_EVENT_RECORD_EXTERNAL, CUDA_ERROR_INVALID_VALUE);
            D4R_CPU_REFUSE_IF(!find_event(ev), CUDA_ERROR_INVALID_HANDLE);
            D4R_CPU_REFUSE_IF(sc->capture->invalidated, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
            if (flags & CU_EVENT_RECORD_EXTERNAL) {
                auto node = std::make_unique<Node>();
                node->type = CU_GRAPH_NODE_TYPE_EVENT_RECORD;
                node->event = ev;
                Node* added = nullptr;
                if (CUresult r = add_node(*sc->capture->graph, std::move(node), sc->deps, &added)) return r;
                sc->deps = {added};
            }
            captures().events[ev] = EventCapture{sc->capture, sc->deps};
            return CUDA_SUCCESS;
        }
        D4R_CPU_REFUSE_IF(legacy_conflict(h, ref.ctx.get()), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    }
    CUresult r = g_direct.cuEventRecordWithFlags(ev, h, flags);
    if (r == CUDA_SUCCESS) {
        std::lock_guard lock(graph_mutex());
        captures().events.erase(ev);
    }
    return r;
}

CUresult cap_event_record(CUevent ev, CUstream h) { return cap_event_record_with_flags(ev, h, 0); }

CUresult cap_stream_wait_event(CUstream h, CUevent ev, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    {
        std::lock_guard lock(graph_mutex());
        StreamCapture* sc = capturing(ref.stream);
        auto it = captures().events.find(ev);
        bool captured = it != captures().events.end() && !it->second.capture->ended;
        if (captured) {
            D4R_CPU_REFUSE_IF(flags > CU_EVENT_WAIT_EXTERNAL, CUDA_ERROR_INVALID_VALUE);
            EventCapture& ec = it->second;
            if (sc) {
                if (sc->capture != ec.capture) {
                    invalidate(*sc->capture, "waiting for an event of another capture");
                    return CUDA_ERROR_STREAM_CAPTURE_MERGE;
                }
                for (Node* d : ec.deps)
                    if (std::find(sc->deps.begin(), sc->deps.end(), d) == sc->deps.end()) sc->deps.push_back(d);
                return CUDA_SUCCESS;
            }
            if (is_special_stream(h)) {
                invalidate(*ec.capture, "the legacy stream waited for a captured event");
                return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
            }
            // The stream joins the event's capture (a fork).
            captures().streams[ref.stream] = StreamCapture{ec.capture, ec.deps, {}};
            return CUDA_SUCCESS;
        }
        if (sc) {
            D4R_CPU_REFUSE_IF(flags > CU_EVENT_WAIT_EXTERNAL, CUDA_ERROR_INVALID_VALUE);
            auto event = find_event(ev);
            D4R_CPU_REFUSE_IF(!event, CUDA_ERROR_INVALID_HANDLE);
            D4R_CPU_REFUSE_IF(sc->capture->invalidated, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
            if (flags & CU_EVENT_WAIT_EXTERNAL) {
                auto node = std::make_unique<Node>();
                node->type = CU_GRAPH_NODE_TYPE_WAIT_EVENT;
                node->event = ev;
                Node* added = nullptr;
                if (CUresult r = add_node(*sc->capture->graph, std::move(node), sc->deps, &added)) return r;
                sc->deps = {added};
                return CUDA_SUCCESS;
            }
            // Only in-stream order may cross the capture's boundary.
            invalidate(*sc->capture, "waiting for an event recorded outside the capture");
            return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
        }
        D4R_CPU_REFUSE_IF(legacy_conflict(h, ref.ctx.get()), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    }
    return g_direct.cuStreamWaitEvent(h, ev, flags);
}

// An event last recorded in a capture that is still going on cannot be waited for from the host.
CUresult captured_event(CUevent ev) {
    std::lock_guard lock(graph_mutex());
    auto it = captures().events.find(ev);
    D4R_CPU_REFUSE_IF(it != captures().events.end() && !it->second.capture->ended, CUDA_ERROR_CAPTURED_EVENT);
    return CUDA_SUCCESS;
}
CUresult cap_event_query(CUevent ev) {
    if (CUresult r = captured_event(ev)) return r;
    return g_direct.cuEventQuery(ev);
}
CUresult cap_event_synchronize(CUevent ev) {
    if (CUresult r = captured_event(ev)) return r;
    return g_direct.cuEventSynchronize(ev);
}

// ---- Synchronisation -----------------------------------------------------------------------------------------

// Synchronising or querying a capturing stream is not allowed (and invalidates the capture); so is doing
// it to the legacy stream while a blocking stream of its context captures.
CUresult sync_check(CUstream h) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    std::lock_guard lock(graph_mutex());
    if (StreamCapture* sc = capturing(ref.stream)) {
        invalidate(*sc->capture, "the capturing stream was synchronised or queried");
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    D4R_CPU_REFUSE_IF(legacy_conflict(h, ref.ctx.get()), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    return CUDA_SUCCESS;
}
CUresult cap_stream_synchronize(CUstream h) {
    if (CUresult r = sync_check(h)) return r;
    return g_direct.cuStreamSynchronize(h);
}
CUresult cap_stream_query(CUstream h) {
    if (CUresult r = sync_check(h)) return r;
    return g_direct.cuStreamQuery(h);
}

CUresult cap_ctx_synchronize() {
    if (state().initialized.load()) {
        std::shared_ptr<Context> ctx;
        if (current_context(ctx) == CUDA_SUCCESS) {
            std::lock_guard lock(graph_mutex());
            bool capturing_here = false;
            for (auto& c : captures().active)
                if (c->ctx == ctx.get()) {
                    invalidate(*c, "cuCtxSynchronize during capture");
                    capturing_here = true;
                }
            D4R_CPU_REFUSE_IF(capturing_here, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        }
    }
    return g_direct.cuCtxSynchronize();
}

// Calls that cannot be captured: refused in a capturing stream, which invalidates the capture.
CUresult refuse_in_capture(CUstream h, const char* what) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    std::lock_guard lock(graph_mutex());
    if (StreamCapture* sc = capturing(ref.stream)) {
        invalidate(*sc->capture, what);
        return refuse(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                      "cpu backend: {} cannot be captured (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)", what);
    }
    D4R_CPU_REFUSE_IF(legacy_conflict(h, ref.ctx.get()), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    return CUDA_SUCCESS;
}
CUresult cap_stream_add_callback(CUstream h, CUstreamCallback cb, void* user, unsigned int flags) {
    if (CUresult r = refuse_in_capture(h, "cuStreamAddCallback")) return r;
    return g_direct.cuStreamAddCallback(h, cb, user, flags);
}
#define D4R_MEMOP_WRAPPER(name, type)                                                   \
    CUresult cap_##name(CUstream h, CUdeviceptr addr, type value, unsigned int flags) { \
        if (CUresult r = refuse_in_capture(h, #name)) return r;                         \
        return g_direct.name(h, addr, value, flags);                                    \
    }
D4R_MEMOP_WRAPPER(cuStreamWaitValue32, cuuint32_t)
D4R_MEMOP_WRAPPER(cuStreamWaitValue32_v2, cuuint32_t)
D4R_MEMOP_WRAPPER(cuStreamWaitValue64, cuuint64_t)
D4R_MEMOP_WRAPPER(cuStreamWaitValue64_v2, cuuint64_t)
D4R_MEMOP_WRAPPER(cuStreamWriteValue32, cuuint32_t)
D4R_MEMOP_WRAPPER(cuStreamWriteValue32_v2, cuuint32_t)
D4R_MEMOP_WRAPPER(cuStreamWriteValue64, cuuint64_t)
D4R_MEMOP_WRAPPER(cuStreamWriteValue64_v2, cuuint64_t)
#undef D4R_MEMOP_WRAPPER
CUresult cap_batch_mem_op(CUstream h, unsigned int count, CUstreamBatchMemOpParams* ops, unsigned int flags) {
    if (CUresult r = refuse_in_capture(h, "cuStreamBatchMemOp")) return r;
    return g_direct.cuStreamBatchMemOp_v2(h, count, ops, flags);
}

// True when every node at the end of STREAM's part of its capture is followed by a node or is at the end of
// another stream of the capture (the work was joined, e.g. the origin waited on an event recorded there).
bool handed_on(Stream* stream, const StreamCapture& sc) {
    for (Node* n : sc.deps) {
        if (!n->dependents.empty()) continue;
        bool held = false;
        for (const auto& [other, osc] : captures().streams)
            held = held || (other != stream && osc.capture == sc.capture &&
                            std::find(osc.deps.begin(), osc.deps.end(), n) != osc.deps.end());
        if (!held) return false;
    }
    return true;
}

CUresult cap_stream_destroy(CUstream h) {
    CUresult r = g_direct.cuStreamDestroy_v2(h);
    if (r == CUDA_SUCCESS) {
        std::lock_guard lock(graph_mutex());
        auto* stream = reinterpret_cast<Stream*>(h);
        auto it = captures().streams.find(stream);
        if (it != captures().streams.end()) {
            // A forked stream whose work was joined may go, as on NVIDIA's driver (graphMemoryNodes destroys
            // its second stream before cudaStreamEndCapture); the origin or unjoined work may not.
            if (it->second.capture->origin == stream || !handed_on(stream, it->second))
                invalidate(*it->second.capture, "a capturing stream was destroyed");
            captures().streams.erase(it);
        }
    }
    return r;
}

// ---- The capture calls -------------------------------------------------------------------------------------

CUresult cu_stream_begin_capture_v2(CUstream h, CUstreamCaptureMode mode) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    D4R_CPU_REFUSE_IF(static_cast<unsigned>(mode) > CU_STREAM_CAPTURE_MODE_RELAXED, CUDA_ERROR_INVALID_VALUE);
    if (is_special_stream(h)) {
        return refuse(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                      "cpu backend: the null, legacy or per-thread stream cannot be captured");
    }
    std::lock_guard lock(graph_mutex());
    D4R_CPU_REFUSE_IF(capturing(ref.stream), CUDA_ERROR_ILLEGAL_STATE);
    auto c = std::make_shared<Capture>();
    c->id = captures().next_id++;
    c->graph = std::make_shared<Graph>();
    c->origin = ref.stream;
    c->ctx = ref.ctx.get();
    c->mode = mode;
    c->thread = std::this_thread::get_id();
    captures().active.push_back(c);
    captures().streams[ref.stream] = StreamCapture{c, {}, {}};
    return CUDA_SUCCESS;
}

CUresult cu_stream_begin_capture(CUstream h) { return cu_stream_begin_capture_v2(h, CU_STREAM_CAPTURE_MODE_GLOBAL); }

// Captures into the application's graph HG (a graph of its own or a conditional node's body), the first
// captured work following DEPS (nodes of HG; default edges only). cuStreamEndCapture hands HG back.
CUresult cu_stream_begin_capture_to_graph(CUstream h, CUgraph hg, const CUgraphNode* deps,
                                          const CUgraphEdgeData* edge_data, size_t n, CUstreamCaptureMode mode) {
    if (CUresult r = check_init()) return r;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    D4R_CPU_REFUSE_IF(static_cast<unsigned>(mode) > CU_STREAM_CAPTURE_MODE_RELAXED, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(n && !deps, CUDA_ERROR_INVALID_VALUE);
    if (!default_edges(edge_data, n))
        return refuse(CUDA_ERROR_NOT_SUPPORTED, "cpu backend: cuStreamBeginCaptureToGraph with edge data (ports)");
    if (is_special_stream(h)) {
        return refuse(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                      "cpu backend: the null, legacy or per-thread stream cannot be captured");
    }
    std::lock_guard lock(graph_mutex());
    D4R_CPU_REFUSE_IF(capturing(ref.stream), CUDA_ERROR_ILLEGAL_STATE);
    std::shared_ptr<Graph> g = find_graph_shared(hg);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_INVALID_VALUE);
    std::vector<Node*> first;
    for (size_t i = 0; i < n; ++i) {
        Node* d = find_node(deps[i]);
        D4R_CPU_REFUSE_IF(!d || d->graph != g.get(), CUDA_ERROR_INVALID_VALUE);
        first.push_back(d);
    }
    auto c = std::make_shared<Capture>();
    c->id = captures().next_id++;
    c->graph = std::move(g);
    c->handle = hg;
    c->into_existing = true;
    c->origin = ref.stream;
    c->ctx = ref.ctx.get();
    c->mode = mode;
    c->thread = std::this_thread::get_id();
    captures().active.push_back(c);
    captures().streams[ref.stream] = StreamCapture{c, first, std::vector<CUgraphEdgeData>(first.size())};
    return CUDA_SUCCESS;
}

// OUT may be null for a capture into an existing graph (cuStreamBeginCaptureToGraph), which it gets back.
CUresult cu_stream_end_capture(CUstream h, CUgraph* out) {
    if (CUresult r = check_init()) return r;
    if (out) *out = nullptr;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    std::lock_guard lock(graph_mutex());
    StreamCapture* sc = capturing(ref.stream);
    D4R_CPU_REFUSE_IF(!out && !(sc && sc->capture->into_existing), CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(!sc, CUDA_ERROR_ILLEGAL_STATE);
    std::shared_ptr<Capture> c = sc->capture;
    if (c->origin != ref.stream) {
        invalidate(*c, "cuStreamEndCapture on a stream that joined the capture");
        return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    }
    if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && c->thread != std::this_thread::get_id())
        return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    // Unjoined work: a node at the end of another stream of the capture that the origin does not follow.
    const std::vector<Node*>& joined = sc->deps;
    bool unjoined = false;
    for (auto it = captures().streams.begin(); it != captures().streams.end();) {
        if (it->second.capture != c) {
            ++it;
            continue;
        }
        for (Node* n : it->second.deps)
            if (n->dependents.empty() && std::find(joined.begin(), joined.end(), n) == joined.end()) unjoined = true;
        if (it->first != ref.stream) {
            it = captures().streams.erase(it);
        } else {
            ++it;
        }
    }
    captures().streams.erase(ref.stream);
    c->ended = true;
    auto& active = captures().active;
    active.erase(std::remove(active.begin(), active.end(), c), active.end());
    if ((c->invalidated || unjoined) && !c->into_existing) {
        if (c->handle) destroy_graph(c->handle); // registered by cuStreamGetCaptureInfo
    }
    D4R_CPU_REFUSE_IF(c->invalidated, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    if (unjoined) {
        return refuse(CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
                      "cpu backend: stream capture {} has work on another stream that was not joined", c->id);
    }
    // Memory the graph allocates is retained while it lives, and what it frees itself is the graph's: returned
    // when the last copy goes (GraphMemory).
    std::set<CUdeviceptr> allocated;
    for (auto& n : c->graph->nodes)
        if (n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC && allocated.insert(n->dptr).second)
            retain_graph_allocation(*c->graph, n->dptr);
    for (auto& n : c->graph->nodes) {
        if (n->type != CU_GRAPH_NODE_TYPE_MEM_FREE || !allocated.count(n->dptr)) continue;
        if (!c->graph->memory) c->graph->memory = std::make_shared<GraphMemory>();
        c->graph->memory->owned.push_back(n->dptr);
    }
    const CUgraph graph = register_graph(c->graph); // into an existing graph: registers the nodes captured
    if (out) *out = graph;
    return CUDA_SUCCESS;
}

CUresult cu_stream_is_capturing(CUstream h, CUstreamCaptureStatus* status) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!status, CUDA_ERROR_INVALID_VALUE);
    *status = CU_STREAM_CAPTURE_STATUS_NONE;
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    std::lock_guard lock(graph_mutex());
    if (StreamCapture* sc = capturing(ref.stream)) {
        *status = sc->capture->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
        return CUDA_SUCCESS;
    }
    D4R_CPU_REFUSE_IF(legacy_conflict(h, ref.ctx.get()), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    return CUDA_SUCCESS;
}

CUresult cu_stream_get_capture_info_v3(CUstream h, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* graph,
                                       const CUgraphNode** deps, const CUgraphEdgeData** edge_data, size_t* count) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!status, CUDA_ERROR_INVALID_VALUE);
    *status = CU_STREAM_CAPTURE_STATUS_NONE;
    D4R_CPU_REFUSE_IF(edge_data && !deps, CUDA_ERROR_INVALID_VALUE);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    std::lock_guard lock(graph_mutex());
    StreamCapture* sc = capturing(ref.stream);
    if (!sc) {
        D4R_CPU_REFUSE_IF(legacy_conflict(h, ref.ctx.get()), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
        return CUDA_SUCCESS;
    }
    *status = sc->capture->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    if (id) *id = sc->capture->id;
    if (graph) {
        // The capture's graph, valid while the capture lasts (registered so that it can be inspected).
        if (!sc->capture->handle) sc->capture->handle = reinterpret_cast<CUgraph>(sc->capture->graph.get());
        if (!find_graph(sc->capture->handle)) register_graph(sc->capture->graph);
        *graph = sc->capture->handle;
    }
    if (deps) *deps = reinterpret_cast<const CUgraphNode*>(sc->deps.data());
    if (edge_data) {
        sc->edge_data.assign(sc->deps.size(), CUgraphEdgeData{});
        *edge_data = sc->edge_data.data();
    }
    if (count) *count = sc->deps.size();
    return CUDA_SUCCESS;
}

CUresult cu_stream_get_capture_info_v2(CUstream h, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* graph,
                                       const CUgraphNode** deps, size_t* count) {
    return cu_stream_get_capture_info_v3(h, status, id, graph, deps, nullptr, count);
}

CUresult cu_stream_get_capture_info(CUstream h, CUstreamCaptureStatus* status, cuuint64_t* id) {
    return cu_stream_get_capture_info_v3(h, status, id, nullptr, nullptr, nullptr, nullptr);
}

CUresult cu_stream_update_capture_dependencies_v2(CUstream h, CUgraphNode* nodes, const CUgraphEdgeData* data, size_t n,
                                                  unsigned int flags) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(flags > CU_STREAM_SET_CAPTURE_DEPENDENCIES || (n && !nodes), CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; data && i < n; ++i)
        D4R_CPU_REFUSE_IF(data[i].from_port || data[i].to_port || data[i].type, CUDA_ERROR_INVALID_VALUE);
    StreamRef ref;
    if (CUresult r = resolve_stream(h, ref)) return r;
    std::lock_guard lock(graph_mutex());
    StreamCapture* sc = capturing(ref.stream);
    D4R_CPU_REFUSE_IF(!sc, CUDA_ERROR_ILLEGAL_STATE);
    std::vector<Node*> list;
    for (size_t i = 0; i < n; ++i) {
        Node* node = find_node(nodes[i]);
        D4R_CPU_REFUSE_IF(!node || node->graph != sc->capture->graph.get(), CUDA_ERROR_INVALID_VALUE);
        list.push_back(node);
    }
    if (flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES) sc->deps.clear();
    for (Node* node : list)
        if (std::find(sc->deps.begin(), sc->deps.end(), node) == sc->deps.end()) sc->deps.push_back(node);
    return CUDA_SUCCESS;
}

CUresult cu_stream_update_capture_dependencies(CUstream h, CUgraphNode* nodes, size_t n, unsigned int flags) {
    return cu_stream_update_capture_dependencies_v2(h, nodes, nullptr, n, flags);
}

CUresult cu_thread_exchange_stream_capture_mode(CUstreamCaptureMode* mode) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!mode || static_cast<unsigned>(*mode) > CU_STREAM_CAPTURE_MODE_RELAXED, CUDA_ERROR_INVALID_VALUE);
    std::swap(*mode, t_mode);
    return CUDA_SUCCESS;
}

} // namespace

const ApiTable& direct_table() { return g_direct; }

void fill_capture(ApiTable& t) {
    g_direct = t;
    t.cuLaunchKernel = cap_launch_kernel;
    t.cuLaunchKernelEx = cap_launch_kernel_ex;
    t.cuMemcpyAsync = cap_memcpy_async;
    t.cuMemcpyHtoDAsync_v2 = cap_memcpy_htod_async;
    t.cuMemcpyDtoHAsync_v2 = cap_memcpy_dtoh_async;
    t.cuMemcpyDtoDAsync_v2 = cap_memcpy_dtod_async;
    t.cuMemcpyPeerAsync = cap_memcpy_peer_async;
    t.cuMemcpy2DAsync_v2 = cap_memcpy_2d_async;
    t.cuMemcpy3DAsync_v2 = cap_memcpy_3d_async;
    t.cuMemsetD8Async = cap_memset_d8_async;
    t.cuMemsetD16Async = cap_memset_d16_async;
    t.cuMemsetD32Async = cap_memset_d32_async;
    t.cuMemsetD2D8Async = cap_memset_d2d8_async;
    t.cuMemsetD2D16Async = cap_memset_d2d16_async;
    t.cuMemsetD2D32Async = cap_memset_d2d32_async;
    t.cuLaunchHostFunc = cap_launch_host_func;
    t.cuGraphLaunch = cap_graph_launch;
    t.cuMemAllocAsync = cap_mem_alloc_async;
    t.cuMemAllocFromPoolAsync = cap_mem_alloc_from_pool_async;
    t.cuMemFreeAsync = cap_mem_free_async;
    t.cuEventRecord = cap_event_record;
    t.cuEventRecordWithFlags = cap_event_record_with_flags;
    t.cuStreamWaitEvent = cap_stream_wait_event;
    t.cuEventQuery = cap_event_query;
    t.cuEventSynchronize = cap_event_synchronize;
    t.cuStreamSynchronize = cap_stream_synchronize;
    t.cuStreamQuery = cap_stream_query;
    t.cuCtxSynchronize = cap_ctx_synchronize;
    t.cuStreamAddCallback = cap_stream_add_callback;
    t.cuStreamWaitValue32 = cap_cuStreamWaitValue32;
    t.cuStreamWaitValue32_v2 = cap_cuStreamWaitValue32_v2;
    t.cuStreamWaitValue64 = cap_cuStreamWaitValue64;
    t.cuStreamWaitValue64_v2 = cap_cuStreamWaitValue64_v2;
    t.cuStreamWriteValue32 = cap_cuStreamWriteValue32;
    t.cuStreamWriteValue32_v2 = cap_cuStreamWriteValue32_v2;
    t.cuStreamWriteValue64 = cap_cuStreamWriteValue64;
    t.cuStreamWriteValue64_v2 = cap_cuStreamWriteValue64_v2;
    t.cuStreamBatchMemOp = cap_batch_mem_op;
    t.cuStreamBatchMemOp_v2 = cap_batch_mem_op;
    t.cuStreamDestroy_v2 = cap_stream_destroy;
    // Potentially unsafe calls (cuThreadExchangeStreamCaptureMode).
    t.cuMemAlloc_v2 = Unsafe<&ApiTable::cuMemAlloc_v2>::call;
    t.cuMemAllocPitch_v2 = Unsafe<&ApiTable::cuMemAllocPitch_v2>::call;
    t.cuMemFree_v2 = Unsafe<&ApiTable::cuMemFree_v2>::call;
    t.cuMemAllocHost_v2 = Unsafe<&ApiTable::cuMemAllocHost_v2>::call;
    t.cuMemHostAlloc = Unsafe<&ApiTable::cuMemHostAlloc>::call;
    t.cuMemFreeHost = Unsafe<&ApiTable::cuMemFreeHost>::call;
    t.cuMemcpy = Unsafe<&ApiTable::cuMemcpy>::call;
    t.cuMemcpyHtoD_v2 = Unsafe<&ApiTable::cuMemcpyHtoD_v2>::call;
    t.cuMemcpyDtoH_v2 = Unsafe<&ApiTable::cuMemcpyDtoH_v2>::call;
    t.cuMemcpyDtoD_v2 = Unsafe<&ApiTable::cuMemcpyDtoD_v2>::call;
    t.cuMemcpyHtoA_v2 = Unsafe<&ApiTable::cuMemcpyHtoA_v2>::call;
    t.cuMemcpyAtoH_v2 = Unsafe<&ApiTable::cuMemcpyAtoH_v2>::call;
    t.cuMemcpy2D_v2 = Unsafe<&ApiTable::cuMemcpy2D_v2>::call;
    t.cuMemcpy2DUnaligned_v2 = Unsafe<&ApiTable::cuMemcpy2DUnaligned_v2>::call;
    t.cuMemcpy3D_v2 = Unsafe<&ApiTable::cuMemcpy3D_v2>::call;
    t.cuMemcpyPeer = Unsafe<&ApiTable::cuMemcpyPeer>::call;
    t.cuMemsetD8_v2 = Unsafe<&ApiTable::cuMemsetD8_v2>::call;
    t.cuMemsetD16_v2 = Unsafe<&ApiTable::cuMemsetD16_v2>::call;
    t.cuMemsetD32_v2 = Unsafe<&ApiTable::cuMemsetD32_v2>::call;
    t.cuMemsetD2D8_v2 = Unsafe<&ApiTable::cuMemsetD2D8_v2>::call;
    t.cuMemsetD2D16_v2 = Unsafe<&ApiTable::cuMemsetD2D16_v2>::call;
    t.cuMemsetD2D32_v2 = Unsafe<&ApiTable::cuMemsetD2D32_v2>::call;
    t.cuStreamBeginCapture = cu_stream_begin_capture;
    t.cuStreamBeginCapture_v2 = cu_stream_begin_capture_v2;
    t.cuStreamBeginCaptureToGraph = cu_stream_begin_capture_to_graph;
    t.cuStreamEndCapture = cu_stream_end_capture;
    t.cuStreamIsCapturing = cu_stream_is_capturing;
    t.cuStreamGetCaptureInfo = cu_stream_get_capture_info;
    t.cuStreamGetCaptureInfo_v2 = cu_stream_get_capture_info_v2;
    t.cuStreamGetCaptureInfo_v3 = cu_stream_get_capture_info_v3;
    t.cuStreamUpdateCaptureDependencies = cu_stream_update_capture_dependencies;
    t.cuStreamUpdateCaptureDependencies_v2 = cu_stream_update_capture_dependencies_v2;
    t.cuThreadExchangeStreamCaptureMode = cu_thread_exchange_stream_capture_mode;
}

} // namespace d4r::runtime::cpu
