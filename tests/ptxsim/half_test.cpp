// Half precision: f16/bf16 (and packed) arithmetic rounding at the format's edges, .ftz/.sat/.relu,
// min/max NaN rules, comparisons, conversions with .satfinite/.relu to f16, tf32 and FP8, and the
// f16/bf16 atomics. Expected encodings are derived by hand in the comments (IEEE round to nearest even
// unless stated).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

using H = uint16_t;

std::vector<H> bin16(const std::string& op, std::vector<H> a, std::vector<H> b) {
    return run_op<H, H>("  " + op + " %d, %a, %b;", std::move(a), std::move(b));
}

TEST(PtxsimHalf, F16AddRoundsTiesToEvenAndOverflowsToInfinity) {
    // 1 + 2^-11 is halfway between 1 (0x3c00, even) and 1 + 2^-10 (0x3c01): even wins.
    // (1 + 2^-10) + 2^-11 is halfway between 0x3c01 and 0x3c02: 0x3c02 is even.
    // 65504 (0x7bff) + 16 (0x4c00) = 65520, halfway between 65504 and 65536 (= inf): the even side is
    // 65536, which overflows to +inf. 65504 + 8 (0x4800) stays 65504.
    auto r = bin16("add.rn.f16", {0x3c00, 0x3c01, 0x7bff, 0x7bff, 0xfbff}, {0x1000, 0x1000, 0x4c00, 0x4800, 0xcc00});
    EXPECT_EQ(r, (std::vector<H>{0x3c00, 0x3c02, 0x7c00, 0x7bff, 0xfc00}));
    // Subtraction that cancels exactly gives +0 in round to nearest.
    auto s = bin16("sub.rn.f16", {0x3c00, 0x8000}, {0x3c00, 0x0000});
    EXPECT_EQ(s, (std::vector<H>{0x0000, 0x8000}));
}

TEST(PtxsimHalf, F16SubnormalsRoundAndFlushUnderFtz) {
    // 2^-24 (0x0001) * 0.5 = 2^-25: halfway between 0 and 2^-24, even is 0.
    // 3 * 2^-24 (0x0003) * 0.5 = 1.5 * 2^-24: halfway between 1 and 2 units, even is 2 (0x0002).
    // 2^-14 (0x0400) * 0.5 = 2^-15, exactly the subnormal 0x0200.
    auto r = bin16("mul.rn.f16", {0x0001, 0x0003, 0x0400, 0x8003}, {0x3800, 0x3800, 0x3800, 0x3800});
    EXPECT_EQ(r, (std::vector<H>{0x0000, 0x0002, 0x0200, 0x8002}));
    // .ftz: the subnormal inputs become zero (0x0003 * 1 = +0), subnormal results become zero with their sign.
    auto f = bin16("mul.rn.ftz.f16", {0x0003, 0x0400, 0x8400, 0x0800}, {0x3c00, 0x3800, 0x3800, 0x3800});
    EXPECT_EQ(f, (std::vector<H>{0x0000, 0x0000, 0x8000, 0x0400}));
    // 2^-14 * (1 - 2^-11) = 2^-14 - 2^-25: to subnormal precision it is halfway between 0x03ff and 0x0400
    // and rounds to the even 0x0400; with an unbounded exponent it is exact and below 2^-14, so .ftz,
    // which detects tininess after rounding as the H200 does for f32, flushes it.
    EXPECT_EQ(bin16("mul.rn.f16", {0x0400}, {0x3bff}), (std::vector<H>{0x0400}));
    EXPECT_EQ(bin16("mul.rn.ftz.f16", {0x0400}, {0x3bff}), (std::vector<H>{0x0000}));
}

