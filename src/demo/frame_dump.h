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
// With `--dump-inputs` the dump is version 2 (magic "d4rfrm2\0"): the same first 24 bytes, then the
// render size, the jitter, whether the frame used history and the number of term planes (48-byte header),
// then output and truth as above, then the core's inputs at render size (depth f32, colour RGB f16,
// motion RG f16) and the accumulate step's intermediates at output size (FrameInputs::terms,
// upscaler/accumulate_terms.h: kFrameDumpTermPlanes f16 per pixel, planes innermost).
// decode_frame_dump reads both versions and refuses anything else (wrong magic, a term plane count other
// than kFrameDumpTermPlanes, a render size above the output size, sizes that do not match the length)
// with an Invalid error naming the value.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "image/image.h"

namespace d4r::demo {

inline constexpr char kFrameDumpMagic[8] = {'d', '4', 'r', 'f', 'r', 'm', '1', '\0'};
inline constexpr char kFrameDumpMagicV2[8] = {'d', '4', 'r', 'f', 'r', 'm', '2', '\0'};
inline constexpr size_t kFrameDumpHeaderBytes = 24;
inline constexpr size_t kFrameDumpHeaderBytesV2 = 48;
inline constexpr uint32_t kFrameDumpTermPlanes = 13; // upscaler::kAccumulateTermPlanes
inline constexpr uint32_t kFrameDumpMaxSide = 65536; // larger sizes are refused (no product can wrap)

// The core's inputs and intermediates of one frame (version 2 dumps).
struct FrameInputs {
    uint32_t render_width = 0, render_height = 0;
    float jitter_x = 0, jitter_y = 0; // render pixels: render pixel (x, y) sampled the scene at x + 0.5 + jitter_x
    bool history = false;             // the frame used history (not the first frame, no Reset)
    std::vector<float> depth;         // render_width * render_height, 0 near .. 1 far
    std::vector<uint16_t> color;      // RGB f16 bits (linear, as handed to the core), render size
    std::vector<uint16_t> motion;     // RG f16 bits, render pixels, previous position = current + mv
    std::vector<uint16_t> terms;      // f16 bits, width * height * kFrameDumpTermPlanes (output size)
};

struct FrameDump {
    uint32_t width = 0, height = 0;
    float exposure = 1;
    uint32_t frame_index = 0;
    std::vector<uint16_t> output;      // RGB f16 bits, width * height * 3
    std::vector<uint16_t> truth;       // RGB f16 bits, width * height * 3
    std::optional<FrameInputs> inputs; // set: a version 2 dump
};

// The RGB halves of width * height RGBA halves (alpha dropped, bits unchanged).
std::vector<uint16_t> rgb_of_rgba_halves(std::span<const uint16_t> rgba);
// The RGB halves of an image with at least 3 channels (rounded to nearest even).
std::vector<uint16_t> rgb_halves(const image::Image& image);

// Version 1, or version 2 when dump.inputs is set (its vectors must have the sizes above: Invalid otherwise).
Expected<std::vector<uint8_t>> encode_frame_dump(const FrameDump& dump);
Expected<FrameDump> decode_frame_dump(std::span<const uint8_t> bytes);

// "NAME-fNNN.d4rframe": the frame index with at least 3 digits.
std::string frame_dump_name(std::string_view scene, uint32_t frame_index);

} // namespace d4r::demo
