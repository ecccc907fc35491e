// The D3D12 mapped data path (d3d12/mapped_path.h).
#include "shim/d3d12/mapped_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <vector>

#include "core/log.h"
#include "shim/d3d12/resources.h"
#include "shim/d3d12/staging_buffers.h"
#include "shim/formats.h"
#include "shim/gpu_planes.h"
#include "upscaler/platform.h"

namespace d4r::shim::d3d12 {

using namespace abi;

namespace {

constexpr int kOutput = kInputPlanes; // the output's buffer follows the inputs'

struct HostFunctions {
    PFN_cuMemHostRegister_v2 host_register = nullptr;
    PFN_cuMemHostGetDevicePointer_v2 device_pointer = nullptr;
    PFN_cuMemHostUnregister unregister = nullptr;
};
constexpr const char* kRegister = "cuMemHostRegister_v2";
constexpr const char* kDevicePointer = "cuMemHostGetDevicePointer_v2";
constexpr const char* kUnregister = "cuMemHostUnregister";

// A readback (inputs) or upload (output) buffer, mapped for the CPU and registered with CUDA.
struct MappedBuffer {
    HeapBuffer heap;
    void* mapped = nullptr;
    CUdeviceptr device = 0;
};

Plane plane_at(int index) { return index == kOutput ? Plane::Output : kInputOrder[index]; }
const GameResource& resource_at(const GameFrame& frame, int index) {
    return index == kOutput ? frame.output : input_of(frame, index);
}

// The three functions from CUDA_LIBRARY into OUT: empty, or why not.
std::string resolve(const std::string& cuda_library, HostFunctions& out) {
    auto library = upscaler::platform::open_library(cuda_library);
    if (!library) return "the CUDA driver cannot be opened again: " + library.error().text();
    void* found[3] = {};
    const char* names[3] = {kRegister, kDevicePointer, kUnregister};
    for (int i = 0; i < 3; ++i) {
        found[i] = upscaler::platform::find_symbol(*library, names[i]);
        if (!found[i]) return cuda_library + " has no " + names[i];
    }
    out.host_register = reinterpret_cast<PFN_cuMemHostRegister_v2>(found[0]);
    out.device_pointer = reinterpret_cast<PFN_cuMemHostGetDevicePointer_v2>(found[1]);
    out.unregister = reinterpret_cast<PFN_cuMemHostUnregister>(found[2]);
    return {};
}

} // namespace

struct MappedPath::Shared {
    const upscaler::CudaFunctions* cuda = nullptr;
    HostFunctions cu;
    std::unique_ptr<CoreWait> wait;
    std::array<MappedBuffer, kInputPlanes + 1> buffers;
    std::unique_ptr<GpuPlanes> converted; // planes not in the core's layout (gpu_planes.h), made on first use