TEST(PtxsimHalf, F16SatReluAndNaN) {
    // .sat clamps to [0, 1]: 0.75 + 0.5 = 1.25 -> 1.0; -1 + 0.5 -> +0; NaN -> +0.
    auto s = bin16("add.rn.sat.f16", {0x3a00, 0xbc00, 0x7e00}, {0x3800, 0x3800, 0x3c00});
    EXPECT_EQ(s, (std::vector<H>{0x3c00, 0x0000, 0x0000}));
    // NaN results are the canonical NaN 0x7fff: a NaN operand, and inf - inf.
    auto n = bin16("add.rn.f16", {0xfe01, 0x7c00}, {0x3c00, 0xfc00});
    EXPECT_EQ(n, (std::vector<H>{0x7fff, 0x7fff}));
    // fma.relu: 2 * -3 + 1 = -5 -> +0; 2 * 3 + 1 = 7 (0x4700).
    auto r = run_op<H, H>("  fma.rn.relu.f16 %d, %a, %b, %c;", {0x4000, 0x4000}, {0xc200, 0x4200}, {0x3c00, 0x3c00});
    EXPECT_EQ(r, (std::vector<H>{0x0000, 0x4700}));
}

TEST(PtxsimHalf, F16FmaRoundsOnce) {
    // (1 + 2^-10) * 2^-11 + 1 = 1 + 2^-11 + 2^-21: just above the halfway point, so it rounds up to
    // 0x3c01 (rounding the product to f16 first, 2^-11, would give the tie and 1.0).
    auto r = run_op<H, H>("  fma.rn.f16 %d, %a, %b, %c;", {0x3c01, 0x3c00}, {0x1000, 0x1000}, {0x3c00, 0x3c00});
    EXPECT_EQ(r, (std::vector<H>{0x3c01, 0x3c00}));
}

TEST(PtxsimHalf, Bf16RoundsAtItsEdges) {
    // 1 + 2^-8 (0x3b80) is halfway between 1 (0x3f80) and 1 + 2^-7 (0x3f81): even 0x3f80; from 0x3f81
    // the tie goes to 0x3f82.
    auto r = bin16("add.rn.bf16", {0x3f80, 0x3f81}, {0x3b80, 0x3b80});
    EXPECT_EQ(r, (std::vector<H>{0x3f80, 0x3f82}));
    // Largest finite 0x7f7f = (2 - 2^-7) * 2^127; its ulp is 2^120. + 2^119 (0x7b00) is the tie between
    // the odd 0x7f7f and 2^128: overflows to inf. + 2^118 (0x7a80) stays at 0x7f7f.
    auto o = bin16("add.rn.bf16", {0x7f7f, 0x7f7f}, {0x7b00, 0x7a80});
    EXPECT_EQ(o, (std::vector<H>{0x7f80, 0x7f7f}));
    // bf16 keeps subnormals: 2^-126 (0x0080) * 0.5 = 2^-127 (0x0040).
    EXPECT_EQ(bin16("mul.rn.bf16", {0x0080}, {0x3f00}), (std::vector<H>{0x0040}));
}

TEST(PtxsimHalf, PackedOpsRoundEachHalf) {
    // High half: 1 + 2^-11 -> 1 (tie to even); low half: 65504 + 16 -> inf.
    auto r = run_op<uint32_t, uint32_t>("  add.rn.f16x2 %d, %a, %b;", {0x3c007bffu}, {0x10004c00u});
    EXPECT_EQ(r, (std::vector<uint32_t>{0x3c007c00u}));
    // bf16x2: 1 * 2 = 2 (0x4000) high, -1 * 3 = -3 (0xc040) low.
    auto m = run_op<uint32_t, uint32_t>("  mul.rn.bf16x2 %d, %a, %b;", {0x3f80bf80u}, {0x40004040u});
    EXPECT_EQ(m, (std::vector<uint32_t>{0x4000c040u}));
    auto n = run_op<uint32_t, uint32_t>("  neg.f16x2 %d, %a;", {0x3c008000u});
    EXPECT_EQ(n, (std::vector<uint32_t>{0xbc000000u}));
}

