// The Vulkan VRAM data path (vulkan/vram_path.h).
#include "shim/vulkan/vram_path.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/log.h"
#include "shim/formats.h"
#include "shim/gpu_planes.h"
#include "shim/vulkan/buffers.h"
#include "shim/vulkan/resources.h"
#include "shim/vulkan/round_trip.h"
#include "upscaler/platform.h"

namespace d4r::shim::vulkan {

using namespace abi;

namespace {

constexpr int kPlanes = 5;
constexpr Plane kPlaneOrder[kPlanes] = {Plane::Color, Plane::Depth, Plane::Motion, Plane::Exposure, Plane::Output};

struct ExternalFunctions {
    PFN_cuImportExternalMemory import = nullptr;
    PFN_cuExternalMemoryGetMappedBuffer map = nullptr;
    PFN_cuDestroyExternalMemory destroy = nullptr;
};

// One plane: a VkBuffer over exportable memory, the same memory imported into CUDA.
struct PlaneBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize bytes = 0; // what the buffer holds (the allocation may be larger)
    CUexternalMemory external = nullptr;
    CUdeviceptr pointer = 0;
};

const GameResource& plane_of(const GameFrame& f, Plane p) {
    switch (p) {
    case Plane::Color:
        return f.color;
    case Plane::Depth:
        return f.depth;
    case Plane::Motion:
        return f.motion;
    case Plane::Exposure:
        return f.exposure;
    case Plane::Output:
        return f.output;
    }
    return f.color;
}

// Whether plane P of the frame is converted on the GPU: present and not in its canonical format.
bool converted(const GameFrame& f, Plane p) {
    const GameResource& r = plane_of(f, p);
    return r.resource && !canonical(p, r.format);
}
// The plane buffer: the region's rows in the game's format (what Vulkan copies); at least the canonical size, which
// a plane without a resource (the exposure) keeps.
VkDeviceSize plane_bytes(const GameFrame& f, Plane p) {
    const GameResource& r = plane_of(f, p);
    const size_t texel = std::max<size_t>(r.resource ? texel_bytes(r.format) : 0, canonical_texel_bytes(p));
    return std::max<VkDeviceSize>(VkDeviceSize(r.row()) * std::max(r.region.height, 1u) * texel, 16);
}

// The three functions from CUDA_LIBRARY into OUT: empty, or why not (then OUT is left as it was).
std::string resolve(const std::string& cuda_library, ExternalFunctions& out) {
    auto library = upscaler::platform::open_library(cuda_library);
    if (!library) return "the CUDA driver cannot be opened again: " + library.error().text();
    const char* names[3] = {"cuImportExternalMemory", "cuExternalMemoryGetMappedBuffer", "cuDestroyExternalMemory"};
    void* found[3] = {};
    for (int i = 0; i < 3; ++i) {
        found[i] = upscaler::platform::find_symbol(*library, names[i]);
        if (!found[i]) return cuda_library + " has no " + names[i];
    }
    out.import = reinterpret_cast<PFN_cuImportExternalMemory>(found[0]);
    out.map = reinterpret_cast<PFN_cuExternalMemoryGetMappedBuffer>(found[1]);
    out.destroy = reinterpret_cast<PFN_cuDestroyExternalMemory>(found[2]);
    return {};
}

} // namespace

struct VramPath::Shared {
    Context vk;
    ExternalFunctions cu;
    const upscaler::CudaFunctions* cuda = nullptr;
    std::unique_ptr<CoreWait> wait; // for the core, on the worker (core_wait.h)
    PlaneBuffer planes[kPlanes];
    std::vector<PlaneBuffer> retired;     // outgrown buffers, freed with the path (the GPU may still use them)
    std::unique_ptr<GpuPlanes> converted; // planes not in their canonical formats (gpu_planes.h)
    std::deque<EventPair> events;         // per evaluation, oldest first

    // CUDA's side of B (on the worker), then Vulkan's.
    void free_plane(PlaneBuffer& b) const {
        if (b.pointer) cuda->cuMemFree_v2(b.pointer);
        if (b.external) cu.destroy(b.external);
        if (b.buffer) vk.vk.vkDestroyBuffer(vk.device, b.buffer, nullptr);
        if (b.memory) vk.vk.vkFreeMemory(vk.device, b.memory, nullptr);
        b = PlaneBuffer{};
    }
    void free_all() {
        if (converted) converted->release();
        for (PlaneBuffer& b : planes) free_plane(b);
        for (PlaneBuffer& b : retired) free_plane(b);
        retired.clear();
        for (const EventPair& e : events) destroy_events(vk, e);
        events.clear();
        if (wait) wait->release();
    }
};

