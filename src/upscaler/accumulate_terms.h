// d4r open NGX core: the accumulate step's intermediate values for one output pixel, for frame dumps
// (`d4r demo --dump-frames DIR --dump-inputs`) and for measuring what a network after the core could use.
//
// Promise: accumulate_terms(p, x, y) repeats d4r_up_accumulate's arithmetic for output pixel (x, y)
// (src/kernels/upscaler/ptx/upscaler_math.h, accumulate_pixel) over host memory, after the frame ran and
// before the next one (it reads the frame's prepared colour, its motion and the previous history), and
// keeps what the kernel throws away: the reprojected history before the neighbourhood clamp, the clamped
// history, this frame's reconstruction, its coverage and the blend weight. blend_terms() makes from them
// exactly the value the kernel stored in the history (tests/upscaler/accumulate_terms_test.cpp checks it bit
// for bit over every pixel), so the copy cannot drift from the kernel unnoticed. Host only: nothing here is
// in the PTX.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/upscaler/ptx/upscaler_math.h"

namespace d4r::upscaler {

struct AccumulateTerms {
    math::F4 history{};       // reprojected history before the clamp: Y Co Cg (working space), weight as sampled
    bool reprojected = false; // history was used (history on, not disoccluded, on screen); else all history is 0
    math::F3 clamped{};       // the history after variance clipping (what the blend used)
    float history_weight = 0; // its weight in the blend (capped, blur penalty applied)
    math::F3 current{};       // this frame's jittered reconstruction (working space)
    float coverage = 0;       // the largest single reconstruction weight, 0..1 (the current frame's weight)
    float alpha = 1;          // the current frame's share of the blend: coverage / (history_weight + coverage)
};

AccumulateTerms accumulate_terms(const math::Params& p, int32_t ox, int32_t oy);
// The history value accumulate_pixel stores from these terms (Y Co Cg and weight).
math::F4 blend_terms(const AccumulateTerms& t);

// The planes of a frame's terms, channels innermost, as frame dumps store them (docs/demo.md):
// 0-2 history before the clamp (Y Co Cg), 3 its sampled weight, 4 reprojected (1 or 0), 5-7 the clamped
// history, 8-10 the current reconstruction, 11 coverage, 12 alpha.
inline constexpr uint32_t kAccumulateTermPlanes = 13;
std::vector<float> accumulate_term_planes(const math::Params& p);

} // namespace d4r::upscaler