TEST(PtxsimHalf, MinMaxNaNAndSignedZero) {
    // -0 is below +0; a NaN operand gives the other; .NaN gives the canonical NaN.
    EXPECT_EQ(bin16("min.f16", {0x0000, 0x7e00, 0x4000}, {0x8000, 0x3c00, 0x3c00}),
              (std::vector<H>{0x8000, 0x3c00, 0x3c00}));
    EXPECT_EQ(bin16("max.f16", {0x0000, 0x7e00, 0x7e00}, {0x8000, 0x3c00, 0x7d00}),
              (std::vector<H>{0x0000, 0x3c00, 0x7fff}));
    EXPECT_EQ(bin16("min.NaN.f16", {0x7e00, 0x4000}, {0x3c00, 0x3c00}), (std::vector<H>{0x7fff, 0x3c00}));
    // .xorsign.abs: min(|-2|, |3|) = 2 with sign (- xor +) = -2 (0xc000).
    EXPECT_EQ(bin16("min.xorsign.abs.f16", {0xc000}, {0x4200}), (std::vector<H>{0xc000}));
    EXPECT_EQ(bin16("max.bf16", {0xbf80, 0x7fc0}, {0x3f80, 0xbf80}), (std::vector<H>{0x3f80, 0xbf80}));
}

TEST(PtxsimHalf, ComparisonsOnHalves) {
    // setp.f16x2: p compares the low halves, q the high ones. a = {hi 1.0, lo 2.0}, b = {hi 2.0, lo 1.0}.
    auto r = run_op<uint32_t, uint32_t>(
        "  setp.lt.f16x2 %p0|%p1, %a, %b;\n  selp.u32 %d, 1, 0, %p0;\n  @%p1 or.b32 %d, %d, 2;", {0x3c004000u},
        {0x40003c00u});
    EXPECT_EQ(r, (std::vector<uint32_t>{2u}));
    // setp.nan.f16 and the unordered forms see NaN; .ftz makes subnormals equal to zero.
    auto s =
        run_op<uint32_t, H>("  setp.nan.f16 %p0, %a, %b;\n  setp.eq.ftz.f16 %p1, %a, %b;\n  setp.eq.f16 %p2, %a, %b;\n"
                            "  selp.u32 %d, 1, 0, %p0;\n  @%p1 or.b32 %d, %d, 2;\n  @%p2 or.b32 %d, %d, 4;",
                            {0x7e00, 0x0001, 0x3c00}, {0x3c00, 0x0000, 0x3c00});
    EXPECT_EQ(s, (std::vector<uint32_t>{1u, 2u, 6u}));
    // set.lt.f16x2.f16x2 writes 1.0 per true half.
    auto t = run_op<uint32_t, uint32_t>("  set.lt.f16x2.f16x2 %d, %a, %b;", {0x3c004000u}, {0x40003c00u});
    EXPECT_EQ(t, (std::vector<uint32_t>{0x3c000000u}));
}

TEST(PtxsimHalf, CvtSatfiniteAndReluToHalf) {
    std::vector<float> x = {70000.0f, INFINITY, -INFINITY, NAN, 65520.0f, 65519.0f, -2.5f, -0.0f};
    // Plain: overflow and 65520 (the tie with 65536) give inf; 65519 rounds down to 65504.
    auto rn = run_op<H, float>("  cvt.rn.f16.f32 %d, %a;", x);
    EXPECT_EQ(rn, (std::vector<H>{0x7c00, 0x7c00, 0xfc00, 0x7fff, 0x7c00, 0x7bff, 0xc100, 0x8000}));
    // .satfinite: everything beyond the range, infinities included, is the largest finite value 65504.
    auto sf = run_op<H, float>("  cvt.rn.satfinite.f16.f32 %d, %a;", x);
    EXPECT_EQ(sf, (std::vector<H>{0x7bff, 0x7bff, 0xfbff, 0x7fff, 0x7bff, 0x7bff, 0xc100, 0x8000}));
    // .relu: negatives and -0 become +0.
    auto rl = run_op<H, float>("  cvt.rn.relu.f16.f32 %d, %a;", x);
    EXPECT_EQ(rl, (std::vector<H>{0x7c00, 0x7c00, 0x0000, 0x7fff, 0x7c00, 0x7bff, 0x0000, 0x0000}));
}

