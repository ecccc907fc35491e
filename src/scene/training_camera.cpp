// Generated training scenes: camera paths, where items go, and keeping the camera out of them.
#include <algorithm>
#include <cmath>

#include "scene/training.h"

namespace d4r::scene {

namespace {

constexpr float kPi = 3.14159265f;
constexpr float kAspect = 16.0f / 9.0f;

Vec3 horizontal(Vec3 v) {
    Vec3 h{v.x, 0, v.z};
    float l = length(h);
    return l > 1e-6f ? h * (1.0f / l) : Vec3{0, 0, 1};
}

} // namespace

const char* path_kind_name(PathKind kind) {
    switch (kind) {
    case PathKind::Orbit:
        return "orbit";
    case PathKind::Dolly:
        return "dolly";
    case PathKind::Pan:
        return "pan";
    case PathKind::Drive:
        return "drive";
    }
    return "?";
}

Camera CameraPath::at(float t) const {
    float bob_now = bob * std::sin(bob_rate * t);
    if (kind == PathKind::Orbit) {
        float angle = heading + speed * t;
        Vec3 position{radius * std::cos(angle), height + bob_now, radius * std::sin(angle)};
        return Camera::look_at(position, {0, target_height, 0}, fov);
    }
    Vec3 along{std::sin(heading), 0, std::cos(heading)}, side{std::cos(heading), 0, -std::sin(heading)};
    Vec3 position = along * (speed * t) + side * (sway * std::sin(sway_rate * t)) + Vec3{0, height + bob_now, 0};
    float yaw = heading + turn_rate * t + yaw_swing * std::sin(yaw_rate * t + yaw_phase);
    Vec3 direction{std::sin(yaw), pitch, std::cos(yaw)};
    return Camera::look_at(position, position + direction, fov);
}

CameraPath random_camera_path(Random& rng) {
    CameraPath p;
    constexpr PathKind kKinds[] = {PathKind::Orbit, PathKind::Dolly, PathKind::Pan, PathKind::Drive};
    p.kind = kKinds[rng.below(4)];
    p.fov = rng.range(45.0f, 65.0f);
    p.heading = rng.range(0.0f, 2 * kPi);
    p.bob_rate = rng.range(0.6f, 2.5f);
    switch (p.kind) {
    case PathKind::Orbit:
        p.radius = rng.range(6.0f, 13.0f);
        p.target_height = rng.range(0.5f, 1.5f);
        // Looking down by 6 to 19 degrees keeps the horizon in view.
        p.height = p.target_height + p.radius * rng.range(0.1f, 0.35f);
        p.speed = rng.signed_range(0.3f, 0.8f);
        p.bob = rng.range(0.0f, 0.4f);
        break;
    case PathKind::Dolly:
        p.height = rng.range(1.2f, 2.5f);
        p.speed = rng.range(1.5f, 4.0f);
        p.sway = rng.range(0.0f, 0.8f);
        p.sway_rate = rng.range(0.5f, 1.5f);
        p.yaw_swing = rng.range(0.0f, 0.25f);
        p.yaw_rate = rng.range(0.5f, 1.5f);
        p.pitch = rng.range(-0.15f, 0.0f);
        p.bob = rng.range(0.0f, 0.1f);
        break;
    case PathKind::Pan:
        p.height = rng.range(1.3f, 3.0f);
        p.speed = rng.range(0.0f, 0.5f);
        p.turn_rate = rng.signed_range(0.3f, 0.6f);
        p.yaw_rate = rng.range(0.5f, 1.5f);
        // The swing never takes back more than 40 % of the turn: the view always pans.
        p.yaw_swing = rng.range(0.0f, 0.4f * std::fabs(p.turn_rate) / p.yaw_rate);
        p.pitch = rng.range(-0.15f, 0.0f);
        p.bob = rng.range(0.0f, 0.05f);
        break;
    case PathKind::Drive:
        p.height = rng.range(1.4f, 2.0f);
        p.speed = rng.range(4.0f, 10.0f);
        p.sway = rng.range(0.3f, 1.2f);
        p.sway_rate = rng.range(0.5f, 1.2f);
        p.yaw_swing = rng.range(0.1f, 0.3f);
        p.yaw_rate = rng.range(0.6f, 1.2f);
        p.pitch = rng.range(-0.1f, -0.03f);
        p.bob = rng.range(0.05f, 0.12f);
        break;
    }
    p.yaw_phase = rng.range(0.0f, 2 * kPi);
    return p;
}

Spot random_spot(Random& rng, const CameraPath& path, float d_min, float d_max, float t_max) {
    float u = rng.uniform();
    Camera camera = path.at(t_max * u * u);
    float v = rng.uniform();
    float distance = d_min + (d_max - d_min) * v * v;
    float side = rng.range(-0.8f, 0.8f) * distance * camera.tan_half_fov_y * kAspect;
    Spot spot;
    Vec3 forward = horizontal(camera.forward);
    spot.across = horizontal(camera.right);
    spot.ground = camera.position + forward * distance + spot.across * side;
    spot.ground.y = 0;
    spot.to_camera = horizontal(camera.position - spot.ground);
    spot.camera_velocity = (path.at(kPlannedSeconds).position - path.at(0).position) * (1.0f / kPlannedSeconds);
    return spot;
}

std::vector<Vec3> camera_positions(const CameraPath& path) {
    std::vector<Vec3> positions;
    for (int frame = -1; frame <= int(kPlannedSeconds * 30.0f); ++frame)
        positions.push_back(path.at(float(frame) * kFrameSeconds).position);
    return positions;
}

bool clear_of_camera(std::span<const Vec3> camera_positions, const Item& item) {
    for (const Object& object : item.objects) {
        if (object.shape.shape == Shape::Plane) continue;
        Vec3 half = bounding_half_extents(object.shape);
        for (size_t i = 0; i < camera_positions.size(); ++i) {
            float t = (float(i) - 1.0f) * kFrameSeconds;
            Vec3 local = object.motion.at(t).to_local(camera_positions[i]);
            Vec3 outside{std::max(std::fabs(local.x) - half.x, 0.0f), std::max(std::fabs(local.y) - half.y, 0.0f),
                         std::max(std::fabs(local.z) - half.z, 0.0f)};
            if (length(outside) < item.clearance) return false;
        }
    }
    return true;
}

} // namespace d4r::scene
