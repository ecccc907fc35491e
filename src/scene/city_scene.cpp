// "city": a street receding in perspective under a low sun. Stresses: a fine asphalt checker, lane
// lines and painted text on the ground, sidewalk tile joints, building facades with siding lines
// and HDR-lit windows, thin poles and wires (and their thin shadows), a billboard of small text,
// a car crossing fast (disocclusions), a rolling glossy ball (HDR specular), the sun in view.
// The camera drives forward along the street, swaying and turning.
#include <cmath>

#include "scene/scenes.h"

namespace d4r::scene {

namespace {

class CityScene final : public RayScene {
public:
    CityScene()
        : RayScene("city", "street in perspective: fine ground textures, painted text, thin poles and wires, "
                           "a fast crossing car, HDR sun and lit windows; camera driving and turning") {
        m_exposure = 0.6f;
        m_light.sun_direction = normalize(Vec3{0.45f, 0.6f, 0.8f});
        m_light.sun_color = {4.0f, 3.6f, 3.0f};
        m_light.sky_zenith = {0.18f, 0.32f, 0.75f};
        m_light.sky_horizon = {0.85f, 0.75f, 0.65f};
        m_light.ground = {0.25f, 0.23f, 0.21f};

        Object ground;
        ground.shape = {Shape::Plane, {}};
        ground.material = {Texture::Street, {0.2f, 0.2f, 0.21f}, {0.13f, 0.13f, 0.14f}, 1.0f, 0.05f, 16.0f};
        ground.casts_shadow = false; // nothing lies below it
        m_objects.push_back(ground);

        Material metal{Texture::Solid, {0.35f, 0.36f, 0.38f}, {}, 1.0f, 0.6f, 64.0f};
        Material wire{Texture::Solid, {0.05f, 0.05f, 0.05f}, {}, 1.0f, 0.2f, 32.0f};
        for (int side : {-1, 1}) {
            float x = 4.4f * float(side);
            for (int i = 0; i <= 12; ++i) m_objects.push_back(rod({x, 0, 8.0f * i}, {x, 6.0f, 8.0f * i}, 0.06f, metal));
            for (int i = 0; i < 12; ++i) // along the street, one span per pair of poles
                m_objects.push_back(rod({x, 5.8f, 8.0f * i}, {x, 5.8f, 8.0f * (i + 1)}, 0.015f, wire));
        }
        for (int i = 0; i <= 12; i += 2)
            m_objects.push_back(rod({-4.4f, 5.5f, 8.0f * i}, {4.4f, 5.5f, 8.0f * i}, 0.012f, wire));

        for (int side : {-1, 1})
            for (int i = 0; i < 7; ++i) {
                float height = 6.0f + float(hash2(i, side) % 9);
                Object building;
                building.shape = {Shape::Box, {4.0f, height, 5.5f}};
                Vec3 wall = (hash2(side, i) % 2) ? Vec3{0.55f, 0.45f, 0.35f} : Vec3{0.45f, 0.47f, 0.5f};
                building.material = {Texture::Facade, wall, {1.0f, 0.8f, 0.5f}, 1.0f, 0.1f, 24.0f, 3.0f};
                building.motion.position = {10.0f * float(side), height, 14.0f * float(i)};
                m_objects.push_back(building);
            }

        Object billboard;
        billboard.shape = {Shape::Rect, {4.2f, 1.0f, 1.2f}};
        billboard.material = {Texture::Text, {0.9f, 0.9f, 0.85f}, {0.05f, 0.05f, 0.1f}, 0.3f, 0.1f, 16.0f};
        billboard.motion.position = {0, 7.0f, 45.0f};
        billboard.motion.orientation = rotation({1, 0, 0}, -1.5707963f); // faces -z, local z is up
        m_objects.push_back(billboard);

        Object car; // crosses the street fast, keeping its distance ahead of the camera
        car.shape = {Shape::Box, {1.0f, 0.7f, 2.0f}};
        car.material = {Texture::Grid, {0.7f, 0.08f, 0.06f}, {0.1f, 0.1f, 0.1f}, 2.0f, 0.6f, 120.0f};
        car.motion.position = {0, 0.72f, 8.0f};
        car.motion.velocity = {0, 0, 6.0f};
        car.motion.swing = {7.0f, 0, 0};
        car.motion.swing_rate = 2.5f;
        car.motion.swing_phase = -0.625f;
        m_objects.push_back(car);

        Object ball; // rolls along the street
        ball.shape = {Shape::Sphere, {0.7f, 0.7f, 0.7f}};
        ball.material = {Texture::Checker, {0.9f, 0.9f, 0.9f}, {0.1f, 0.2f, 0.6f}, 3.0f, 0.8f, 400.0f};
        ball.motion.position = {2.2f, 0.7f, 3.0f};
        ball.motion.velocity = {0, 0, 4.0f};
        ball.motion.spin_axis = {1, 0, 0};
        ball.motion.spin_rate = 4.0f / 0.7f;
        m_objects.push_back(ball);
    }

protected:
    Camera camera_at(float t) const override {
        Vec3 position{1.2f * std::sin(0.8f * t) - 0.5f, 1.7f + 0.1f * std::sin(2.0f * t), -10.0f + 6.0f * t};
        float yaw = 0.15f + 0.3f * std::sin(0.9f * t);
        Vec3 direction{std::sin(yaw), -0.08f, std::cos(yaw)};
        return Camera::look_at(position, position + direction, 60.0f);
    }
};

} // namespace

std::unique_ptr<Scene> make_city_scene() { return std::make_unique<CityScene>(); }

} // namespace d4r::scene
