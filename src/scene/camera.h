// d4r scene (internal): a pinhole camera, the one place that defines pixel <-> ray <-> depth.
//
// Pixel coordinates are continuous, (0,0) the top-left corner of the image, y down; pixel (x, y)'s
// centre is (x + 0.5, y + 0.5). Depth is the D3D-style perspective depth
// d = far / (far - near) * (1 - near / z) of view distance z along the forward axis: 0 at the near
// plane, 1 at the far plane (and for the sky).
#pragma once

#include "scene/vec.h"

namespace d4r::scene {

constexpr float kNearPlane = 0.1f;
constexpr float kFarPlane = 1000.0f;

struct Camera {
    Vec3 position;
    Vec3 right{1, 0, 0}, up{0, 1, 0}, forward{0, 0, 1}; // orthonormal, right-handed as seen: x right, y up
    float tan_half_fov_y = 0.5f;

    // Looks from `position` towards `target` with world +y up; fov_y in degrees.
    static Camera look_at(Vec3 position, Vec3 target, float fov_y_degrees);

    // The (unnormalised) ray direction through pixel coordinate (px, py) of a width x height image;
    // its forward component is 1, so a hit's ray parameter t equals its view depth z.
    Vec3 ray_direction(float px, float py, float width, float height) const;

    // Pixel coordinates of a world point; false when it is not in front of the camera.
    bool project(Vec3 world, float width, float height, float& px, float& py) const;
    // Pixel coordinates of a direction at infinity (the sky); false when it points backwards.
    bool project_direction(Vec3 direction, float width, float height, float& px, float& py) const;

    static float depth_of(float view_z);
};

} // namespace d4r::scene
