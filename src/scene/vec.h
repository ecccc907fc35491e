// d4r scene (internal): the small vector and rotation algebra the ray caster needs.
#pragma once

#include <cmath>

namespace d4r::scene {

struct Vec3 {
    float x = 0, y = 0, z = 0;
};

inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator-(Vec3 a) { return {-a.x, -a.y, -a.z}; }
inline Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
inline Vec3 operator*(float s, Vec3 a) { return a * s; }
inline Vec3 mul(Vec3 a, Vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
inline float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline float length(Vec3 a) { return std::sqrt(dot(a, a)); }
inline Vec3 normalize(Vec3 a) { return a * (1.0f / length(a)); }
inline Vec3 lerp(Vec3 a, Vec3 b, float t) { return a + (b - a) * t; }

// A rotation matrix stored by columns: m * v = c0 v.x + c1 v.y + c2 v.z.
struct Mat3 {
    Vec3 c0{1, 0, 0}, c1{0, 1, 0}, c2{0, 0, 1};
};

inline Vec3 operator*(const Mat3& m, Vec3 v) { return m.c0 * v.x + m.c1 * v.y + m.c2 * v.z; }
// m^T * v: the inverse rotation.
inline Vec3 transpose_mul(const Mat3& m, Vec3 v) { return {dot(m.c0, v), dot(m.c1, v), dot(m.c2, v)}; }
inline Mat3 operator*(const Mat3& a, const Mat3& b) { return {a * b.c0, a * b.c1, a * b.c2}; }

// Rotation by `angle` radians about the unit axis (Rodrigues).
inline Mat3 rotation(Vec3 axis, float angle) {
    float c = std::cos(angle), s = std::sin(angle), k = 1.0f - c;
    Vec3 a = axis;
    return {{c + a.x * a.x * k, a.y * a.x * k + a.z * s, a.z * a.x * k - a.y * s},
            {a.x * a.y * k - a.z * s, c + a.y * a.y * k, a.z * a.y * k + a.x * s},
            {a.x * a.z * k + a.y * s, a.y * a.z * k - a.x * s, c + a.z * a.z * k}};
}

// A rigid placement: world = rot * local + pos.
struct Pose {
    Mat3 rot;
    Vec3 pos;
    Vec3 to_world(Vec3 local) const { return rot * local + pos; }
    Vec3 to_local(Vec3 world) const { return transpose_mul(rot, world - pos); }
};

} // namespace d4r::scene
