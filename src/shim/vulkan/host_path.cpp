// The Vulkan host data path (vulkan/host_path.h).
#include "shim/vulkan/host_path.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "core/log.h"
#include "shim/formats.h"
#include "shim/vulkan/buffers.h"
#include "shim/vulkan/resources.h"
#include "shim/vulkan/round_trip.h"

namespace d4r::shim::vulkan {

namespace {

constexpr Plane kInputs[4] = {Plane::Color, Plane::Depth, Plane::Motion, Plane::Exposure};

// A transfer buffer in host-visible, host-coherent memory, mapped for its life.
struct Staging {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize bytes = 0;
    uint8_t* mapped = nullptr;
};

struct Job {
    EventPair events;
    GameFrame frame;
    CoreCall core;
    std::vector<EventPair> old; // events two evaluations old, destroyed once this one's `ready` is seen
};

const GameResource& input_of(const GameFrame& f, int i) {
    const GameResource* in[4] = {&f.color, &f.depth, &f.motion, &f.exposure};
    return *in[i];
}

} // namespace

struct HostPath::State {
    State(const Context& c, CudaWorker& worker, const upscaler::CudaFunctions& cuda, const HostOptions& options)
        : vk(c), host(worker, cuda, options) {}

    Context vk;
    HostStaging host; // used by the thread only
    Staging inputs[4];
    Staging output;
    std::vector<Staging> retired; // outgrown buffers, freed with the path
    std::deque<EventPair> events; // the game thread's list, oldest first

    std::mutex mutex;
    std::condition_variable cv;
    std::deque<Job> jobs;
    bool stop = false;
    std::thread thread;

    void free(Staging& s) const {
        if (s.mapped) vk.vk.vkUnmapMemory(vk.device, s.memory);
        if (s.buffer) vk.vk.vkDestroyBuffer(vk.device, s.buffer, nullptr);
        if (s.memory) vk.vk.vkFreeMemory(vk.device, s.memory, nullptr);
        s = Staging{};
    }

    Status ensure(Staging& s, VkDeviceSize bytes, const char* what) {
        bytes = std::max<VkDeviceSize>(bytes, 16);
        if (s.buffer && s.bytes >= bytes) return {};
        if (s.buffer) retired.push_back(s);
        s = Staging{};
        auto made =
            make_buffer(vk, bytes, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 0);
        if (!made)
            return make_error(ErrorCode::Io, "a host-visible, host-coherent staging buffer for {}: {}", what,
                              made.error().text());
        s.buffer = made->buffer;
        s.memory = made->memory;
        void* mapped = nullptr;
        const VkResult r = vk.vk.vkMapMemory(vk.device, s.memory, 0, VK_WHOLE_SIZE, 0, &mapped);
        if (r != VK_SUCCESS) {
            free(s);
            return make_error(ErrorCode::Io, "vkMapMemory of a {} byte staging buffer for {}: VkResult {}", bytes, what,
                              int(r));
        }
        s.mapped = static_cast<uint8_t*>(mapped);
        s.bytes = bytes;
        return {};
    }

    // One job on the thread: the inputs converted, the core evaluated, the output converted, `done` set.
    void run(const Job& job) {
        Status result = host_side(vk, job.events, job.old, [&]() -> Status {
            host.begin_frame();
            for (int i = 0; i < 4; ++i) {
                const GameResource& in = input_of(job.frame, i);
                if (!in.resource) {
                    host.clear_input(kInputs[i]);
                    continue;
                }
                D4R_TRY(host.read_input(kInputs[i], in, inputs[i].mapped,
                                        size_t(in.region.width) * texel_bytes(in.format)));
            }
            D4R_TRY(host.evaluate(job.frame, job.core));
            const GameResource& out = job.frame.output;
            return host.write_output(out, output.mapped, size_t(out.region.width) * texel_bytes(out.format));
        });
        if (!result) log::error("shim: Vulkan host path: {}", result.error().text());
    }

    void loop() {
        for (;;) {
            Job job;
            {
                std::unique_lock lock(mutex);
                cv.wait(lock, [&] { return stop || !jobs.empty(); });
                if (jobs.empty()) return;
                job = jobs.front();
            }
            run(job);
            std::lock_guard lock(mutex);
            jobs.pop_front();
            cv.notify_all();
        }
    }
};

HostPath::HostPath(const Context& context, CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options)
    : m_state(std::make_shared<State>(context, worker, cuda, options)) {
    m_state->thread = std::thread([state = m_state.get()] { state->loop(); });
}

HostPath::~HostPath() {
    {
        std::lock_guard lock(m_state->mutex);
        m_state->stop = true;
    }
    m_state->cv.notify_all();
    m_state->thread.join(); // each job ends within kGpuWaitMs plus the evaluation's own limit
    State& s = *m_state;
    for (Staging& b : s.inputs) s.free(b);
    s.free(s.output);
    for (Staging& b : s.retired) s.free(b);
    for (const EventPair& e : s.events) destroy_events(s.vk, e);
}

Status HostPath::evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) {
    State& s = *m_state;
    {
        // The staging buffers are the thread's while a job is queued: wait (bounded) until it has none.
        std::unique_lock lock(s.mutex);
        if (!s.cv.wait_for(lock, std::chrono::milliseconds(2 * kGpuWaitMs), [&] { return s.jobs.empty(); }))
            return make_error(ErrorCode::Io, "the previous evaluation on the Vulkan host path has not finished");
    }
    RoundTrip trip;
    for (int i = 0; i < 4; ++i) {
        const GameResource& in = input_of(frame, i);
        if (!in.resource) continue;
        D4R_TRY(s.ensure(s.inputs[i], VkDeviceSize(in.region.width) * in.region.height * texel_bytes(in.format),
                         plane_name(kInputs[i])));
        trip.inputs[i] = {s.inputs[i].buffer, in.region.width};
    }
    const GameResource& out = frame.output;
    D4R_TRY(s.ensure(s.output, VkDeviceSize(out.region.width) * out.region.height * texel_bytes(out.format), "Output"));
    trip.output = {s.output.buffer, out.region.width};
    const EventPair events = D4R_TRY(make_events(s.vk));
    record_round_trip(s.vk, command_buffer(list), frame, trip, events);

    Job job{events, frame, core, {}};
    s.events.push_back(events);
    while (s.events.size() > 3) {
        job.old.push_back(s.events.front());
        s.events.pop_front();
    }
    {
        std::lock_guard lock(s.mutex);
        s.jobs.push_back(std::move(job));
    }
    s.cv.notify_all();
    return {};
}

} // namespace d4r::shim::vulkan
