// d4r scene (internal): a tiny deterministic PRNG (SplitMix64) for generated scenes.
//
// Promise: the same seed gives the same sequence on every platform and standard library (integer
// arithmetic only; uniform() is exact: 24 random bits times 2^-24). Callers must draw in a fixed
// order: at most one draw per full expression unless inside a braced list (evaluated left to right),
// since the order in which function arguments and operands are evaluated is unspecified.
#pragma once

#include <cstdint>

namespace d4r::scene {

class Random {
public:
    explicit Random(uint64_t seed) : m_state(seed) {}

    uint64_t next() {
        uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // [0, 1)
    float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }
    // [lo, hi)
    float range(float lo, float hi) { return lo + (hi - lo) * uniform(); }
    // 0 .. n - 1 (n > 0)
    uint32_t below(uint32_t n) { return uint32_t(((next() >> 32) * n) >> 32); }
    bool chance(float p) { return uniform() < p; }
    float sign() { return chance(0.5f) ? -1.0f : 1.0f; }
    // [lo, hi) with a random sign
    float signed_range(float lo, float hi) {
        float magnitude = range(lo, hi);
        return sign() * magnitude;
    }

private:
    uint64_t m_state;
};

} // namespace d4r::scene