TEST(PtxsimHalf, CvtTf32Rounding) {
    // tf32 keeps 10 mantissa bits: f32 bit 12 (0x1000) is half a tf32 ulp.
    std::vector<uint32_t> x = {0x3f801000u, 0x3f803000u, 0x3f801001u, 0xbf801000u, 0x7f7ff000u};
    auto bits = [](const std::vector<float>& v) {
        std::vector<uint32_t> r;
        for (float f : v) r.push_back(static_cast<uint32_t>(bits_of(f)));
        return r;
    };
    std::vector<float> xf;
    for (uint32_t u : x) xf.push_back(std::bit_cast<float>(u));
    // rna: ties away; rn: ties to even; rz: truncate. 0x7f7ff000 rounds up past the largest tf32 value:
    // inf, or the largest finite 0x7f7fe000 with .satfinite.
    EXPECT_EQ(bits(run_op<float, float>("  cvt.rna.tf32.f32 %d, %a;", xf)),
              (std::vector<uint32_t>{0x3f802000u, 0x3f804000u, 0x3f802000u, 0xbf802000u, 0x7f800000u}));
    EXPECT_EQ(bits(run_op<float, float>("  cvt.rn.tf32.f32 %d, %a;", xf)),
              (std::vector<uint32_t>{0x3f800000u, 0x3f804000u, 0x3f802000u, 0xbf800000u, 0x7f800000u}));
    EXPECT_EQ(bits(run_op<float, float>("  cvt.rz.tf32.f32 %d, %a;", xf)),
              (std::vector<uint32_t>{0x3f800000u, 0x3f802000u, 0x3f800000u, 0xbf800000u, 0x7f7fe000u}));
    EXPECT_EQ(bits(run_op<float, float>("  cvt.rna.satfinite.tf32.f32 %d, %a;", xf))[4], 0x7f7fe000u);
}

TEST(PtxsimHalf, CvtFp8Pairs) {
    // e4m3: 1.0 = 0x38, 448 = 0x7e (largest), NaN = 0x7f; subnormal quantum 2^-9: 3 * 2^-10 is halfway
    // between 1 and 2 quanta -> 2 (0x02); 2^-10 is halfway between 0 and 1 -> 0. a goes to the high byte.
    std::vector<float> a = {1.0f, 1000.0f, -0.0f, -1.0f, 1.0f};
    std::vector<float> b = {3.0f / 1024, 448.0f, NAN, 2.0f, 1.0f / 1024};
    auto e4 = run_op<H, float>("  cvt.rn.satfinite.e4m3x2.f32 %d, %a, %b;", a, b);
    EXPECT_EQ(e4, (std::vector<H>{0x3802, 0x7e7e, 0x807f, 0xb840, 0x3800}));
    auto e4r = run_op<H, float>("  cvt.rn.satfinite.relu.e4m3x2.f32 %d, %a, %b;", a, b);
    EXPECT_EQ(e4r[3], 0x0040); // -1 -> +0 (high), 2.0 = 0x40 (low)
    // e5m2: 1.0 = 0x3c, the largest finite 57344 = 0x7b; infinities saturate to it.
    auto e5 = run_op<H, float>("  cvt.rn.satfinite.e5m2x2.f32 %d, %a, %b;", {1.0f, -INFINITY}, {60000.0f, 0.5f});
    EXPECT_EQ(e5, (std::vector<H>{0x3c7b, 0xfb38}));
    // Back to f16x2, exactly: e4m3 0x7e = 448 = 1.75 * 2^8 -> f16 0x5f00; 0x01 = 2^-9 -> 0x1800.
    auto h = run_op<uint32_t, H>("  cvt.rn.f16x2.e4m3x2 %d, %a;", {0x7e01, 0xb800});
    EXPECT_EQ(h, (std::vector<uint32_t>{0x5f001800u, 0xbc000000u}));
    // e5m2 is the top byte of an f16: 0x3c -> 0x3c00.
    auto h5 = run_op<uint32_t, H>("  cvt.rn.f16x2.e5m2x2 %d, %a;", {0x3cbc});
    EXPECT_EQ(h5, (std::vector<uint32_t>{0x3c00bc00u}));
}

