#include "scene/tracer.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace d4r::scene {

namespace {

constexpr float kPi = 3.14159265f;
constexpr float kViewGridExtent = 1.5f; // tangent of the half field of view the grid covers

// x^n by squaring: exact-enough and several times cheaper than powf for the integer exponents
// materials use.
float power(float x, unsigned n) {
    float result = 1.0f;
    while (n) {
        if (n & 1u) result *= x;
        x *= x;
        n >>= 1;
    }
    return result;
}

// The 8 corners of the object's bounding box in world space.
void world_corners(const ShapeDesc& shape, const Pose& pose, Vec3 corners[8]) {
    Vec3 h = bounding_half_extents(shape) * 1.001f + Vec3{1e-4f, 1e-4f, 1e-4f};
    for (int i = 0; i < 8; ++i)
        corners[i] = pose.to_world({(i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z});
}

// Bounds in the tangent plane: the projection of a box wholly in front of the camera lies within
// the projections of its corners. A box reaching behind the camera gets no bound.
void tangent_bounds(const Camera& camera, const Vec3 corners[8], ObjectState& s) {
    float min_x = INFINITY, max_x = -INFINITY, min_y = INFINITY, max_y = -INFINITY;
    for (int i = 0; i < 8; ++i) {
        Vec3 d = corners[i] - camera.position;
        float z = dot(d, camera.forward);
        if (z <= 1e-3f) return;
        float x = dot(d, camera.right) / z, y = dot(d, camera.up) / z;
        min_x = std::min(min_x, x), max_x = std::max(max_x, x);
        min_y = std::min(min_y, y), max_y = std::max(max_y, y);
    }
    s.min_x = min_x, s.max_x = max_x, s.min_y = min_y, s.max_y = max_y;
}

// Surface coordinates in metres for the shape's texture (v up on vertical faces).
void surface_uv(const ShapeDesc& shape, Vec3 p, Vec3 n, float& u, float& v) {
    switch (shape.shape) {
    case Shape::Plane:
    case Shape::Rect:
        u = p.x, v = p.z;
        return;
    case Shape::Sphere: {
        float r = shape.size.x;
        u = std::atan2(p.z, p.x) * r;
        v = std::asin(std::clamp(p.y / r, -1.0f, 1.0f)) * r;
        return;
    }
    case Shape::Cylinder:
        if (std::fabs(n.y) > 0.5f)
            u = p.x, v = p.z;
        else
            u = std::atan2(p.z, p.x) * shape.size.x, v = p.y;
        return;
    case Shape::Box: {
        float ax = std::fabs(n.x), ay = std::fabs(n.y);
        // u runs to the right as seen from outside the face (text reads correctly).
        if (ax > 0.5f)
            u = n.x > 0 ? p.z : -p.z, v = p.y;
        else if (ay > 0.5f)
            u = p.x, v = p.z;
        else
            u = n.z > 0 ? -p.x : p.x, v = p.y;
        return;
    }
    }
    u = v = 0;
}

Vec3 sky_color(const Lighting& light, Vec3 dir) {
    Vec3 base = dir.y > 0 ? lerp(light.sky_horizon, light.sky_zenith, std::sqrt(dir.y))
                          : lerp(light.sky_horizon, light.ground * 0.5f, std::min(1.0f, -dir.y * 4.0f));
    float c = dot(dir, light.sun_direction);
    if (c > 0.99990f) base = base + light.sun_color * light.sun_disc;      // ~0.8 degree disc
    if (c > 0.95f) base = base + light.sun_color * (0.4f * power(c, 300)); // below: < 2e-7
    return base;
}

bool occluded(const FrameState& state, Vec3 origin, Vec3 dir) {
    const auto& objects = *state.objects;
    std::span<const uint16_t> candidates = state.casters;
    if (state.has_grids) {
        bool outside = false;
        candidates = state.shadow_grid.query(dot(origin, state.sun_u), dot(origin, state.sun_v), outside);
        if (outside) return false; // beyond every caster's shadow column
    }
    for (uint16_t i : candidates) {
        const ObjectState& s = state.states[i];
        if (s.radius >= 0) {
            Vec3 oc = s.cur.pos - origin;
            float along = dot(oc, dir);
            if (along < -s.radius) continue;
            if (dot(oc, oc) - along * along > s.radius * s.radius) continue;
        }
        LocalHit hit;
        if (intersect(objects[i].shape, s.cur.to_local(origin), transpose_mul(s.cur.rot, dir), 1e-4f, INFINITY, hit))
            return true;
    }
    return false;
}

Vec3 shade(const FrameState& state, const Object& object, Vec3 p, Vec3 n, Vec3 view_dir, float u, float v) {
    const Lighting& light = *state.light;
    SurfaceColor surface = texture_color(object.material, u, v);
    float ndl = dot(n, light.sun_direction);
    float lit = 0;
    if (ndl > 0) lit = light.shadows && occluded(state, p + n * 0.003f, light.sun_direction) ? 0.0f : 1.0f;
    Vec3 ambient = lerp(light.ground, light.sky_zenith, 0.5f + 0.5f * n.y) * 0.6f;
    Vec3 color = surface.emission + mul(surface.albedo, ambient + light.sun_color * (std::max(ndl, 0.0f) * lit));
    if (lit > 0 && object.material.specular > 0) {
        Vec3 h = normalize(light.sun_direction - view_dir);
        float shininess = object.material.shininess;
        float ndh = dot(n, h);
        // x^s <= exp(-s (1 - x)): skip the pow where the highlight is below e^-14 of its peak.
        if (ndh > 0 && (1.0f - ndh) * shininess < 14.0f) {
            float spec = power(ndh, unsigned(shininess)) * (shininess + 8.0f) / (8.0f * kPi);
            color = color + light.sun_color * (object.material.specular * spec);
        }
    }
    return color;
}

} // namespace

FrameState make_frame_state(const std::vector<Object>& objects, const Lighting& light, const Camera& cur,
                            const Camera& prev, float t, float t_prev, bool build_grids) {
    FrameState state;
    state.objects = &objects;
    state.light = &light;
    state.cur = cur;
    state.prev = prev;
    state.states.resize(objects.size());
    for (size_t i = 0; i < objects.size(); ++i) {
        ObjectState& s = state.states[i];
        s.cur = objects[i].motion.at(t);
        s.prev = objects[i].motion.at(t_prev);
        s.camera_local = s.cur.to_local(cur.position);
        s.radius = bounding_radius(objects[i].shape);
        if (s.radius >= 0) {
            Vec3 corners[8];
            world_corners(objects[i].shape, s.cur, corners);
            tangent_bounds(cur, corners, s);
        }
        state.all_objects.push_back(uint16_t(i));
        if (objects[i].casts_shadow) state.casters.push_back(uint16_t(i));
    }
    state.has_grids = build_grids;
    if (!build_grids) return state;

    std::vector<Bounds2D> view_boxes, shadow_boxes;
    for (size_t i = 0; i < objects.size(); ++i) {
        const ObjectState& s = state.states[i];
        view_boxes.push_back({uint32_t(i), s.min_x, s.max_x, s.min_y, s.max_y});
    }
    state.view_grid.build(view_boxes, -kViewGridExtent, kViewGridExtent, -kViewGridExtent, kViewGridExtent, 96);

    Vec3 sun = light.sun_direction;
    state.sun_u = normalize(cross(std::fabs(sun.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0}, sun));
    state.sun_v = cross(sun, state.sun_u);
    float lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
    for (size_t i = 0; i < objects.size(); ++i) {
        if (!objects[i].casts_shadow) continue;
        const ObjectState& s = state.states[i];
        Bounds2D box{uint32_t(i), -INFINITY, INFINITY, -INFINITY, INFINITY};
        if (s.radius >= 0) { // the shadow column of the bounding box's corners
            Vec3 corners[8];
            world_corners(objects[i].shape, s.cur, corners);
            box = {uint32_t(i), INFINITY, -INFINITY, INFINITY, -INFINITY};
            for (const Vec3& corner : corners) {
                float u = dot(corner, state.sun_u), v = dot(corner, state.sun_v);
                box.min_x = std::min(box.min_x, u), box.max_x = std::max(box.max_x, u);
                box.min_y = std::min(box.min_y, v), box.max_y = std::max(box.max_y, v);
            }
            lo_x = std::min(lo_x, box.min_x), hi_x = std::max(hi_x, box.max_x);
            lo_y = std::min(lo_y, box.min_y), hi_y = std::max(hi_y, box.max_y);
        }
        shadow_boxes.push_back(box);
    }
    if (!(lo_x < hi_x)) lo_x = -1, hi_x = 1;
    if (!(lo_y < hi_y)) lo_y = -1, hi_y = 1;
    bool unbounded_caster =
        std::any_of(shadow_boxes.begin(), shadow_boxes.end(), [](const Bounds2D& b) { return std::isinf(b.min_x); });
    if (unbounded_caster) lo_x = lo_y = -1e6f, hi_x = hi_y = 1e6f; // outside must not mean "unshadowed"
    state.shadow_grid.build(shadow_boxes, lo_x, hi_x, lo_y, hi_y, 128);
    return state;
}

TraceResult trace(const FrameState& state, float px, float py, float width, float height, bool want_motion) {
    const Camera& camera = state.cur;
    Vec3 dir = camera.ray_direction(px, py, width, height);
    float tx = dot(dir, camera.right), ty = dot(dir, camera.up); // forward component is 1
    const auto& objects = *state.objects;
    int best = -1;
    LocalHit best_hit;
    best_hit.t = kFarPlane;
    Vec3 best_local_dir;
    bool outside = !state.has_grids;
    std::span<const uint16_t> candidates;
    if (state.has_grids) candidates = state.view_grid.query(tx, ty, outside);
    if (outside) candidates = state.all_objects;
    for (uint16_t i : candidates) {
        const ObjectState& s = state.states[i];
        if (tx < s.min_x || tx > s.max_x || ty < s.min_y || ty > s.max_y) continue;
        Vec3 local_dir = transpose_mul(s.cur.rot, dir);
        LocalHit hit;
        if (intersect(objects[i].shape, s.camera_local, local_dir, kNearPlane, best_hit.t, hit)) {
            best = int(i);
            best_hit = hit;
            best_local_dir = local_dir;
        }
    }

    TraceResult result;
    if (best < 0) {
        Vec3 unit = normalize(dir);
        result.color = sky_color(*state.light, unit);
        result.local = unit;
        if (want_motion) {
            float cx, cy, qx, qy;
            if (camera.project_direction(unit, width, height, cx, cy) &&
                state.prev.project_direction(unit, width, height, qx, qy)) {
                result.mv_x = qx - cx;
                result.mv_y = qy - cy;
            }
        }
        return result;
    }
    const Object& object = objects[size_t(best)];
    const ObjectState& s = state.states[size_t(best)];
    Vec3 local = s.camera_local + best_local_dir * best_hit.t;
    Vec3 world = camera.position + dir * best_hit.t;
    Vec3 n = s.cur.rot * best_hit.normal;
    Vec3 view_dir = normalize(dir);
    Vec3 local_n = best_hit.normal;
    if (dot(n, view_dir) > 0) n = -n; // two-sided (planes seen from below, rects from behind)
    float u, v;
    surface_uv(object.shape, local + object.texture_offset, local_n, u, v);
    result.color = shade(state, object, world, n, view_dir, u, v);
    result.depth = Camera::depth_of(best_hit.t);
    result.object = best;
    result.local = local;
    if (want_motion) {
        float cx, cy, qx, qy;
        if (camera.project(world, width, height, cx, cy) &&
            state.prev.project(s.prev.to_world(local), width, height, qx, qy)) {
            result.mv_x = qx - cx;
            result.mv_y = qy - cy;
        }
    }
    return result;
}

} // namespace d4r::scene
