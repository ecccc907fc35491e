// d4r refine network: a refine-v1 (or refine-v1-fp8) model with deterministic pseudo-random weights of realistic
// magnitude, and a deterministic test image, for tests, probes and `d4r kernels check` (the same inputs on every
// machine). Header-only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/common/f16.h"
#include "kernels/refine/ptx/refine_math.h"
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

// With `fp8`, a refine-v1-fp8 model: the same values (the same draws), except that enc2's linear weights are
// quantised to e4m3 with a per-tensor scale (max |w| / 448, as tools/network/export.py --fp8 does).
// random_model_of(seed, arch): the same for any architecture of architecture_tensors().
inline Model random_model_of(uint64_t seed, std::string_view arch) {
    Rng rng(seed);
    Model m;
    m.arch = std::string(arch);
    for (const TensorSpec& spec : *architecture_tensors(arch)) {
        if (spec.name.ends_with(".scale")) continue; // written with its weight
        Tensor t;
        t.name = spec.name;
        t.dtype = spec.dtype;
        t.dims = spec.dims;
        uint64_t n = 1;
        for (uint32_t d : spec.dims) n *= d;
        // Linear weights ~ U(-1, 1) / sqrt(fan-in); layernorm gains near 1; biases and tables small.
        bool gain = spec.name.ends_with(".g");
        float scale = spec.dims.size() == 2 && !spec.name.ends_with("relbias") ? 1.0f / std::sqrt(float(spec.dims[1]))
                      : gain                                                   ? 0.2f
                                                                               : 0.1f;
        std::vector<float> v(n);
        for (float& x : v)
            x = kernels::half_to_float(kernels::float_to_half((gain ? 1.0f : 0.0f) + rng.uniform(-scale, scale)));
        if (spec.dtype == DType::E4M3) {
            float top = 0.0f;
            for (float x : v) top = std::max(top, std::fabs(x));
            const uint16_t q = kernels::float_to_half(top / 448.0f);
            t.data.resize(n);
            for (uint64_t i = 0; i < n; ++i)
                t.data[i] = refine::math::half_to_e4m3(kernels::float_to_half(v[i] / kernels::half_to_float(q)));
            const std::string layer = spec.name.substr(0, spec.name.size() - 2);
            Tensor s{layer + ".scale", DType::F16, {1}, {uint8_t(q & 0xffu), uint8_t(q >> 8)}};
            m.tensors.push_back(std::move(t));
            m.tensors.push_back(std::move(s));
            continue;
        }
        t.data.resize(n * 2);
        for (uint64_t i = 0; i < n; ++i) {
            const uint16_t h = kernels::float_to_half(v[i]);
            std::memcpy(t.data.data() + 2 * i, &h, 2);
        }
        m.tensors.push_back(std::move(t));
    }
    return m;
}
inline Model random_model(uint64_t seed, bool fp8 = false) {
    return random_model_of(seed, fp8 ? kArchRefineV1Fp8 : kArchRefineV1);
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
