// Rows of f16 values to f32 and back for the refine network's CPU kernels, with the bits of kernels/common/f16.h's
// half_to_float and float_to_half (round to nearest even, a NaN becomes 0x7fff) but eight at a time through the
// CPU's F16C conversions where it has them (vcvtph2ps and vcvtps2ph are exact; only their NaN differs, and is
// rewritten), the scalar functions otherwise.
#pragma once

#include <cstddef>
#include <cstdint>

namespace d4r::refine_cpu {

void halves_to_floats(const uint16_t* in, float* out, size_t count);
void floats_to_halves(const float* in, uint16_t* out, size_t count);

} // namespace d4r::refine_cpu
