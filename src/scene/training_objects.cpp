// Generated training scenes: the ground and the items (boxes, balls, panels, poles with wires, fences,
// turning cages, buildings, scrolling boards) with random sizes, materials and motions.
#include <algorithm>
#include <cmath>
#include <utility>

#include "scene/scenes.h"
#include "scene/training.h"

namespace d4r::scene {

namespace {

constexpr float kPi = 3.14159265f;
constexpr Vec3 kUp{0, 1, 0};

Vec3 random_colour(Random& rng, float lo, float hi) {
    return {rng.range(lo, hi), rng.range(lo, hi), rng.range(lo, hi)};
}

// A saturated colour: a random hue at saturation 0.5-1 and value 0.4-0.95.
Vec3 vivid_colour(Random& rng) {
    float hue = rng.range(0.0f, 6.0f), saturation = rng.range(0.5f, 1.0f), value = rng.range(0.4f, 0.95f);
    auto channel = [hue](float centre) {
        float d = std::fabs(hue - centre);
        d = std::min(d, 6.0f - d); // distance around the hue circle
        return std::clamp(2.0f - d, 0.0f, 1.0f);
    };
    Vec3 rgb{channel(0.0f), channel(2.0f), channel(4.0f)};
    return (Vec3{1, 1, 1} * (1.0f - saturation) + rgb * saturation) * value;
}

Vec3 random_axis(Random& rng) {
    Vec3 axis{rng.range(-1.0f, 1.0f), rng.range(-1.0f, 1.0f), rng.range(-1.0f, 1.0f)};
    return length(axis) > 0.1f ? normalize(axis) : kUp;
}

Vec3 random_horizontal(Random& rng) {
    float angle = rng.range(0.0f, 2 * kPi);
    return {std::sin(angle), 0, std::cos(angle)};
}

// Turns local -z (the face of an upright Rect, see upright()) towards the horizontal direction `facing`.
Mat3 yaw_towards(Vec3 facing) { return rotation(kUp, std::atan2(-facing.x, -facing.z)); }

// A Rect stands up with its face towards -z and its local z axis up.
Mat3 upright() { return rotation({1, 0, 0}, -kPi / 2); }

// A pattern a texture test needs: solid, checker, grid, text or stripes, sometimes glossy, sometimes
// with glowing ink (an LED sign: HDR).
Material pattern_material(Random& rng) {
    constexpr Texture kPatterns[] = {Texture::Solid, Texture::Checker, Texture::Grid, Texture::Text, Texture::Stripes};
    Material m;
    m.texture = kPatterns[rng.below(5)];
    m.a = rng.chance(0.4f) ? vivid_colour(rng) : random_colour(rng, 0.45f, 0.95f);
    m.b = rng.chance(0.3f) ? vivid_colour(rng) * 0.4f : random_colour(rng, 0.02f, 0.3f);
    if (rng.chance(0.3f)) std::swap(m.a, m.b);
    switch (m.texture) {
    case Texture::Checker:
        m.scale = rng.range(2.0f, 16.0f); // cells per metre
        break;
    case Texture::Grid:
        m.scale = rng.range(1.0f, 8.0f);
        break;
    case Texture::Text:
        m.scale = rng.range(0.06f, 0.4f); // line height, metres
        break;
    case Texture::Stripes:
        m.scale = rng.range(4.0f, 24.0f);
        break;
    default:
        break;
    }
    if (rng.chance(0.3f)) {
        m.specular = rng.range(0.5f, 1.0f);
        m.shininess = rng.range(64.0f, 800.0f);
    } else {
        m.specular = rng.range(0.02f, 0.3f);
        m.shininess = rng.range(8.0f, 64.0f);
    }
    if (m.texture != Texture::Solid && rng.chance(0.12f)) m.emission = rng.range(2.0f, 8.0f);
    return m;
}

Material chrome(Random& rng) {
    float grey = rng.range(0.04f, 0.14f);
    return {Texture::Solid, {grey, grey, grey}, {}, 1.0f, rng.range(0.8f, 1.0f), rng.range(300.0f, 900.0f)};
}

Material lamp(Random& rng) {
    Material m{Texture::Solid, vivid_colour(rng), {}, 1.0f, 0.2f, 32.0f};
    m.emission = rng.range(2.0f, 6.0f);
    return m;
}

Material metal(Random& rng) {
    float grey = rng.range(0.05f, 0.45f);
    return {Texture::Solid, {grey, grey, grey * 1.05f}, {}, 1.0f, rng.range(0.2f, 0.8f), rng.range(32.0f, 200.0f)};
}

// Static, spinning, swinging, sliding or bouncing; `size` is the object's rough radius.
void random_motion(Random& rng, Motion& m, float size, bool upright_only) {
    uint32_t kind = rng.below(10);
    if (kind < 4) return; // static
    if (kind < 6) {
        m.spin_axis = upright_only ? kUp : random_axis(rng);
        m.spin_rate = rng.signed_range(0.5f, 3.0f);
        return;
    }
    if (kind < 8) {
        Vec3 direction = random_horizontal(rng);
        m.swing = direction * rng.range(0.5f, 4.0f);
        m.swing_rate = rng.range(1.0f, 5.0f);
        m.swing_phase = rng.range(0.0f, 2 * kPi);
        if (rng.chance(0.5f)) m.spin_rate = rng.signed_range(0.5f, 3.0f);
        return;
    }
    if (kind == 8) {
        Vec3 direction = random_horizontal(rng);
        float speed = rng.range(0.5f, 6.0f);
        m.velocity = direction * speed;
        m.spin_axis = cross(kUp, direction); // rolls
        m.spin_rate = speed / size;
        return;
    }
    float bounce = rng.range(0.2f, 1.0f); // up and down, lifted so that it stays mostly above ground
    m.position.y += bounce;
    m.swing = {0, bounce, 0};
    m.swing_rate = rng.range(2.0f, 6.0f);
    m.swing_phase = rng.range(0.0f, 2 * kPi);
}

Item box_item(Random& rng, const CameraPath& path) {
    Spot spot = random_spot(rng, path, 3.0f, 20.0f, 4.0f);
    Object box;
    box.shape = {Shape::Box, random_colour(rng, 0.15f, 1.2f)};
    box.material = pattern_material(rng);
    box.motion.position = spot.ground + Vec3{0, box.shape.size.y, 0};
    bool floating = rng.chance(0.3f);
    if (floating) {
        box.motion.position.y += rng.range(0.3f, 2.5f);
        Vec3 axis = random_axis(rng);
        box.motion.orientation = rotation(axis, rng.range(0.0f, 2 * kPi));
    } else {
        box.motion.orientation = rotation(kUp, rng.range(0.0f, 2 * kPi));
    }
    random_motion(rng, box.motion, length(box.shape.size), !floating);
    return {{box}};
}

Item ball_item(Random& rng, const CameraPath& path) {
    Spot spot = random_spot(rng, path, 2.5f, 20.0f, 4.0f);
    float r = rng.range(0.15f, 1.0f);
    Object ball;
    ball.shape = {Shape::Sphere, {r, r, r}};
    uint32_t look = rng.below(5);
    ball.material = look < 2 ? chrome(rng) : look == 2 ? lamp(rng) : pattern_material(rng);
    ball.motion.position = spot.ground + Vec3{0, r, 0};
    if (rng.chance(0.3f)) ball.motion.position.y += rng.range(0.2f, 2.0f);
    random_motion(rng, ball.motion, r, false);
    return {{ball}};
}

// An upright panel (a sign, a poster) turned roughly towards the camera.
Item panel_item(Random& rng, const CameraPath& path) {
    Spot spot = random_spot(rng, path, 4.0f, 20.0f, 4.0f);
    Object panel;
    panel.shape = {Shape::Rect, {rng.range(0.4f, 3.0f), 1.0f, rng.range(0.25f, 1.5f)}};
    panel.material = pattern_material(rng);
    if (panel.material.texture == Texture::Text) panel.material.scale = rng.range(0.06f, 0.3f);
    panel.motion.position = spot.ground + Vec3{0, panel.shape.size.z + rng.range(0.0f, 2.5f), 0};
    float turn = rng.range(-0.7f, 0.7f);
    panel.motion.orientation = rotation(kUp, turn) * yaw_towards(spot.to_camera) * upright();
    uint32_t kind = rng.below(10);
    if (kind < 2) {
        panel.motion.spin_rate = rng.signed_range(0.3f, 1.5f); // turns about the vertical
    } else if (kind < 5) {
        panel.motion.swing = spot.across * rng.range(0.5f, 3.0f);
        panel.motion.swing_rate = rng.range(0.8f, 3.0f);
        panel.motion.swing_phase = rng.range(0.0f, 2 * kPi);
    }
    return {{panel}};
}

// Two poles with 1-4 thin wires between their tops.
Item wires_item(Random& rng, const CameraPath& path) {
    Spot spot = random_spot(rng, path, 5.0f, 30.0f, 4.0f);
    Vec3 direction = rng.chance(0.5f) ? spot.across : random_horizontal(rng);
    float half_span = rng.range(2.0f, 7.0f), height = rng.range(3.0f, 7.0f);
    Vec3 a = spot.ground - direction * half_span, b = spot.ground + direction * half_span;
    Material pole = metal(rng), wire = metal(rng);
    wire.a = wire.a * 0.3f;
    std::vector<Object> parts;
    float pole_radius = rng.range(0.04f, 0.09f);
    parts.push_back(rod(a, a + Vec3{0, height, 0}, pole_radius, pole));
    parts.push_back(rod(b, b + Vec3{0, height, 0}, pole_radius, pole));
    uint32_t wires = 1 + rng.below(4);
    float y = height - 0.1f;
    for (uint32_t i = 0; i < wires; ++i) {
        float radius = rng.range(0.006f, 0.02f);
        parts.push_back(rod(a + Vec3{0, y, 0}, b + Vec3{0, y, 0}, radius, wire));
        y -= rng.range(0.15f, 0.5f);
    }
    return {std::move(parts)};
}

// A row of thin upright bars (moire) with one or two rails; sometimes sliding as a whole.
Item fence_item(Random& rng, const CameraPath& path) {
    Spot spot = random_spot(rng, path, 3.0f, 15.0f, 4.0f);
    Vec3 direction = rng.chance(0.6f) ? spot.across : random_horizontal(rng);
    uint32_t bars = 6 + rng.below(19);
    float spacing = rng.range(0.06f, 0.35f), height = rng.range(0.8f, 2.2f), radius = rng.range(0.008f, 0.03f);
    Material material = rng.chance(0.5f) ? metal(rng) : pattern_material(rng);
    Vec3 start = spot.ground - direction * (spacing * float(bars - 1) * 0.5f);
    std::vector<Object> parts;
    for (uint32_t i = 0; i < bars; ++i) {
        Vec3 foot = start + direction * (spacing * float(i));
        parts.push_back(rod(foot, foot + Vec3{0, height, 0}, radius, material));
    }
    Vec3 end = start + direction * (spacing * float(bars - 1));
    uint32_t rails = 1 + rng.below(2);
    for (uint32_t i = 0; i < rails; ++i) {
        float y = height * (i == 0 ? 0.95f : 0.3f);
        parts.push_back(rod(start + Vec3{0, y, 0}, end + Vec3{0, y, 0}, radius * 1.5f, material));
    }
    if (rng.chance(0.2f)) {
        Vec3 velocity = direction * rng.signed_range(0.5f, 2.5f);
        for (Object& part : parts) part.motion.velocity = velocity;
    }
    return {std::move(parts)};
}

// Upright rods on a circle with chords along the top, turning together about the circle's centre.
Item cage_item(Random& rng, const CameraPath& path) {
    Spot spot = random_spot(rng, path, 4.0f, 15.0f, 4.0f);
    uint32_t rods = 6 + rng.below(7);
    float radius = rng.range(0.6f, 2.0f), height = rng.range(1.5f, 3.5f), thickness = rng.range(0.012f, 0.035f);
    float spin = rng.signed_range(0.3f, 1.5f);
    Material material = rng.chance(0.5f) ? metal(rng) : pattern_material(rng);
    std::vector<Object> parts;
    for (uint32_t i = 0; i < rods; ++i) {
        float a0 = 2 * kPi * float(i) / float(rods), a1 = 2 * kPi * float(i + 1) / float(rods);
        Vec3 p0{radius * std::cos(a0), 0, radius * std::sin(a0)}, p1{radius * std::cos(a1), 0, radius * std::sin(a1)};
        parts.push_back(rod(p0, p0 + Vec3{0, height, 0}, thickness, material));
        parts.push_back(rod(p0 + Vec3{0, height, 0}, p1 + Vec3{0, height, 0}, thickness * 0.8f, material));
    }
    for (Object& part : parts) {
        part.motion.spin_rate = spin;
        part.motion.spin_about_origin = true;
        part.motion.pivot = spot.ground;
    }
    if (rng.chance(0.5f)) { // a glossy ball inside
        float r = std::min(radius * 0.5f, 0.6f);
        Object ball;
        ball.shape = {Shape::Sphere, {r, r, r}};
        ball.material = chrome(rng);
        ball.motion.position = spot.ground + Vec3{0, height * 0.5f, 0};
        ball.motion.swing = {0, height * 0.25f, 0};
        ball.motion.swing_rate = rng.range(1.0f, 4.0f);
        parts.push_back(ball);
    }
    return {std::move(parts)};
}

// A building block with siding and HDR-lit windows, further away.
Item building_item(Random& rng, const CameraPath& path) {
    Spot spot = random_spot(rng, path, 15.0f, 50.0f, 4.0f);
    Object building;
    building.shape = {Shape::Box, {rng.range(3.0f, 6.0f), rng.range(3.0f, 9.0f), rng.range(3.0f, 6.0f)}};
    building.material = {Texture::Facade, random_colour(rng, 0.3f, 0.6f), {1.0f, 0.8f, 0.5f}, 1.0f, 0.1f, 24.0f};
    building.material.emission = rng.range(2.0f, 5.0f);
    building.motion.position = spot.ground + Vec3{0, building.shape.size.y, 0};
    building.motion.orientation = yaw_towards(spot.to_camera);
    return {{building}, kBuildingClearance};
}

// A long board cut into pieces moving together along its length (texture_offset keeps the pattern
// continuous), as the text scene's scrolling panels.
Item scroll_item(Random& rng, const CameraPath& path) {
    Spot spot = random_spot(rng, path, 5.0f, 18.0f, 4.0f);
    uint32_t pieces = 2 + rng.below(3);
    float piece_half = rng.range(1.0f, 2.5f), half_height = rng.range(0.25f, 1.0f);
    Material material = pattern_material(rng);
    float speed = rng.signed_range(0.5f, 3.0f);
    float lift = rng.range(0.0f, 2.5f);
    Mat3 orientation = yaw_towards(spot.to_camera);
    Vec3 along = orientation * Vec3{1, 0, 0};
    std::vector<Object> parts;
    for (uint32_t i = 0; i < pieces; ++i) {
        float offset = (float(i) - float(pieces - 1) * 0.5f) * 2.0f * piece_half;
        Object piece;
        piece.shape = {Shape::Box, {piece_half, half_height, 0.05f}};
        piece.material = material;
        piece.motion.position = spot.ground + along * offset + Vec3{0, half_height + lift, 0};
        piece.motion.orientation = orientation;
        piece.motion.velocity = along * speed;
        piece.texture_offset = {offset, 0, 0};
        parts.push_back(piece);
    }
    return {std::move(parts)};
}

} // namespace

Object random_ground(Random& rng) {
    Object ground;
    ground.shape = {Shape::Plane, {}};
    ground.casts_shadow = false; // nothing lies below it
    Material& m = ground.material;
    m.a = random_colour(rng, 0.3f, 0.7f);
    m.b = random_colour(rng, 0.05f, 0.25f);
    m.specular = rng.range(0.02f, 0.15f);
    m.shininess = 16.0f;
    uint32_t kind = rng.below(20);
    if (kind < 7) {
        m.texture = Texture::Checker;
        m.scale = rng.range(1.0f, 10.0f);
    } else if (kind < 12) {
        m.texture = Texture::Grid;
        m.scale = rng.range(0.5f, 4.0f);
    } else if (kind < 14) {
        m.texture = Texture::Stripes;
        m.scale = rng.range(2.0f, 10.0f);
    } else if (kind < 16) {
        m.texture = Texture::Text;
        m.scale = rng.range(0.2f, 0.8f);
    } else if (kind < 18) {
        m.texture = Texture::Street;
        m.a = m.a * 0.4f;
        m.b = m.b * 0.7f;
    } else {
        m.texture = Texture::Solid;
    }
    ground.motion.orientation = rotation(kUp, rng.range(0.0f, 2 * kPi));
    return ground;
}

Item random_item(Random& rng, const CameraPath& path) {
    using Maker = Item (*)(Random&, const CameraPath&);
    constexpr std::pair<uint32_t, Maker> kItems[] = {
        {20, box_item},   {16, ball_item}, {16, panel_item},   {10, wires_item},
        {10, fence_item}, {6, cage_item},  {8, building_item}, {8, scroll_item},
    };
    uint32_t total = 0;
    for (const auto& item : kItems) total += item.first;
    uint32_t pick = rng.below(total);
    for (const auto& [weight, make] : kItems) {
        if (pick < weight) return make(rng, path);
        pick -= weight;
    }
    return {};
}

Item fast_mover(Random& rng, const CameraPath& path) {
    Spot spot = random_spot(rng, path, 3.0f, 8.0f, 0.3f);
    Object mover;
    float size = rng.range(0.3f, 0.9f);
    if (rng.chance(0.5f)) {
        mover.shape = {Shape::Box, {size, rng.range(0.3f, 0.9f), rng.range(0.3f, 1.5f)}};
        mover.motion.spin_rate = rng.signed_range(0.0f, 2.0f);
    } else {
        mover.shape = {Shape::Sphere, {size, size, size}};
    }
    mover.material = rng.chance(0.3f) ? chrome(rng) : pattern_material(rng);
    mover.motion.position = spot.ground + Vec3{0, mover.shape.size.y + rng.range(0.0f, 1.0f), 0};
    // Keeps pace with the camera (as the city's car does) while crossing the view back and forth.
    mover.motion.velocity = spot.camera_velocity;
    mover.motion.swing = spot.across * rng.range(2.5f, 5.0f);
    mover.motion.swing_rate = rng.range(2.0f, 4.0f);
    mover.motion.swing_phase = rng.range(0.0f, 2 * kPi);
    return {{mover}};
}

} // namespace d4r::scene