TEST(PtxsimHalf, HalfAtomicsAddAndRound) {
    // 64 threads: red.add.noftz.f16x2 of {1.0, 1.0} to one word from 0 gives 64.0 (0x5400) in both halves;
    // atom.add.noftz.f16 of 1.0 onto 2048.0 (0x6800) never changes it (2049 is halfway between 2048 and
    // 2050, even wins); red.add.noftz.bf16 of 1.0 sums to 64.0 (0x4280).
    const std::string text = ptx(R"(
.visible .entry k(.param .u64 p)
{
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.b32 %r1, 0x3c003c00;
  red.global.add.noftz.f16x2 [%rd1], %r1;
  mov.b16 %h1, 0x3c00;
  atom.global.add.noftz.f16 %h2, [%rd1+4], %h1;
  mov.b16 %h3, 0x3f80;
  red.global.add.noftz.bf16 [%rd1+6], %h3;
  ret;
}
)");
    auto m = load_ok(text);
    ASSERT_TRUE(m);
    Device dev;
    DevicePtr buf = upload(dev, std::vector<uint16_t>{0, 0, 0x6800, 0});
    Params p(kernel_of(*m, "k"));
    p.set(0, buf);
    run_ok(dev, *m, "k", config({1}, {64}, 1), p);
    auto out = download<uint16_t>(dev, buf, 4);
    EXPECT_EQ(out, (std::vector<uint16_t>{0x5400, 0x5400, 0x6800, 0x4280}));
}

// Reference rounding for the random tests: the nearest encoding by search in the table of every finite
// value of the format (binary128 arithmetic), ties to the even encoding, and infinity from the point
// halfway between the largest finite value and the next power of two.
using Q = __float128;
Q small_value(uint32_t bits, int mb, int eb) {
    const int bias = (1 << (eb - 1)) - 1;
    const uint32_t e = (bits >> mb) & ((1u << eb) - 1), m = bits & ((1u << mb) - 1);
    // Every f16/bf16 value is a double exactly.
    const double v =
        e == 0 ? std::ldexp(double(m), 1 - bias - mb) : std::ldexp(double(m | (1u << mb)), int(e) - bias - mb);
    return (bits >> (mb + eb)) & 1 ? -Q(v) : Q(v);
}
// ERR: the exact value is Q + ERR with ERR far below the format's resolution (a two-sum error); it only
// decides ties.
uint32_t reference_round(Q q, int mb, int eb, Q err = 0) {
    const uint32_t inf = ((1u << eb) - 1) << mb, sign = q < 0 ? 1u << (mb + eb) : 0u;
    const Q a = q < 0 ? -q : q;
    uint32_t lo = 0, hi = inf; // invariant: value(lo) <= a; a < value(hi) (hi = inf counts as 2^(emax+1))
    const Q top = small_value(inf - 1, mb, eb) + (small_value(inf - 1, mb, eb) - small_value(inf - 2, mb, eb));
    if (a >= top) return sign | inf;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (small_value(mid, mb, eb) <= a)
            lo = mid;
        else
            hi = mid;
    }
    const Q dl = a - small_value(lo, mb, eb), dh = (hi == inf ? top : small_value(hi, mb, eb)) - a;
    const Q err_mag = q < 0 ? -err : err;
    uint32_t r = dl < dh ? lo : dh < dl ? hi : err_mag > 0 ? hi : err_mag < 0 ? lo : ((lo & 1) ? hi : lo);
    return sign | r;
}

