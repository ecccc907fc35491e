// RayScene: frames and probes of a ray-cast world, rows spread over threads.
#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>

#include "scene/tracer.h"
#include "scene/world.h"

namespace d4r::scene {

namespace {

// Runs body(row) for every row; rows are handed out dynamically, so the split varies between runs
// but each row's result does not depend on which thread computed it.
void parallel_rows(uint32_t rows, unsigned threads, const std::function<void(uint32_t)>& body) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads = std::min<unsigned>(threads, std::max<uint32_t>(rows, 1));
    std::atomic<uint32_t> next{0};
    auto worker = [&] {
        for (uint32_t row = next.fetch_add(1); row < rows; row = next.fetch_add(1)) body(row);
    };
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
    worker();
    for (auto& thread : pool) thread.join();
}

// Rotated-grid supersampling offsets within an output pixel (RGSS).
constexpr float kTruthOffsets[4][2] = {{0.125f, -0.375f}, {0.375f, 0.125f}, {-0.125f, 0.375f}, {-0.375f, -0.125f}};

} // namespace

Frame RayScene::render_frame(uint32_t frame_index, Size render, Size output, const RenderOptions& options) const {
    float t = float(frame_index) * kFrameSeconds;
    float t_prev = t - kFrameSeconds;
    FrameState state = make_frame_state(m_objects, m_light, camera_at(t), camera_at(t_prev), t, t_prev, true);

    Frame frame;
    FrameInputs& in = frame.inputs;
    Jitter jitter = jitter_for_frame(frame_index);
    in.width = render.width;
    in.height = render.height;
    in.jitter_x = jitter.x;
    in.jitter_y = jitter.y;
    in.exposure = m_exposure;
    size_t pixels = size_t(render.width) * render.height;
    in.color.assign(pixels * 4, 0.0f);
    in.depth.assign(pixels, 1.0f);
    in.motion.assign(pixels * 2, 0.0f);
    frame.truth = image::Image(output.width, output.height, 4);

    const float rw = float(render.width), rh = float(render.height);
    const float ow = float(output.width), oh = float(output.height);
    // One pool pass over the input rows followed by the output rows keeps both sizes balanced.
    uint32_t rows = render.height + output.height;
    parallel_rows(rows, options.threads, [&](uint32_t row) {
        if (row < render.height) {
            uint32_t y = row;
            for (uint32_t x = 0; x < render.width; ++x) {
                TraceResult r = trace(state, x + 0.5f + jitter.x, y + 0.5f + jitter.y, rw, rh, true);
                size_t i = size_t(y) * render.width + x;
                in.color[i * 4 + 0] = r.color.x;
                in.color[i * 4 + 1] = r.color.y;
                in.color[i * 4 + 2] = r.color.z;
                in.color[i * 4 + 3] = 1.0f;
                in.depth[i] = r.depth;
                in.motion[i * 2 + 0] = r.mv_x;
                in.motion[i * 2 + 1] = r.mv_y;
            }
            return;
        }
        uint32_t y = row - render.height;
        for (uint32_t x = 0; x < output.width; ++x) {
            Vec3 sum;
            for (const auto& offset : kTruthOffsets)
                sum = sum + trace(state, x + 0.5f + offset[0], y + 0.5f + offset[1], ow, oh, false).color;
            sum = sum * 0.25f;
            frame.truth.at(x, y, 0) = sum.x;
            frame.truth.at(x, y, 1) = sum.y;
            frame.truth.at(x, y, 2) = sum.z;
            frame.truth.at(x, y, 3) = 1.0f;
        }
    });
    return frame;
}

SurfaceProbe RayScene::probe(uint32_t frame_index, Size size, float px, float py) const {
    float t = float(frame_index) * kFrameSeconds;
    float t_prev = t - kFrameSeconds;
    FrameState state = make_frame_state(m_objects, m_light, camera_at(t), camera_at(t_prev), t, t_prev, false);
    TraceResult r = trace(state, px, py, float(size.width), float(size.height), true);
    SurfaceProbe probe;
    probe.object = r.object;
    probe.local[0] = r.local.x;
    probe.local[1] = r.local.y;
    probe.local[2] = r.local.z;
    probe.color[0] = r.color.x;
    probe.color[1] = r.color.y;
    probe.color[2] = r.color.z;
    probe.depth = r.depth;
    probe.motion[0] = r.mv_x;
    probe.motion[1] = r.mv_y;
    return probe;
}

} // namespace d4r::scene
