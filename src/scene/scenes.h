// d4r scene (internal): the concrete scenes and helpers to build them.
#pragma once

#include <memory>

#include "scene/world.h"

namespace d4r::scene {

std::unique_ptr<Scene> make_city_scene();
std::unique_ptr<Scene> make_orbit_scene();
std::unique_ptr<Scene> make_text_scene();

// An orientation whose local y axis points along `direction` (for cylinders used as wires and rods).
Mat3 align_y(Vec3 direction);

// A thin cylinder from a to b (static).
Object rod(Vec3 a, Vec3 b, float radius, const Material& material);

} // namespace d4r::scene
