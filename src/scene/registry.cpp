#include <cstdint>

#include <fmt/format.h>

#include "core/strings.h"
#include "scene/scenes.h"

namespace d4r::scene {

namespace {

struct Entry {
    const char* name;
    std::unique_ptr<Scene> (*make)();
};

constexpr Entry kScenes[] = {
    {"city", make_city_scene},
    {"orbit", make_orbit_scene},
    {"text", make_text_scene},
};

} // namespace

Mat3 align_y(Vec3 direction) {
    Vec3 y = normalize(direction);
    Vec3 helper = std::fabs(y.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0};
    Vec3 x = normalize(cross(helper, y));
    return {x, y, cross(x, y)};
}

Object rod(Vec3 a, Vec3 b, float radius, const Material& material) {
    Object object;
    object.shape = {Shape::Cylinder, {radius, length(b - a) * 0.5f, radius}};
    object.material = material;
    object.motion.position = (a + b) * 0.5f;
    object.motion.orientation = align_y(b - a);
    return object;
}

std::vector<std::string> scene_names() {
    std::vector<std::string> names;
    for (const Entry& entry : kScenes) names.emplace_back(entry.name);
    return names;
}

Expected<std::unique_ptr<Scene>> make_scene(std::string_view name) {
    for (const Entry& entry : kScenes)
        if (name == entry.name) return entry.make();
    if (name.starts_with(kTrainingScenePrefix)) {
        std::string_view digits = name.substr(kTrainingScenePrefix.size());
        auto seed = parse_u64(digits);
        // One spelling per seed (no sign, no leading zeros), so that the scene's name is the name asked for.
        if (!seed || *seed > UINT32_MAX || std::to_string(*seed) != digits)
            return make_error(ErrorCode::Invalid,
                              "training scene '{}': expected train-<seed> with a decimal seed from 0 to {} (no "
                              "leading zeros)",
                              name, UINT32_MAX);
        return make_training_scene(uint32_t(*seed));
    }
    std::vector<std::string> names = scene_names();
    std::string hint;
    if (auto close = closest_match(name, names)) hint = fmt::format(" (did you mean '{}'?)", *close);
    return make_error(ErrorCode::Invalid,
                      "unknown scene '{}'{}; the scenes are: {} (and train-<seed>, generated for training)", name, hint,
                      fmt::join(names, ", "));
}

} // namespace d4r::scene
