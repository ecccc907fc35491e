// numerics/mma_tile.h: the vector tiles of the tensor-core rule against the scalar rule (mma::dot, std::fma), bit
// for bit, on random tiles built to reach every branch of the rule: wide exponent spreads (terms truncated away),
// cancellation (sums near zero, signed zeros), denormal inputs, accumulators and results, sums at the edge of the
// f32 range; and the tiles the vector form must leave to the scalar rule (infinities, NaNs, overflow).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "numerics/mma_tile.h"
#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

namespace nm = numerics::mma;

// Raw bits of an input of FORMAT (tf32: f32 bits) with a biased exponent in [LO, HI] (0: a denormal or zero).
uint64_t input(TestRng& rng, nm::Format f, unsigned lo, unsigned hi) {
    const uint64_t r = rng.next();
    const unsigned e = lo + static_cast<unsigned>(r % (hi - lo + 1));
    const uint32_t sign = (r >> 20) & 1;
    if (f == nm::Format::F16) return (sign << 15) | (e << 10) | ((r >> 32) & 0x3ff);
    if (f == nm::Format::BF16) return (sign << 15) | (e << 7) | ((r >> 32) & 0x7f);
    return (sign << 31) | (e << 23) | ((r >> 32) & 0x7fffff);
}

uint64_t f32_bits(TestRng& rng, unsigned lo, unsigned hi) { return input(rng, nm::Format::F32, lo, hi); }

// The scalar rule for the same tile (ops_wmma.cpp's chain of dot() calls).
std::vector<uint64_t> scalar_tile(nm::Format f, bool tf32, const std::vector<uint64_t>& a,
                                  const std::vector<uint64_t>& b, const std::vector<uint64_t>& c, unsigned m,
                                  unsigned n, unsigned k, unsigned passes) {
    auto decode = [&](uint64_t bits) {
        if (!tf32) return nm::decode(static_cast<uint32_t>(bits), f);
        nm::Elem e = nm::decode(static_cast<uint32_t>(bits) & 0xffffe000u, nm::Format::F32);
        e.m >>= 13;
        return e;
    };
    const int in_man = f == nm::Format::BF16 ? 7 : 10;
    std::vector<uint64_t> d(size_t(m) * n);
    const unsigned per = k / passes;
    for (unsigned i = 0; i < m; ++i)
        for (unsigned j = 0; j < n; ++j) {
            uint32_t acc = static_cast<uint32_t>(c[i * n + j]);
            for (unsigned p = 0; p < passes; ++p) {
                nm::Elem x[32], y[32];
                for (unsigned q = 0; q < per; ++q) {
                    x[q] = decode(a[i * k + p * per + q]);
                    y[q] = decode(b[(p * per + q) * n + j]);
                }
                acc = nm::dot(x, y, static_cast<int>(per), nm::decode(acc, nm::Format::F32), in_man, false);
            }
            d[i * n + j] = acc;
        }
    return d;
}

struct Shape {
    nm::Format format;
    bool tf32;
    unsigned m, n, k, passes;
};

