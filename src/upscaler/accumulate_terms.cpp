// The accumulate step's intermediates as frame-dump planes (see accumulate_terms.h).
#include "upscaler/accumulate_terms.h"

namespace d4r::upscaler {

using namespace math;

std::vector<float> accumulate_term_planes(const Params& p) {
    std::vector<float> planes(size_t(p.output_w) * p.output_h * kAccumulateTermPlanes);
    float* at = planes.data();
    for (uint32_t y = 0; y < p.output_h; ++y)
        for (uint32_t x = 0; x < p.output_w; ++x) {
            AccumulateTerms t = accumulate_terms(p, int32_t(x), int32_t(y));
            const float v[kAccumulateTermPlanes] = {
                t.history.x, t.history.y, t.history.z, t.history.w, t.reprojected ? 1.0f : 0.0f,
                t.clamped.x, t.clamped.y, t.clamped.z, t.current.x, t.current.y,
                t.current.z, t.coverage,  t.alpha};
            for (float f : v) *at++ = f;
        }
    return planes;
}

} // namespace d4r::upscaler