    // On the worker (CUDA's context current): CUDA lets go of the memory, then it is unmapped and released.
    void release(MappedBuffer& b) const {
        if (b.device) cu.unregister(b.mapped);
        if (b.mapped) b.heap.buffer->Unmap(0, nullptr);
        b.device = 0;
        b.mapped = nullptr;
        b.heap.reset();
    }
    Status register_memory(MappedBuffer& b) const {
        CUresult r = cu.host_register(b.mapped, size_t(b.heap.size), CU_MEMHOSTREGISTER_DEVICEMAP);
        if (r != CUDA_SUCCESS)
            return make_error(ErrorCode::Unsupported, "{}",
                              upscaler::cuda_error(*cuda, "cuMemHostRegister of a mapped D3D12 buffer", r).text());
        CUdeviceptr device = 0;
        r = cu.device_pointer(&device, b.mapped, 0);
        if (r != CUDA_SUCCESS) {
            cu.unregister(b.mapped);
            return make_error(ErrorCode::Unsupported, "{}",
                              upscaler::cuda_error(*cuda, "cuMemHostGetDevicePointer", r).text());
        }
        b.device = device;
        return {};
    }
};

std::string mapped_unavailable(const std::string& cuda_library) {
    HostFunctions unused;
    return resolve(cuda_library, unused);
}

MappedPath::MappedPath(Submitter& submitter, CudaWorker& worker, const upscaler::CudaFunctions& cuda,
                       const HostOptions& options)
    : m_submitter(submitter), m_worker(worker), m_shared(std::make_shared<Shared>()) {
    m_shared->cuda = &cuda;
    m_shared->wait = std::make_unique<CoreWait>(cuda, options.blocking_sync, options.event_wait);
    resolve(options.cuda_library, m_shared->cu); // on failure none is set, and prepare refuses
}

MappedPath::~MappedPath() {
    auto shared = m_shared;
    auto task = [shared]() -> Status {
        for (MappedBuffer& b : shared->buffers) shared->release(b);
        if (shared->converted) shared->converted->release();
        shared->wait->release();
        return {};
    };
    if (m_worker.stuck()) { // behind the stalled task, which may still read the buffers
        m_worker.post("releasing the mapped path's buffers", task);
        return;
    }
    if (Status s = m_worker.run("releasing the mapped path's buffers", task); !s)
        log::warn("shim: {}", s.error().text());
}

MappedPath::Layout MappedPath::layout_of(ID3D12Device* device, const GameFrame& frame) {
    Layout layout{};
    for (int i = 0; i < kInputPlanes; ++i)
        if (input_of(frame, i).resource) layout[i] = input_footprint(device, input_of(frame, i));
    if (frame.output.resource) layout[kOutput] = output_footprint(device, frame.output);
    return layout;
}

bool MappedPath::converted(const GameFrame& frame, const Layout& layout, int index) {
    const GameResource& r = resource_at(frame, index);
    const Plane plane = plane_at(index);
    if (!r.resource) return false;
    if (!canonical(plane, r.format)) return true;
    if (plane == Plane::Exposure) return false; // one texel
    return layout[index].placed.Footprint.RowPitch != uint64_t(r.row()) * canonical_texel_bytes(plane);
}

Status MappedPath::prepare(const GameFrame& frame, const Layout& layout) {
    Shared& s = *m_shared;
    if (!s.cu.host_register || !s.cu.device_pointer || !s.cu.unregister) // mapped_unavailable said so first
        return make_error(ErrorCode::Unsupported, "the CUDA driver lacks {}, {} or {}", kRegister, kDevicePointer,
                          kUnregister);
    ID3D12Device* device = m_submitter.device();
    auto shared = m_shared;
    for (int i = 0; i <= kOutput; ++i) {
        if (!resource_at(frame, i).resource) continue;
        const UINT64 need = layout[i].bytes;
        MappedBuffer& b = s.buffers[i];
        if (b.heap.buffer && b.heap.size >= need) continue;
        if (b.heap.buffer)
            D4R_TRY(m_worker.run("growing the mapped path's buffers", [shared, i]() -> Status {
                shared->release(shared->buffers[i]);
                return {};
            }));
        const bool output = i == kOutput;
        D4R_TRY_CTX(b.heap.ensure(device, output ? D3D12_HEAP_TYPE_UPLOAD : D3D12_HEAP_TYPE_READBACK, need), "{}",
                    plane_name(plane_at(i)));
        D3D12_RANGE all{0, SIZE_T(need)}, none{0, 0};
        HRESULT hr = b.heap.buffer->Map(0, output ? &none : &all, &b.mapped);
        if (FAILED(hr)) {
            b.mapped = nullptr;
            b.heap.reset();
            return make_error(ErrorCode::Io, "mapping the {} buffer: {}", plane_name(plane_at(i)), hresult_text(hr));
        }
        Status registered = m_worker.run("mapping D3D12 memory into CUDA", [shared, i]() -> Status {
            return shared->register_memory(shared->buffers[i]);
        });
        if (!registered) {
            // Released behind the registration, which may not have ended (a stuck worker).
            m_worker.post("releasing a mapped buffer CUDA refused", [shared, i]() -> Status {
                shared->release(shared->buffers[i]);
                return {};
            });
            return registered;
        }
    }
    std::array<size_t, GpuPlanes::kPlanes> need{};
    bool any = false;
    for (int i = 0; i <= kOutput; ++i)
        if (converted(frame, layout, i)) {
            need[static_cast<int>(plane_at(i))] = GpuPlanes::canonical_bytes(plane_at(i), resource_at(frame, i));
            any = true;
        }
    if (!any || (s.converted && s.converted->ready_for(need))) return {}; // nothing to load or grow
    return m_worker.run("the mapped path's GPU conversions", [shared, need]() -> Status {
        if (!shared->converted) shared->converted = std::make_unique<GpuPlanes>(*shared->cuda);
        return shared->converted->ensure(need);
    });
}

Status MappedPath::evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) {
    const Layout layout = layout_of(m_submitter.device(), frame);
    D4R_TRY(prepare(frame, layout));
    return run(list, frame, layout, core);
}