// Tiles of SHAPE from exponent ranges chosen by MODE; returns how many the vector form computed.
int check_tiles(const Shape& s, int tiles, nm::TileVector form) {
    TestRng rng(s.m * 131 + s.k + (s.tf32 ? 7 : 0) + static_cast<unsigned>(s.format));
    const unsigned top = s.format == nm::Format::F16 ? 30 : 254;
    int vector = 0;
    for (int t = 0; t < tiles; ++t) {
        const int mode = t % 6;
        unsigned lo = top / 4, hi = top * 5 / 8;             // wide spreads, sums inside the f32 range
        if (mode == 1) lo = 0, hi = 3;                       // denormals and tiny normals
        if (mode == 2) lo = top / 2 - 2, hi = top / 2 + 2;   // close exponents: cancellation
        if (mode == 3) lo = top - 3, hi = top;               // near the top of the range
        if (mode == 4) lo = top / 2 - 12, hi = top / 2 + 12; // truncated terms
        std::vector<uint64_t> a(size_t(s.m) * s.k), b(size_t(s.k) * s.n), c(size_t(s.m) * s.n);
        for (uint64_t& x : a) x = input(rng, s.format, lo, hi);
        for (uint64_t& x : b) x = input(rng, s.format, lo, hi);
        for (uint64_t& x : c) x = mode == 1 ? f32_bits(rng, 0, 2) : f32_bits(rng, 60, 200);
        if (mode == 5) // zeros of both signs and an exact cancellation: the sum +0
            for (size_t i = 0; i < a.size(); i += 3) a[i] = (i & 4) ? 0x8000 : 0;
        if (mode == 2)
            for (size_t i = 0; i < c.size(); ++i) c[i] = i % 2 ? 0x80000000u : 0;
        std::vector<uint64_t> d(c.size(), 0xdeadbeef);
        const bool ok = nm::tile_f32(s.format, s.tf32, a.data(), s.k, b.data(), s.n, c.data(), s.n, d.data(), s.n, s.m,
                                     s.n, s.k, s.passes, form);
        // The same tile from 32-bit words: the same answer and bits.
        const std::vector<uint32_t> a32(a.begin(), a.end()), b32(b.begin(), b.end()), c32(c.begin(), c.end());
        std::vector<uint32_t> d32(c.size(), 0xdeadbeef);
        EXPECT_EQ(nm::tile_f32(s.format, s.tf32, a32.data(), s.k, b32.data(), s.n, c32.data(), s.n, d32.data(), s.n,
                               s.m, s.n, s.k, s.passes, form),
                  ok)
            << "tile " << t;
        if (!ok) continue;
        EXPECT_EQ(std::vector<uint64_t>(d32.begin(), d32.end()), d) << "tile " << t;
        ++vector;
        const std::vector<uint64_t> want = scalar_tile(s.format, s.tf32, a, b, c, s.m, s.n, s.k, s.passes);
        for (size_t i = 0; i < d.size(); ++i)
            if (d[i] != want[i]) {
                ADD_FAILURE() << "tile " << t << " (mode " << mode << ") element " << i << ": vector " << std::hex
                              << d[i] << ", scalar " << want[i];
                return vector;
            }
    }
    return vector;
}

TEST(MmaTile, F32TilesMatchTheScalarRule) {
    if (!nm::tile_supported()) GTEST_SKIP() << "the host has no AVX2 and FMA";
    const Shape shapes[] = {
        {nm::Format::F16, false, 16, 16, 16, 1}, {nm::Format::BF16, false, 16, 16, 16, 1},
        {nm::Format::F16, false, 32, 8, 16, 1},  {nm::Format::F16, false, 8, 32, 16, 1},
        {nm::Format::F32, true, 16, 16, 8, 2},   {nm::Format::F16, false, 16, 8, 16, 1},
        {nm::Format::BF16, false, 16, 8, 8, 1},
    };
    // The widest form the host has (AVX-512 here, where it has it), and AVX2.
    for (nm::TileVector vector : {nm::TileVector::Widest, nm::TileVector::Avx2})
        for (const Shape& s : shapes) {
            SCOPED_TRACE(testing::Message() << "m" << s.m << "n" << s.n << "k" << s.k << (s.tf32 ? " tf32" : "")
                                            << (vector == nm::TileVector::Avx2 ? " avx2" : " widest"));
            // Most tiles are all finite: the vector form computes them (overflow near the top leaves some).
            EXPECT_GT(check_tiles(s, 600, vector), 450);
        }
}

TEST(MmaTile, F32TilesWithSpecialValuesAreLeftToTheScalarRule) {
    const uint64_t specials[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u};
    for (uint64_t special : specials) {
        std::vector<uint64_t> a(128, 0x3f800000u), b(128, 0x3f800000u), c(256, 0), d(256);
        b[37] = special;
        EXPECT_FALSE(
            nm::tile_f32(nm::Format::F32, true, a.data(), 8, b.data(), 16, c.data(), 16, d.data(), 16, 16, 16, 8, 2));
        b[37] = 0x3f800000u;
        c[200] = special;
        EXPECT_FALSE(
            nm::tile_f32(nm::Format::F32, true, a.data(), 8, b.data(), 16, c.data(), 16, d.data(), 16, 16, 16, 8, 2));
    }
    // Sums beyond the f32 range (the scalar rule's infinity).
    std::vector<uint64_t> a(128, 0x7f000000u), b(128, 0x40000000u), c(256, 0), d(256);
    EXPECT_FALSE(
        nm::tile_f32(nm::Format::F32, true, a.data(), 8, b.data(), 16, c.data(), 16, d.data(), 16, 16, 16, 8, 2));
}

