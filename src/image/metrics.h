// d4r image: quality metrics against a reference, and an error heat map.
//
// Promise: all three take DISPLAY images (tonemap() output, values in [0,1]) of equal size and
// channel count, and give Invalid naming both sizes otherwise.
//   psnr:  MSE = mean over every pixel and every colour channel (the first min(3, channels)) of
//          (a - b)^2; PSNR = 10 * log10(1 / MSE) dB (peak 1.0); +infinity when MSE == 0.
//   ssim:  Wang et al. 2004 SSIM on luma Y = 0.2126 R + 0.7152 G + 0.0722 B (1-channel images use
//          their channel), Gaussian window 11x11 with sigma 1.5 (normalised), borders clamped to the
//          edge so every pixel contributes, C1 = (0.01 L)^2, C2 = (0.03 L)^2, L = 1; the mean of the
//          SSIM map. 1 for identical images.
//   error_map: per pixel e = mean over colour channels of |a - b|, times `scale`, clamped to [0,1],
//          mapped to a heat colour (black -> blue -> red -> yellow -> white); a 3-channel display
//          image ready for write_png.
#pragma once

#include "core/status.h"
#include "image/image.h"

namespace d4r::image {

Expected<double> psnr(const Image& a, const Image& b);
Expected<double> ssim(const Image& a, const Image& b);
Expected<Image> error_map(const Image& a, const Image& b, float scale = 4.0f);

// The heat colour of e in [0,1] (out-of-range values clamped), as used by error_map.
void heat_color(float e, float rgb[3]);

} // namespace d4r::image
