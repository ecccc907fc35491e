// d4r image: spatial resampling, the baseline the temporal upscaler is compared against.
//
// Promise: resize_bilinear and resize_bicubic map every channel of an image to a target size with
// pixel centres aligned: output pixel x samples the source at s = (x + 0.5) * src_w / dst_w - 0.5
// (likewise y), taps beyond the border are clamped to the edge pixel. Bicubic is the Keys cubic
// convolution kernel with a = -0.5 (Catmull-Rom), separable, 4x4 taps; it reproduces linear ramps
// exactly away from the borders and may overshoot near edges (values are not clamped; tonemap
// clamps negatives). Neither prefilters, so they are meant for upscaling. An empty source or target
// gives an empty image.
#pragma once

#include <cstdint>

#include "image/image.h"

namespace d4r::image {

Image resize_bilinear(const Image& source, uint32_t width, uint32_t height);
Image resize_bicubic(const Image& source, uint32_t width, uint32_t height);

} // namespace d4r::image
