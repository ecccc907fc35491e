// kernels/common/wmma_layout.h: AMD's WMMA register layouts (gfx11, gfx12), the gfx12 K-order convention, and the
// lane conversions of the gfx12 layout shim and of attention's P, on a host model of the registers.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>

#include "kernels/common/wmma_layout.h"

namespace d4r::kernels::wmma {
namespace {

using Matrix = std::array<std::array<int32_t, 16>, 16>;
using Operand = std::array<std::array<int32_t, 16>, 32>; // [lane][slot]
using Acc = std::array<std::array<int32_t, 8>, 32>;

constexpr std::array<Arch, 2> kArchs{Arch::Gfx11, Arch::Gfx12};
constexpr std::array<KOrder, 2> kOrders{KOrder::Halves, KOrder::Interleaved};

Matrix random_matrix(std::mt19937& rng) {
    Matrix m;
    for (auto& row : m)
        for (auto& v : row) v = static_cast<int32_t>(rng() % 17) - 8;
    return m;
}

// The loaders of the kernels, on the host: A[m][k] and B[k][n] into their registers.
Operand load_a(Arch arch, const Matrix& a, KOrder order = kGfx12KOrder) {
    Operand r{};
    for (uint32_t l = 0; l < kWave; ++l)
        for (uint32_t s = 0; s < operand_slots(arch); ++s) {
            Coord c = a_coord(arch, l, s, order);
            r[l][s] = a[c.row][c.col];
        }
    return r;
}
Operand load_b(Arch arch, const Matrix& b, KOrder order = kGfx12KOrder) {
    Operand r{};
    for (uint32_t l = 0; l < kWave; ++l)
        for (uint32_t s = 0; s < operand_slots(arch); ++s) {
            Coord c = b_coord(arch, l, s, order);
            r[l][s] = b[c.row][c.col];
        }
    return r;
}
Acc load_acc(Arch arch, const Matrix& d) {
    Acc r{};
    for (uint32_t l = 0; l < kWave; ++l)
        for (uint32_t s = 0; s < kAccSlots; ++s) {
            Coord c = d_coord(arch, l, s);
            r[l][s] = d[c.row][c.col];
        }
    return r;
}

// A model of the hardware: it reads the operand registers as its own convention `hw` says and returns D = A B.
Matrix hardware_product(Arch arch, const Operand& ra, const Operand& rb, KOrder hw) {
    Matrix a{}, b{}, d{};
    for (uint32_t l = 0; l < kWave; ++l)
        for (uint32_t s = 0; s < operand_slots(arch); ++s) {
            Coord ca = a_coord(arch, l, s, hw), cb = b_coord(arch, l, s, hw);
            a[ca.row][ca.col] = ra[l][s];
            b[cb.row][cb.col] = rb[l][s];
        }
    for (uint32_t m = 0; m < 16; ++m)
        for (uint32_t n = 0; n < 16; ++n)
            for (uint32_t k = 0; k < 16; ++k) d[m][n] += a[m][k] * b[k][n];
    return d;
}
Matrix product(const Matrix& a, const Matrix& b) {
    Matrix d{};
    for (uint32_t m = 0; m < 16; ++m)
        for (uint32_t n = 0; n < 16; ++n)
            for (uint32_t k = 0; k < 16; ++k) d[m][n] += a[m][k] * b[k][n];
    return d;
}

TEST(WmmaLayout, Gfx12OperandHoldsEveryElementExactlyOnceInEitherKOrder) {
    for (KOrder order : kOrders) {
        std::array<std::array<int, 16>, 16> seen_a{}, seen_b{};
        for (uint32_t l = 0; l < kWave; ++l)
            for (uint32_t s = 0; s < operand_slots(Arch::Gfx12); ++s) {
                Coord a = a_coord(Arch::Gfx12, l, s, order), b = b_coord(Arch::Gfx12, l, s, order);
                ASSERT_LT(a.row, 16u);
                ASSERT_LT(a.col, 16u);
                ++seen_a[a.row][a.col];
                ++seen_b[b.row][b.col];
                EXPECT_EQ(operand_slot_of_k(Arch::Gfx12, l, a.col, order), s);
            }
        for (uint32_t i = 0; i < 16; ++i)
            for (uint32_t j = 0; j < 16; ++j) {
                EXPECT_EQ(seen_a[i][j], 1) << i << "," << j;
                EXPECT_EQ(seen_b[i][j], 1) << i << "," << j;
            }
    }
}

TEST(WmmaLayout, Gfx11OperandHalvesEachHoldEveryElementOnceAndReplicateEachOther) {
    for (uint32_t half = 0; half < 2; ++half) {
        std::array<std::array<int, 16>, 16> seen{};
        for (uint32_t r = 0; r < 16; ++r)
            for (uint32_t s = 0; s < operand_slots(Arch::Gfx11); ++s) {
                const uint32_t l = half * 16 + r;
                Coord a = a_coord(Arch::Gfx11, l, s), b = b_coord(Arch::Gfx11, l, s);
                ++seen[a.row][a.col];
                EXPECT_EQ(a.row, r);
                EXPECT_EQ(b.col, r);
                EXPECT_EQ(a.col, b.row);
                Coord other = a_coord(Arch::Gfx11, l ^ 16u, s);
                EXPECT_EQ(other.row, a.row);
                EXPECT_EQ(other.col, a.col);
            }
        for (const auto& row : seen)
            for (int v : row) EXPECT_EQ(v, 1);
    }
}

TEST(WmmaLayout, AccumulatorMapsAreBijectionsAndDHomeIsTheirInverse) {
    for (Arch arch : kArchs) {
        std::array<std::array<int, 16>, 16> seen{};
        for (uint32_t l = 0; l < kWave; ++l)
            for (uint32_t s = 0; s < kAccSlots; ++s) {
                Coord c = d_coord(arch, l, s);
                ASSERT_LT(c.row, 16u);
                ASSERT_LT(c.col, 16u);
                ++seen[c.row][c.col];
                LaneSlot home = d_home(arch, c.row, c.col);
                EXPECT_EQ(home.lane, l);
                EXPECT_EQ(home.slot, s);
            }
        for (const auto& row : seen)
            for (int v : row) EXPECT_EQ(v, 1);
    }
    // The facts themselves: gfx11 slot i of lane l is row 2i + l/16, gfx12 row i + 8 (l/16); column l % 16.
    EXPECT_EQ(d_coord(Arch::Gfx11, 17, 3).row, 7u);
    EXPECT_EQ(d_coord(Arch::Gfx12, 17, 3).row, 11u);
    EXPECT_EQ(d_coord(Arch::Gfx12, 17, 3).col, 1u);
    EXPECT_EQ(d_f16_element(3), 6u);
}

TEST(WmmaLayout, Gfx12KOrderIsPinnedToRocjitsusConvention) {
    static_assert(kGfx12KOrder == KOrder::Halves);
    for (uint32_t s = 0; s < 8; ++s) {
        EXPECT_EQ(operand_k(Arch::Gfx12, 5, s), s);
        EXPECT_EQ(operand_k(Arch::Gfx12, 21, s), 8 + s);
    }
    // AMD's matrix calculator: lane r K 0-3 and 8-11, lane r + 16 K 4-7 and 12-15.
    const std::array<uint32_t, 8> low{0, 1, 2, 3, 8, 9, 10, 11}, high{4, 5, 6, 7, 12, 13, 14, 15};
    for (uint32_t s = 0; s < 8; ++s) {
        EXPECT_EQ(operand_k(Arch::Gfx12, 3, s, KOrder::Interleaved), low[s]);
        EXPECT_EQ(operand_k(Arch::Gfx12, 19, s, KOrder::Interleaved), high[s]);
    }
}

TEST(WmmaLayout, OperandsBuiltWithOneConventionGiveTheProductWhicheverTheHardwareUses) {
    std::mt19937 rng(3);
    for (int trial = 0; trial < 20; ++trial) {
        const Matrix a = random_matrix(rng), b = random_matrix(rng), want = product(a, b);
        for (KOrder built : kOrders)
            for (KOrder hw : kOrders)
                EXPECT_EQ(
                    hardware_product(Arch::Gfx12, load_a(Arch::Gfx12, a, built), load_b(Arch::Gfx12, b, built), hw),
                    want);
        EXPECT_EQ(hardware_product(Arch::Gfx11, load_a(Arch::Gfx11, a), load_b(Arch::Gfx11, b), KOrder::Halves), want);
        // The pinning matters: A and B built with different conventions pair different K.
        if (trial == 0) {
            EXPECT_NE(hardware_product(Arch::Gfx12, load_a(Arch::Gfx12, a, KOrder::Halves),
                                       load_b(Arch::Gfx12, b, KOrder::Interleaved), KOrder::Halves),
                      want);
        }
    }
}

// Runs a conversion: slot s of lane l takes slot src.slot of lane l or l ^ 16.
template <typename Out, typename In, typename Rule>
Out convert(const In& in, uint32_t slots, const Rule& rule) {
    Out out{};
    for (uint32_t l = 0; l < kWave; ++l)
        for (uint32_t s = 0; s < slots; ++s) {
            Source src = rule(l / 16, s);
            EXPECT_TRUE(src.found);
            out[l][s] = in[src.partner ? l ^ 16u : l][src.slot];
        }
    return out;
}

TEST(WmmaLayout, TheShimTurnsGfx12RegistersIntoGfx11OnesAndTheAccumulatorBothWays) {
    std::mt19937 rng(4);
    for (KOrder order : kOrders) {
        const Matrix a = random_matrix(rng), b = random_matrix(rng), c = random_matrix(rng);
        auto operand_rule = [&](uint32_t half, uint32_t s) { return shim_operand_source(half, s, order); };
        EXPECT_EQ(convert<Operand>(load_a(Arch::Gfx12, a, order), 16, operand_rule), load_a(Arch::Gfx11, a));
        EXPECT_EQ(convert<Operand>(load_b(Arch::Gfx12, b, order), 16, operand_rule), load_b(Arch::Gfx11, b));
        auto to11 = [](uint32_t half, uint32_t s) { return acc_source(Arch::Gfx12, Arch::Gfx11, half, s); };
        auto to12 = [](uint32_t half, uint32_t s) { return acc_source(Arch::Gfx11, Arch::Gfx12, half, s); };
        EXPECT_EQ(convert<Acc>(load_acc(Arch::Gfx12, c), 8, to11), load_acc(Arch::Gfx11, c));
        EXPECT_EQ(convert<Acc>(load_acc(Arch::Gfx11, c), 8, to12), load_acc(Arch::Gfx12, c));
        // The whole shim: gfx12 operands through the conversions and gfx11's product give gfx12's D.
        Operand a11 = convert<Operand>(load_a(Arch::Gfx12, a, order), 16, operand_rule);
        Operand b11 = convert<Operand>(load_b(Arch::Gfx12, b, order), 16, operand_rule);
        Acc d11 = load_acc(Arch::Gfx11, hardware_product(Arch::Gfx11, a11, b11, KOrder::Halves));
        EXPECT_EQ(convert<Acc>(d11, 8, to12), load_acc(Arch::Gfx12, product(a, b)));
    }
}

TEST(WmmaLayout, AnAccumulatorHoldingTheTransposeBecomesTheAOperand) {
    std::mt19937 rng(5);
    for (Arch arch : kArchs) {
        const Matrix a = random_matrix(rng);
        Matrix t{};
        for (uint32_t i = 0; i < 16; ++i)
            for (uint32_t j = 0; j < 16; ++j) t[j][i] = a[i][j];
        auto rule = [&](uint32_t half, uint32_t s) { return transposed_acc_to_a_source(arch, half, s); };
        Operand got = convert<Operand>(load_acc(arch, t), operand_slots(arch), rule);
        EXPECT_EQ(got, load_a(arch, a)) << (arch == Arch::Gfx11 ? "gfx11" : "gfx12");
    }
}

} // namespace
} // namespace d4r::kernels::wmma
