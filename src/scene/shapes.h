// d4r scene (internal): analytic ray intersection of the primitive shapes, in object space.
//
// Every shape is centred on its object's origin. Rays are (origin, direction) with any direction
// length; hits report the ray parameter t (so with the camera's unnormalised directions t is view
// depth), the object-space normal (unnormalised for none: always unit length) and the nearest
// t in (t_min, t_max).
#pragma once

#include "scene/vec.h"

namespace d4r::scene {

enum class Shape {
    Plane,    // the infinite plane y = 0
    Rect,     // y = 0, |x| <= size.x, |z| <= size.z
    Box,      // |x| <= size.x, |y| <= size.y, |z| <= size.z
    Sphere,   // radius size.x
    Cylinder, // axis y: x^2 + z^2 <= size.x^2, |y| <= size.y, capped
};

struct ShapeDesc {
    Shape shape = Shape::Sphere;
    Vec3 size{1, 1, 1};
};

struct LocalHit {
    float t = 0;
    Vec3 normal;
};

bool intersect(const ShapeDesc& shape, Vec3 origin, Vec3 direction, float t_min, float t_max, LocalHit& hit);

// Radius of a sphere around the origin enclosing the shape; negative for the unbounded plane.
float bounding_radius(const ShapeDesc& shape);

// Half extents of an axis-aligned box around the origin enclosing the shape (plane: infinite).
Vec3 bounding_half_extents(const ShapeDesc& shape);

} // namespace d4r::scene
