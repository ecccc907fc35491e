// d4r scene: synthetic animated scenes rendered on the CPU to exactly what a game hands DLSS.
//
// Promise: Scene::render(i, render, output) gives frame i of an animation at 30 frames per second:
//   - inputs at render resolution, one sample per pixel at the jittered position (aliased, as a
//     game renders): pixel (x, y) is the scene sampled at render-pixel coordinates
//     (x + 0.5 + jitter_x, y + 0.5 + jitter_y), jitter = jitter_for_frame(i);
//       color  RGBA float, linear HDR (values above 1 in highlights, sun, lit windows), alpha 1
//       depth  D3D-style perspective depth, 0 = near plane (0.1) .. 1 = far plane (1000) and sky
//       motion RG float in render pixels, prev = cur + mv, where cur and prev are the UNJITTERED
//              projections of the surface point that the jittered sample hit, in this frame and
//              the previous one (each object's own motion included; DLSS's MVJittered off). The
//              sky (depth 1) moves with the camera's rotation only. A point behind the previous
//              camera gets mv 0.
//       exposure the value a game multiplies colour by before tone mapping (> 0)
//   - truth at output resolution: the same scene unjittered and supersampled with 4 rotated-grid
//     samples per pixel at offsets (+-1/8, +-3/8) (RGSS), box-filtered, RGBA linear. An output size
//     of 0 x 0 skips it (empty image).
// Rendering is deterministic: the same frame gives the same bytes whatever the thread count (every
// pixel is a pure function of its coordinates; rows are only distributed over threads).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "image/image.h"

namespace d4r::scene {

struct Size {
    uint32_t width = 0;
    uint32_t height = 0;
};

struct FrameInputs {
    uint32_t width = 0, height = 0;
    std::vector<float> color;  // RGBA, linear HDR, width * height * 4
    std::vector<float> depth;  // width * height, 0 near .. 1 far
    std::vector<float> motion; // RG, width * height * 2, render pixels, prev = cur + mv
    float jitter_x = 0, jitter_y = 0;
    float exposure = 1;

    // The colour buffer as an RGBA image (a copy), for tonemap() or resize_bicubic().
    image::Image color_image() const { return image::Image(width, height, 4, color); }
};

struct Frame {
    FrameInputs inputs;
    image::Image truth; // RGBA linear at output size, unjittered, supersampled
};

struct RenderOptions {
    unsigned threads = 0; // 0: std::thread::hardware_concurrency()
};

// What one ray sees: for tests and tools that need a single sample without a whole frame.
struct SurfaceProbe {
    int object = -1;            // index of the object hit, -1 for the sky
    float local[3] = {0, 0, 0}; // object-space hit point (sky: the unit world direction)
    float color[3] = {0, 0, 0}; // linear RGB
    float depth = 1;
    float motion[2] = {0, 0}; // as FrameInputs::motion, in pixels of the probed size
};

class Scene {
public:
    virtual ~Scene() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;

    Frame render(uint32_t frame_index, Size render, Size output) const {
        return render_frame(frame_index, render, output, RenderOptions{});
    }
    virtual Frame render_frame(uint32_t frame_index, Size render, Size output, const RenderOptions& options) const = 0;

    // The sample frame `frame_index` gets at pixel coordinates (px, py) of an image of size `size`
    // (no jitter added: pass the jittered position yourself). render() uses the same code.
    virtual SurfaceProbe probe(uint32_t frame_index, Size size, float px, float py) const = 0;
};

// The scenes, in the order the demo lists them; the first is the default. They are the evaluation
// scenes: the generated training scenes below are never listed.
std::vector<std::string> scene_names();

// A listed scene, or "train-<seed>" (make_training_scene(seed), seed decimal, 0 .. 2^32 - 1). Unknown
// names and malformed seeds give Invalid, listing the accepted names.
Expected<std::unique_ptr<Scene>> make_scene(std::string_view name);

// The training scene "train-<seed>": a world generated from `seed` (random sun, sky, exposure, camera
// path, textured ground and 10-30 moving or still items), for training networks on pairs of upscaled
// frames and truth without ever showing them the evaluation scenes. The same seed gives the same scene
// (its own PRNG: the same on every standard library).
constexpr std::string_view kTrainingScenePrefix = "train-";
std::unique_ptr<Scene> make_training_scene(uint32_t seed);

// The radical inverse of `index` in `base` (index 1, base 2 -> 0.5), in [0, 1).
float halton(uint32_t index, uint32_t base);

// The jitter sequence repeats every kJitterPhases frames.
constexpr uint32_t kJitterPhases = 16;

struct Jitter {
    float x = 0, y = 0;
};

// (halton(p + 1, 2) - 0.5, halton(p + 1, 3) - 0.5) with p = i % kJitterPhases; in [-0.5, 0.5).
Jitter jitter_for_frame(uint32_t frame_index);

} // namespace d4r::scene
