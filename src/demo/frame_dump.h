// d4r demo: frame dumps (`d4r demo --dump-frames DIR`), training pairs for a refinement network.
//
// Promise: a .d4rframe holds one upscaled frame as the demo measured it: the open NGX core's output
// (RGB linear f16, bit for bit what the upscaler wrote, alpha dropped) and the scene's ground truth (RGB
// linear, rounded to f16 as image::float_to_half does), both at output size, with the scene's exposure
// and the frame index. Little endian (docs/demo.md, "Frame dumps"):
//     0  8 bytes  magic "d4rfrm1\0"
//     8  u32      width
//    12  u32      height
//    16  f32      exposure
//    20  u32      frame index
//    24  width * height * 3 f16   the core's output, rows top to bottom, RGB interleaved
//     …  width * height * 3 f16   the truth, same layout
// decode_frame_dump refuses anything else (wrong magic, sizes that do not match the length) with an
// Invalid error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "image/image.h"

namespace d4r::demo {

inline constexpr char kFrameDumpMagic[8] = {'d', '4', 'r', 'f', 'r', 'm', '1', '\0'};
inline constexpr size_t kFrameDumpHeaderBytes = 24;

struct FrameDump {
    uint32_t width = 0, height = 0;
    float exposure = 1;
    uint32_t frame_index = 0;
    std::vector<uint16_t> output; // RGB f16 bits, width * height * 3
    std::vector<uint16_t> truth;  // RGB f16 bits, width * height * 3
};

// The RGB halves of width * height RGBA halves (alpha dropped, bits unchanged).
std::vector<uint16_t> rgb_of_rgba_halves(std::span<const uint16_t> rgba);
// The RGB halves of an image with at least 3 channels (rounded to nearest even).
std::vector<uint16_t> rgb_halves(const image::Image& image);

std::vector<uint8_t> encode_frame_dump(const FrameDump& dump);
Expected<FrameDump> decode_frame_dump(std::span<const uint8_t> bytes);

// "NAME-fNNN.d4rframe": the frame index with at least 3 digits.
std::string frame_dump_name(std::string_view scene, uint32_t frame_index);

} // namespace d4r::demo
