// d4r scene (internal): casting one primary ray into a world frozen at one frame.
#pragma once

#include <vector>

#include "scene/grid.h"
#include "scene/world.h"

namespace d4r::scene {

struct ObjectState {
    Pose cur, prev;
    Vec3 camera_local; // the current camera position in object space
    float radius = -1; // bounding sphere radius; negative: unbounded
    // Conservative bounds of the object in the camera's tangent plane (x/z, y/z); primary rays
    // outside them skip the object.
    float min_x = -INFINITY, max_x = INFINITY, min_y = -INFINITY, max_y = INFINITY;
};

struct FrameState {
    const std::vector<Object>* objects = nullptr;
    const Lighting* light = nullptr;
    Camera cur, prev;
    std::vector<ObjectState> states;
    // Culling grids, built for whole frames; a single probe skips them and tests every object
    // (same results: the grids only drop objects a ray cannot hit).
    bool has_grids = false;
    std::vector<uint16_t> all_objects; // 0..n-1
    std::vector<uint16_t> casters;     // objects that cast shadows, ascending
    Grid2D view_grid;                  // over the tangent plane (x/z, y/z) of the current camera
    Grid2D shadow_grid;                // over the plane across the sun, coordinates (dot(p, sun_u), dot(p, sun_v))
    Vec3 sun_u, sun_v;
};

FrameState make_frame_state(const std::vector<Object>& objects, const Lighting& light, const Camera& cur,
                            const Camera& prev, float t, float t_prev, bool build_grids);

struct TraceResult {
    Vec3 color;
    float depth = 1;
    float mv_x = 0, mv_y = 0;
    int object = -1;
    Vec3 local;
};

// The sample at pixel coordinates (px, py) of a width x height image; motion only when asked.
TraceResult trace(const FrameState& state, float px, float py, float width, float height, bool want_motion);

} // namespace d4r::scene
