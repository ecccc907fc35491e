// The host path's API-independent half (host_staging.h).
#include "shim/host_staging.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/log.h"

namespace d4r::shim {

using namespace abi;

namespace {

constexpr int kInputPlanes = 4; // colour, depth, motion, exposure (indexes into the arrays below)

int input_index(Plane plane) {
    switch (plane) {
    case Plane::Color:
        return 0;
    case Plane::Depth:
        return 1;
    case Plane::Motion:
        return 2;
    default:
        return 3;
    }
}

// Host memory of one canonical plane: pinned (cuMemHostAlloc) when the CUDA library gives it, so that uploads
// and downloads need no staging copy (and libd4rcuda's cpu backend no page probe of unknown memory), else an
// ordinary vector (said once). It grows, never shrinks; `grow` and `release` run on the worker (they need the
// context); the bytes are written and read outside it only while no task uses them.
class HostPlane {
public:
    HostPlane() = default;
    HostPlane(const HostPlane&) = delete;
    HostPlane& operator=(const HostPlane&) = delete;
    uint8_t* data() { return m_pinned ? m_pinned : m_fallback.data(); }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    void clear() { m_size = 0; }
    size_t capacity() const { return m_pinned ? m_capacity : m_fallback.size(); }
    // Room for BYTES, which become the plane's size (their contents are undefined).
    void resize_within(size_t bytes) { m_size = bytes; }
    void grow(const upscaler::CudaFunctions& cuda, size_t bytes) {
        release(cuda);
        void* p = nullptr;
        abi::CUresult r = cuda.cuMemHostAlloc(&p, bytes, 0);
        if (r == CUDA_SUCCESS && p) {
            m_pinned = static_cast<uint8_t*>(p);
            m_capacity = bytes;
        } else {
            if (log::once("shim-host-path-pageable"))
                log::warn("shim: host path: {} ({} bytes); its host copies use pageable memory, which costs a staging "
                          "copy per upload and download",
                          upscaler::cuda_error(cuda, "cuMemHostAlloc", r).text(), bytes);
            m_fallback.resize(bytes);
        }
        m_size = bytes;
    }
    void release(const upscaler::CudaFunctions& cuda) {
        if (m_pinned) cuda.cuMemFreeHost(m_pinned);
        m_pinned = nullptr;
        m_capacity = 0;
        m_fallback = {};
        m_size = 0;
    }

private:
    uint8_t* m_pinned = nullptr;
    size_t m_capacity = 0;
    std::vector<uint8_t> m_fallback;
    size_t m_size = 0;
};

} // namespace

// CUDA buffers and the host copies of one evaluation; a task abandoned by the watchdog still owns them.
struct HostStaging::Buffers {
    const upscaler::CudaFunctions* cuda = nullptr;
    std::unique_ptr<CoreWait> wait; // made with the buffers
    std::mutex mutex;               // busy and orphaned
    bool busy = false;              // an evaluation task holds it
    bool orphaned = false;          // the path has gone on with new buffers: the task frees these when it ends
    std::array<HostPlane, kInputPlanes> host;            // canonical inputs
    HostPlane output;                                    // canonical output, RGBA16F
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
    // On the worker.
    void free_all() {
        for (HostPlane& plane : host) plane.release(*cuda);
        output.release(*cuda);
        for (size_t i = 0; i < buffers.size(); ++i)
            if (buffers[i]) cuda->cuMemFree_v2(buffers[i]);
        buffers = {};
        sizes = {};
        wait->release();
    }
};

HostStaging::HostStaging(CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options)
    : m_worker(worker), m_cuda(cuda), m_options(options), m_buffers(fresh()) {}

std::shared_ptr<HostStaging::Buffers> HostStaging::fresh() const {
    auto d = std::make_shared<Buffers>();
    d->cuda = &m_cuda;
    d->wait = std::make_unique<CoreWait>(m_cuda, m_options.blocking_sync, m_options.event_wait);
    return d;
}

HostStaging::~HostStaging() {
    std::shared_ptr<Buffers> buffers = m_buffers;
    auto task = [buffers]() -> Status {
        buffers->free_all();
        return {};
    };
    if (m_worker.stuck()) { // queued behind the stalled task: never waited for
        m_worker.post("freeing the host path's CUDA buffers", task);
        return;
    }
    Status freed = m_worker.run("freeing the host path's CUDA buffers", task);
    if (!freed) log::warn("shim: {}", freed.error().text());
}

void HostStaging::begin_frame() {
    // An evaluation the watchdog gave up on still owns its buffers and host copies until it ends: this frame
    // gets new ones, and that task frees the old ones.
    {
        std::lock_guard lock(m_buffers->mutex);
        if (m_buffers->busy) m_buffers->orphaned = true;
    }
    if (m_buffers->orphaned) {
        log::info("shim: host path: an earlier evaluation still owns its buffers; this frame uses new ones");
        m_buffers = fresh();
    }
}

void HostStaging::clear_input(Plane plane) { m_buffers->host[input_index(plane)].clear(); }

Status HostStaging::read_input(Plane plane, const GameResource& in, const uint8_t* first, size_t pitch) {
    const int index = input_index(plane);
    HostPlane& host = m_buffers->host[index];
    const Region& r = in.region;
    const size_t texel = canonical_texel_bytes(plane);
    const size_t row = std::max<size_t>(in.row_texels, r.width);
    const size_t bytes = row * r.height * texel;
    if (host.capacity() < bytes) {
        std::shared_ptr<Buffers> buffers = m_buffers;
        D4R_TRY(m_worker.run("allocating the host path's memory", [buffers, index, bytes]() -> Status {
            buffers->host[index].grow(*buffers->cuda, bytes);
            return {};
        }));
    }
    host.resize_within(bytes);
    // Every texel of the region is converted below: only the padding past it in each row needs zeroing.
    if (row != r.width) std::memset(host.data(), 0, bytes);
    bool converted = true;
    for (uint32_t y = 0; y < r.height && converted; ++y)
        converted = convert_to_canonical(plane, in.format, first + size_t(y) * pitch, pitch, r.width, 1,
                                         host.data() + size_t(y) * row * texel);
    if (!converted)
        return make_error(ErrorCode::Unsupported, "{}: cannot convert {}", plane_name(plane), format_name(in.format));
    return {};
}

Status HostStaging::evaluate(const GameFrame& frame, const CoreCall& core) {
    std::shared_ptr<Buffers> buffers = m_buffers;
    // Motion-vector dilation, on the canonical planes (motion RG16F, depth R32F), before the core sees them.
    if (m_options.passes.motion_dilation && !buffers->host[2].empty() && !buffers->host[1].empty()) {
        const GameResource& mv = frame.motion;
        const GameResource& depth = frame.depth;
        dilate_motion(
            PlaneView{buffers->host[2].data(), mv.region.width, mv.region.height, mv.row_texels},
            ConstPlaneView{buffers->host[1].data(), depth.region.width, depth.region.height, depth.row_texels},
            m_options.passes.motion_dilation, m_options.passes.depth_inverted, &m_dilation);
    }
    const Region& out = frame.output.region;
    const size_t output_bytes = size_t(out.width) * out.height * 8;

    {
        std::lock_guard lock(buffers->mutex);
        buffers->busy = true;
    }
    return m_worker.run("the evaluation", [buffers, core, output_bytes]() -> Status {
        Buffers& d = *buffers;
        struct Done { // however the task ends
            Buffers& d;
            ~Done() {
                std::lock_guard lock(d.mutex);
                d.busy = false;
                if (d.orphaned) d.free_all();
            }
        } done{d};
        const upscaler::CudaFunctions& cuda = *d.cuda;
        if (d.output.capacity() < output_bytes) d.output.grow(cuda, output_bytes);
        d.output.resize_within(output_bytes);
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
        D4R_TRY(d.wait->wait());
        CUresult r = cuda.cuMemcpyDtoH_v2(d.output.data(), cf.output, d.output.size());
        if (r != CUDA_SUCCESS) return upscaler::cuda_error(cuda, "cuMemcpyDtoH (output)", r);
        return {};
    });
}

Status HostStaging::write_output(const GameResource& out, uint8_t* dst, size_t pitch) {
    const Region& r = out.region;
    HostPlane& output = m_buffers->output;
    if (output.size() < size_t(r.width) * r.height * 8)
        return make_error(ErrorCode::Invalid, "Output: no result of {}x{} texels to write (the evaluation did not run)",
                          r.width, r.height);
    // The watermark goes into the core's output here, after any core (d4r's or NVIDIA's) has written it.
    if (m_options.passes.watermark) draw_watermark(PlaneView{output.data(), r.width, r.height, r.width});
    if (!convert_from_canonical(out.format, output.data(), r.width, r.height, dst, pitch))
        return make_error(ErrorCode::Unsupported, "Output: cannot convert to {}", format_name(out.format));
    return {};
}

} // namespace d4r::shim
