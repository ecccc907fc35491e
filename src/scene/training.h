// d4r scene (internal): the parts of the generated training scenes (make_training_scene in scene.h).
//
// A training scene is drawn from one Random in a fixed order: lighting and exposure, a camera path,
// a ground, then 10-30 items (an item is one object or a small group: a fence, poles with wires, a
// turning cage, a scrolling board). Items are placed in front of the camera at a moment of its path
// (mostly its first seconds) and rejected when they would come within kCameraClearance (buildings:
// kBuildingClearance) of the camera during the first kPlannedSeconds, so the camera never enters an
// object.
#pragma once

#include <span>
#include <vector>

#include "scene/random.h"
#include "scene/world.h"

namespace d4r::scene {

// The time span the generator keeps the camera clear of objects for (300 frames), and the margin.
constexpr float kPlannedSeconds = 10.0f;
constexpr float kCameraClearance = 1.0f;
constexpr float kBuildingClearance = 6.0f;

enum class PathKind { Orbit, Dolly, Pan, Drive };
const char* path_kind_name(PathKind kind);

// Orbit: the camera circles the world origin at `radius`, looking at (0, target_height, 0), `speed`
// radians per second from angle `heading`. The others travel from (0, height, 0) along `heading` (yaw,
// 0 = +z) at `speed` m/s, swaying sideways (sway sin(sway_rate t)) and looking along yaw =
// heading + turn_rate t + yaw_swing sin(yaw_rate t + yaw_phase), tilted by `pitch`. Dolly: slow travel;
// Pan: nearly still, turning; Drive: fast travel with sway, looking around. Every path bobs up and
// down by bob sin(bob_rate t).
struct CameraPath {
    PathKind kind = PathKind::Dolly;
    float fov = 55.0f; // vertical, degrees
    float height = 1.7f;
    float heading = 0, speed = 0;
    float radius = 0, target_height = 1.0f;
    float turn_rate = 0, yaw_swing = 0, yaw_rate = 0, yaw_phase = 0;
    float sway = 0, sway_rate = 0;
    float bob = 0, bob_rate = 0;
    float pitch = 0;

    Camera at(float t) const;
};

CameraPath random_camera_path(Random& rng);

// A spot on the ground in front of the camera at a time in [0, t_max] (early times more likely),
// `distance` metres ahead (drawn in [d_min, d_max]) and within the view sideways.
struct Spot {
    Vec3 ground;          // y = 0
    Vec3 to_camera;       // horizontal unit vector from the spot towards the camera
    Vec3 across;          // horizontal unit vector across the view (the camera's right)
    Vec3 camera_velocity; // the path's mean velocity over kPlannedSeconds
};
Spot random_spot(Random& rng, const CameraPath& path, float d_min, float d_max, float t_max);

// The ground plane with a random texture, colours and orientation.
Object random_ground(Random& rng);

// One object or a small group, and how far the camera must stay from it (buildings want more room
// than kCameraClearance: a camera brushing past a wall sees nothing else).
struct Item {
    std::vector<Object> objects;
    float clearance = kCameraClearance;
};

// One random item somewhere in front of the camera.
Item random_item(Random& rng, const CameraPath& path);
// An object moving fast across the view close to the camera in the first frames (disocclusions).
Item fast_mover(Random& rng, const CameraPath& path);

// False when the camera comes within item.clearance of one of its objects (their bounding boxes) at
// any frame from -1 to kPlannedSeconds * 30.
bool clear_of_camera(std::span<const Vec3> camera_positions, const Item& item);
// The camera's positions at frames -1 .. kPlannedSeconds * 30, for clear_of_camera.
std::vector<Vec3> camera_positions(const CameraPath& path);

// Everything the seed decides: what TrainingScene renders (and what tests inspect).
struct TrainingWorld {
    float exposure = 1;
    Lighting light;
    CameraPath path;
    std::vector<Object> objects; // the ground first
    uint32_t items = 0;          // items placed (of 10-30 drawn; one that finds no room is skipped)
};
TrainingWorld generate_training_world(uint32_t seed);

} // namespace d4r::scene
