// Test-side texture formats for the shim's integration tests, written apart from the shim's own conversions
// (src/shim/formats.cpp) so that each checks the other: `encode_color` turns canonical RGBA16F colour into a
// game format (what a game would have rendered), `decode_color` is an independent CPU conversion back to
// RGBA16F, the result the shim's conversion must give bit for bit. Header-only; built with mingw (the
// D3D12 harness) and g++ (shim_reference). Rounding conventions (stated by formats.h and followed here):
// UNORM values are (float)c / max rounded to half to nearest even; sRGB is decoded in double precision;
// R11G11B10F and R9G9B9E5 convert exactly; writes to UNORM round v * max (float) to nearest.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

namespace d4r::test::encode {

struct Format {
    const char* name;
    uint32_t dxgi;
    size_t bytes;
};

inline const Format kFormats[] = {
    {"rgba16f", 10, 8},   {"rgba32f", 2, 16}, {"r11g11b10f", 26, 4}, {"rgb10a2", 24, 4}, {"rgba8", 28, 4},
    {"rgba8srgb", 29, 4}, {"bgra8", 87, 4},   {"bgra8srgb", 91, 4},  {"rgb9e5", 67, 4},
};

inline const Format* find(const std::string& name) {
    for (const Format& f : kFormats)
        if (name == f.name) return &f;
    return nullptr;
}

// IEEE binary16 <-> binary32, written out here (round to nearest even).
inline float half_to_float(uint16_t h) {
    int sign = h >> 15, exponent = (h >> 10) & 31, mantissa = h & 1023;
    float v;
    if (exponent == 0)
        v = std::ldexp(static_cast<float>(mantissa), -24);
    else if (exponent == 31)
        v = mantissa ? NAN : INFINITY;
    else
        v = std::ldexp(static_cast<float>(mantissa | 1024), exponent - 25);
    return sign ? -v : v;
}

inline uint16_t float_to_half(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t magnitude = x & 0x7FFFFFFF;
    if (magnitude > 0x7F800000) return static_cast<uint16_t>(sign | 0x7E00 | ((magnitude >> 13) & 0x3FF)); // NaN
    if (magnitude >= 0x477FF000) return static_cast<uint16_t>(sign | 0x7C00); // rounds to infinity (65520 and up)
    if (magnitude < 0x38800000) { // below the smallest normal half: a subnormal (or zero)
        if (magnitude < 0x33000000) return static_cast<uint16_t>(sign); // at or below 2^-25
        int shift = 126 - static_cast<int>(magnitude >> 23);            // 14..
        uint32_t m = (magnitude & 0x7FFFFF) | 0x800000;
        uint32_t result = m >> (shift);
        uint32_t rest = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (result & 1))) ++result;
        return static_cast<uint16_t>(sign | result);
    }
    uint32_t result = (magnitude - 0x38000000) >> 13;
    uint32_t rest = magnitude & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (result & 1))) ++result;
    return static_cast<uint16_t>(sign | result);
}

inline uint32_t unorm(float v, uint32_t max) {
    if (!(v > 0)) return 0;
    if (v >= 1) return max;
    return static_cast<uint32_t>(std::lrint(v * static_cast<float>(max)));
}

inline float srgb_encode(float linear) {
    double v = std::clamp(static_cast<double>(linear), 0.0, 1.0);
    return static_cast<float>(v <= 0.0031308 ? v * 12.92 : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055);
}

inline uint16_t srgb_decode_half(uint32_t c) {
    double v = c / 255.0;
    double linear = v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    return float_to_half(static_cast<float>(linear));
}

// A half as R11G11B10F's 11- or 10-bit channel: negatives 0, nearest even, too large infinity.
inline uint32_t half_to_small(uint16_t h, int mantissa_bits) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) return (31u << mantissa_bits) | 1;
    if (h & 0x8000) return 0;
    int drop = 10 - mantissa_bits;
    uint32_t m = h & 0x7FFF, r = m >> drop, rest = m & ((1u << drop) - 1), halfway = 1u << (drop - 1);
    if (rest > halfway || (rest == halfway && (r & 1))) ++r;
    return r >= (31u << mantissa_bits) ? 31u << mantissa_bits : r;
}

inline float small_to_float(uint32_t bits, int mantissa_bits) {
    uint32_t e = bits >> mantissa_bits, m = bits & ((1u << mantissa_bits) - 1);
    if (e == 0) return std::ldexp(static_cast<float>(m), -14 - mantissa_bits);
    if (e == 31) return m ? NAN : INFINITY;
    return std::ldexp(static_cast<float>(m | (1u << mantissa_bits)), static_cast<int>(e) - 15 - mantissa_bits);
}

