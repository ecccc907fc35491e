// The host data path (host_path.h).
#include "shim/host_path.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/log.h"
#include "shim/formats.h"

namespace d4r::shim {

using namespace abi;

namespace {

constexpr int kInputPlanes = 4; // colour, depth, motion, exposure (indexes into the arrays below)
constexpr Plane kPlanes[kInputPlanes] = {Plane::Color, Plane::Depth, Plane::Motion, Plane::Exposure};

const GameResource& input(const GameFrame& frame, int i) {
    switch (i) {
    case 0:
        return frame.color;
    case 1:
        return frame.depth;
    case 2:
        return frame.motion;
    default:
        return frame.exposure;
    }
}

D3D12_RESOURCE_BARRIER transition(ID3D12Resource* resource, D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after) {
    D3D12_RESOURCE_BARRIER b{};
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    b.Transition.pResource = resource;
    b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    b.Transition.StateBefore = before;
    b.Transition.StateAfter = after;
    return b;
}

// A D3D12 buffer on a readback or upload heap, kept and grown.
struct HeapBuffer {
    ID3D12Resource* buffer = nullptr;
    UINT64 size = 0;
    ~HeapBuffer() {
        if (buffer) buffer->Release();
    }
    Status ensure(ID3D12Device* device, D3D12_HEAP_TYPE heap, UINT64 bytes) {
        if (buffer && size >= bytes) return {};
        if (buffer) buffer->Release();
        buffer = nullptr;
        size = 0;
        D3D12_HEAP_PROPERTIES props{};
        props.Type = heap;
        D3D12_RESOURCE_DESC desc{};
        desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
        desc.Width = bytes;
        desc.Height = 1;
        desc.DepthOrArraySize = 1;
        desc.MipLevels = 1;
        desc.SampleDesc.Count = 1;
        desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
        D3D12_RESOURCE_STATES state =
            heap == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST : D3D12_RESOURCE_STATE_GENERIC_READ;
        HRESULT hr = device->CreateCommittedResource(&props, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                                     __uuidof(ID3D12Resource), reinterpret_cast<void**>(&buffer));
        if (FAILED(hr)) {
            buffer = nullptr;
            return make_error(ErrorCode::Io, "creating a {} byte {} buffer: {}", bytes,
                              heap == D3D12_HEAP_TYPE_READBACK ? "readback" : "upload", hresult_text(hr));
        }
        size = bytes;
        return {};
    }
};

// Where subresource 0 of RESOURCE lands in a buffer (a whole-subresource copy: D3D12 allows no source box
// for depth-stencil resources, so every input is copied whole and the region is picked out on the CPU).
struct Footprint {
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT placed{};
    UINT64 bytes = 0;
};
Footprint footprint_of(ID3D12Device* device, const D3D12_RESOURCE_DESC& desc) {
    Footprint f;
    UINT rows = 0;
    UINT64 row_bytes = 0;
    device->GetCopyableFootprints(&desc, 0, 1, 0, &f.placed, &rows, &row_bytes, &f.bytes);
    return f;
}

} // namespace

struct HostPath::Staging {
    std::array<HeapBuffer, kInputPlanes> readback;
    std::array<Footprint, kInputPlanes> footprints;
    HeapBuffer upload;
};

// CUDA buffers and the host copies of one evaluation; a task abandoned by the watchdog still owns them.
struct HostPath::Cuda {
    const upscaler::CudaFunctions* cuda = nullptr;
    bool blocking_sync = false;
    PFN_d4r_EventWait event_wait = nullptr;
    CUevent event = nullptr; // the blocking-sync event, made on first use
    std::mutex mutex;        // busy and orphaned
    bool busy = false;       // an evaluation task holds it
    bool orphaned = false;   // the path has gone on with new buffers: the task frees these when it ends
    std::array<std::vector<uint8_t>, kInputPlanes> host; // canonical inputs
    std::vector<uint8_t> output;                         // canonical output, RGBA16F
    std::array<CUdeviceptr, kInputPlanes + 1> buffers{}; // inputs, then output
    std::array<size_t, kInputPlanes + 1> sizes{};

