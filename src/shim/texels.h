// d4r NGX shim: one texel of a game format to the core's canonical layout and back, compiled identically for the
// host (formats.cpp: the host data paths) and by nvcc for the GPU (ptx/convert.cu: the conversions on the VRAM and
// mapped paths), so that a frame converted on the GPU has the bytes of the same frame converted on the CPU.
//
// Promise: every function is a pure function of its arguments and the Tables (no libm, no locale, no rounding mode
// but round-to-nearest-even): integer work, IEEE-exact float and double operations (+ - * / and conversions) and
// halves rounded as image::float_to_half rounds them (NaN keeps its sign and top payload bits). Formats are
// formats.h's DXGI numbers; a format a plane does not accept gives zeros. The sRGB curves, which the host computes
// with pow in double, come from Tables made on the host (make_tables(), formats.cpp): decoding is a lookup of the
// 256 values, encoding a search of 255 thresholds, the same result as the host's curve for every half
// (tests/shim/formats_test.cpp holds them to it).
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/common/f16.h"
#include "shim/formats.h"

namespace d4r::shim::texels {

// What a conversion reads besides the texels (1 KiB: it travels in a kernel's parameters).
struct Tables {
    uint16_t srgb_half[256];      // an 8-bit sRGB value as a linear half (what a sampler would give)
    uint16_t srgb_threshold[256]; // [k], k >= 1: the smallest half in [0, 1] whose sRGB 8-bit encoding is k or more
};

// The host's tables (the curves in double, formats.cpp); made once.
const Tables& host_tables();

// The parameter block of the GPU conversions (ptx/convert.cu: d4r_shim_to_canonical, d4r_shim_from_canonical), by
// value, their only argument; gpu_convert.cpp fills it.
struct alignas(8) ConvertParams {
    uint64_t src = 0, dst = 0;             // device addresses
    uint32_t src_pitch = 0, dst_pitch = 0; // bytes between rows
    uint32_t width = 0, height = 0;        // texels
    uint32_t plane = 0, format = 0;        // Plane (to_canonical) and the game's DXGI format
    Tables tables{};
};

// Bytes per texel of the formats formats.h knows (0 for others).
D4R_HD uint32_t texel_bytes(uint32_t format) {
    switch (static_cast<Dxgi>(format)) {
    case Dxgi::R32G32B32A32_Typeless:
    case Dxgi::R32G32B32A32_Float:
        return 16;
    case Dxgi::R16G16B16A16_Typeless:
    case Dxgi::R16G16B16A16_Float:
    case Dxgi::R32G32_Typeless:
    case Dxgi::R32G32_Float:
        return 8;
    case Dxgi::R10G10B10A2_Typeless:
    case Dxgi::R10G10B10A2_Unorm:
    case Dxgi::R11G11B10_Float:
    case Dxgi::R8G8B8A8_Typeless:
    case Dxgi::R8G8B8A8_Unorm:
    case Dxgi::R8G8B8A8_Unorm_Srgb:
    case Dxgi::R16G16_Typeless:
    case Dxgi::R16G16_Float:
    case Dxgi::R32_Typeless:
    case Dxgi::D32_Float:
    case Dxgi::R32_Float:
    case Dxgi::R24G8_Typeless:
    case Dxgi::D24_Unorm_S8_Uint:
    case Dxgi::R24_Unorm_X8_Typeless:
    case Dxgi::R9G9B9E5_SharedExp:
    case Dxgi::B8G8R8A8_Unorm:
    case Dxgi::B8G8R8A8_Typeless:
    case Dxgi::B8G8R8A8_Unorm_Srgb:
        return 4;
    case Dxgi::R16_Typeless:
    case Dxgi::R16_Float:
    case Dxgi::D16_Unorm:
    case Dxgi::R16_Unorm:
        return 2;
    default:
        return 0;
    }
}

D4R_HD uint32_t load32(const uint8_t* p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
D4R_HD uint16_t load16(const uint8_t* p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
D4R_HD float load_float(const uint8_t* p) { return kernels::float_of(load32(p)); }
D4R_HD void store32(uint8_t* p, uint32_t v) { memcpy(p, &v, 4); }
D4R_HD void store16(uint8_t* p, uint16_t v) { memcpy(p, &v, 2); }

// A float as a half, nearest-even; NaN stays NaN with its sign and top payload bits (image::float_to_half).
D4R_HD uint16_t half_of(float v) {
    const uint32_t bits = kernels::bits_of(v), magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u)
        return static_cast<uint16_t>(((bits >> 16) & 0x8000u) | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
    return kernels::float_to_half(v);
}
// A half as a float, exactly; NaN keeps its sign and payload (image::half_to_float, and cvt.f32.f16 on the GPU).
D4R_HD float float_of_half(uint16_t h) {
    if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu))
        return kernels::float_of((static_cast<uint32_t>(h & 0x8000u) << 16) | 0x7f800000u | ((h & 0x3ffu) << 13));
    return kernels::half_to_float(h);
}

// An unsigned normalised integer as a half: the float quotient, rounded.
D4R_HD uint16_t unorm_half(uint32_t value, uint32_t max) {
    return half_of(static_cast<float>(value) / static_cast<float>(max));
}
// V rounded to the nearest integer, ties to even (V in [0, 2^24)).
D4R_HD uint32_t round_even(float v) {
#ifdef __CUDA_ARCH__
    return static_cast<uint32_t>(__float2int_rn(v));
#else
    return static_cast<uint32_t>(__builtin_lrintf(v));
#endif
}
D4R_HD uint32_t to_unorm(float v, uint32_t max) {
    if (!(v > 0.0f)) return 0; // NaN too
    if (v >= 1.0f) return max;
    return round_even(v * static_cast<float>(max));
}

// A small unsigned float with a 5-bit exponent of bias 15 (R11G11B10F's channels) -> half: the same exponent, the
// mantissa widened; exact, including denormals, infinity and NaN.
D4R_HD uint16_t small_float_to_half(uint32_t bits, int mantissa_bits) {
    const uint32_t exponent = (bits >> mantissa_bits) & 31, mantissa = bits & ((1u << mantissa_bits) - 1);
    return static_cast<uint16_t>((exponent << 10) | (mantissa << (10 - mantissa_bits)));
}
// Half -> the small unsigned float, nearest-even; negatives become 0, NaN stays NaN, values past the largest finite
// one become infinity (as D3D's float-to-R11G11B10 conversion).
D4R_HD uint32_t half_to_small_float(uint16_t h, int mantissa_bits) {
    const uint32_t exponent = (h >> 10) & 31, mantissa = h & 0x3FF;
    if (exponent == 31 && mantissa != 0) return (31u << mantissa_bits) | 1u; // NaN
    if (h & 0x8000) return 0;
    const int drop = 10 - mantissa_bits;
    const uint32_t magnitude = h & 0x7FFF; // exponent and mantissa as one number: rounding carries into the exponent
    const uint32_t half_way = 1u << (drop - 1), rest = magnitude & ((1u << drop) - 1);
    uint32_t rounded = magnitude >> drop;
    if (rest > half_way || (rest == half_way && (rounded & 1))) ++rounded;
    if ((rounded >> mantissa_bits) >= 31) return 31u << mantissa_bits; // infinity
    return rounded;
}

// A linear half as an 8-bit sRGB value: the host's to_unorm(linear_to_srgb(clamp(v, 0, 1)), 255), through the
// thresholds (the curve is monotone).
D4R_HD uint8_t srgb8_of_half(uint16_t h, const Tables& t) {
    if ((h & 0x7fffu) > 0x7c00u || (h & 0x8000u)) return 0; // NaN, or clamped to 0
    if (h >= 0x3c00u) h = 0x3c00u;                          // clamped to 1
    uint32_t lo = 0, hi = 255;                              // the largest k with threshold[k] <= h (threshold[0] = 0)
    while (lo < hi) {
        const uint32_t mid = (lo + hi + 1) / 2;
        if (t.srgb_threshold[mid] <= h)
            lo = mid;
        else
            hi = mid - 1;
    }
    return static_cast<uint8_t>(lo);
}

// One colour texel of FORMAT at S -> four halves at D.
D4R_HD void color_to_canonical(uint32_t format, const uint8_t* s, uint16_t* d, const Tables& t) {
    constexpr uint16_t kOne = 0x3C00;
    switch (static_cast<Dxgi>(format)) {
    case Dxgi::R16G16B16A16_Float:
    case Dxgi::R16G16B16A16_Typeless:
        for (int c = 0; c < 4; ++c) d[c] = load16(s + 2 * c);
        return;
    case Dxgi::R32G32B32A32_Float:
    case Dxgi::R32G32B32A32_Typeless:
        for (int c = 0; c < 4; ++c) d[c] = half_of(load_float(s + 4 * c));
        return;
    case Dxgi::R11G11B10_Float: {
        const uint32_t v = load32(s);
        d[0] = small_float_to_half(v & 0x7FF, 6);
        d[1] = small_float_to_half((v >> 11) & 0x7FF, 6);
        d[2] = small_float_to_half(v >> 22, 5);
        d[3] = kOne;
        return;
    }
    case Dxgi::R10G10B10A2_Unorm:
    case Dxgi::R10G10B10A2_Typeless: {
        const uint32_t v = load32(s);
        for (int c = 0; c < 3; ++c) d[c] = unorm_half((v >> (10 * c)) & 1023, 1023);
        d[3] = unorm_half(v >> 30, 3);
        return;
    }
    case Dxgi::R8G8B8A8_Unorm:
    case Dxgi::R8G8B8A8_Typeless:
        for (int c = 0; c < 4; ++c) d[c] = unorm_half(s[c], 255);
        return;
    case Dxgi::B8G8R8A8_Unorm:
    case Dxgi::B8G8R8A8_Typeless:
        d[0] = unorm_half(s[2], 255);
        d[1] = unorm_half(s[1], 255);
        d[2] = unorm_half(s[0], 255);
        d[3] = unorm_half(s[3], 255);
        return;
    case Dxgi::R8G8B8A8_Unorm_Srgb:
        for (int c = 0; c < 3; ++c) d[c] = t.srgb_half[s[c]];
        d[3] = unorm_half(s[3], 255);
        return;
    case Dxgi::B8G8R8A8_Unorm_Srgb:
        for (int c = 0; c < 3; ++c) d[c] = t.srgb_half[s[2 - c]];
        d[3] = unorm_half(s[3], 255);
        return;
    case Dxgi::R9G9B9E5_SharedExp: {
        const uint32_t v = load32(s);
        // mantissa * 2^(exponent - 15 - 9): exact in float (9 bits, a normal power of two from 2^-24 to 2^7).
        const float scale = kernels::float_of(static_cast<uint32_t>(static_cast<int32_t>(v >> 27) - 24 + 127) << 23);
        for (int c = 0; c < 3; ++c) d[c] = half_of(static_cast<float>((v >> (9 * c)) & 511) * scale);
        d[3] = kOne;
        return;
    }
    default:
        for (int c = 0; c < 4; ++c) d[c] = 0;
    }
}

// One depth (or exposure) texel of FORMAT at S as the canonical float.
D4R_HD float depth_to_canonical(uint32_t format, const uint8_t* s) {
    switch (static_cast<Dxgi>(format)) {
    case Dxgi::D32_Float:
    case Dxgi::R32_Float:
    case Dxgi::R32_Typeless:
        return load_float(s);
    case Dxgi::D24_Unorm_S8_Uint:
    case Dxgi::R24G8_Typeless:
    case Dxgi::R24_Unorm_X8_Typeless:
        return static_cast<float>(static_cast<double>(load32(s) & 0xFFFFFF) / 16777215.0);
    case Dxgi::D16_Unorm:
    case Dxgi::R16_Unorm:
    case Dxgi::R16_Typeless:
        return static_cast<float>(load16(s)) / 65535.0f;
    case Dxgi::R16_Float:
        return float_of_half(load16(s));
    default:
        return 0.0f;
    }
}

// One texel of PLANE (not the output) in FORMAT at S -> its canonical bytes at D (8 for colour, else 4).
D4R_HD void to_canonical(Plane plane, uint32_t format, const uint8_t* s, uint8_t* d, const Tables& t) {
    switch (plane) {
    case Plane::Color: {
        uint16_t h[4];
        color_to_canonical(format, s, h, t);
        for (int c = 0; c < 4; ++c) store16(d + 2 * c, h[c]);
        return;
    }
    case Plane::Depth:
    case Plane::Exposure:
        store32(d, kernels::bits_of(depth_to_canonical(format, s)));
        return;
    case Plane::Motion:
        if (format == static_cast<uint32_t>(Dxgi::R32G32_Float) ||
            format == static_cast<uint32_t>(Dxgi::R32G32_Typeless)) {
            store16(d, half_of(load_float(s)));
            store16(d + 2, half_of(load_float(s + 4)));
        } else {
            store32(d, load32(s));
        }
        return;
    case Plane::Output:
        return;
    }
}

// One output texel: four halves at S -> FORMAT at D. False for a format the output plane does not take.
D4R_HD bool from_canonical(uint32_t format, const uint8_t* s, uint8_t* d, const Tables& t) {
    uint16_t h[4];
    float v[4];
    for (int c = 0; c < 4; ++c) {
        h[c] = load16(s + 2 * c);
        v[c] = float_of_half(h[c]);
    }
    switch (static_cast<Dxgi>(format)) {
    case Dxgi::R16G16B16A16_Float:
    case Dxgi::R16G16B16A16_Typeless:
        for (int c = 0; c < 4; ++c) store16(d + 2 * c, h[c]);
        return true;
    case Dxgi::R32G32B32A32_Float:
        for (int c = 0; c < 4; ++c) store32(d + 4 * c, kernels::bits_of(v[c]));
        return true;
    case Dxgi::R11G11B10_Float: // rounds the halves themselves
        store32(d, half_to_small_float(h[0], 6) | (half_to_small_float(h[1], 6) << 11) |
                       (half_to_small_float(h[2], 5) << 22));
        return true;
    case Dxgi::R10G10B10A2_Unorm:
        store32(d, to_unorm(v[0], 1023) | (to_unorm(v[1], 1023) << 10) | (to_unorm(v[2], 1023) << 20) |
                       (to_unorm(v[3], 3) << 30));
        return true;
    case Dxgi::R8G8B8A8_Unorm:
        for (int c = 0; c < 4; ++c) d[c] = static_cast<uint8_t>(to_unorm(v[c], 255));
        return true;
    case Dxgi::B8G8R8A8_Unorm:
        d[0] = static_cast<uint8_t>(to_unorm(v[2], 255));
        d[1] = static_cast<uint8_t>(to_unorm(v[1], 255));
        d[2] = static_cast<uint8_t>(to_unorm(v[0], 255));
        d[3] = static_cast<uint8_t>(to_unorm(v[3], 255));
        return true;
    case Dxgi::R8G8B8A8_Unorm_Srgb:
        for (int c = 0; c < 3; ++c) d[c] = srgb8_of_half(h[c], t);
        d[3] = static_cast<uint8_t>(to_unorm(v[3], 255));
        return true;
    case Dxgi::B8G8R8A8_Unorm_Srgb:
        for (int c = 0; c < 3; ++c) d[2 - c] = srgb8_of_half(h[c], t);
        d[3] = static_cast<uint8_t>(to_unorm(v[3], 255));
        return true;
    default:
        return false;
    }
}

} // namespace d4r::shim::texels
