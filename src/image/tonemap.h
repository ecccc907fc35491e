// d4r image: from linear HDR scene colour to display values and 8-bit pixels.
//
// Promise: one fixed, documented display transform used for every PNG and every metric, so that
// images and numbers compare like with like:
//     display = srgb_encode(reinhard(max(0, linear * exposure)))   per R, G, B channel
// where reinhard(x) = x / (1 + x) (maps [0, inf) onto [0, 1), keeps HDR highlights from clipping)
// and srgb_encode is the sRGB transfer function (IEC 61966-2-1). NaN input counts as 0. Alpha is
// dropped: display images have 3 channels. to_8bit() quantises [0,1] to 0..255 by round(v * 255)
// after clamping.
#pragma once

#include <cstdint>
#include <vector>

#include "image/image.h"

namespace d4r::image {

float srgb_encode(float linear); // [0,1] -> [0,1]
float reinhard(float x);         // x / (1 + x), x >= 0
float tonemap_value(float linear, float exposure);

// Display image (3 channels, [0,1]) of a linear image with at least 3 channels (1-channel images
// are replicated to grey).
Image tonemap(const Image& linear, float exposure);

// Interleaved 8-bit values of a display image, same channel count.
std::vector<uint8_t> to_8bit(const Image& display);

} // namespace d4r::image