// tile_f16 against dot() with f16 accumulators, element by element, in both vector forms: the modes of check_tiles,
// plus sums that round to infinity, ties at the f16 rounding point and results that round to -0.
int check_f16_tiles(unsigned m, unsigned n, unsigned k, int tiles, nm::TileVector form) {
    TestRng rng(m * 17 + n * 5 + k);
    int vector = 0;
    for (int t = 0; t < tiles; ++t) {
        const int mode = t % 7;
        unsigned lo = 8, hi = 19;        // wide spreads
        if (mode == 1) lo = 0, hi = 3;   // denormals and tiny normals (results round to -0 and +0)
        if (mode == 2) lo = 14, hi = 16; // close exponents: cancellation, ties
        if (mode == 3) lo = 27, hi = 30; // near the top: sums beyond 65504 (infinity)
        if (mode == 4) lo = 3, hi = 27;  // truncated terms
        if (mode == 6) lo = 12, hi = 15; // few bits: exact halves, ties to even
        std::vector<uint32_t> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n);
        for (uint32_t& x : a) x = static_cast<uint32_t>(input(rng, nm::Format::F16, lo, hi));
        for (uint32_t& x : b) x = static_cast<uint32_t>(input(rng, nm::Format::F16, lo, hi));
        for (uint32_t& x : c) x = static_cast<uint32_t>(input(rng, nm::Format::F16, mode == 1 ? 0 : lo, hi));
        if (mode == 6)
            for (std::vector<uint32_t>* x : {&a, &b})
                for (uint32_t& v : *x) v &= 0xfff0; // short significands: sums land on halves of an ulp
        if (mode == 5)                              // zeros of both signs and an exact cancellation: the sum +0
            for (size_t i = 0; i < a.size(); i += 3) a[i] = (i & 4) ? 0x8000 : 0;
        std::vector<uint32_t> d(c.size(), 0xdeadbeef);
        if (!nm::tile_f16(a.data(), k, b.data(), n, c.data(), n, d.data(), n, m, n, k, form)) continue;
        ++vector;
        for (unsigned i = 0; i < m; ++i)
            for (unsigned j = 0; j < n; ++j) {
                nm::Elem x[16], y[16];
                for (unsigned q = 0; q < k; ++q) {
                    x[q] = nm::decode(a[i * k + q], nm::Format::F16);
                    y[q] = nm::decode(b[q * n + j], nm::Format::F16);
                }
                const uint32_t want =
                    nm::dot(x, y, static_cast<int>(k), nm::decode(c[i * n + j], nm::Format::F16), 10, true);
                if (d[i * n + j] != want) {
                    ADD_FAILURE() << "tile " << t << " (mode " << mode << ") element " << i * n + j << ": vector "
                                  << std::hex << d[i * n + j] << ", scalar " << want;
                    return vector;
                }
            }
    }
    return vector;
}

TEST(MmaTile, F16AccumulatorTilesMatchTheScalarRule) {
    if (!nm::tile_supported()) GTEST_SKIP() << "the host has no AVX2, FMA and F16C";
    const unsigned shapes[][3] = {{16, 8, 16}, {16, 8, 8}, {16, 16, 16}};
    for (nm::TileVector vector : {nm::TileVector::Widest, nm::TileVector::Avx2})
        for (const auto& s : shapes) {
            SCOPED_TRACE(testing::Message() << "m" << s[0] << "n" << s[1] << "k" << s[2]
                                            << (vector == nm::TileVector::Avx2 ? " avx2" : " widest"));
            EXPECT_EQ(check_f16_tiles(s[0], s[1], s[2], 1400, vector), 1400); // all finite: the tile computes all
        }
}

TEST(MmaTile, F16AccumulatorTilesWithSpecialValuesAreLeftToTheScalarRule) {
    for (uint32_t special : {0x7c00u, 0xfc00u, 0x7e00u, 0x7c01u}) {
        std::vector<uint32_t> a(256, 0x3c00u), b(128, 0x3c00u), c(128, 0), d(128);
        b[37] = special;
        EXPECT_FALSE(nm::tile_f16(a.data(), 16, b.data(), 8, c.data(), 8, d.data(), 8, 16, 8, 16));
        b[37] = 0x3c00u;
        c[100] = special;
        EXPECT_FALSE(nm::tile_f16(a.data(), 16, b.data(), 8, c.data(), 8, d.data(), 8, 16, 8, 16));
    }
    // Other shapes are not tiles.
    std::vector<uint32_t> a(512, 0x3c00u), b(512, 0x3c00u), c(512, 0), d(512);
    EXPECT_FALSE(nm::tile_f16(a.data(), 32, b.data(), 8, c.data(), 8, d.data(), 8, 16, 8, 32));
}

