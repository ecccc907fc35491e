#include "scene/shapes.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace d4r::scene {

namespace {

float component(Vec3 v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }

Vec3 axis_normal(int axis, float sign) {
    Vec3 n;
    (axis == 0 ? n.x : axis == 1 ? n.y : n.z) = sign;
    return n;
}

bool hit_plane(Vec3 o, Vec3 d, float t_min, float t_max, const ShapeDesc* rect, LocalHit& hit) {
    if (std::fabs(d.y) < 1e-12f) return false;
    float t = -o.y / d.y;
    if (!(t > t_min && t < t_max)) return false;
    if (rect) {
        float x = o.x + d.x * t, z = o.z + d.z * t;
        if (std::fabs(x) > rect->size.x || std::fabs(z) > rect->size.z) return false;
    }
    hit.t = t;
    hit.normal = {0, 1, 0};
    return true;
}

bool hit_box(Vec3 h, Vec3 o, Vec3 d, float t_min, float t_max, LocalHit& hit) {
    float near = -INFINITY, far = INFINITY;
    int near_axis = 0, far_axis = 0;
    for (int axis = 0; axis < 3; ++axis) {
        float oa = component(o, axis), da = component(d, axis), ha = component(h, axis);
        if (std::fabs(da) < 1e-12f) {
            if (std::fabs(oa) > ha) return false;
            continue;
        }
        float inv = 1.0f / da;
        float t0 = (-ha - oa) * inv, t1 = (ha - oa) * inv;
        if (t0 > t1) std::swap(t0, t1);
        if (t0 > near) near = t0, near_axis = axis;
        if (t1 < far) far = t1, far_axis = axis;
    }
    if (near > far) return false;
    if (near > t_min && near < t_max) {
        hit.t = near;
        hit.normal = axis_normal(near_axis, component(d, near_axis) > 0 ? -1.0f : 1.0f);
        return true;
    }
    if (far > t_min && far < t_max) { // the ray starts inside
        hit.t = far;
        hit.normal = axis_normal(far_axis, component(d, far_axis) > 0 ? 1.0f : -1.0f);
        return true;
    }
    return false;
}

// Quadrics are solved from the ray's point nearest the centre (or axis), t_mid: there the constant term
// |p|^2 - r^2 is small, whereas |o|^2 - r^2 from a distant origin cancels catastrophically for a thin
// shape (a 1 cm wire 20 m away: r^2 is below float's resolution of |o|^2) and the hits come out noisy,
// off the surface, with normals far from unit length. Normals are normalised for the same reason.
bool hit_sphere(float r, Vec3 o, Vec3 d, float t_min, float t_max, LocalHit& hit) {
    float a = dot(d, d);
    float t_mid = -dot(o, d) / a;
    Vec3 m = o + d * t_mid;
    float c = dot(m, m) - r * r;
    if (c > 0) return false;
    float half = std::sqrt(-c / a);
    float t = t_mid - half;
    if (!(t > t_min)) t = t_mid + half;
    if (!(t > t_min && t < t_max)) return false;
    hit.t = t;
    hit.normal = normalize(o + d * t);
    return true;
}

bool hit_cylinder(float r, float h, Vec3 o, Vec3 d, float t_min, float t_max, LocalHit& hit) {
    bool found = false;
    float best = t_max;
    float a = d.x * d.x + d.z * d.z;
    if (a > 1e-20f) {
        float t_mid = -(o.x * d.x + o.z * d.z) / a; // nearest the axis (see hit_sphere)
        float mx = o.x + d.x * t_mid, mz = o.z + d.z * t_mid;
        float c = mx * mx + mz * mz - r * r;
        if (c <= 0) {
            float half = std::sqrt(-c / a);
            for (float t : {t_mid - half, t_mid + half}) {
                if (t > t_min && t < best && std::fabs(o.y + d.y * t) <= h) {
                    best = t;
                    found = true;
                    Vec3 p = o + d * t;
                    hit.normal = normalize(Vec3{p.x, 0, p.z});
                }
            }
        }
    }
    if (std::fabs(d.y) > 1e-12f) {
        for (float cap : {-h, h}) {
            float t = (cap - o.y) / d.y;
            float x = o.x + d.x * t, z = o.z + d.z * t;
            if (t > t_min && t < best && x * x + z * z <= r * r) {
                best = t;
                found = true;
                hit.normal = {0, cap > 0 ? 1.0f : -1.0f, 0};
            }
        }
    }
    if (found) hit.t = best;
    return found;
}

} // namespace

bool intersect(const ShapeDesc& shape, Vec3 o, Vec3 d, float t_min, float t_max, LocalHit& hit) {
    switch (shape.shape) {
    case Shape::Plane:
        return hit_plane(o, d, t_min, t_max, nullptr, hit);
    case Shape::Rect:
        return hit_plane(o, d, t_min, t_max, &shape, hit);
    case Shape::Box:
        return hit_box(shape.size, o, d, t_min, t_max, hit);
    case Shape::Sphere:
        return hit_sphere(shape.size.x, o, d, t_min, t_max, hit);
    case Shape::Cylinder:
        return hit_cylinder(shape.size.x, shape.size.y, o, d, t_min, t_max, hit);
    }
    return false;
}

Vec3 bounding_half_extents(const ShapeDesc& shape) {
    switch (shape.shape) {
    case Shape::Plane:
        return {INFINITY, 0, INFINITY};
    case Shape::Rect:
        return {shape.size.x, 0, shape.size.z};
    case Shape::Box:
        return shape.size;
    case Shape::Sphere:
        return {shape.size.x, shape.size.x, shape.size.x};
    case Shape::Cylinder:
        return {shape.size.x, shape.size.y, shape.size.x};
    }
    return {INFINITY, INFINITY, INFINITY};
}

float bounding_radius(const ShapeDesc& shape) {
    switch (shape.shape) {
    case Shape::Plane:
        return -1.0f;
    case Shape::Rect:
        return std::sqrt(shape.size.x * shape.size.x + shape.size.z * shape.size.z);
    case Shape::Box:
        return length(shape.size);
    case Shape::Sphere:
        return shape.size.x;
    case Shape::Cylinder:
        return std::sqrt(shape.size.x * shape.size.x + shape.size.y * shape.size.y);
    }
    return -1.0f;
}

} // namespace d4r::scene
