// Buffer comparison (see compare.h).
#include "compare/compare.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/strings.h"

namespace d4r::compare {

namespace {

double half_to_double(uint16_t h) {
    int exp = (h >> 10) & 0x1f;
    int mant = h & 0x3ff;
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exp == 0x1f) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
    if (exp == 0) return sign * std::ldexp(double(mant), -24);
    return sign * std::ldexp(double(mant | 0x400), exp - 25);
}

// Maps float bits (WIDTH bits, sign at the top) to an unsigned order where adjacent floats differ by 1.
uint64_t ordered(uint64_t bits, unsigned width) {
    uint64_t sign = 1ull << (width - 1);
    uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
    return (bits & sign) ? (~bits & mask) : (bits | sign);
}

size_t bucket_of(uint64_t d) {
    if (d == 0) return 0;
    if (d == 1) return 1;
    if (d <= 3) return 2;
    if (d <= 15) return 3;
    if (d <= 255) return 4;
    if (d <= 65535) return 5;
    return 6;
}

struct Value {
    double value;
    bool nan;
    uint64_t key; // ordered bits
    bool zero;
};

Value load(const uint8_t* p, ElementType type) {
    switch (type) {
    case ElementType::F32: {
        uint32_t u;
        std::memcpy(&u, p, 4);
        float f;
        std::memcpy(&f, p, 4);
        return {double(f), std::isnan(f), ordered(u, 32), (u & 0x7fffffffu) == 0};
    }
    case ElementType::F16: {
        uint16_t u;
        std::memcpy(&u, p, 2);
        double v = half_to_double(u);
        return {v, std::isnan(v), ordered(u, 16), (u & 0x7fffu) == 0};
    }
    default:
        return {double(*p), false, *p, *p == 0};
    }
}

} // namespace

Expected<ElementType> parse_element_type(std::string_view text) {
    for (ElementType t : {ElementType::Bytes, ElementType::U8, ElementType::F16, ElementType::F32})
        if (iequals(text, element_type_name(t))) return t;
    return make_error(ErrorCode::Invalid, "element type '{}': expected bytes, u8, f16 or f32", text);
}

const char* element_type_name(ElementType type) {
    switch (type) {
    case ElementType::Bytes:
        return "bytes";
    case ElementType::U8:
        return "u8";
    case ElementType::F16:
        return "f16";
    case ElementType::F32:
        return "f32";
    }
    return "?";
}

size_t element_size(ElementType type) {
    switch (type) {
    case ElementType::F16:
        return 2;
    case ElementType::F32:
        return 4;
    default:
        return 1;
    }
}

bool Comparison::within(uint64_t tolerance, ElementType type) const {
    if (bytes_a != bytes_b || tail_differs) return false;
    if (type == ElementType::Bytes) return identical;
    return nan_mismatches == 0 && max_distance <= tolerance;
}

Comparison compare_buffers(std::span<const uint8_t> a, std::span<const uint8_t> b, ElementType type, double peak) {
    Comparison c;
    c.bytes_a = a.size();
    c.bytes_b = b.size();
    c.identical = a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
    size_t size = element_size(type);
    c.elements = std::min(a.size(), b.size()) / size;
    if (a.size() == b.size()) {
        c.tail_bytes = a.size() - c.elements * size;
        c.tail_differs =
            c.tail_bytes && std::memcmp(a.data() + c.elements * size, b.data() + c.elements * size, c.tail_bytes) != 0;
    }
    double sum_sq = 0, max_abs = 0;
    uint64_t finite = 0;
    for (uint64_t i = 0; i < c.elements; ++i) {
        Value x = load(a.data() + i * size, type);
        Value y = load(b.data() + i * size, type);
        uint64_t d = 0;
        if (type == ElementType::Bytes || type == ElementType::U8) {
            d = x.key > y.key ? x.key - y.key : y.key - x.key;
        } else if (x.nan || y.nan) {
            if (x.nan != y.nan) {
                c.nan_mismatches++;
                if (c.differing++ == 0) c.first_difference = i;
                continue;
            }
        } else if (!(x.zero && y.zero)) {
            d = x.key > y.key ? x.key - y.key : y.key - x.key;
        }
        c.histogram[bucket_of(d)]++;
        if (d) {
            if (c.differing++ == 0) c.first_difference = i;
            c.max_distance = std::max(c.max_distance, d);
        }
        if (std::isfinite(x.value) && std::isfinite(y.value)) {
            double e = x.value - y.value;
            sum_sq += e * e;
            finite++;
            max_abs = std::max(max_abs, std::fabs(x.value));
        }
    }
    c.peak = peak > 0 && std::isfinite(peak) ? peak : (max_abs > 0 ? max_abs : 1.0);
    double mse = finite ? sum_sq / double(finite) : 0;
    c.psnr_db = mse > 0 ? 10.0 * std::log10(c.peak * c.peak / mse) : INFINITY;
    return c;
}

std::string format_comparison(const Comparison& c, ElementType type) {
    std::string out;
    if (c.identical) return fmt::format("identical ({} bytes)\n", c.bytes_a);
    if (c.bytes_a != c.bytes_b)
        out += fmt::format("sizes differ: {} and {} bytes (compared the first {})\n", c.bytes_a, c.bytes_b,
                           c.elements * element_size(type));
    const char* unit = type == ElementType::F16 || type == ElementType::F32 ? "ulp" : "units";
    out += fmt::format("{} of {} {} elements differ", c.differing, c.elements, element_type_name(type));
    if (c.differing) out += fmt::format(" (first at element {})", c.first_difference);
    out += "\n";
    out += fmt::format("max distance: {} {}", c.max_distance, unit);
    if (c.nan_mismatches) out += fmt::format("; {} elements are NaN on one side only", c.nan_mismatches);
    if (c.tail_differs)
        out +=
            fmt::format("\nthe last {} bytes (less than one {} element) differ", c.tail_bytes, element_type_name(type));
    out += "\nhistogram:";
    for (size_t i = 0; i < kBucketNames.size(); ++i)
        if (c.histogram[i]) out += fmt::format(" {}:{}", kBucketNames[i], c.histogram[i]);
    out += "\n";
    if (std::isinf(c.psnr_db))
        out += fmt::format("PSNR: inf (peak {})\n", c.peak);
    else
        out += fmt::format("PSNR: {:.2f} dB (peak {})\n", c.psnr_db, c.peak);
    return out;
}

} // namespace d4r::compare
