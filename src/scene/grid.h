// d4r scene (internal): a uniform 2D grid of object indices, so a ray tests only the objects whose
// 2D bounds (in the camera's tangent plane for primary rays, in the plane across the sun for shadow
// rays) contain it. Lists keep ascending object order, so results never depend on how it is built.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace d4r::scene {

struct Bounds2D {
    uint32_t id = 0;
    float min_x = 0, max_x = 0, min_y = 0, max_y = 0; // infinite extents: the object is everywhere
};

class Grid2D {
public:
    // Cells cover [lo_x, hi_x] x [lo_y, hi_y]; objects outside it only appear in queries outside it.
    void build(std::span<const Bounds2D> boxes, float lo_x, float hi_x, float lo_y, float hi_y, int cells);

    // Candidate ids for the point, ascending; `outside` is set when the point lies beyond the grid,
    // where the caller must test every id from `all()`.
    std::span<const uint16_t> query(float x, float y, bool& outside) const;
    std::span<const uint16_t> all() const { return m_all; }

private:
    float m_lo_x = 0, m_lo_y = 0, m_scale_x = 0, m_scale_y = 0;
    int m_cells = 0;
    std::vector<uint32_t> m_offsets; // cells + 1 entries into m_items
    std::vector<uint16_t> m_items;
    std::vector<uint16_t> m_all;
};

} // namespace d4r::scene