TEST(MmaTile, F16RegisterTilesMatchTheScalarRuleOnTheFragments) {
    // tile_f16_m16n8k16 on registers of random f16 halves (finite; every exponent), D over C: each element of D is
    // dot() of its row of A and column of B from the PTX ISA's fragment layout (lane 4g + t: A[g][2t, 2t+1] in
    // register 0, A[g+8][..] in 1, A[g][2t+8, 2t+9] in 2, A[g+8][2t+8, ..] in 3; B[2t, 2t+1][g] in 0, B[2t+8, ..][g]
    // in 1; C and D[g][2t, 2t+1] in 0, [g+8] in 1).
    if (!nm::tile_supported()) GTEST_SKIP() << "the host has no AVX2, FMA and F16C";
    TestRng rng(12);
    auto half = [&](unsigned lo, unsigned hi) { return static_cast<uint16_t>(input(rng, nm::Format::F16, lo, hi)); };
    for (int t = 0; t < 600; ++t) {
        const nm::TileVector form = t % 2 ? nm::TileVector::Avx2 : nm::TileVector::Widest;
        const unsigned lo = t % 3 == 0 ? 0 : 10, hi = t % 3 == 2 ? 30 : 20;
        uint32_t regs[8][32];
        for (auto& r : regs)
            for (uint32_t& w : r) w = half(lo, hi) | (uint32_t(half(lo, hi)) << 16);
        auto elem = [&](unsigned r, unsigned lane, unsigned h) { return (regs[r][lane] >> (16 * h)) & 0xffffu; };
        uint32_t want[16][8];
        for (unsigned i = 0; i < 16; ++i)
            for (unsigned j = 0; j < 8; ++j) {
                nm::Elem x[16], y[16];
                for (unsigned k = 0; k < 16; ++k) {
                    x[k] = nm::decode(elem((i >= 8) + 2 * (k >= 8), 4 * (i % 8) + (k % 8) / 2, k % 2), nm::Format::F16);
                    y[k] = nm::decode(elem(4 + (k >= 8), 4 * j + (k % 8) / 2, k % 2), nm::Format::F16);
                }
                const nm::Elem c = nm::decode(elem(6 + (i >= 8), 4 * (i % 8) + j / 2, j % 2), nm::Format::F16);
                want[i][j] = nm::dot(x, y, 16, c, 10, true);
            }
        const uint32_t* const a[4] = {regs[0], regs[1], regs[2], regs[3]};
        const uint32_t* const b[2] = {regs[4], regs[5]};
        const uint32_t* const c[2] = {regs[6], regs[7]};
        uint32_t* const d[2] = {regs[6], regs[7]};
        ASSERT_TRUE(nm::tile_f16_m16n8k16(a, b, c, d, form)) << "tile " << t;
        for (unsigned i = 0; i < 16; ++i)
            for (unsigned j = 0; j < 8; ++j)
                ASSERT_EQ(elem(6 + (i >= 8), 4 * (i % 8) + j / 2, j % 2), want[i][j])
                    << "tile " << t << " row " << i << " column " << j;
    }
    // An infinity among the inputs: refused, D as it was.
    uint32_t regs[8][32] = {};
    regs[4][9] = 0x7c00;
    regs[6][0] = 0x12345678;
    const uint32_t* const a[4] = {regs[0], regs[1], regs[2], regs[3]};
    const uint32_t* const b[2] = {regs[4], regs[5]};
    const uint32_t* const c[2] = {regs[6], regs[7]};
    uint32_t* const d[2] = {regs[6], regs[7]};
    EXPECT_FALSE(nm::tile_f16_m16n8k16(a, b, c, d));
    EXPECT_EQ(regs[6][0], 0x12345678u);
}