    Status ensure(int i, size_t bytes) {
        if (bytes == 0 || sizes[i] >= bytes) return {};
        if (buffers[i]) cuda->cuMemFree_v2(buffers[i]);
        buffers[i] = 0;
        sizes[i] = 0;
        CUresult r = cuda->cuMemAlloc_v2(&buffers[i], bytes);
        if (r != CUDA_SUCCESS)
            return upscaler::cuda_error(*cuda, "cuMemAlloc", r).add_context(fmt::format("{} bytes", bytes));
        sizes[i] = bytes;
        return {};
    }
    void free_all() {
        for (size_t i = 0; i < buffers.size(); ++i)
            if (buffers[i]) cuda->cuMemFree_v2(buffers[i]);
        buffers = {};
        sizes = {};
        if (event) cuda->cuEventDestroy_v2(event);
        event = nullptr;
    }
    // Waits until the core's work on the null stream is done.
    Status wait_for_core() {
        if (blocking_sync && !event) {
            CUresult r = cuda->cuEventCreate(&event, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
            if (r != CUDA_SUCCESS) {
                event = nullptr;
                blocking_sync = false;
                log::warn("shim: {}: cuEventCreate(CU_EVENT_BLOCKING_SYNC) failed ({}); waiting with "
                          "cuCtxSynchronize instead",
                          env_name(EnvVar::ShimBlockingSync), upscaler::cuda_error(*cuda, "cuEventCreate", r).text());
            }
        }
        if (!blocking_sync) {
            CUresult r = cuda->cuCtxSynchronize();
            if (r != CUDA_SUCCESS) return upscaler::cuda_error(*cuda, "cuCtxSynchronize after the evaluation", r);
            return {};
        }
        CUresult r = cuda->cuEventRecord(event, nullptr);
        if (r != CUDA_SUCCESS) return upscaler::cuda_error(*cuda, "cuEventRecord after the evaluation", r);
        if (event_wait) {
            r = event_wait(event, D4R_WAIT_FOREVER);
            if (r != CUDA_SUCCESS) return upscaler::cuda_error(*cuda, "d4r_EventWait after the evaluation", r);
            return {};
        }
        if (log::once("shim-blocking-sync-fallback"))
            log::warn("shim: {}: nvcuda.dll has no d4r_EventWait (not d4r's bridge); waiting with "
                      "cuEventSynchronize on a blocking-sync event instead",
                      env_name(EnvVar::ShimBlockingSync));
        r = cuda->cuEventSynchronize(event);
        if (r != CUDA_SUCCESS) return upscaler::cuda_error(*cuda, "cuEventSynchronize after the evaluation", r);
        return {};
    }
};

HostPath::HostPath(Submitter& submitter, CudaWorker& worker, const upscaler::CudaFunctions& cuda, bool blocking_sync,
                   PFN_d4r_EventWait event_wait, HostPasses passes)
    : m_submitter(submitter), m_worker(worker), m_cuda(cuda), m_blocking_sync(blocking_sync), m_event_wait(event_wait),
      m_passes(passes), m_staging(std::make_unique<Staging>()), m_device(fresh_cuda()) {}

std::shared_ptr<HostPath::Cuda> HostPath::fresh_cuda() const {
    auto d = std::make_shared<Cuda>();
    d->cuda = &m_cuda;
    d->blocking_sync = m_blocking_sync;
    d->event_wait = m_event_wait;
    return d;
}

HostPath::~HostPath() {
    std::shared_ptr<Cuda> device = m_device;
    auto task = [device]() -> Status {
        device->free_all();
        return {};
    };
    if (m_worker.stuck()) { // queued behind the stalled task: never waited for
        m_worker.post("freeing the host path's CUDA buffers", task);
        return;
    }
    Status freed = m_worker.run("freeing the host path's CUDA buffers", task);
    if (!freed) log::warn("shim: {}", freed.error().text());
}

Status HostPath::evaluate(ID3D12GraphicsCommandList* list, const GameFrame& frame, const CoreCall& core) {
    ID3D12Device* device = m_submitter.device();
    // An evaluation the watchdog gave up on still owns its buffers and host copies until it ends: this frame
    // gets new ones, and that task frees the old ones.
    {
        std::lock_guard lock(m_device->mutex);
        if (m_device->busy) m_device->orphaned = true;
    }
    if (m_device->orphaned) {
        log::info("shim: host path: an earlier evaluation still owns its buffers; this frame uses new ones");
        m_device = fresh_cuda();
    }
    // 1. Copies of the inputs into readback buffers, recorded into the game's list.
    std::array<D3D12_RESOURCE_BARRIER, kInputPlanes> to_copy{}, back{};
    int n = 0;
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input(frame, i);
        if (!in.resource) continue;
        D3D12_RESOURCE_DESC desc = in.resource->GetDesc();
        m_staging->footprints[i] = footprint_of(device, desc);
        D4R_TRY_CTX(m_staging->readback[i].ensure(device, D3D12_HEAP_TYPE_READBACK, m_staging->footprints[i].bytes),
                    "{}", plane_name(kPlanes[i]));
        to_copy[n] = transition(in.resource, kInputState, D3D12_RESOURCE_STATE_COPY_SOURCE);
        back[n] = transition(in.resource, D3D12_RESOURCE_STATE_COPY_SOURCE, kInputState);
        ++n;
    }
    list->ResourceBarrier(n, to_copy.data());
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input(frame, i);
        if (!in.resource) continue;
        D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
        dst.pResource = m_staging->readback[i].buffer;
        dst.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
        dst.PlacedFootprint = m_staging->footprints[i].placed;
        src.pResource = in.resource;
        src.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
        src.SubresourceIndex = 0;
        list->CopyTextureRegion(&dst, 0, 0, 0, &src, nullptr);
    }
    list->ResourceBarrier(n, back.data());