// D3D's float → R9G9B9E5 rule (shared exponent from the largest channel).
inline uint32_t encode_rgb9e5(float r, float g, float b) {
    const float max_value = 511.0f / 512.0f * 65536.0f;
    auto clampc = [&](float v) { return v > 0 ? std::min(v, max_value) : 0.0f; }; // NaN → 0
    r = clampc(r), g = clampc(g), b = clampc(b);
    float m = std::max(r, std::max(g, b));
    int exp_shared = std::max(-16, static_cast<int>(std::floor(std::log2(std::max(m, 1e-30f))))) + 1 + 15;
    double denom = std::ldexp(1.0, exp_shared - 15 - 9);
    int maxm = static_cast<int>(std::floor(m / denom + 0.5));
    if (maxm == 512) {
        denom *= 2;
        ++exp_shared;
    }
    uint32_t rm = static_cast<uint32_t>(std::floor(r / denom + 0.5)),
             gm = static_cast<uint32_t>(std::floor(g / denom + 0.5)),
             bm = static_cast<uint32_t>(std::floor(b / denom + 0.5));
    return rm | (gm << 9) | (bm << 18) | (static_cast<uint32_t>(exp_shared) << 27);
}

// N texels of RGBA16F → FORMAT.
inline std::vector<uint8_t> encode_color(const Format& f, const uint16_t* halves, size_t n) {
    std::vector<uint8_t> out(n * f.bytes);
    for (size_t i = 0; i < n; ++i) {
        const uint16_t* h = halves + 4 * i;
        float v[4];
        for (int c = 0; c < 4; ++c) v[c] = half_to_float(h[c]);
        uint8_t* d = out.data() + i * f.bytes;
        uint32_t word = 0;
        switch (f.dxgi) {
        case 10:
            std::memcpy(d, h, 8);
            continue;
        case 2:
            std::memcpy(d, v, 16);
            continue;
        case 26:
            word = half_to_small(h[0], 6) | (half_to_small(h[1], 6) << 11) | (half_to_small(h[2], 5) << 22);
            break;
        case 24:
            word = unorm(v[0], 1023) | (unorm(v[1], 1023) << 10) | (unorm(v[2], 1023) << 20) | (unorm(v[3], 3) << 30);
            break;
        case 28:
            for (int c = 0; c < 4; ++c) d[c] = static_cast<uint8_t>(unorm(v[c], 255));
            continue;
        case 87:
            d[0] = unorm(v[2], 255), d[1] = unorm(v[1], 255), d[2] = unorm(v[0], 255), d[3] = unorm(v[3], 255);
            continue;
        case 29:
            for (int c = 0; c < 3; ++c) d[c] = static_cast<uint8_t>(unorm(srgb_encode(v[c]), 255));
            d[3] = static_cast<uint8_t>(unorm(v[3], 255));
            continue;
        case 91:
            for (int c = 0; c < 3; ++c) d[2 - c] = static_cast<uint8_t>(unorm(srgb_encode(v[c]), 255));
            d[3] = static_cast<uint8_t>(unorm(v[3], 255));
            continue;
        case 67:
            word = encode_rgb9e5(v[0], v[1], v[2]);
            break;
        default:
            break;
        }
        std::memcpy(d, &word, 4);
    }
    return out;
}

// N texels of FORMAT → RGBA16F, independently of the shim.
inline std::vector<uint16_t> decode_color(const Format& f, const uint8_t* in, size_t n) {
    std::vector<uint16_t> out(n * 4);
    const uint16_t one = 0x3C00;
    auto un = [](uint32_t c, uint32_t max) { return float_to_half(static_cast<float>(c) / static_cast<float>(max)); };
    for (size_t i = 0; i < n; ++i) {
        const uint8_t* s = in + i * f.bytes;
        uint16_t* h = out.data() + 4 * i;
        uint32_t w = 0;
        std::memcpy(&w, s, 4);
        switch (f.dxgi) {
        case 10:
            std::memcpy(h, s, 8);
            break;
        case 2:
            for (int c = 0; c < 4; ++c) {
                float v;
                std::memcpy(&v, s + 4 * c, 4);
                h[c] = float_to_half(v);
            }
            break;
        case 26:
            h[0] = float_to_half(small_to_float(w & 0x7FF, 6));
            h[1] = float_to_half(small_to_float((w >> 11) & 0x7FF, 6));
            h[2] = float_to_half(small_to_float(w >> 22, 5));
            h[3] = one;
            break;
        case 24:
            for (int c = 0; c < 3; ++c) h[c] = un((w >> (10 * c)) & 1023, 1023);
            h[3] = un(w >> 30, 3);
            break;
        case 28:
            for (int c = 0; c < 4; ++c) h[c] = un(s[c], 255);
            break;
        case 87:
            h[0] = un(s[2], 255), h[1] = un(s[1], 255), h[2] = un(s[0], 255), h[3] = un(s[3], 255);
            break;
        case 29:
            for (int c = 0; c < 3; ++c) h[c] = srgb_decode_half(s[c]);
            h[3] = un(s[3], 255);
            break;
        case 91:
            h[0] = srgb_decode_half(s[2]), h[1] = srgb_decode_half(s[1]), h[2] = srgb_decode_half(s[0]);
            h[3] = un(s[3], 255);
            break;
        case 67: {
            int e = static_cast<int>(w >> 27) - 24;
            for (int c = 0; c < 3; ++c) h[c] = float_to_half(std::ldexp(static_cast<float>((w >> (9 * c)) & 511), e));
            h[3] = one;
            break;
        }
        default:
            break;
        }
    }
    return out;
}

