#include "image/half.h"

#include <bit>
#include <cmath>

namespace d4r::image {

namespace {

// Shifts `value` right by `shift` bits rounding to nearest, ties to even.
uint32_t shift_round_even(uint32_t value, uint32_t shift) {
    uint32_t result = value >> shift;
    uint32_t remainder = value & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
    return result;
}

} // namespace

uint16_t float_to_half(float value) {
    uint32_t bits = std::bit_cast<uint32_t>(value);
    uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
    uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude >= 0x7f800000u) {
        if (magnitude > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu)); // NaN
        return uint16_t(sign | 0x7c00u);
    }
    if (magnitude >= 0x477ff000u) return uint16_t(sign | 0x7c00u); // >= 65520: rounds past 65504
    if (magnitude < 0x38800000u) {                                 // below 2^-14: a subnormal half
        if (magnitude <= 0x33000000u) return sign;                 // <= 2^-25 rounds to zero (tie -> even 0)
        uint32_t exponent = magnitude >> 23;
        uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
        // value = mantissa * 2^(exponent - 150); in units of 2^-24 that is mantissa >> (126 - exponent).
        return uint16_t(sign | shift_round_even(mantissa, 126 - exponent)); // may carry into 0x0400: correct
    }
    // Normal: rebias the exponent (127 -> 15) and drop 13 mantissa bits; a carry moves into the exponent.
    return uint16_t(sign | shift_round_even(magnitude - 0x38000000u, 13));
}

float half_to_float(uint16_t bits) {
    uint32_t sign = uint32_t(bits & 0x8000u) << 16;
    uint32_t exponent = (bits >> 10) & 0x1fu;
    uint32_t mantissa = bits & 0x3ffu;
    if (exponent == 0) {
        float magnitude = float(mantissa) * 0x1p-24f; // exact: at most 10 significant bits, a power-of-two scale
        return std::bit_cast<float>(std::bit_cast<uint32_t>(magnitude) | sign);
    }
    if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

std::vector<uint16_t> floats_to_halves(std::span<const float> values) {
    std::vector<uint16_t> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) out[i] = float_to_half(values[i]);
    return out;
}

std::vector<float> halves_to_floats(std::span<const uint16_t> bits) {
    std::vector<float> out(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) out[i] = half_to_float(bits[i]);
    return out;
}

} // namespace d4r::image
