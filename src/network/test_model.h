// d4r refine network: a refine-v1 model with deterministic pseudo-random weights of realistic magnitude, and a
// deterministic test image, for tests, probes and `d4r kernels check` (the same inputs on every machine).
// Header-only.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/common/f16.h"
#include "network/model_file.h"

namespace d4r::network::nettest {

class Rng {
public:
    explicit Rng(uint64_t seed) : m_state(seed * 0x9e3779b97f4a7c15ull + 1) {}
    uint64_t next() {
        uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) / float(1ull << 24); }

private:
    uint64_t m_state;
};

inline Model random_model(uint64_t seed) {
    Rng rng(seed);
    Model m;
    m.arch = kArchRefineV1;
    for (const TensorSpec& spec : refine_v1_tensors()) {
        Tensor t;
        t.name = spec.name;
        t.dims = spec.dims;
        uint64_t n = 1;
        for (uint32_t d : spec.dims) n *= d;
        // Linear weights ~ U(-1, 1) / sqrt(fan-in); layernorm gains near 1; biases and tables small.
        bool gain = spec.name.ends_with(".g");
        float scale = spec.dims.size() == 2 && !spec.name.ends_with("relbias") ? 1.0f / std::sqrt(float(spec.dims[1]))
                      : gain                                                   ? 0.2f
                                                                               : 0.1f;
        std::vector<uint16_t> v(n);
        for (uint16_t& h : v) h = kernels::float_to_half((gain ? 1.0f : 0.0f) + rng.uniform(-scale, scale));
        t.data.resize(n * 2);
        std::memcpy(t.data.data(), v.data(), n * 2);
        m.tensors.push_back(std::move(t));
    }
    return m;
}

// RGBA16F, packed: a smooth gradient with edges and some HDR values, alpha 1.
inline std::vector<uint16_t> test_image(uint32_t width, uint32_t height, uint64_t seed) {
    Rng rng(seed);
    std::vector<uint16_t> img(size_t(width) * height * 4);
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            uint16_t* p = img.data() + (size_t(y) * width + x) * 4;
            float base = ((x / 5 + y / 3) % 2) ? 0.8f : 0.1f;
            for (int c = 0; c < 3; ++c) p[c] = kernels::float_to_half(base * (0.5f + 0.2f * c) + rng.uniform(0, 0.3f));
            if ((x * 7 + y * 3) % 41 == 0) p[0] = kernels::float_to_half(12.0f); // a highlight
            p[3] = kernels::float_to_half(1.0f);
        }
    return img;
}

} // namespace d4r::network::nettest
