// Buffer comparison: verdicts, ulp distances, histograms and PSNR on inputs whose answers are worked
// out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "compare/compare.h"

using namespace d4r::compare;

namespace {

template <typename T>
std::span<const uint8_t> bytes_of(const std::vector<T>& v) {
    return {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)};
}

float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

} // namespace

TEST(Compare, IdenticalBuffers) {
    std::vector<float> a = {1.0f, -2.5f, 1e30f};
    Comparison c = compare_buffers(bytes_of(a), bytes_of(a), ElementType::F32);
    EXPECT_TRUE(c.identical);
    EXPECT_EQ(c.differing, 0u);
    EXPECT_TRUE(std::isinf(c.psnr_db));
    EXPECT_TRUE(c.within(0, ElementType::F32));
    EXPECT_EQ(c.histogram[0], 3u);
}

TEST(Compare, UlpDistancesAcrossZeroAndExponents) {
    // 1.0 and its successor: 1 ulp. 0x3f800000 vs 0x3f800004: 4 ulps. 2.0 vs its predecessor 0x3fffffff:
    // 1 ulp across the exponent step. +0 vs -0: equal values. The smallest subnormal vs its negation: 3
    // steps of the order (-0 and +0 are two points of it).
    std::vector<float> a = {1.0f, 1.0f, 2.0f, 0.0f, from_bits(0x00000001)};
    std::vector<float> b = {from_bits(0x3f800001), from_bits(0x3f800004), from_bits(0x3fffffff), -0.0f,
                            from_bits(0x80000001)};
    Comparison c = compare_buffers(bytes_of(a), bytes_of(b), ElementType::F32);
    EXPECT_FALSE(c.identical);
    EXPECT_EQ(c.differing, 4u); // the zeros are equal values
    EXPECT_EQ(c.first_difference, 0u);
    EXPECT_EQ(c.max_distance, 4u);
    EXPECT_EQ(c.histogram[0], 1u); // the zeros
    EXPECT_EQ(c.histogram[1], 2u); // 1 ulp twice
    // 0x00000001 -> 0x80000001 in the order: 0x80000001 vs 0x7ffffffe: 3 steps.
    EXPECT_EQ(c.histogram[2], 1u);
    EXPECT_EQ(c.histogram[3], 1u); // 4 ulps
    EXPECT_TRUE(c.within(4, ElementType::F32));
    EXPECT_FALSE(c.within(3, ElementType::F32));
}

TEST(Compare, NanOnOneSideIsAMismatchAndTwoNansAreEqual) {
    std::vector<float> a = {NAN, NAN, 3.0f};
    std::vector<float> b = {from_bits(0x7fc00001), 1.0f, 3.0f};
    Comparison c = compare_buffers(bytes_of(a), bytes_of(b), ElementType::F32);
    EXPECT_FALSE(c.identical); // the payloads differ
    EXPECT_EQ(c.nan_mismatches, 1u);
    EXPECT_EQ(c.differing, 1u);
    EXPECT_EQ(c.first_difference, 1u);
    EXPECT_FALSE(c.within(1000000, ElementType::F32));
}

TEST(Compare, PsnrOfAKnownError) {
    // Peak 1, every element off by 0.01: MSE 1e-4, PSNR = 10 log10(1 / 1e-4) = 40 dB.
    std::vector<float> a(100, 1.0f), b(100, 0.99f);
    Comparison c = compare_buffers(bytes_of(a), bytes_of(b), ElementType::F32);
    EXPECT_NEAR(c.psnr_db, 40.0, 0.01);
    EXPECT_EQ(c.peak, 1.0);
    Comparison c2 = compare_buffers(bytes_of(a), bytes_of(b), ElementType::F32, 10.0);
    EXPECT_NEAR(c2.psnr_db, 60.0, 0.01);
}

TEST(Compare, HalfPrecision) {
    // 1.0 = 0x3c00, next = 0x3c01; -1.0 = 0xbc00 vs 1.0: 0xbc00 orders at 0x43ff, 1.0 at 0xbc00: 0x7801 apart.
    std::vector<uint16_t> a = {0x3c00, 0x3c00, 0x7e00};
    std::vector<uint16_t> b = {0x3c01, 0xbc00, 0x7e01};
    Comparison c = compare_buffers(bytes_of(a), bytes_of(b), ElementType::F16);
    EXPECT_EQ(c.differing, 2u);
    EXPECT_EQ(c.max_distance, 0x7801u);
    EXPECT_EQ(c.nan_mismatches, 0u); // two NaNs
}

TEST(Compare, SizesThatDifferAreAResult) {
    std::vector<uint8_t> a = {1, 2, 3, 4}, b = {1, 2, 3};
    Comparison c = compare_buffers(bytes_of(a), bytes_of(b), ElementType::U8);
    EXPECT_FALSE(c.identical);
    EXPECT_EQ(c.elements, 3u);
    EXPECT_EQ(c.differing, 0u);
    EXPECT_FALSE(c.within(255, ElementType::U8));
    EXPECT_NE(format_comparison(c, ElementType::U8).find("sizes differ: 4 and 3 bytes"), std::string::npos);
}

TEST(Compare, ElementTypeNames) {
    EXPECT_EQ(*parse_element_type("F32"), ElementType::F32);
    auto bad = parse_element_type("f64");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message().find("expected bytes, u8, f16 or f32"), std::string::npos);
}

// Bytes short of a whole element are compared too (issue 14, item 20: two 6-byte files that differ only
// in their last 2 bytes passed as f32 within any tolerance).
TEST(Compare, TrailingBytesShortOfAnElementMustMatch) {
    std::vector<uint8_t> a = {0, 0, 0x80, 0x3f, 1, 2}, b = {0, 0, 0x80, 0x3f, 1, 3};
    Comparison c = compare_buffers(bytes_of(a), bytes_of(b), ElementType::F32);
    EXPECT_FALSE(c.identical);
    EXPECT_EQ(c.elements, 1u);
    EXPECT_EQ(c.differing, 0u);
    EXPECT_TRUE(c.tail_differs);
    EXPECT_EQ(c.tail_bytes, 2u);
    EXPECT_FALSE(c.within(UINT64_MAX, ElementType::F32));
    EXPECT_NE(format_comparison(c, ElementType::F32).find("the last 2 bytes (less than one f32 element) differ"),
              std::string::npos)
        << format_comparison(c, ElementType::F32);
    Comparison same = compare_buffers(bytes_of(a), bytes_of(a), ElementType::F32);
    EXPECT_TRUE(same.within(0, ElementType::F32));
}

TEST(Compare, PeakThatIsNotAPositiveFiniteNumberFallsBackToA) {
    std::vector<float> a = {4.0f, -8.0f}, b = {4.0f, -7.0f};
    for (double peak : {0.0, -1.0, std::nan(""), double(INFINITY)}) {
        Comparison c = compare_buffers(bytes_of(a), bytes_of(b), ElementType::F32, peak);
        EXPECT_EQ(c.peak, 8.0) << peak;
        EXPECT_TRUE(std::isfinite(c.psnr_db)) << peak;
    }
}
