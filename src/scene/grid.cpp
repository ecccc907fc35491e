#include "scene/grid.h"

#include <algorithm>
#include <cmath>

namespace d4r::scene {

void Grid2D::build(std::span<const Bounds2D> boxes, float lo_x, float hi_x, float lo_y, float hi_y, int cells) {
    m_cells = cells;
    m_lo_x = lo_x;
    m_lo_y = lo_y;
    m_scale_x = float(cells) / (hi_x - lo_x);
    m_scale_y = float(cells) / (hi_y - lo_y);
    m_all.clear();
    for (const Bounds2D& box : boxes) m_all.push_back(uint16_t(box.id));

    auto cell_range = [&](float lo, float hi, float origin, float scale, int& first, int& last) {
        float a = (lo - origin) * scale, b = (hi - origin) * scale;
        if (!(b >= 0) || !(a < float(cells))) return false; // NaN-safe: also false for NaN bounds
        first = a <= 0 ? 0 : int(a);
        last = b >= float(cells - 1) ? cells - 1 : int(b);
        return true;
    };
    // Two passes (count, then fill) keep the build to three flat allocations.
    struct Range {
        int x0, x1, y0, y1;
    };
    std::vector<Range> ranges(boxes.size(), Range{0, -1, 0, -1});
    m_offsets.assign(size_t(cells) * cells + 1, 0);
    for (size_t b = 0; b < boxes.size(); ++b) {
        Range r{};
        if (!cell_range(boxes[b].min_x, boxes[b].max_x, m_lo_x, m_scale_x, r.x0, r.x1)) continue;
        if (!cell_range(boxes[b].min_y, boxes[b].max_y, m_lo_y, m_scale_y, r.y0, r.y1)) continue;
        ranges[b] = r;
        for (int y = r.y0; y <= r.y1; ++y)
            for (int x = r.x0; x <= r.x1; ++x) ++m_offsets[size_t(y) * cells + x + 1];
    }
    for (size_t i = 1; i < m_offsets.size(); ++i) m_offsets[i] += m_offsets[i - 1];
    m_items.assign(m_offsets.back(), 0);
    std::vector<uint32_t> fill(m_offsets.begin(), m_offsets.end() - 1);
    for (size_t b = 0; b < boxes.size(); ++b) // boxes arrive in ascending id order, so lists stay sorted
        for (int y = ranges[b].y0; y <= ranges[b].y1; ++y)
            for (int x = ranges[b].x0; x <= ranges[b].x1; ++x)
                m_items[fill[size_t(y) * cells + x]++] = uint16_t(boxes[b].id);
}

std::span<const uint16_t> Grid2D::query(float x, float y, bool& outside) const {
    float fx = (x - m_lo_x) * m_scale_x, fy = (y - m_lo_y) * m_scale_y;
    outside = !(fx >= 0 && fx < float(m_cells) && fy >= 0 && fy < float(m_cells));
    if (outside) return {};
    size_t cell = size_t(int(fy)) * m_cells + size_t(int(fx));
    return std::span<const uint16_t>(m_items).subspan(m_offsets[cell], m_offsets[cell + 1] - m_offsets[cell]);
}

} // namespace d4r::scene
