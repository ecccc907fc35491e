// d4r NGX shim: the game's texture formats and their conversion to the NGX core's canonical formats.
//
// Promise: pure CPU code with no Windows dependency (unit-tested on Linux, used by d4r_nvngx.dll). Formats
// are DXGI_FORMAT numbers (public values, declared here so that Linux builds need no Windows header). For
// each plane (colour, depth, motion vectors, exposure, output) `accepted(plane, format)` says whether the
// shim converts it; `convert_to_canonical` turns rows of that format into the canonical layout — colour
// RGBA16F, depth R32F, motion RG16F, exposure R32F — and `convert_from_canonical` turns the core's RGBA16F
// output into the game's output format. Conversions are exact where the canonical format can hold the
// value (RGBA16F colour stays bit for bit, 8- and 10-bit UNORM values, R11G11B10F and R9G9B9E5 are exact in
// half precision, sRGB is decoded to linear as a sampler would); from float, halves round to nearest even.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace d4r::shim {

// DXGI_FORMAT values the shim knows.
enum class Dxgi : uint32_t {
    Unknown = 0,
    R32G32B32A32_Typeless = 1,
    R32G32B32A32_Float = 2,
    R16G16B16A16_Typeless = 9,
    R16G16B16A16_Float = 10,
    R32G32_Typeless = 15,
    R32G32_Float = 16,
    R10G10B10A2_Typeless = 23,
    R10G10B10A2_Unorm = 24,
    R11G11B10_Float = 26,
    R8G8B8A8_Typeless = 27,
    R8G8B8A8_Unorm = 28,
    R8G8B8A8_Unorm_Srgb = 29,
    R16G16_Typeless = 33,
    R16G16_Float = 34,
    R32_Typeless = 39,
    D32_Float = 40,
    R32_Float = 41,
    R24G8_Typeless = 44,
    D24_Unorm_S8_Uint = 45,
    R24_Unorm_X8_Typeless = 46,
    R16_Typeless = 53,
    R16_Float = 54,
    D16_Unorm = 55,
    R16_Unorm = 56,
    R9G9B9E5_SharedExp = 67,
    B8G8R8A8_Unorm = 87,
    B8G8R8A8_Typeless = 90,
    B8G8R8A8_Unorm_Srgb = 91,
};

enum class Plane { Color, Depth, Motion, Exposure, Output };

const char* plane_name(Plane plane);
// "R16G16B16A16_FLOAT (10)", or "DXGI format 123" for one the shim does not know.
std::string format_name(uint32_t format);
// Bytes per texel of a format the shim accepts for some plane (0 for others).
size_t texel_bytes(uint32_t format);
bool accepted(Plane plane, uint32_t format);
// Bytes per texel of the canonical layout of a plane (colour and output 8, depth 4, motion 4, exposure 4).
size_t canonical_texel_bytes(Plane plane);
// True when FORMAT's texels are the plane's canonical bytes (the conversion is a copy): colour and output
// R16G16B16A16 FLOAT or TYPELESS, depth D32_FLOAT, R32_FLOAT or R32_TYPELESS, motion R16G16 FLOAT or TYPELESS,
// exposure R32 FLOAT or TYPELESS.
bool canonical(Plane plane, uint32_t format);

// Converts WIDTH x HEIGHT texels of FORMAT (rows SRC_PITCH bytes apart) into the plane's canonical layout,
// rows packed (WIDTH * canonical_texel_bytes apart). False for a format the plane does not accept.
bool convert_to_canonical(Plane plane, uint32_t format, const void* src, size_t src_pitch, uint32_t width,
                          uint32_t height, void* dst);
// Converts packed RGBA16F rows into the output format (rows DST_PITCH apart). False for a format the
// output plane does not accept.
bool convert_from_canonical(uint32_t format, const void* src, uint32_t width, uint32_t height, void* dst,
                            size_t dst_pitch);

} // namespace d4r::shim
