// Game texture formats → the NGX core's canonical formats, and the core's output back (formats.h).
#include "shim/formats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "shim/texels.h"

namespace d4r::shim {

namespace {

// sRGB -> linear and back (IEC 61966-2-1), in double so that a result rounded to half or to 8 bits does not depend
// on which C library's pow computed it. Only the tables below use them (texels.h's conversions read the tables).
float srgb_to_linear(float c) {
    double v = c;
    return static_cast<float>(v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4));
}
float linear_to_srgb(float c) {
    double v = c;
    return static_cast<float>(v <= 0.0031308 ? v * 12.92 : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055);
}

struct FormatInfo {
    Dxgi format;
    const char* name;
};

constexpr FormatInfo kFormats[] = {
    {Dxgi::R32G32B32A32_Typeless, "R32G32B32A32_TYPELESS"},
    {Dxgi::R32G32B32A32_Float, "R32G32B32A32_FLOAT"},
    {Dxgi::R16G16B16A16_Typeless, "R16G16B16A16_TYPELESS"},
    {Dxgi::R16G16B16A16_Float, "R16G16B16A16_FLOAT"},
    {Dxgi::R32G32_Typeless, "R32G32_TYPELESS"},
    {Dxgi::R32G32_Float, "R32G32_FLOAT"},
    {Dxgi::R10G10B10A2_Typeless, "R10G10B10A2_TYPELESS"},
    {Dxgi::R10G10B10A2_Unorm, "R10G10B10A2_UNORM"},
    {Dxgi::R11G11B10_Float, "R11G11B10_FLOAT"},
    {Dxgi::R8G8B8A8_Typeless, "R8G8B8A8_TYPELESS"},
    {Dxgi::R8G8B8A8_Unorm, "R8G8B8A8_UNORM"},
    {Dxgi::R8G8B8A8_Unorm_Srgb, "R8G8B8A8_UNORM_SRGB"},
    {Dxgi::R16G16_Typeless, "R16G16_TYPELESS"},
    {Dxgi::R16G16_Float, "R16G16_FLOAT"},
    {Dxgi::R32_Typeless, "R32_TYPELESS"},
    {Dxgi::D32_Float, "D32_FLOAT"},
    {Dxgi::R32_Float, "R32_FLOAT"},
    {Dxgi::R24G8_Typeless, "R24G8_TYPELESS"},
    {Dxgi::D24_Unorm_S8_Uint, "D24_UNORM_S8_UINT"},
    {Dxgi::R24_Unorm_X8_Typeless, "R24_UNORM_X8_TYPELESS"},
    {Dxgi::R16_Typeless, "R16_TYPELESS"},
    {Dxgi::R16_Float, "R16_FLOAT"},
    {Dxgi::D16_Unorm, "D16_UNORM"},
    {Dxgi::R16_Unorm, "R16_UNORM"},
    {Dxgi::R9G9B9E5_SharedExp, "R9G9B9E5_SHAREDEXP"},
    {Dxgi::B8G8R8A8_Unorm, "B8G8R8A8_UNORM"},
    {Dxgi::B8G8R8A8_Typeless, "B8G8R8A8_TYPELESS"},
    {Dxgi::B8G8R8A8_Unorm_Srgb, "B8G8R8A8_UNORM_SRGB"},
};

const FormatInfo* info(uint32_t format) {
    for (const FormatInfo& f : kFormats)
        if (static_cast<uint32_t>(f.format) == format) return &f;
    return nullptr;
}

bool is_one_of(uint32_t format, std::initializer_list<Dxgi> list) {
    return std::any_of(list.begin(), list.end(), [&](Dxgi f) { return static_cast<uint32_t>(f) == format; });
}

} // namespace

const texels::Tables& texels::host_tables() {
    static const Tables tables = [] {
        Tables t{};
        for (int i = 0; i < 256; ++i) t.srgb_half[i] = half_of(srgb_to_linear(static_cast<float>(i) / 255));
        // threshold[k]: the first half of [0, 1] (0x0000 .. 0x3c00, increasing values) encoded as k or more.
        int k = 1;
        for (uint32_t h = 0; h <= 0x3c00u && k < 256; ++h) {
            const uint32_t code = to_unorm(linear_to_srgb(float_of_half(static_cast<uint16_t>(h))), 255);
            while (k < 256 && code >= static_cast<uint32_t>(k)) t.srgb_threshold[k++] = static_cast<uint16_t>(h);
        }
        while (k < 256) t.srgb_threshold[k++] = 0x7fffu; // never reached (255 is: linear_to_srgb(1) is 1)
        return t;
    }();
    return tables;
}

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

size_t texel_bytes(uint32_t format) { return texels::texel_bytes(format); }

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

bool convert_to_canonical(Plane plane, uint32_t format, const void* src, size_t src_pitch, uint32_t width,
                          uint32_t height, void* dst) {
    if (plane == Plane::Output || !accepted(plane, format)) return false;
    const size_t in_bytes = texel_bytes(format), out_bytes = canonical_texel_bytes(plane);
    if (canonical(plane, format)) { // accepted, so the plane's canonical bytes: a copy
        for (uint32_t y = 0; y < height; ++y)
            std::memcpy(static_cast<uint8_t*>(dst) + size_t(y) * width * out_bytes,
                        static_cast<const uint8_t*>(src) + y * src_pitch, size_t(width) * out_bytes);
        return true;
    }
    const texels::Tables& t = texels::host_tables();
    for (uint32_t y = 0; y < height; ++y) {
        const uint8_t* s = static_cast<const uint8_t*>(src) + y * src_pitch;
        uint8_t* d = static_cast<uint8_t*>(dst) + size_t(y) * width * out_bytes;
        for (uint32_t x = 0; x < width; ++x, s += in_bytes, d += out_bytes)
            texels::to_canonical(plane, format, s, d, t);
    }
    return true;
}

bool convert_from_canonical(uint32_t format, const void* src, uint32_t width, uint32_t height, void* dst,
                            size_t dst_pitch) {
    if (!accepted(Plane::Output, format)) return false;
    const size_t out_bytes = texel_bytes(format);
    if (canonical(Plane::Output, format)) {
        for (uint32_t y = 0; y < height; ++y)
            std::memcpy(static_cast<uint8_t*>(dst) + y * dst_pitch,
                        static_cast<const uint8_t*>(src) + size_t(y) * width * 8, size_t(width) * 8);
        return true;
    }
    const texels::Tables& t = texels::host_tables();
    for (uint32_t y = 0; y < height; ++y) {
        const uint8_t* s = static_cast<const uint8_t*>(src) + size_t(y) * width * 8;
        uint8_t* d = static_cast<uint8_t*>(dst) + y * dst_pitch;
        for (uint32_t x = 0; x < width; ++x, s += 8, d += out_bytes)
            if (!texels::from_canonical(format, s, d, t)) return false;
    }
    return true;
}

} // namespace d4r::shim
