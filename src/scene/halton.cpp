#include "scene/scene.h"

namespace d4r::scene {

float halton(uint32_t index, uint32_t base) {
    double result = 0.0, fraction = 1.0;
    while (index > 0) {
        fraction /= base;
        result += fraction * (index % base);
        index /= base;
    }
    return float(result);
}

Jitter jitter_for_frame(uint32_t frame_index) {
    uint32_t phase = frame_index % kJitterPhases;
    return {halton(phase + 1, 2) - 0.5f, halton(phase + 1, 3) - 0.5f};
}

} // namespace d4r::scene
