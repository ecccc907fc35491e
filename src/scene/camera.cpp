#include "scene/camera.h"

#include <algorithm>

namespace d4r::scene {

Camera Camera::look_at(Vec3 position, Vec3 target, float fov_y_degrees) {
    Camera camera;
    camera.position = position;
    camera.forward = normalize(target - position);
    camera.right = normalize(cross(Vec3{0, 1, 0}, camera.forward));
    camera.up = cross(camera.forward, camera.right);
    camera.tan_half_fov_y = std::tan(fov_y_degrees * 0.5f * 3.14159265f / 180.0f);
    return camera;
}

Vec3 Camera::ray_direction(float px, float py, float width, float height) const {
    float aspect = width / height;
    float ndc_x = px / width * 2.0f - 1.0f;
    float ndc_y = 1.0f - py / height * 2.0f;
    return forward + right * (ndc_x * tan_half_fov_y * aspect) + up * (ndc_y * tan_half_fov_y);
}

bool Camera::project_direction(Vec3 direction, float width, float height, float& px, float& py) const {
    float z = dot(direction, forward);
    if (z <= 1e-6f) return false;
    float aspect = width / height;
    float ndc_x = dot(direction, right) / (z * tan_half_fov_y * aspect);
    float ndc_y = dot(direction, up) / (z * tan_half_fov_y);
    px = (ndc_x * 0.5f + 0.5f) * width;
    py = (0.5f - ndc_y * 0.5f) * height;
    return true;
}

bool Camera::project(Vec3 world, float width, float height, float& px, float& py) const {
    Vec3 d = world - position;
    if (dot(d, forward) <= 1e-4f) return false;
    return project_direction(d, width, height, px, py);
}

float Camera::depth_of(float view_z) {
    float d = kFarPlane / (kFarPlane - kNearPlane) * (1.0f - kNearPlane / view_z);
    return std::clamp(d, 0.0f, 1.0f);
}

} // namespace d4r::scene
