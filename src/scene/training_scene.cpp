// "train-<seed>": a world generated from a seed for training (see training.h and docs/scenes.md): random
// sun, sky and exposure, a camera path (orbit, dolly, pan or drive), a textured ground and 10-30 items
// with thin geometry, fine patterns, text, glossy and glowing materials, moving or still.
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "scene/training.h"

namespace d4r::scene {

namespace {

constexpr float kPi = 3.14159265f;
constexpr int kPlacementTries = 30;

class TrainingScene final : public RayScene {
public:
    TrainingScene(uint32_t seed, TrainingWorld world)
        : RayScene(fmt::format("train-{}", seed),
                   fmt::format("generated training scene (seed {}): {} camera, {} items ({} objects), exposure {:.2f}",
                               seed, path_kind_name(world.path.kind), world.items, world.objects.size() - 1,
                               world.exposure)),
          m_path(world.path) {
        m_exposure = world.exposure;
        m_light = world.light;
        m_objects = std::move(world.objects);
    }

protected:
    Camera camera_at(float t) const override { return m_path.at(t); }

private:
    CameraPath m_path;
};

} // namespace

TrainingWorld generate_training_world(uint32_t seed) {
    TrainingWorld w;
    // The tag keeps seed 0 from starting SplitMix64 at state 0 and these streams apart from others.
    Random rng(0xd4d47261696e0000ull ^ seed);
    w.exposure = rng.range(0.6f, 1.0f);
    float elevation = rng.range(0.25f, 1.2f), azimuth = rng.range(0.0f, 2 * kPi);
    w.light.sun_direction = {std::cos(elevation) * std::sin(azimuth), std::sin(elevation),
                             std::cos(elevation) * std::cos(azimuth)};
    float intensity = rng.range(2.5f, 4.5f);
    w.light.sun_color = {intensity, intensity * rng.range(0.85f, 1.0f), intensity * rng.range(0.7f, 0.95f)};
    w.light.sky_zenith = {rng.range(0.1f, 0.3f), rng.range(0.25f, 0.45f), rng.range(0.6f, 0.9f)};
    w.light.sky_horizon = {rng.range(0.6f, 0.9f), rng.range(0.65f, 0.85f), rng.range(0.6f, 0.95f)};
    w.light.ground = {rng.range(0.18f, 0.3f), rng.range(0.18f, 0.28f), rng.range(0.15f, 0.25f)};

    w.path = random_camera_path(rng);
    std::vector<Vec3> cameras = camera_positions(w.path);
    w.objects.push_back(random_ground(rng));

    uint32_t items = 10 + rng.below(21);
    for (uint32_t i = 0; i < items; ++i)
        for (int attempt = 0; attempt < kPlacementTries; ++attempt) {
            Item item = i == 0 ? fast_mover(rng, w.path) : random_item(rng, w.path);
            if (!clear_of_camera(cameras, item)) continue;
            w.objects.insert(w.objects.end(), item.objects.begin(), item.objects.end());
            ++w.items;
            break;
        }
    return w;
}

std::unique_ptr<Scene> make_training_scene(uint32_t seed) {
    return std::make_unique<TrainingScene>(seed, generate_training_world(seed));
}

} // namespace d4r::scene
