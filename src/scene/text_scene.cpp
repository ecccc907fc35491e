// "text": panels of fine text, stripes and grids scrolling sideways (each panel moves, so its
// motion vectors carry the scroll) behind thin wires, with a box and a glossy ball sliding fast
// across the foreground (large motion, disocclusions). The camera pans and dollies slowly.
#include <cmath>

#include "scene/scenes.h"

namespace d4r::scene {

namespace {

class TextScene final : public RayScene {
public:
    TextScene()
        : RayScene("text", "scrolling panels of fine text, stripes and grids behind thin wires, with objects "
                           "sliding fast across the foreground; camera panning") {
        m_exposure = 1.0f;
        m_light.sun_direction = normalize(Vec3{-0.3f, 0.8f, -0.5f});
        m_light.sun_color = {3.0f, 2.9f, 2.7f};

        Object ground;
        ground.shape = {Shape::Plane, {}};
        ground.material = {Texture::Grid, {0.4f, 0.42f, 0.4f}, {0.1f, 0.1f, 0.1f}, 2.0f, 0.05f, 16.0f};
        ground.casts_shadow = false;
        m_objects.push_back(ground);

        // Long panels are cut into 5 m pieces moving together (each piece culls on its own);
        // texture_offset keeps their patterns continuous.
        constexpr int kPieces = 6;
        constexpr float kPieceHalf = 2.5f;
        auto panel = [&](Vec3 position, Vec3 half, Material material, float speed) {
            for (int i = 0; i < kPieces; ++i) {
                float offset = (float(i) - (kPieces - 1) * 0.5f) * 2.0f * kPieceHalf;
                Object object;
                object.shape = {Shape::Box, {kPieceHalf, half.y, half.z}};
                object.material = material;
                object.motion.position = position + Vec3{offset, 0, 0};
                object.motion.velocity = {speed, 0, 0};
                object.texture_offset = {offset, 0, 0};
                m_objects.push_back(object);
            }
        };
        panel({0, 2.0f, 6.0f}, {0, 1.2f, 0.05f},
              {Texture::Text, {0.95f, 0.95f, 0.92f}, {0.03f, 0.03f, 0.05f}, 0.16f, 0.05f, 16.0f}, -2.4f);
        panel({0, 0.45f, 6.2f}, {0, 0.3f, 0.05f},
              {Texture::Stripes, {0.9f, 0.9f, 0.9f}, {0.05f, 0.1f, 0.3f}, 12.0f, 0.05f, 16.0f}, 1.6f);
        panel({0, 4.0f, 7.0f}, {0, 0.7f, 0.05f},
              {Texture::Grid, {0.85f, 0.3f, 0.2f}, {1.0f, 1.0f, 0.9f}, 5.0f, 0.3f, 64.0f}, -1.0f);

        Material wire{Texture::Solid, {0.04f, 0.04f, 0.04f}, {}, 1.0f, 0.5f, 64.0f};
        for (float height : {1.0f, 3.2f, 3.3f})
            for (int i = 0; i < kPieces; ++i) {
                float x0 = -15.0f + 5.0f * float(i);
                m_objects.push_back(rod({x0, height, 5.0f}, {x0 + 5.0f, height, 5.0f}, 0.01f, wire));
            }

        Object slider;
        slider.shape = {Shape::Box, {0.5f, 0.9f, 0.5f}};
        slider.material = {Texture::Checker, {0.9f, 0.9f, 0.9f}, {0.7f, 0.1f, 0.1f}, 6.0f, 0.5f, 100.0f};
        slider.motion.position = {0, 0.9f, 2.5f};
        slider.motion.swing = {4.0f, 0, 0};
        slider.motion.swing_rate = 3.0f;
        slider.motion.spin_rate = 2.0f;
        m_objects.push_back(slider);

        Object ball;
        ball.shape = {Shape::Sphere, {0.4f, 0.4f, 0.4f}};
        ball.material = {Texture::Solid, {0.1f, 0.1f, 0.12f}, {}, 1.0f, 1.0f, 600.0f};
        ball.motion.position = {0, 1.6f, 1.5f};
        ball.motion.swing = {-3.0f, 0.3f, 0};
        ball.motion.swing_rate = 4.0f;
        ball.motion.swing_phase = 1.0f;
        m_objects.push_back(ball);
    }

protected:
    Camera camera_at(float t) const override {
        Vec3 position{0.6f * std::sin(0.7f * t), 1.7f, -4.0f + 0.5f * t};
        float yaw = 0.2f * std::sin(1.2f * t - 0.4f);
        Vec3 direction{std::sin(yaw), -0.02f, std::cos(yaw)};
        return Camera::look_at(position, position + direction, 55.0f);
    }
};

} // namespace

std::unique_ptr<Scene> make_text_scene() { return std::make_unique<TextScene>(); }

} // namespace d4r::scene
