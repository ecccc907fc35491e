// "orbit": the camera circles a small still life. Stresses: a rotating cage of thin rods, glossy
// spheres with sharp HDR highlights, a spinning box with fine stripes, a checker floor, a panel of
// small text seen from changing angles (and from behind), a bouncing ball.
#include <cmath>

#include "scene/scenes.h"

namespace d4r::scene {

namespace {

constexpr float kPi = 3.14159265f;

class OrbitScene final : public RayScene {
public:
    OrbitScene()
        : RayScene("orbit", "camera orbiting a rotating cage of thin rods, glossy spheres with HDR highlights, "
                            "a spinning striped box and a text panel") {
        m_exposure = 0.7f;
        m_light.sun_direction = normalize(Vec3{0.5f, 0.7f, -0.3f});
        m_light.sun_color = {3.5f, 3.3f, 3.0f};

        Object floor;
        floor.shape = {Shape::Plane, {}};
        floor.material = {Texture::Checker, {0.6f, 0.6f, 0.6f}, {0.15f, 0.15f, 0.17f}, 2.0f, 0.1f, 32.0f};
        floor.casts_shadow = false;
        m_objects.push_back(floor);

        Object globe;
        globe.shape = {Shape::Sphere, {1.2f, 1.2f, 1.2f}};
        globe.material = {Texture::Checker, {0.9f, 0.9f, 0.9f}, {0.1f, 0.25f, 0.7f}, 4.0f, 0.8f, 300.0f};
        globe.motion.position = {0, 1.2f, 0};
        globe.motion.spin_rate = 1.5f;
        m_objects.push_back(globe);

        // The cage: 8 rods and 8 chords turning together about the world y axis.
        Material rod_material{Texture::Solid, {0.8f, 0.75f, 0.6f}, {}, 1.0f, 0.9f, 200.0f};
        const int kRods = 8;
        for (int i = 0; i < kRods; ++i) {
            float a0 = 2 * kPi * i / kRods, a1 = 2 * kPi * (i + 1) / kRods;
            Vec3 p0{2.0f * std::cos(a0), 0, 2.0f * std::sin(a0)}, p1{2.0f * std::cos(a1), 0, 2.0f * std::sin(a1)};
            for (Object part : {rod(p0, p0 + Vec3{0, 3.2f, 0}, 0.025f, rod_material),
                                rod(p0 + Vec3{0, 3.2f, 0}, p1 + Vec3{0, 3.2f, 0}, 0.02f, rod_material)}) {
                part.motion.spin_rate = -0.6f;
                part.motion.spin_about_origin = true;
                m_objects.push_back(part);
            }
        }

        Object box;
        box.shape = {Shape::Box, {0.6f, 0.6f, 0.6f}};
        box.material = {Texture::Stripes, {0.9f, 0.8f, 0.2f}, {0.1f, 0.1f, 0.1f}, 12.0f, 0.3f, 64.0f};
        box.motion.position = {3.3f, 0.85f, 0.8f};
        box.motion.orientation = rotation(normalize(Vec3{1, 0, 1}), 0.5f);
        box.motion.spin_rate = 2.0f;
        m_objects.push_back(box);

        Object chrome;
        chrome.shape = {Shape::Sphere, {0.35f, 0.35f, 0.35f}};
        chrome.material = {Texture::Solid, {0.08f, 0.08f, 0.08f}, {}, 1.0f, 1.0f, 800.0f};
        chrome.motion.position = {-2.8f, 1.0f, 1.2f};
        chrome.motion.swing = {0, 0.6f, 0};
        chrome.motion.swing_rate = 5.0f;
        m_objects.push_back(chrome);

        Object panel;
        panel.shape = {Shape::Rect, {1.6f, 1.0f, 0.9f}};
        panel.material = {Texture::Text, {0.92f, 0.92f, 0.9f}, {0.05f, 0.05f, 0.05f}, 0.12f, 0.05f, 16.0f};
        panel.motion.position = {0, 1.3f, -3.8f};
        panel.motion.orientation = rotation({1, 0, 0}, -1.5707963f); // faces -z (the camera), local z up
        m_objects.push_back(panel);
    }

protected:
    Camera camera_at(float t) const override {
        float angle = 0.9f * t - 1.3f;
        Vec3 position{8.0f * std::cos(angle), 2.8f + 0.4f * std::sin(1.1f * t), 8.0f * std::sin(angle)};
        return Camera::look_at(position, {0, 1.0f, 0}, 50.0f);
    }
};

} // namespace

std::unique_ptr<Scene> make_orbit_scene() { return std::make_unique<OrbitScene>(); }

} // namespace d4r::scene
