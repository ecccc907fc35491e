// kernels/common/mma_rule.h: the AMD accuracy kernels' mma.sync f16 step against ptxsim's implementation of the
// same measured rule (numerics/mma_numerics.h), on random and special inputs.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include "kernels/common/mma_rule.h"
#include "numerics/mma_numerics.h"

namespace d4r::kernels {
namespace {

namespace pm = numerics::mma;

uint16_t reference(const std::array<uint16_t, 16>& a, const std::array<uint16_t, 16>& b, uint16_t c) {
    std::array<pm::Elem, 16> x, y;
    for (int k = 0; k < 16; ++k) {
        x[k] = pm::decode(a[k], pm::Format::F16);
        y[k] = pm::decode(b[k], pm::Format::F16);
    }
    return static_cast<uint16_t>(pm::dot(x.data(), y.data(), 16, pm::decode(c, pm::Format::F16), 10, true));
}

// An f16 of sign s, biased exponent in [lo, hi], random mantissa.
uint16_t f16_in(std::mt19937& rng, uint32_t lo, uint32_t hi) {
    uint32_t e = std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    return static_cast<uint16_t>((rng() & 0x8000u) | (e << 10) | (rng() & 0x3ffu));
}

struct Counts {
    int checked = 0, mismatches = 0;
};

void check(Counts& n, const std::array<uint16_t, 16>& a, const std::array<uint16_t, 16>& b, uint16_t c) {
    const uint16_t want = reference(a, b, c), got = mma_rule::step16(a.data(), b.data(), c);
    ++n.checked;
    if (want != got && ++n.mismatches <= 5) {
        std::string in;
        for (int k = 0; k < 16; ++k) in += " " + std::to_string(a[k]) + "*" + std::to_string(b[k]);
        ADD_FAILURE() << "c=" << c << in << ": ptxsim " << want << ", mma_rule " << got;
    }
}

TEST(MmaRule, AgreesWithPtxsimOnRandomBitPatternsSpecialsIncluded) {
    std::mt19937 rng(1);
    Counts n;
    std::array<uint16_t, 16> a, b;
    for (int i = 0; i < 100000; ++i) {
        for (int k = 0; k < 16; ++k) {
            a[k] = static_cast<uint16_t>(rng());
            b[k] = static_cast<uint16_t>(rng());
        }
        check(n, a, b, static_cast<uint16_t>(rng()));
    }
    EXPECT_EQ(n.mismatches, 0) << "of " << n.checked;
}

TEST(MmaRule, AgreesWithPtxsimOnFiniteValuesThatCancelRoundAndTruncate) {
    std::mt19937 rng(2);
    Counts n;
    std::array<uint16_t, 16> a, b;
    // Exponent ranges: the network's (around 1), wide (terms truncated away), tiny (subnormal results) and
    // huge (overflow to infinity).
    const std::array<std::array<uint32_t, 2>, 5> ranges{{{12, 18}, {1, 30}, {0, 6}, {26, 30}, {14, 15}}};
    for (const auto& r : ranges)
        for (int i = 0; i < 40000; ++i) {
            for (int k = 0; k < 16; ++k) {
                a[k] = f16_in(rng, r[0], r[1]);
                b[k] = (i % 7 == 0 && k % 2) ? static_cast<uint16_t>(a[k] ^ 0x8000u) : f16_in(rng, r[0], r[1]);
                if (i % 5 == 0 && k > 8) a[k] = b[k] = 0; // partial sums, as the attention's absent keys
            }
            check(n, a, b, i % 3 == 0 ? uint16_t(0) : f16_in(rng, r[0], r[1] > 0 ? r[1] : 1));
        }
    EXPECT_EQ(n.mismatches, 0) << "of " << n.checked;
}

TEST(MmaRule, SpecialCases) {
    std::array<uint16_t, 16> a{}, b{};
    // All zeros, and a negative zero accumulator: +0.
    EXPECT_EQ(mma_rule::step16(a.data(), b.data(), 0x8000u), 0u);
    EXPECT_EQ(reference(a, b, 0x8000u), 0u);
    // 1 * 1 + 1 = 2.
    a[0] = b[0] = 0x3c00u;
    EXPECT_EQ(mma_rule::step16(a.data(), b.data(), 0x3c00u), 0x4000u);
    // Truncation before rounding: 1 + 2^-11 + 2^-26 is above the halfway point between 1 and 1 + 2^-10, so an
    // IEEE sum rounds up to 0x3c01; the rule truncates 2^-26 (below 2^(0 - 25)) away, and the tie goes to even.
    a[1] = 0x3800u; // 0.5
    b[1] = 0x1400u; // 2^-10
    a[2] = 0x0400u; // 2^-14
    b[2] = 0x0c00u; // 2^-12
    EXPECT_EQ(mma_rule::step16(a.data(), b.data(), 0), 0x3c00u);
    EXPECT_EQ(reference(a, b, 0), 0x3c00u);
    b[2] = 0x1400u; // 2^-10: the term 2^-24 is kept, and the sum rounds up
    EXPECT_EQ(mma_rule::step16(a.data(), b.data(), 0), 0x3c01u);
    // inf * 0: NaN; inf - inf: NaN; inf + finite: inf.
    a = {};
    b = {};
    a[0] = 0x7c00u;
    EXPECT_EQ(mma_rule::step16(a.data(), b.data(), 0), 0x7fffu);
    b[0] = 0x3c00u;
    EXPECT_EQ(mma_rule::step16(a.data(), b.data(), 0x3c00u), 0x7c00u);
    EXPECT_EQ(mma_rule::step16(a.data(), b.data(), 0xfc00u), 0x7fffu);
    // Overflow: 256 * 256 = 65536 rounds to infinity.
    a[0] = b[0] = 0x5c00u;
    EXPECT_EQ(mma_rule::step16(a.data(), b.data(), 0), 0x7c00u);
    EXPECT_EQ(reference(a, b, 0), 0x7c00u);
}

} // namespace
} // namespace d4r::kernels
