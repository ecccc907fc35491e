// d4r NGX shim: CPU passes over the canonical planes (formats.h) that the shim itself applies, whichever NGX
// core evaluates: motion-vector dilation on the inputs before the core sees them, and the watermark on the
// output after the core has written it.
//
// Promise: pure CPU code with no Windows dependency (unit-tested on Linux, used by d4r_nvngx.dll's host path).
//   * dilate_motion (D4R_MOTION_DILATION=N, d4r.ini [Interop] MotionVectorDilation): every motion vector is
//     replaced by the one of the front-most pixel (the nearest depth: the smallest, or the largest when the
//     depth is inverted) in its (2N+1)x(2N+1) neighbourhood, clipped at the borders, so that a thin
//     foreground edge keeps its own motion. The centre wins every tie, so flat depth changes nothing; a NaN
//     depth is never nearer than anything. When the motion vectors are at another size than the depth (NGX
//     without MVLowRes: at the output size), each motion pixel takes the depth of the depth pixel it lies on
//     (nearest). N = 0 changes nothing.
//   * draw_watermark (D4R_SHIM_WATERMARK, d4r.ini [DLSS] ShowWatermark; off by default): a small opaque box
//     in the top-left corner of the output region with "d4r" in a 3x5-cell font, so a player can see that
//     d4r produced the frame. Its size grows with the output height (watermark_cell); it is clipped to the
//     output when that is smaller than the box. Nothing outside watermark_box changes.
#pragma once

#include <cstdint>
#include <vector>

namespace d4r::shim {

inline constexpr unsigned kMaxMotionDilation = 8; // the table's range (core/env_vars.cpp), checked by a test

// A canonical plane in host memory: WIDTH x HEIGHT texels at the start of rows ROW_TEXELS texels apart.
struct PlaneView {
    uint8_t* data = nullptr;
    uint32_t width = 0, height = 0, row_texels = 0; // row_texels 0: width
};
struct ConstPlaneView {
    const uint8_t* data = nullptr;
    uint32_t width = 0, height = 0, row_texels = 0;
};

// Working memory of dilate_motion, kept by the caller from frame to frame: allocating (and zeroing) it afresh
// costs more than the dilation itself (measured: about 9 of 10 parts of the time at 1920x1080).
struct DilationScratch {
    std::vector<float> key, row_key, best;
    std::vector<uint32_t> row_src, original, best_row;
};

// MOTION: RG16F (4 bytes a texel); DEPTH: R32F. RADIUS above kMaxMotionDilation is taken as kMaxMotionDilation.
// False (and nothing changed) when RADIUS is 0 or a plane is empty. SCRATCH: null for a one-off call.
bool dilate_motion(const PlaneView& motion, const ConstPlaneView& depth, unsigned radius, bool depth_inverted,
                   DilationScratch* scratch = nullptr);

// The watermark's box and cell size (pixels per font cell) for an output WIDTH x HEIGHT, before clipping.
struct WatermarkBox {
    uint32_t x = 0, y = 0, width = 0, height = 0, cell = 1;
};
WatermarkBox watermark_box(uint32_t width, uint32_t height);
// Whether the pixel (X, Y) of the box is a glyph pixel (true) or background (false); X, Y inside the box.
bool watermark_glyph_at(const WatermarkBox& box, uint32_t x, uint32_t y);
// The colours, linear RGBA (exact in half precision).
inline constexpr float kWatermarkGlyph[4] = {1.0f, 0.75f, 0.0f, 1.0f}; // amber
inline constexpr float kWatermarkBackground[4] = {0.0f, 0.0f, 0.0f, 1.0f};

// OUTPUT: RGBA16F (8 bytes a texel). False when it is empty.
bool draw_watermark(const PlaneView& output);

} // namespace d4r::shim