TEST(PtxsimHalf, RandomArithmeticMatchesBinary128Reference) {
    TestRng rng(77);
    for (bool bf : {false, true}) {
        const int mb = bf ? 7 : 10, eb = bf ? 8 : 5;
        const uint32_t inf = ((1u << eb) - 1) << mb;
        // Operands of every magnitude, and operands close in magnitude (cancellation and ties).
        auto pick = [&](int i) -> H {
            uint32_t v;
            do {
                v = uint32_t(rng.next()) & 0xffffu;
                if (i & 1) { // exponent within 4 of 1.0's
                    const uint32_t bias = (1u << (eb - 1)) - 1, e = bias - 4 + uint32_t(rng.next() % 9);
                    v = (v & 0x8000u) | (e << mb) | (v & ((1u << mb) - 1));
                }
            } while ((v & 0x7fffu) >= inf);
            return H(v);
        };
        std::vector<H> a, b, c;
        for (int i = 0; i < 2000; ++i) {
            a.push_back(pick(i));
            b.push_back(pick(i));
            c.push_back(pick(i));
        }
        const std::string t = bf ? "bf16" : "f16";
        auto add = run_op<H, H>("  add.rn." + t + " %d, %a, %b;", a, b);
        auto mul = run_op<H, H>("  mul.rn." + t + " %d, %a, %b;", a, b);
        auto fma = run_op<H, H>("  fma.rn." + t + " %d, %a, %b, %c;", a, b, c);
        for (size_t i = 0; i < a.size(); ++i) {
            Q x = small_value(a[i], mb, eb), y = small_value(b[i], mb, eb), z = small_value(c[i], mb, eb);
            auto check = [&](const char* op, Q exact, H got, Q err = 0) {
                if (exact == 0) {
                    EXPECT_EQ(got & 0x7fffu, 0u) << t << " " << op << " " << i;
                    return;
                }
                EXPECT_EQ(got, reference_round(exact, mb, eb, err))
                    << t << " " << op << std::hex << " a=" << a[i] << " b=" << b[i] << " c=" << c[i];
            };
            check("add", x + y, add[i]);
            check("mul", x * y, mul[i]);
            // bf16 products and addends can span more than binary128's 113 bits: keep the two-sum error.
            const Q p = x * y, sum = p + z, bb = sum - p, err = (p - (sum - bb)) + (z - bb);
            check("fma", sum, fma[i], err);
        }
    }
}

TEST(PtxsimHalf, NaNConversionsFollowTheH200) {
    // Measured on the H200 (corpus cvt_f2h goldens): f64 -> f16 keeps sign and the payload's top bits,
    // quieted; f16 -> f64 keeps sign and payload, quieted; bf16 -> f32 is a plain shift.
    std::vector<double> d = {std::bit_cast<double>(0xfff0000000000001ull),
                             std::bit_cast<double>(0x7ff5555500000000ull)};
    // 0xfff0000000000001: top 10 payload bits 0, quiet bit 0x200 -> 0xfe00. 0x7ff55555...: payload top
    // bits 0101010101 = 0x155, quiet -> 0x7c00 | 0x200 | 0x155 = 0x7f55.
    auto n = run_op<H, double>("  cvt.rn.f16.f64 %d, %a;", d);
    EXPECT_EQ(n, (std::vector<H>{0xfe00, 0x7f55}));
    auto w = run_op<double, H>("  cvt.f64.f16 %d, %a;", {0xfd55, 0x7c01});
    EXPECT_EQ(bits_of(w[0]), 0xfffd540000000000ull); // 0x355 << 42 with the sign
    EXPECT_EQ(bits_of(w[1]), 0x7ff8040000000000ull); // 0x001 << 42, quiet bit added
    auto f = run_op<float, H>("  cvt.f32.bf16 %d, %a;", {0x7f81, 0xffc0});
    EXPECT_EQ(bits_of(f[0]), 0x7f810000u);
    EXPECT_EQ(bits_of(f[1]), 0xffc00000u);
}

TEST(PtxsimHalf, RejectsFormsTheIsaDoesNotHave) {
    auto wrap = [](const std::string& instr) {
        return ptx(".visible .entry k()\n{\n  .reg .b16 %h<4>;\n  .reg .b32 %r<4>;\n  " + instr + "\n  ret;\n}\n");
    };
    EXPECT_NE(load_error(wrap("add.rz.f16 %h1, %h2, %h3;")).find(".rn only"), std::string::npos);
    EXPECT_NE(load_error(wrap("add.rn.ftz.bf16 %h1, %h2, %h3;")).find("no .ftz"), std::string::npos);
    EXPECT_NE(load_error(wrap("sqrt.approx.f16 %h1, %h2;")).find("not a PTX instruction"), std::string::npos);
    EXPECT_NE(load_error(wrap("atom.global.min.noftz.f16 %h1, [%r1], %h2;")).find(".add.noftz"), std::string::npos);
}

} // namespace
} // namespace d4r::ptxsim::test
