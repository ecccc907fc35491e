// Game texture formats → the NGX core's canonical formats, and the core's output back (formats.h).
#include "shim/formats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "image/half.h"

namespace d4r::shim {

using image::float_to_half;
using image::half_to_float;

namespace {

constexpr uint16_t kHalfOne = 0x3C00;

template <typename T>
T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <typename T>
void store(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
}

struct FormatInfo {
    Dxgi format;
    const char* name;
    size_t bytes;
};

constexpr FormatInfo kFormats[] = {
    {Dxgi::R32G32B32A32_Typeless, "R32G32B32A32_TYPELESS", 16},
    {Dxgi::R32G32B32A32_Float, "R32G32B32A32_FLOAT", 16},
    {Dxgi::R16G16B16A16_Typeless, "R16G16B16A16_TYPELESS", 8},
    {Dxgi::R16G16B16A16_Float, "R16G16B16A16_FLOAT", 8},
    {Dxgi::R32G32_Typeless, "R32G32_TYPELESS", 8},
    {Dxgi::R32G32_Float, "R32G32_FLOAT", 8},
    {Dxgi::R10G10B10A2_Typeless, "R10G10B10A2_TYPELESS", 4},
    {Dxgi::R10G10B10A2_Unorm, "R10G10B10A2_UNORM", 4},
    {Dxgi::R11G11B10_Float, "R11G11B10_FLOAT", 4},
    {Dxgi::R8G8B8A8_Typeless, "R8G8B8A8_TYPELESS", 4},
    {Dxgi::R8G8B8A8_Unorm, "R8G8B8A8_UNORM", 4},
    {Dxgi::R8G8B8A8_Unorm_Srgb, "R8G8B8A8_UNORM_SRGB", 4},
    {Dxgi::R16G16_Typeless, "R16G16_TYPELESS", 4},
    {Dxgi::R16G16_Float, "R16G16_FLOAT", 4},
    {Dxgi::R32_Typeless, "R32_TYPELESS", 4},
    {Dxgi::D32_Float, "D32_FLOAT", 4},
    {Dxgi::R32_Float, "R32_FLOAT", 4},
    {Dxgi::R24G8_Typeless, "R24G8_TYPELESS", 4},
    {Dxgi::D24_Unorm_S8_Uint, "D24_UNORM_S8_UINT", 4},
    {Dxgi::R24_Unorm_X8_Typeless, "R24_UNORM_X8_TYPELESS", 4},
    {Dxgi::R16_Typeless, "R16_TYPELESS", 2},
    {Dxgi::R16_Float, "R16_FLOAT", 2},
    {Dxgi::D16_Unorm, "D16_UNORM", 2},
    {Dxgi::R16_Unorm, "R16_UNORM", 2},
    {Dxgi::R9G9B9E5_SharedExp, "R9G9B9E5_SHAREDEXP", 4},
    {Dxgi::B8G8R8A8_Unorm, "B8G8R8A8_UNORM", 4},
    {Dxgi::B8G8R8A8_Typeless, "B8G8R8A8_TYPELESS", 4},
    {Dxgi::B8G8R8A8_Unorm_Srgb, "B8G8R8A8_UNORM_SRGB", 4},
};

const FormatInfo* info(uint32_t format) {
    for (const FormatInfo& f : kFormats)
        if (static_cast<uint32_t>(f.format) == format) return &f;
    return nullptr;
}

// An unsigned normalised integer as the canonical half: the float quotient, then rounded to half.
uint16_t unorm_half(uint32_t value, uint32_t max) { return float_to_half(static_cast<float>(value) / max); }

// sRGB → linear (IEC 61966-2-1), in double so that the result rounded to half does not depend on which
// C library's pow computed it.
float srgb_to_linear(float c) {
    double v = c;
    return static_cast<float>(v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4));
}
float linear_to_srgb(float c) {
    double v = c;
    return static_cast<float>(v <= 0.0031308 ? v * 12.92 : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055);
}

// The half of an 8-bit sRGB value: one table, so every texel costs a lookup.
struct SrgbTable {
    uint16_t half[256];
    SrgbTable() {
        for (int i = 0; i < 256; ++i) half[i] = float_to_half(srgb_to_linear(static_cast<float>(i) / 255));
    }
};
const SrgbTable& srgb_table() {
    static const SrgbTable table;
    return table;
}

// A small unsigned float with a 5-bit exponent of bias 15 (R11G11B10F's channels) → half: the same
// exponent, the mantissa widened; exact, including denormals, infinity and NaN.
uint16_t small_float_to_half(uint32_t bits, int mantissa_bits) {
    uint32_t exponent = (bits >> mantissa_bits) & 31, mantissa = bits & ((1u << mantissa_bits) - 1);
    return static_cast<uint16_t>((exponent << 10) | (mantissa << (10 - mantissa_bits)));
}

// Half → the small unsigned float, rounding to nearest even; negatives become 0, NaN stays NaN, values past
// the largest finite one become infinity (as D3D's float-to-R11G11B10 conversion).
template <int mantissa_bits>
inline uint32_t half_to_small_float(uint16_t h) {
    uint32_t exponent = (h >> 10) & 31, mantissa = h & 0x3FF;
    if (exponent == 31 && mantissa != 0) return (31u << mantissa_bits) | 1u; // NaN
    if (h & 0x8000) return 0;
    constexpr int drop = 10 - mantissa_bits;
    uint32_t magnitude = h & 0x7FFF; // exponent and mantissa as one number: rounding carries into the exponent
    uint32_t half_way = 1u << (drop - 1), rest = magnitude & ((1u << drop) - 1);
    uint32_t rounded = magnitude >> drop;
    if (rest > half_way || (rest == half_way && (rounded & 1))) ++rounded;
    if ((rounded >> mantissa_bits) >= 31) return 31u << mantissa_bits; // infinity
    return rounded;
}

uint8_t to_unorm8(float v) {
    if (!(v > 0)) return 0; // NaN too
    if (v >= 1) return 255;
    return static_cast<uint8_t>(std::lrint(v * 255.0f));
}
uint32_t to_unorm10(float v) {
    if (!(v > 0)) return 0;
    if (v >= 1) return 1023;
    return static_cast<uint32_t>(std::lrint(v * 1023.0f));
}
uint32_t to_unorm2(float v) {
    if (!(v > 0)) return 0;
    if (v >= 1) return 3;
    return static_cast<uint32_t>(std::lrint(v * 3.0f));
}

// One colour texel → 4 halves.
void color_texel(Dxgi f, const uint8_t* s, uint16_t* d) {
    switch (f) {
    case Dxgi::R16G16B16A16_Float:
    case Dxgi::R16G16B16A16_Typeless:
        std::memcpy(d, s, 8);
        return;
    case Dxgi::R32G32B32A32_Float:
    case Dxgi::R32G32B32A32_Typeless:
        for (int c = 0; c < 4; ++c) d[c] = float_to_half(load<float>(s + 4 * c));
        return;
    case Dxgi::R11G11B10_Float: {
        uint32_t v = load<uint32_t>(s);
        d[0] = small_float_to_half(v & 0x7FF, 6);
        d[1] = small_float_to_half((v >> 11) & 0x7FF, 6);
        d[2] = small_float_to_half(v >> 22, 5);
        d[3] = kHalfOne;
        return;
    }
    case Dxgi::R10G10B10A2_Unorm:
    case Dxgi::R10G10B10A2_Typeless: {
        uint32_t v = load<uint32_t>(s);
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
        d[0] = unorm_half(s[2], 255), d[1] = unorm_half(s[1], 255), d[2] = unorm_half(s[0], 255);
        d[3] = unorm_half(s[3], 255);
        return;
    case Dxgi::R8G8B8A8_Unorm_Srgb: {
        const SrgbTable& t = srgb_table();
        d[0] = t.half[s[0]], d[1] = t.half[s[1]], d[2] = t.half[s[2]], d[3] = unorm_half(s[3], 255);
        return;
    }
    case Dxgi::B8G8R8A8_Unorm_Srgb: {
        const SrgbTable& t = srgb_table();
        d[0] = t.half[s[2]], d[1] = t.half[s[1]], d[2] = t.half[s[0]], d[3] = unorm_half(s[3], 255);
        return;
    }
    case Dxgi::R9G9B9E5_SharedExp: {
        uint32_t v = load<uint32_t>(s);
        int exponent = static_cast<int>(v >> 27) - 15 - 9;
        for (int c = 0; c < 3; ++c)
            d[c] = float_to_half(std::ldexp(static_cast<float>((v >> (9 * c)) & 511), exponent));
        d[3] = kHalfOne;
        return;
    }
    default:
        std::memset(d, 0, 8);
    }
}

float depth_texel(Dxgi f, const uint8_t* s) {
    switch (f) {
    case Dxgi::D32_Float:
    case Dxgi::R32_Float:
    case Dxgi::R32_Typeless:
        return load<float>(s);
    case Dxgi::D24_Unorm_S8_Uint:
    case Dxgi::R24G8_Typeless:
    case Dxgi::R24_Unorm_X8_Typeless:
        return static_cast<float>((load<uint32_t>(s) & 0xFFFFFF) / 16777215.0);
    case Dxgi::D16_Unorm:
    case Dxgi::R16_Unorm:
    case Dxgi::R16_Typeless:
        return static_cast<float>(load<uint16_t>(s)) / 65535.0f;
    case Dxgi::R16_Float:
        return half_to_float(load<uint16_t>(s));
    default:
        return 0;
    }
}

bool is_one_of(uint32_t format, std::initializer_list<Dxgi> list) {
    return std::any_of(list.begin(), list.end(), [&](Dxgi f) { return static_cast<uint32_t>(f) == format; });
}

} // namespace

const char* plane_name(Plane plane) {
    switch (plane) {
    case Plane::Color:
        return "Color";
    case Plane::Depth:
        return "Depth";
    case Plane::Motion:
        return "MotionVectors";
    case Plane::Exposure:
        return "ExposureTexture";
    case Plane::Output:
        return "Output";
    }
    return "?";
}

std::string format_name(uint32_t format) {
    if (const FormatInfo* f = info(format)) return fmt::format("{} ({})", f->name, format);
    return fmt::format("DXGI format {}", format);
}

size_t texel_bytes(uint32_t format) {
    const FormatInfo* f = info(format);
    return f ? f->bytes : 0;
}

bool accepted(Plane plane, uint32_t format) {
    using enum Dxgi;
    switch (plane) {
    case Plane::Color:
        return is_one_of(format, {R16G16B16A16_Float, R16G16B16A16_Typeless, R32G32B32A32_Float, R32G32B32A32_Typeless,
                                  R11G11B10_Float, R10G10B10A2_Unorm, R10G10B10A2_Typeless, R8G8B8A8_Unorm,
                                  R8G8B8A8_Typeless, R8G8B8A8_Unorm_Srgb, B8G8R8A8_Unorm, B8G8R8A8_Typeless,
                                  B8G8R8A8_Unorm_Srgb, R9G9B9E5_SharedExp});
    case Plane::Depth:
        return is_one_of(format, {D32_Float, R32_Float, R32_Typeless, D24_Unorm_S8_Uint, R24G8_Typeless,
                                  R24_Unorm_X8_Typeless, D16_Unorm, R16_Unorm, R16_Typeless, R16_Float});
    case Plane::Motion:
        return is_one_of(format, {R16G16_Float, R16G16_Typeless, R32G32_Float, R32G32_Typeless});
    case Plane::Exposure:
        return is_one_of(format, {R32_Float, R32_Typeless, R16_Float});
    case Plane::Output:
        return is_one_of(format,
                         {R16G16B16A16_Float, R16G16B16A16_Typeless, R32G32B32A32_Float, R11G11B10_Float,
                          R10G10B10A2_Unorm, R8G8B8A8_Unorm, R8G8B8A8_Unorm_Srgb, B8G8R8A8_Unorm, B8G8R8A8_Unorm_Srgb});
    }
    return false;
}

size_t canonical_texel_bytes(Plane plane) { return plane == Plane::Color || plane == Plane::Output ? 8 : 4; }

bool canonical(Plane plane, uint32_t format) {
    using enum Dxgi;
    switch (plane) {
    case Plane::Color:
    case Plane::Output:
        return is_one_of(format, {R16G16B16A16_Float, R16G16B16A16_Typeless});
    case Plane::Depth:
        return is_one_of(format, {D32_Float, R32_Float, R32_Typeless});
    case Plane::Motion:
        return is_one_of(format, {R16G16_Float, R16G16_Typeless});
    case Plane::Exposure:
        return is_one_of(format, {R32_Float, R32_Typeless});
    }
    return false;
}

namespace {

// True when F's texels are the plane's canonical texels bit for bit: converting a row is copying it.
bool is_canonical(Plane plane, Dxgi f) {
    using enum Dxgi;
    switch (plane) {
    case Plane::Color:
    case Plane::Output:
        return f == R16G16B16A16_Float || f == R16G16B16A16_Typeless;
    case Plane::Depth:
    case Plane::Exposure:
        return f == D32_Float || f == R32_Float || f == R32_Typeless;
    case Plane::Motion:
        return f == R16G16_Float || f == R16G16_Typeless;
    }
    return false;
}

} // namespace

bool convert_to_canonical(Plane plane, uint32_t format, const void* src, size_t src_pitch, uint32_t width,
                          uint32_t height, void* dst) {
    if (plane == Plane::Output || !accepted(plane, format)) return false;
    const Dxgi f = static_cast<Dxgi>(format);
    const size_t in_bytes = texel_bytes(format), out_bytes = canonical_texel_bytes(plane);
    if (is_canonical(plane, f)) {
        for (uint32_t y = 0; y < height; ++y)
            std::memcpy(static_cast<uint8_t*>(dst) + size_t(y) * width * out_bytes,
                        static_cast<const uint8_t*>(src) + y * src_pitch, size_t(width) * out_bytes);
        return true;
    }
    for (uint32_t y = 0; y < height; ++y) {
        const uint8_t* s = static_cast<const uint8_t*>(src) + y * src_pitch;
        uint8_t* d = static_cast<uint8_t*>(dst) + size_t(y) * width * out_bytes;
        for (uint32_t x = 0; x < width; ++x, s += in_bytes, d += out_bytes) {
            switch (plane) {
            case Plane::Color: {
                uint16_t h[4];
                color_texel(f, s, h);
                std::memcpy(d, h, 8);
                break;
            }
            case Plane::Depth:
            case Plane::Exposure:
                store(d, depth_texel(f, s));
                break;
            case Plane::Motion:
                if (in_bytes == 4) {
                    std::memcpy(d, s, 4);
                } else {
                    store(d, float_to_half(load<float>(s)));
                    store(d + 2, float_to_half(load<float>(s + 4)));
                }
                break;
            case Plane::Output:
                return false;
            }
        }
    }
    return true;
}

bool convert_from_canonical(uint32_t format, const void* src, uint32_t width, uint32_t height, void* dst,
                            size_t dst_pitch) {
    if (!accepted(Plane::Output, format)) return false;
    const Dxgi f = static_cast<Dxgi>(format);
    const size_t out_bytes = texel_bytes(format);
    if (is_canonical(Plane::Output, f)) {
        for (uint32_t y = 0; y < height; ++y)
            std::memcpy(static_cast<uint8_t*>(dst) + y * dst_pitch,
                        static_cast<const uint8_t*>(src) + size_t(y) * width * 8, size_t(width) * 8);
        return true;
    }
    const bool floats = f != Dxgi::R11G11B10_Float; // it rounds the halves themselves
    for (uint32_t y = 0; y < height; ++y) {
        const uint8_t* s = static_cast<const uint8_t*>(src) + size_t(y) * width * 8;
        uint8_t* d = static_cast<uint8_t*>(dst) + y * dst_pitch;
        for (uint32_t x = 0; x < width; ++x, s += 8, d += out_bytes) {
            uint16_t h[4];
            std::memcpy(h, s, 8);
            float v[4] = {};
            if (floats)
                for (int c = 0; c < 4; ++c) v[c] = half_to_float(h[c]);
            switch (f) {
            case Dxgi::R32G32B32A32_Float:
                std::memcpy(d, v, 16);
                break;
            case Dxgi::R11G11B10_Float:
                store(d, half_to_small_float<6>(h[0]) | (half_to_small_float<6>(h[1]) << 11) |
                             (half_to_small_float<5>(h[2]) << 22));
                break;
            case Dxgi::R10G10B10A2_Unorm:
                store(d,
                      to_unorm10(v[0]) | (to_unorm10(v[1]) << 10) | (to_unorm10(v[2]) << 20) | (to_unorm2(v[3]) << 30));
                break;
            case Dxgi::R8G8B8A8_Unorm:
                for (int c = 0; c < 4; ++c) d[c] = to_unorm8(v[c]);
                break;
            case Dxgi::B8G8R8A8_Unorm:
                d[0] = to_unorm8(v[2]), d[1] = to_unorm8(v[1]), d[2] = to_unorm8(v[0]), d[3] = to_unorm8(v[3]);
                break;
            case Dxgi::R8G8B8A8_Unorm_Srgb:
                for (int c = 0; c < 3; ++c) d[c] = to_unorm8(linear_to_srgb(std::clamp(v[c], 0.0f, 1.0f)));
                d[3] = to_unorm8(v[3]);
                break;
            case Dxgi::B8G8R8A8_Unorm_Srgb:
                for (int c = 0; c < 3; ++c) d[2 - c] = to_unorm8(linear_to_srgb(std::clamp(v[c], 0.0f, 1.0f)));
                d[3] = to_unorm8(v[3]);
                break;
            default:
                return false;
            }
        }
    }
    return true;
}

} // namespace d4r::shim
