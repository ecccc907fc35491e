// d4r open NGX core: the accumulate step's intermediate values for one output pixel, for frame dumps
// (`d4r demo --dump-frames DIR --dump-inputs`) and for measuring what a network after the core could use.
//
// Promise: the terms are accumulate_pixel's own (math::accumulate_terms in
// src/kernels/upscaler/ptx/upscaler_math.h, which the kernel itself calls), evaluated over host memory after the
// frame ran and before the next one (they read the frame's prepared colour, its motion and the previous
// history): the reprojected history before the neighbourhood clamp, the clamped history, this frame's
// reconstruction, its coverage and the blend weight. blend_terms() of them is the value the kernel stored in the
// history (tests/upscaler/accumulate_terms_test.cpp checks it bit for bit over every pixel). Host only: nothing
// here is in the PTX.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/upscaler/ptx/upscaler_math.h"

namespace d4r::upscaler {

using math::accumulate_terms; // AccumulateTerms accumulate_terms(const math::Params&, int32_t ox, int32_t oy)
using math::AccumulateTerms;
using math::blend_terms; // the history value accumulate_pixel stores from the terms (Y Co Cg and weight)

// The planes of a frame's terms, channels innermost, as frame dumps store them (docs/demo.md):
// 0-2 history before the clamp (Y Co Cg), 3 its sampled weight, 4 reprojected (1 or 0), 5-7 the clamped
// history, 8-10 the current reconstruction, 11 coverage, 12 alpha.
inline constexpr uint32_t kAccumulateTermPlanes = 13;
std::vector<float> accumulate_term_planes(const math::Params& p);

} // namespace d4r::upscaler
