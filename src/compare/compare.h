// d4r compare: how far apart two output buffers are (docs/runtime.md, "Observability": identical bytes, f16/f32 ulp
// statistics, PSNR), for replay outputs and any kernel result.
//
// Promise: compare_buffers() is exact and total: every element is classified (equal, N ulps apart, or a
// NaN on one side only), ±0 count as equal, two NaNs count as equal values (the bytes may still differ:
// `identical` says whether they do), and sizes that differ are a result, not an error. Bytes after the last
// whole element (a 6-byte f32 file) are compared as bytes: when they differ the buffers are not within
// any tolerance. The PSNR is over
// the elements finite on both sides, with the peak given or else the largest magnitude in A.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/status.h"

namespace d4r::compare {

enum class ElementType { Bytes, U8, F16, F32 };
Expected<ElementType> parse_element_type(std::string_view text); // "bytes", "u8", "f16", "f32"
const char* element_type_name(ElementType type);
size_t element_size(ElementType type);

// Histogram buckets of the distance between corresponding elements (ulps for floats, units for u8).
inline constexpr std::array<const char*, 7> kBucketNames = {"0", "1", "2-3", "4-15", "16-255", "256-65535", ">65535"};

struct Comparison {
    uint64_t bytes_a = 0, bytes_b = 0;
    bool identical = false;        // same size and same bytes
    uint64_t elements = 0;         // compared (the shorter buffer's whole elements)
    uint64_t differing = 0;        // elements whose values differ
    uint64_t nan_mismatches = 0;   // a NaN on one side only
    uint64_t max_distance = 0;     // largest distance among elements that are not NaN mismatches
    uint64_t first_difference = 0; // index of the first differing element (valid when differing > 0)
    uint64_t tail_bytes = 0;       // bytes after the last whole element (equal sizes only)
    bool tail_differs = false;     //   and whether they differ
    std::array<uint64_t, kBucketNames.size()> histogram{};
    double psnr_db = 0; // +inf when no finite element differs
    double peak = 0;

    // Within TOLERANCE: same size, same trailing bytes, no NaN mismatch, every distance <= TOLERANCE (for
    // bytes: identical).
    bool within(uint64_t tolerance, ElementType type) const;
};

// PEAK <= 0 (or not a finite number): the largest finite magnitude of A (1 when A has none). The CLI
// refuses such a --peak before it gets here.
Comparison compare_buffers(std::span<const uint8_t> a, std::span<const uint8_t> b, ElementType type, double peak = 0);

// A few lines for people: verdict, sizes, histogram, max distance, PSNR.
std::string format_comparison(const Comparison& c, ElementType type);

} // namespace d4r::compare