    // 2. Run the game's list up to here on the shim's queue, then read the inputs on the CPU.
    D4R_TRY_CTX(m_submitter.split(list, kGiveUpMs), "reading the inputs back");
    std::shared_ptr<Cuda> device_state = m_device;
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input(frame, i);
        std::vector<uint8_t>& host = device_state->host[i];
        if (!in.resource) {
            host.clear();
            continue;
        }
        const Plane plane = kPlanes[i];
        const Region& r = in.region;
        const size_t texel = canonical_texel_bytes(plane);
        const size_t row = std::max<size_t>(in.row_texels, r.width);
        host.assign(row * r.height * texel, 0);
        const UINT pitch = m_staging->footprints[i].placed.Footprint.RowPitch;
        D3D12_RANGE read{0, static_cast<SIZE_T>(m_staging->footprints[i].bytes)};
        void* mapped = nullptr;
        HRESULT hr = m_staging->readback[i].buffer->Map(0, &read, &mapped);
        if (FAILED(hr))
            return make_error(ErrorCode::Io, "mapping the {} readback buffer: {}", plane_name(plane), hresult_text(hr));
        const uint8_t* at = static_cast<const uint8_t*>(mapped) + m_staging->footprints[i].placed.Offset +
                            size_t(r.y) * pitch + size_t(r.x) * texel_bytes(in.format);
        bool converted = true;
        for (uint32_t y = 0; y < r.height && converted; ++y)
            converted = convert_to_canonical(plane, in.format, at + size_t(y) * pitch, pitch, r.width, 1,
                                             host.data() + size_t(y) * row * texel);
        D3D12_RANGE none{0, 0};
        m_staging->readback[i].buffer->Unmap(0, &none);
        if (!converted)
            return make_error(ErrorCode::Unsupported, "{}: cannot convert {}", plane_name(plane),
                              format_name(in.format));
    }
    // Motion-vector dilation, on the canonical planes (motion RG16F, depth R32F), before the core sees them.
    if (m_passes.motion_dilation && !device_state->host[2].empty() && !device_state->host[1].empty()) {
        const GameResource& mv = frame.motion;
        const GameResource& depth = frame.depth;
        dilate_motion(
            PlaneView{device_state->host[2].data(), mv.region.width, mv.region.height, mv.row_texels},
            ConstPlaneView{device_state->host[1].data(), depth.region.width, depth.region.height, depth.row_texels},
            m_passes.motion_dilation, m_passes.depth_inverted, &m_dilation);
    }
    const Region& out = frame.output.region;
    device_state->output.resize(size_t(out.width) * out.height * 8);

    // 3. Upload, evaluate, download: on the CUDA worker.
    {
        std::lock_guard lock(device_state->mutex);
        device_state->busy = true;
    }
    D4R_TRY(m_worker.run("the evaluation", [device_state, core]() -> Status {
        Cuda& d = *device_state;
        struct Done { // however the task ends
            Cuda& d;
            ~Done() {
                std::lock_guard lock(d.mutex);
                d.busy = false;
                if (d.orphaned) d.free_all();
            }
        } done{d};
        const upscaler::CudaFunctions& cuda = *d.cuda;
        for (int i = 0; i < kInputPlanes; ++i) {
            D4R_TRY(d.ensure(i, d.host[i].size()));
            if (d.host[i].empty()) continue;
            CUresult r = cuda.cuMemcpyHtoD_v2(d.buffers[i], d.host[i].data(), d.host[i].size());
            if (r != CUDA_SUCCESS) return upscaler::cuda_error(cuda, "cuMemcpyHtoD", r);
        }
        D4R_TRY(d.ensure(kInputPlanes, d.output.size()));
        CudaFrame cf;
        cf.color = d.buffers[0];
        cf.depth = d.buffers[1];
        cf.motion = d.buffers[2];
        cf.exposure = d.host[3].empty() ? 0 : d.buffers[3];
        cf.output = d.buffers[kInputPlanes];
        D4R_TRY(core(cf));
        D4R_TRY(d.wait_for_core());
        CUresult r = cuda.cuMemcpyDtoH_v2(d.output.data(), cf.output, d.output.size());
        if (r != CUDA_SUCCESS) return upscaler::cuda_error(cuda, "cuMemcpyDtoH (output)", r);
        return {};
    }));

    // 4. The output into the game's texture, through an upload buffer, before evaluate returns.
    D3D12_RESOURCE_DESC desc = frame.output.resource->GetDesc();
    desc.Width = out.width;
    desc.Height = out.height;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    Footprint fp = footprint_of(device, desc);
    D4R_TRY_CTX(m_staging->upload.ensure(device, D3D12_HEAP_TYPE_UPLOAD, fp.bytes), "Output");
    void* mapped = nullptr;
    D3D12_RANGE none{0, 0};
    HRESULT hr = m_staging->upload.buffer->Map(0, &none, &mapped);
    if (FAILED(hr)) return make_error(ErrorCode::Io, "mapping the output upload buffer: {}", hresult_text(hr));
    // The watermark goes into the core's output here, after any core (d4r's or NVIDIA's) has written it.
    if (m_passes.watermark) draw_watermark(PlaneView{device_state->output.data(), out.width, out.height, out.width});
    bool converted =
        convert_from_canonical(frame.output.format, device_state->output.data(), out.width, out.height,
                               static_cast<uint8_t*>(mapped) + fp.placed.Offset, fp.placed.Footprint.RowPitch);
    m_staging->upload.buffer->Unmap(0, nullptr);
    if (!converted)
        return make_error(ErrorCode::Unsupported, "Output: cannot convert to {}", format_name(frame.output.format));
    ID3D12Resource* target = frame.output.resource;
    ID3D12Resource* upload = m_staging->upload.buffer;
    return m_submitter.run(
        [&](ID3D12GraphicsCommandList* own) {
            D3D12_RESOURCE_BARRIER b = transition(target, kOutputState, D3D12_RESOURCE_STATE_COPY_DEST);
            own->ResourceBarrier(1, &b);
            D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
            dst.pResource = target;
            dst.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
            dst.SubresourceIndex = 0;
            src.pResource = upload;
            src.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
            src.PlacedFootprint = fp.placed;
            own->CopyTextureRegion(&dst, out.x, out.y, 0, &src, nullptr);
            b = transition(target, D3D12_RESOURCE_STATE_COPY_DEST, kOutputState);
            own->ResourceBarrier(1, &b);
        },
        kGiveUpMs);
}

} // namespace d4r::shim
