// Round-to-odd integer conversion (the narrow-format rounding itself is inline in fp.h).
#include "numerics/fp.h"

#include <bit>
#include <cmath>

namespace d4r::numerics {

double u64_to_double_odd(uint64_t v) {
    int width = std::bit_width(v);
    if (width <= 53) return static_cast<double>(v);
    int shift = width - 53;
    uint64_t kept = v >> shift;
    if (v & ((1ull << shift) - 1)) kept |= 1; // sticky
    return std::ldexp(static_cast<double>(kept), shift);
}

double s64_to_double_odd(int64_t v) {
    uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    double d = u64_to_double_odd(mag);
    return v < 0 ? -d : d;
}

} // namespace d4r::numerics