TEST(MmaTile, F64TilesMatchFmaInKOrder) {
    if (!nm::tile_supported()) GTEST_SKIP() << "the host has no AVX2 and FMA";
    TestRng rng(5);
    int vector = 0;
    for (int t = 0; t < 4000; ++t) {
        const nm::TileVector form = t % 2 ? nm::TileVector::Avx2 : nm::TileVector::Widest;
        std::vector<uint64_t> a(32), b(32), c(64), d(64);
        auto draw = [&] {
            const uint64_t r = rng.next();
            const int mode = t % 4;
            uint64_t e = mode == 0 ? (r >> 52) % 2047 : mode == 1 ? 1023 + (r >> 52) % 8 : (r >> 52) % 3;
            if (mode == 3) e = 2046 - (r >> 52) % 2;
            return (r & 0x800fffffffffffffull) | (e << 52);
        };
        for (uint64_t& x : a) x = draw();
        for (uint64_t& x : b) x = draw();
        for (uint64_t& x : c) x = draw();
        if (t % 7 == 0) a[t % 32] = 0x7ff0000000000000ull; // infinities: inf - inf gives a NaN the tile leaves
        if (!nm::tile_f64(a.data(), 4, b.data(), 8, c.data(), 8, d.data(), 8, 8, 8, 4, form)) continue;
        ++vector;
        for (unsigned i = 0; i < 8; ++i)
            for (unsigned j = 0; j < 8; ++j) {
                double s = std::bit_cast<double>(c[i * 8 + j]);
                for (unsigned k = 0; k < 4; ++k)
                    s = std::fma(std::bit_cast<double>(a[i * 4 + k]), std::bit_cast<double>(b[k * 8 + j]), s);
                ASSERT_EQ(d[i * 8 + j], std::bit_cast<uint64_t>(s)) << "tile " << t << " element " << i * 8 + j;
            }
    }
    EXPECT_GT(vector, 3000);
    std::vector<uint64_t> a(32, 0x7ff8000000000001ull), b(32), c(64), d(64); // NaN inputs: the scalar rule
    EXPECT_FALSE(nm::tile_f64(a.data(), 4, b.data(), 8, c.data(), 8, d.data(), 8, 8, 8, 4));
    EXPECT_FALSE(nm::tile_f64(a.data(), 4, b.data(), 8, c.data(), 8, d.data(), 8, 8, 8, 4, nm::TileVector::Avx2));
}

TEST(MmaTile, F64RegisterTilesMatchTheWholeTile) {
    // tile_f64_m8n8k4 (C's and D's halves apart, as wmma's registers hold them) gives tile_f64's bits, with D in C's
    // own memory too; where it refuses (a NaN) it leaves D as it was.
    if (!nm::tile_supported()) GTEST_SKIP() << "the host has no AVX2 and FMA";
    TestRng rng(9);
    int vector = 0;
    for (int t = 0; t < 2000; ++t) {
        const nm::TileVector form = t % 2 ? nm::TileVector::Avx2 : nm::TileVector::Widest;
        std::vector<uint64_t> a(32), b(32), c(64), want(64);
        for (auto* m : {&a, &b, &c})
            for (uint64_t& x : *m) {
                const uint64_t r = rng.next();
                const uint64_t e = t % 3 == 0 ? (r >> 52) % 2048 : 1020 + (r >> 52) % 8; // NaNs and infinities too
                x = (r & 0x800fffffffffffffull) | (e << 52);
            }
        const bool whole = nm::tile_f64(a.data(), 4, b.data(), 8, c.data(), 8, want.data(), 8, 8, 8, 4, form);
        std::vector<uint64_t> top(c.begin(), c.begin() + 32), bottom(c.begin() + 32, c.end());
        const std::vector<uint64_t> top_before = top, bottom_before = bottom;
        const uint64_t* const from[2] = {top.data(), bottom.data()};
        uint64_t* const to[2] = {top.data(), bottom.data()}; // D over C
        const bool split = nm::tile_f64_m8n8k4(a.data(), b.data(), from, to, form);
        ASSERT_EQ(split, whole) << "tile " << t;
        if (!split) {
            EXPECT_EQ(top, top_before);
            EXPECT_EQ(bottom, bottom_before);
            continue;
        }
        ++vector;
        for (unsigned i = 0; i < 64; ++i) ASSERT_EQ((i < 32 ? top[i] : bottom[i - 32]), want[i]) << "tile " << t;
    }
    EXPECT_GT(vector, 1000);
}

} // namespace
} // namespace d4r::ptxsim::test