Status MappedPath::run(CommandListHandle list, const GameFrame& frame, const Layout& layout, const CoreCall& core) {
    Shared& s = *m_shared;
    std::array<ID3D12Resource*, kInputPlanes> buffers{};
    for (int i = 0; i < kInputPlanes; ++i) buffers[i] = s.buffers[i].heap.buffer;
    ID3D12GraphicsCommandList* game = command_list(list);
    record_input_copies(game, frame, buffers, std::span<const Footprint, kInputPlanes>(layout.data(), kInputPlanes));
    D4R_TRY_CTX(m_submitter.split(game, kGiveUpMs), "copying the inputs into mapped memory");

    // Each plane's region where it landed: the core reads (or writes) it there when its texels and rows are the
    // core's; otherwise it is converted on the GPU between there and a canonical buffer (gpu_planes.h).
    std::vector<PlaneConversion> conversions;
    std::array<CUdeviceptr, kInputPlanes + 1> pointers{};
    for (int i = 0; i <= kOutput; ++i) {
        const GameResource& r = resource_at(frame, i);
        if (!r.resource) continue;
        const Plane plane = plane_at(i);
        const D3D12_PLACED_SUBRESOURCE_FOOTPRINT& p = layout[i].placed;
        // Inputs: the whole subresource, the region inside it; the output: its region alone.
        const uint64_t origin =
            i == kOutput ? 0
                         : uint64_t(r.region.y) * p.Footprint.RowPitch + uint64_t(r.region.x) * texel_bytes(r.format);
        const CUdeviceptr game = s.buffers[i].device + p.Offset + origin;
        pointers[i] = game;
        if (!converted(frame, layout, i)) continue;
        conversions.push_back(s.converted->conversion(
            "D3D12 mapped path", plane, r, game, size_t(p.Footprint.RowPitch),
            canonical(plane, r.format) ? "rows placed as the core does not read them" : nullptr));
        pointers[i] = conversions.back().canonical;
    }
    CudaFrame cf;
    cf.color = pointers[0];
    cf.depth = pointers[1];
    cf.motion = pointers[2];
    cf.exposure = pointers[3];
    cf.output = pointers[kOutput];
    const Footprint& out = layout[kOutput];
    auto shared = m_shared;
    D4R_TRY(m_worker.run("the evaluation", [shared, core, cf, conversions]() -> Status {
        if (!conversions.empty()) D4R_TRY(shared->converted->convert_inputs(conversions));
        D4R_TRY(core(cf));
        if (!conversions.empty()) D4R_TRY(shared->converted->convert_output(conversions));
        return shared->wait->wait();
    }));
    ID3D12Resource* target = resource(frame.output.resource);
    ID3D12Resource* upload = s.buffers[kOutput].heap.buffer;
    return m_submitter.run(
        [&](ID3D12GraphicsCommandList* own) { record_output_copy(own, target, frame.output.region, upload, out); },
        kGiveUpMs);
}

} // namespace d4r::shim::d3d12