// Depth and motion-vector formats (the harness's --depth and --motion): what a game's texture holds for the
// scene's R32F depth and RG16F motion, and the canonical values the shim must make of it.
inline const Format kDepthFormats[] = {{"r32f", 41, 4}, {"d32f", 40, 4}, {"d24s8", 45, 4}};
inline const Format kMotionFormats[] = {{"rg16f", 34, 4}, {"rg32f", 16, 8}};

inline const Format* find_in(const Format* begin, const Format* end, const std::string& name) {
    for (const Format* f = begin; f != end; ++f)
        if (name == f->name) return f;
    return nullptr;
}
inline const Format* find_depth(const std::string& name) {
    return find_in(std::begin(kDepthFormats), std::end(kDepthFormats), name);
}
inline const Format* find_motion(const std::string& name) {
    return find_in(std::begin(kMotionFormats), std::end(kMotionFormats), name);
}

// N depths (R32F) → FORMAT. D24S8: the depth clamped to [0, 1] as 24-bit UNORM rounded to nearest, and a
// stencil byte of 0x5A that the shim must ignore.
inline std::vector<uint8_t> encode_depth(const Format& f, const float* depth, size_t n) {
    std::vector<uint8_t> out(n * f.bytes);
    for (size_t i = 0; i < n; ++i) {
        if (f.dxgi != 45) {
            std::memcpy(out.data() + 4 * i, depth + i, 4);
            continue;
        }
        double d = std::isnan(depth[i]) ? 0.0 : std::clamp(static_cast<double>(depth[i]), 0.0, 1.0);
        uint32_t word = static_cast<uint32_t>(std::lround(d * 16777215.0)) | (0x5Au << 24);
        std::memcpy(out.data() + 4 * i, &word, 4);
    }
    return out;
}

// N texels of FORMAT → R32F depth, independently of the shim (D24: the value over 2^24 - 1 in double).
inline std::vector<float> decode_depth(const Format& f, const uint8_t* in, size_t n) {
    std::vector<float> out(n);
    for (size_t i = 0; i < n; ++i) {
        uint32_t word;
        std::memcpy(&word, in + 4 * i, 4);
        if (f.dxgi == 45)
            out[i] = static_cast<float>(static_cast<double>(word & 0xFFFFFFu) / 16777215.0);
        else
            std::memcpy(&out[i], &word, 4);
    }
    return out;
}

// N motion vectors (RG16F) → FORMAT (RG32F holds every half exactly).
inline std::vector<uint8_t> encode_motion(const Format& f, const uint16_t* halves, size_t n) {
    std::vector<uint8_t> out(n * f.bytes);
    for (size_t i = 0; i < 2 * n; ++i) {
        if (f.dxgi == 16) {
            float v = half_to_float(halves[i]);
            std::memcpy(out.data() + 4 * i, &v, 4);
        } else {
            std::memcpy(out.data() + 2 * i, halves + i, 2);
        }
    }
    return out;
}

// N texels of FORMAT → RG16F, independently of the shim (floats rounded to the nearest half, ties to even).
inline std::vector<uint16_t> decode_motion(const Format& f, const uint8_t* in, size_t n) {
    std::vector<uint16_t> out(2 * n);
    for (size_t i = 0; i < 2 * n; ++i) {
        if (f.dxgi == 16) {
            float v;
            std::memcpy(&v, in + 4 * i, 4);
            out[i] = float_to_half(v);
        } else {
            std::memcpy(&out[i], in + 2 * i, 2);
        }
    }
    return out;
}

} // namespace d4r::test::encode
