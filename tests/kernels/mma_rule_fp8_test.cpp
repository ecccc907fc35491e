// kernels/common/mma_rule.h's FP8 step (step_fp8, with e4m3_to_f16 and add_f16), which the AMD accuracy kernels'
// d4r_nn_linear_fp8 computes, against ptxsim's model of sm_90's m16n8k32 e4m3 mma (numerics::mma::dot_fp8), on random
// and special inputs.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include "kernels/common/mma_rule.h"
#include "kernels/refine/ptx/refine_math.h"
#include "numerics/mma_numerics.h"

namespace d4r::kernels {
namespace {

namespace pm = numerics::mma;
using Bytes = std::array<uint8_t, 32>;

uint16_t reference(const Bytes& a, const Bytes& b, uint16_t c) {
    std::array<pm::Elem, 32> x, y;
    for (int k = 0; k < 32; ++k) {
        x[k] = pm::decode(a[k], pm::Format::E4M3);
        y[k] = pm::decode(b[k], pm::Format::E4M3);
    }
    return static_cast<uint16_t>(pm::dot_fp8(x.data(), y.data(), c, true));
}

uint16_t rule(const Bytes& a, const Bytes& b, uint16_t c) {
    std::array<uint16_t, 32> x, y;
    for (int k = 0; k < 32; ++k) {
        x[k] = mma_rule::e4m3_to_f16(a[k]);
        y[k] = mma_rule::e4m3_to_f16(b[k]);
    }
    return mma_rule::step_fp8(x.data(), y.data(), c);
}

struct Counts {
    int checked = 0, mismatches = 0;
};

void check(Counts& n, const Bytes& a, const Bytes& b, uint16_t c) {
    const uint16_t want = reference(a, b, c), got = rule(a, b, c);
    ++n.checked;
    if (want != got && ++n.mismatches <= 5) {
        std::string in;
        for (int k = 0; k < 32; ++k) in += " " + std::to_string(a[k]) + "*" + std::to_string(b[k]);
        ADD_FAILURE() << "c=" << c << in << ": ptxsim " << want << ", mma_rule " << got;
    }
}

// An e4m3 byte of random sign, exponent field in [lo, hi] and mantissa (never NaN).
uint8_t e4m3_in(std::mt19937& rng, uint32_t lo, uint32_t hi) {
    const uint32_t e = std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    uint32_t m = rng() & 7u;
    if (e == 15u && m == 7u) m = 6u;
    return static_cast<uint8_t>((rng() & 0x80u) | (e << 3) | m);
}

TEST(MmaRuleFp8, E4m3ToF16IsPtxsimsConversionForEveryByte) {
    for (uint32_t v = 0; v < 256; ++v) {
        const uint16_t want = pm::fp8_to_f16(static_cast<uint8_t>(v), false);
        EXPECT_EQ(mma_rule::e4m3_to_f16(static_cast<uint8_t>(v)), want) << v;
        // Every finite e4m3 value survives the activations' rounding (half_to_e4m3) unchanged.
        if ((v & 0x7fu) != 0x7fu) {
            EXPECT_EQ(refine::math::half_to_e4m3(want), v) << v;
        }
    }
}

TEST(MmaRuleFp8, AddF16IsAnIeeeAddRoundedToNearestEven) {
    std::mt19937 rng(3);
    int mismatches = 0;
    auto one = [&](uint16_t a, uint16_t b) {
        const uint16_t want = static_cast<uint16_t>(pm::ieee_add(a, b, true)), got = mma_rule::add_f16(a, b);
        if (want != got && ++mismatches <= 5) ADD_FAILURE() << a << " + " << b << ": ptxsim " << want << ", " << got;
    };
    for (int i = 0; i < 400000; ++i) {
        const uint16_t a = static_cast<uint16_t>(rng());
        // Half of the pairs close in exponent (cancellation and ties), half anything.
        const uint16_t b =
            i % 2 ? static_cast<uint16_t>(rng()) : static_cast<uint16_t>((a ^ (rng() & 0x8000u)) + (rng() % 64) - 32);
        one(a, b);
    }
    const std::array<uint16_t, 12> specials{0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400,
                                            0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00};
    for (uint16_t a : specials)
        for (uint16_t b : specials) one(a, b);
    one(0x7e00, 0x3c00);
    one(0x3c00, 0xfe01);
    EXPECT_EQ(mismatches, 0);
}

TEST(MmaRuleFp8, StepAgreesWithPtxsimOnRandomBytesNaNIncluded) {
    std::mt19937 rng(4);
    Counts n;
    Bytes a, b;
    for (int i = 0; i < 60000; ++i) {
        for (int k = 0; k < 32; ++k) {
            a[k] = static_cast<uint8_t>(rng());
            b[k] = static_cast<uint8_t>(rng());
        }
        check(n, a, b, static_cast<uint16_t>(rng()));
    }
    EXPECT_EQ(n.mismatches, 0) << "of " << n.checked;
}

TEST(MmaRuleFp8, StepAgreesWithPtxsimOnFiniteValuesThatCancelRoundAndOverflow) {
    std::mt19937 rng(5);
    Counts n;
    Bytes a, b;
    // Exponent fields: the network's (around 1), every one, denormals and small, large (f16 overflow).
    const std::array<std::array<uint32_t, 2>, 4> ranges{{{5, 9}, {0, 15}, {0, 3}, {12, 15}}};
    for (const auto& r : ranges)
        for (int i = 0; i < 30000; ++i) {
            for (int k = 0; k < 32; ++k) {
                a[k] = e4m3_in(rng, r[0], r[1]);
                b[k] = (i % 7 == 0 && k % 2) ? static_cast<uint8_t>(a[k] ^ 0x80u) : e4m3_in(rng, r[0], r[1]);
                if (i % 5 == 0 && k > 20) a[k] = 0;      // partial rows
                if (i % 11 == 0 && k % 4 >= 2) b[k] = 0; // one pass empty
            }
            // The accumulator: +0 (the first step), a running f16 sum of the same scale, or anything finite.
            uint16_t c = 0;
            if (i % 3 == 1) c = mma_rule::e4m3_to_f16(e4m3_in(rng, r[0], r[1])) ^ static_cast<uint16_t>(rng() & 0x3fu);
            if (i % 3 == 2) c = static_cast<uint16_t>(rng() & 0xfbffu);
            check(n, a, b, c);
        }
    EXPECT_EQ(n.mismatches, 0) << "of " << n.checked;
}

TEST(MmaRuleFp8, StepSpecialCases) {
    Bytes a{}, b{};
    // All zeros onto -0: -0 + +0 = +0; onto +0: +0.
    EXPECT_EQ(rule(a, b, 0x8000u), 0u);
    EXPECT_EQ(reference(a, b, 0x8000u), 0u);
    // 1 * 1 at k = 0 (pass 1) and 2 * 1 at k = 2 (pass 2), plus 1: 4.
    a[0] = b[0] = b[2] = 0x38u; // 1.0
    a[2] = 0x40u;               // 2.0
    EXPECT_EQ(rule(a, b, 0x3c00u), 0x4400u);
    EXPECT_EQ(reference(a, b, 0x3c00u), 0x4400u);
    // 448 * 448 overflows f16 in pass 1: infinity; onto -inf: NaN.
    a = {};
    b = {};
    a[1] = b[1] = 0x7eu;
    EXPECT_EQ(rule(a, b, 0), 0x7c00u);
    EXPECT_EQ(rule(a, b, 0xfc00u), 0x7fffu);
    EXPECT_EQ(reference(a, b, 0xfc00u), 0x7fffu);
    // An e4m3 NaN byte anywhere: the canonical NaN.
    a[31] = 0xffu;
    EXPECT_EQ(rule(a, b, 0), 0x7fffu);
    EXPECT_EQ(reference(a, b, 0), 0x7fffu);
    // The passes round separately: a big pass-1 product cancelled in pass 2 keeps a small pass-2 term only to 25
    // bits below pass 2's largest term; C is added last, by an IEEE add.
    a = {};
    b = {};
    a[0] = b[0] = 0x70u; // 256 (pass 1)
    a[2] = 0xf0u;        // -256 (pass 2)
    b[2] = 0x70u;
    a[3] = b[3] = 0x01u; // 2^-18 (pass 2)
    EXPECT_EQ(rule(a, b, 0x3c00u), reference(a, b, 0x3c00u));
}

} // namespace
} // namespace d4r::kernels
