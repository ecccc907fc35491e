// d4r image: IEEE 754 binary16 ("half", f16) conversion.
//
// Promise: float_to_half rounds to nearest, ties to even, like the hardware conversion
// (cvt.rn.f16.f32): values from 65520 up become infinity, values at or below 2^-25 become (signed)
// zero, subnormal halves are produced exactly, NaN stays NaN (quiet, sign and top payload bits kept),
// infinities stay infinite. half_to_float is exact for every one of the 65536 bit patterns.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace d4r::image {

uint16_t float_to_half(float value);
float half_to_float(uint16_t bits);

std::vector<uint16_t> floats_to_halves(std::span<const float> values);
std::vector<float> halves_to_floats(std::span<const uint16_t> bits);

} // namespace d4r::image