std::string vram_unavailable(const Context& context, const std::string& cuda_library) {
    if (!context.vk.vkGetMemoryFdKHR)
        return std::string("the Vulkan device was created without ") + VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    ExternalFunctions unused;
    return resolve(cuda_library, unused);
}

VramPath::VramPath(const Context& context, CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options)
    : m_worker(worker), m_shared(std::make_shared<Shared>()) {
    m_shared->vk = context;
    m_shared->cuda = &cuda;
    m_shared->wait = std::make_unique<CoreWait>(cuda, options.blocking_sync, options.event_wait);
    resolve(options.cuda_library, m_shared->cu); // on failure none is set, and ensure_planes refuses
}

VramPath::~VramPath() {
    auto shared = m_shared;
    auto task = [shared]() -> Status {
        shared->free_all();
        return {};
    };
    if (m_worker.stuck()) {
        m_worker.post("Vulkan VRAM path release", task);
        return;
    }
    if (Status s = m_worker.run("Vulkan VRAM path release", task); !s) log::warn("shim: {}", s.error().text());
}

Status VramPath::ensure_planes(const GameFrame& frame) {
    Shared& s = *m_shared;
    if (!s.cu.import || !s.cu.map || !s.cu.destroy) // vram_unavailable said so before this path was chosen
        return make_error(ErrorCode::Unsupported,
                          "the CUDA driver lacks cuImportExternalMemory, cuExternalMemoryGetMappedBuffer or "
                          "cuDestroyExternalMemory: the Vulkan VRAM path cannot share memory with it");
    const Functions& vk = s.vk.vk;
    for (int i = 0; i < kPlanes; ++i) {
        const VkDeviceSize need = plane_bytes(frame, kPlaneOrder[i]);
        if (s.planes[i].buffer && s.planes[i].bytes >= need) continue;
        if (s.planes[i].buffer) s.retired.push_back(s.planes[i]);
        s.planes[i] = PlaneBuffer{};
        PlaneBuffer b;
        // Device-local memory where a type of the buffer's has it, else any of its types.
        auto made = make_buffer(s.vk, need, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
        if (!made)
            return make_error(ErrorCode::Io, "the {} plane: {}", plane_name(kPlaneOrder[i]), made.error().text());
        b.buffer = made->buffer;
        b.memory = made->memory;
        b.bytes = need;
        VkResult r = VK_SUCCESS;
        int fd = -1;
        {
            VkMemoryGetFdInfoKHR fd_info{};
            fd_info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
            fd_info.memory = b.memory;
            fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
            r = vk.vkGetMemoryFdKHR(s.vk.device, &fd_info, &fd);
        }
        if (r != VK_SUCCESS) {
            s.free_plane(b);
            return make_error(ErrorCode::Io, "vkGetMemoryFdKHR of the {} plane's {} bytes: VkResult {}",
                              plane_name(kPlaneOrder[i]), made->allocated, int(r));
        }
        // The import on the worker (CUDA's context is current there); CUDA owns the descriptor once it succeeds.
        struct Import {
            CUexternalMemory external = nullptr;
            CUdeviceptr pointer = 0;
        };
        auto result = std::make_shared<Import>();
        const ExternalFunctions cu = s.cu;
        const upscaler::CudaFunctions* cuda = s.cuda;
        const VkDeviceSize size = made->allocated;
        Status st = m_worker.run(
            "Vulkan memory import",
            [result, cu, cuda, fd, size]() -> Status {
                CUDA_EXTERNAL_MEMORY_HANDLE_DESC handle{};
                handle.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
                handle.handle.fd = fd;
                handle.size = size;
                CUresult r = cu.import(&result->external, &handle);
                if (r != CUDA_SUCCESS) {
                    close(fd);
                    return upscaler::cuda_error(*cuda, "cuImportExternalMemory", r);
                }
                CUDA_EXTERNAL_MEMORY_BUFFER_DESC buffer{};
                buffer.offset = 0;
                buffer.size = size;
                r = cu.map(&result->pointer, result->external, &buffer);
                if (r != CUDA_SUCCESS) {
                    cu.destroy(result->external); // CUDA's side goes here, on the worker
                    result->external = nullptr;
                    return upscaler::cuda_error(*cuda, "cuExternalMemoryGetMappedBuffer", r);
                }
                return {};
            },
            kSetupTimeoutMs);
        if (!st) {
            // Vulkan's side only: CUDA's was undone by the task, or is still the task's when it timed out.
            if (!is_timeout(st.error())) s.free_plane(b);
            return make_error(ErrorCode::Io, "the {} plane's memory, imported into CUDA: {}",
                              plane_name(kPlaneOrder[i]), st.error().text());
        }
        b.external = result->external; // the task has ended: its result is ours
        b.pointer = result->pointer;
        s.planes[i] = b;
    }
    return ensure_conversions(frame);
}

Status VramPath::ensure_conversions(const GameFrame& frame) {
    std::array<size_t, GpuPlanes::kPlanes> need{};
    bool any = false;
    for (Plane p : kPlaneOrder)
        if (converted(frame, p)) {
            need[static_cast<int>(p)] = GpuPlanes::canonical_bytes(p, plane_of(frame, p));
            any = true;
        }
    if (!any) return {};
    // Nothing to load or grow (every frame after the first): no round trip to the worker, which may still be busy
    // with the previous frame's evaluation.
    if (m_shared->converted && m_shared->converted->ready_for(need)) return {};
    auto shared = m_shared;
    return m_worker.run(
        "Vulkan VRAM path conversions",
        [shared, need]() -> Status {
            if (!shared->converted) shared->converted = std::make_unique<GpuPlanes>(*shared->cuda);
            return shared->converted->ensure(need);
        },
        kSetupTimeoutMs);
}

Status VramPath::evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) {
    D4R_TRY(ensure_planes(frame));
    Shared& s = *m_shared;
    const EventPair events = D4R_TRY(make_events(s.vk));
    RoundTrip trip;
    for (int i = 0; i < 4; ++i) {
        trip.inputs[i].buffer = s.planes[i].buffer;
        trip.inputs[i].row_texels = plane_of(frame, kPlaneOrder[i]).row_texels;
    }
    trip.output = {s.planes[4].buffer, frame.output.row_texels};
    record_round_trip(s.vk, command_buffer(list), frame, trip, events);

    // The evaluation, once the GPU has reached `ready`: planes not in their canonical formats are converted on the
    // GPU into their canonical buffers before the core (the output after it), all on the null stream, the core's.
    std::vector<PlaneConversion> conversions;
    CUdeviceptr pointers[kPlanes];
    for (int i = 0; i < kPlanes; ++i) {
        const Plane p = kPlaneOrder[i];
        pointers[i] = s.planes[i].pointer;
        if (!converted(frame, p)) continue;
        const GameResource& r = plane_of(frame, p);
        conversions.push_back(s.converted->conversion("Vulkan VRAM path", p, r, s.planes[i].pointer,
                                                      size_t(r.row()) * texel_bytes(r.format)));
        pointers[i] = conversions.back().canonical;
    }
    CudaFrame cf;
    cf.color = pointers[0];
    cf.depth = pointers[1];
    cf.motion = pointers[2];
    cf.exposure = frame.exposure.resource ? pointers[3] : 0;
    cf.output = pointers[4];
    s.events.push_back(events);
    // Events two evaluations old are past: the GPU set this evaluation's `ready` after their waits.
    std::vector<EventPair> old;
    while (s.events.size() > 3) {
        old.push_back(s.events.front());
        s.events.pop_front();
    }
    auto shared = m_shared;
    m_worker.post("Vulkan evaluation", [shared, events, cf, core, old, conversions]() -> Status {
        return host_side(shared->vk, events, old, [&]() -> Status {
            if (!conversions.empty()) D4R_TRY(shared->converted->convert_inputs(conversions));
            D4R_TRY(core(cf));
            if (!conversions.empty()) D4R_TRY(shared->converted->convert_output(conversions));
            return shared->wait->wait();
        });
    });
    return {};
}

} // namespace d4r::shim::vulkan
