// d4r scene (internal): a scene as a list of rigidly animated objects under one sun, ray cast.
//
// Objects move rigidly (a pose per time), so a surface point is fixed in object space: its motion
// vector is the projection of that object-space point with the previous frame's pose and camera
// minus its projection now. RayScene implements Scene for such worlds; a concrete scene only fills
// m_objects, m_light, m_exposure and says where the camera is at time t.
#pragma once

#include <string>
#include <vector>

#include "scene/camera.h"
#include "scene/scene.h"
#include "scene/shapes.h"
#include "scene/texture.h"

namespace d4r::scene {

constexpr float kFrameSeconds = 1.0f / 30.0f;

// pose(t): rotation R = rotation(spin_axis, spin_rate t) applied to orientation, at
// position + velocity t + swing sin(swing_rate t + phase) + pivot; with spin_about_origin the
// position is rotated by R too (the object turns about the pivot, by default the world origin, as
// part of a rotating assembly).
struct Motion {
    Vec3 position;
    Vec3 velocity;
    Vec3 swing;
    float swing_rate = 0, swing_phase = 0;
    Mat3 orientation;
    Vec3 spin_axis{0, 1, 0};
    float spin_rate = 0; // radians per second
    bool spin_about_origin = false;
    Vec3 pivot; // added last: the centre a spin_about_origin assembly turns about

    Pose at(float t) const {
        Pose pose;
        Mat3 spin = rotation(spin_axis, spin_rate * t);
        pose.rot = spin * orientation;
        pose.pos = (spin_about_origin ? spin * position : position) + velocity * t +
                   swing * std::sin(swing_rate * t + swing_phase) + pivot;
        return pose;
    }
};

struct Object {
    ShapeDesc shape;
    Material material;
    Motion motion;
    bool casts_shadow = true;
    // Added to the object-space point before texturing, so that a long surface cut into pieces
    // (for faster culling) keeps one continuous pattern.
    Vec3 texture_offset;
};

struct Lighting {
    Vec3 sun_direction{0, 1, 0}; // unit, towards the sun
    Vec3 sun_color{3, 3, 3};
    Vec3 sky_zenith{0.2f, 0.35f, 0.8f}, sky_horizon{0.7f, 0.8f, 0.95f}, ground{0.25f, 0.22f, 0.2f};
    float sun_disc = 30.0f; // radiance of the sun's disc, times sun_color
    bool shadows = true;
};

class RayScene : public Scene {
public:
    RayScene(std::string name, std::string description)
        : m_name(std::move(name)), m_description(std::move(description)) {}
    std::string name() const override { return m_name; }
    std::string description() const override { return m_description; }
    Frame render_frame(uint32_t frame_index, Size render, Size output, const RenderOptions& options) const override;
    SurfaceProbe probe(uint32_t frame_index, Size size, float px, float py) const override;

protected:
    virtual Camera camera_at(float t) const = 0;

    std::vector<Object> m_objects;
    Lighting m_light;
    float m_exposure = 1.0f;

private:
    std::string m_name, m_description;
};

} // namespace d4r::scene
