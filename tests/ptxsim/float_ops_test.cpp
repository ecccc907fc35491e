// f32/f64 arithmetic: every rounding mode checked against an independent reference (the exact or
// 113-bit result in __float128, rounded to the target with directed nudges), NaN canonicalisation,
// .ftz, .sat, min/max NaN and signed-zero rules, and the .approx functions within the ISA's bounds.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

using Q = __float128;
enum class Mode { Rn, Rz, Rm, Rp };
constexpr const char* kModes[] = {"rn", "rz", "rm", "rp"};

template <class F>
F round_q(Q q, Mode m) {
    F r = static_cast<F>(q); // round to nearest even
    if (q != q || static_cast<Q>(r) == q) return r;
    const F inf = std::numeric_limits<F>::infinity();
    switch (m) {
    case Mode::Rn:
        break;
    case Mode::Rz:
        if ((r > 0 && static_cast<Q>(r) > q) || (r < 0 && static_cast<Q>(r) < q)) r = std::nextafter(r, F(0));
        break;
    case Mode::Rm:
        if (static_cast<Q>(r) > q) r = std::nextafter(r, -inf);
        break;
    case Mode::Rp:
        if (static_cast<Q>(r) < q) r = std::nextafter(r, inf);
        break;
    }
    return r;
}

// Random finite values sign * 2^e * 1.m with e in [lo, hi]: sums and products of such values are exact
// in binary128 when the exponent range is small enough (the callers choose it so).
template <class F>
std::vector<F> randoms(size_t n, int lo, int hi, uint64_t seed) {
    TestRng rng(seed);
    std::vector<F> out;
    for (size_t i = 0; i < n; ++i) {
        double m = 1.0 + double(rng.next() >> 11) / 9007199254740992.0;
        int e = lo + int(rng.next() % uint64_t(hi - lo + 1));
        F v = static_cast<F>(std::ldexp(m, e));
        out.push_back((rng.next() & 1) ? -v : v);
    }
    return out;
}

template <class F>
uint64_t bits(F v) {
    return bits_of(v);
}

template <class F>
void expect_same(F got, F want, const std::string& what) {
    // f32 arithmetic returns the canonical NaN; f64 NaNs propagate as the host's do (both measured on
    // the H200); everything else must match bit for bit.
    if (std::isnan(want) && sizeof(F) == 4) {
        EXPECT_EQ(bits(got), 0x7fffffffull) << what;
        return;
    }
    EXPECT_EQ(bits(got), bits(want)) << what << " got " << got << " want " << want;
}

TEST(PtxsimFloat, AddSubMulEveryRoundingMode) {
    auto a = randoms<float>(400, -40, 40, 1), b = randoms<float>(400, -40, 40, 2);
    for (int m = 0; m < 4; ++m) {
        std::string mode = kModes[m];
        auto add = run_op<float, float, float>("  add." + mode + ".f32 %d, %a, %b;", a, b);
        auto sub = run_op<float, float, float>("  sub." + mode + ".f32 %d, %a, %b;", a, b);
        auto mul = run_op<float, float, float>("  mul." + mode + ".f32 %d, %a, %b;", a, b);
        for (size_t i = 0; i < a.size(); ++i) {
            Q x = a[i], y = b[i];
            expect_same(add[i], round_q<float>(x + y, Mode(m)), "add." + mode);
            expect_same(sub[i], round_q<float>(x - y, Mode(m)), "sub." + mode);
            expect_same(mul[i], round_q<float>(x * y, Mode(m)), "mul." + mode);
        }
    }
    auto da = randoms<double>(300, -25, 25, 3), db = randoms<double>(300, -25, 25, 4);
    for (int m = 0; m < 4; ++m) {
        std::string mode = kModes[m];
        auto add = run_op<double, double, double>("  add." + mode + ".f64 %d, %a, %b;", da, db);
        auto mul = run_op<double, double, double>("  mul." + mode + ".f64 %d, %a, %b;", da, db);
        for (size_t i = 0; i < da.size(); ++i) {
            Q x = da[i], y = db[i];
            expect_same(add[i], round_q<double>(x + y, Mode(m)), "add.f64." + mode);
            expect_same(mul[i], round_q<double>(x * y, Mode(m)), "mul.f64." + mode);
        }
    }
}

TEST(PtxsimFloat, FusedMultiplyAddIsSinglyRounded) {
    auto a = randoms<float>(400, -15, 15, 5), b = randoms<float>(400, -15, 15, 6), c = randoms<float>(400, -15, 15, 7);
    // Products that nearly cancel c: the cases where a separate multiply and add would differ.
    for (size_t i = 0; i < 100; ++i) c[i] = -static_cast<float>(static_cast<double>(a[i]) * b[i]);
    for (int m = 0; m < 4; ++m) {
        std::string mode = kModes[m];
        auto r = run_op<float, float, float, float>("  fma." + mode + ".f32 %d, %a, %b, %c;", a, b, c);
        for (size_t i = 0; i < a.size(); ++i) {
            Q exact = Q(a[i]) * Q(b[i]) + Q(c[i]);
            if (exact == 0) continue; // the sign of an exact zero depends on the mode; tested below
            expect_same(r[i], round_q<float>(exact, Mode(m)), "fma." + mode);
        }
    }
    auto mad = run_op<float, float, float, float>("  mad.rn.f32 %d, %a, %b, %c;", a, b, c);
    for (size_t i = 100; i < a.size(); ++i)
        expect_same(mad[i], round_q<float>(Q(a[i]) * Q(b[i]) + Q(c[i]), Mode::Rn), "mad");
    auto da = randoms<double>(200, -20, 20, 8), db = randoms<double>(200, -20, 20, 9),
         dc = randoms<double>(200, -20, 20, 10);
    auto d = run_op<double, double, double, double>("  fma.rn.f64 %d, %a, %b, %c;", da, db, dc);
    for (size_t i = 0; i < da.size(); ++i) expect_same(d[i], std::fma(da[i], db[i], dc[i]), "fma.f64");
}

TEST(PtxsimFloat, DivisionAndSquareRootEveryRoundingMode) {
    auto a = randoms<float>(300, -60, 60, 11), b = randoms<float>(300, -60, 60, 12);
    for (int m = 0; m < 4; ++m) {
        std::string mode = kModes[m];
        auto div = run_op<float, float, float>("  div." + mode + ".f32 %d, %a, %b;", a, b);
        auto rcp = run_op<float, float>("  rcp." + mode + ".f32 %d, %a;", a);
        for (size_t i = 0; i < a.size(); ++i) {
            expect_same(div[i], round_q<float>(Q(a[i]) / Q(b[i]), Mode(m)), "div." + mode);
            expect_same(rcp[i], round_q<float>(Q(1) / Q(a[i]), Mode(m)), "rcp." + mode);
        }
    }
    std::vector<float> pos;
    for (float v : a) pos.push_back(std::fabs(v));
    for (int m = 0; m < 4; ++m) {
        std::string mode = kModes[m];
        auto r = run_op<float, float>("  sqrt." + mode + ".f32 %d, %a;", pos);
        for (size_t i = 0; i < pos.size(); ++i) {
            // Bracket with exact squares: RZ/RM give the largest r with r*r <= x, RP the smallest with r*r >= x.
            Q x = pos[i];
            float v = r[i], up = std::nextafter(v, INFINITY), down = std::nextafter(v, 0.0f);
            if (m == 1 || m == 2) {
                EXPECT_LE(Q(v) * Q(v), x) << mode;
                EXPECT_GT(Q(up) * Q(up), x) << mode;
            } else if (m == 3) {
                EXPECT_GE(Q(v) * Q(v), x) << mode;
                EXPECT_LT(Q(down) * Q(down), x) << mode;
            } else {
                EXPECT_EQ(bits(v), bits(std::sqrt(pos[i]))) << "sqrt.rn";
            }
        }
    }
    auto da = randoms<double>(200, -100, 100, 13), db = randoms<double>(200, -100, 100, 14);
    for (int m = 0; m < 4; ++m) {
        std::string mode = kModes[m];
        auto div = run_op<double, double, double>("  div." + mode + ".f64 %d, %a, %b;", da, db);
        for (size_t i = 0; i < da.size(); ++i)
            expect_same(div[i], round_q<double>(Q(da[i]) / Q(db[i]), Mode(m)), "div.f64." + mode);
    }
}

TEST(PtxsimFloat, SpecialValuesCanonicalNaNAndSignedZeros) {
    const float inf = INFINITY;
    const float nan_payload = std::bit_cast<float>(0x7fc12345u);
    const float snan = std::bit_cast<float>(0x7f800001u);
    std::vector<float> a = {nan_payload, 1.0f, inf, 0.0f, 1.0f, -0.0f, 3.0f, snan, 1e-45f, -1e-45f};
    std::vector<float> b = {1.0f, nan_payload, -inf, inf, -1.0f, -0.0f, -3.0f, 2.0f, 1e-45f, 1e-45f};
    auto add = run_op<float, float, float>("  add.f32 %d, %a, %b;", a, b);
    auto add_rm = run_op<float, float, float>("  add.rm.f32 %d, %a, %b;", a, b);
    auto mul = run_op<float, float, float>("  mul.rn.f32 %d, %a, %b;", a, b);
    for (size_t i = 0; i < a.size(); ++i) {
        expect_same(add[i], a[i] + b[i], "add");
        expect_same(mul[i], a[i] * b[i], "mul");
    }
    // x + (-x) is +0 in round-to-nearest and -0 when rounding down (IEEE 754).
    EXPECT_EQ(bits(add[4]), bits(0.0f));
    EXPECT_EQ(bits(add_rm[4]), bits(-0.0f));
    EXPECT_EQ(bits(add_rm[6]), bits(-0.0f));
    EXPECT_EQ(bits(add[5]), bits(-0.0f)); // -0 + -0
    // Subnormals survive without .ftz.
    EXPECT_EQ(add[8], 2 * std::numeric_limits<float>::denorm_min());
    EXPECT_EQ(bits(add[9]), bits(0.0f));
}

TEST(PtxsimFloat, FlushToZeroAndSaturate) {
    const float sub = 1e-40f; // subnormal
    std::vector<float> a = {sub, -sub, 1e-38f, 2.0f, -3.0f, NAN, 0.5f, 1e-38f};
    std::vector<float> b = {1.0f, 1.0f, 0.25f, 1.0f, 1.0f, 1.0f, 0.25f, -0.9999999f};
    auto mul = run_op<float, float, float>("  mul.f32 %d, %a, %b;", a, b);
    auto mul_ftz = run_op<float, float, float>("  mul.ftz.f32 %d, %a, %b;", a, b);
    auto add_sat = run_op<float, float, float>("  add.sat.f32 %d, %a, %b;", a, b);
    EXPECT_EQ(mul[0], sub);
    EXPECT_EQ(bits(mul_ftz[0]), bits(0.0f));  // subnormal input flushed
    EXPECT_EQ(bits(mul_ftz[1]), bits(-0.0f)); // sign preserved
    EXPECT_EQ(mul[2], 1e-38f * 0.25f);        // subnormal result kept
    EXPECT_EQ(bits(mul_ftz[2]), bits(0.0f));  // subnormal result flushed
    EXPECT_EQ(mul_ftz[3], 2.0f);
    // .sat clamps to [0, 1]; NaN becomes +0.
    EXPECT_EQ(add_sat[3], 1.0f);
    EXPECT_EQ(bits(add_sat[4]), bits(0.0f));
    EXPECT_EQ(bits(add_sat[5]), bits(0.0f));
    EXPECT_EQ(add_sat[6], 0.75f);
}

TEST(PtxsimFloat, ResultsMeasuredOnTheH200) {
    // Bit patterns the ISA leaves open, as the H200 produced them (docs/ptxsim.md, "Measured").
    const float fnan = std::bit_cast<float>(0x7fc12345u);
    const double dnan = std::bit_cast<double>(0x7ff8000000012345ull);
    std::vector<double> a = {dnan, 0.0, 0.0, -1.0}, b = {1.0, INFINITY, 0.0, 1.0};
    auto add = run_op<double, double, double>("  add.f64 %d, %a, %b;", a, b);
    auto mul = run_op<double, double, double>("  mul.f64 %d, %a, %b;", a, b);
    auto div = run_op<double, double, double>("  div.rn.f64 %d, %a, %b;", a, b);
    auto sq = run_op<double, double>("  sqrt.rn.f64 %d, %a;", a);
    auto neg = run_op<double, double>("  neg.f64 %d, %a;", a);
    EXPECT_EQ(bits(add[0]), 0x7ff8000000012345ull); // NaN input propagated
    EXPECT_EQ(bits(mul[1]), 0xfff8000000000000ull); // 0 * inf: the negative default NaN
    EXPECT_EQ(bits(div[2]), 0xfff8000000000000ull); // 0 / 0
    EXPECT_EQ(bits(sq[3]), 0xfff8000000000000ull);  // sqrt(-1)
    EXPECT_EQ(bits(neg[0]), 0x7ff8000000012345ull); // neg.f64 leaves a NaN alone
    std::vector<float> f = {fnan, std::bit_cast<float>(0xffc12345u)};
    auto fneg = run_op<float, float>("  neg.f32 %d, %a;", f);
    auto fabs_ = run_op<float, float>("  abs.f32 %d, %a;", f);
    auto widened = run_op<double, float>("  cvt.f64.f32 %d, %a;", f);
    auto narrowed = run_op<float, double>("  cvt.rn.f32.f64 %d, %a;", a);
    EXPECT_EQ(bits(fneg[0]), 0x7fffffffu);
    EXPECT_EQ(bits(fabs_[1]), 0x7fffffffu);
    EXPECT_EQ(bits(widened[0]), 0x7ff82468a0000000ull);
    EXPECT_EQ(bits(narrowed[0]), 0x7fc00000u);
    // .ftz flushes FLT_MIN * (1 - 2^-24), which rounds up to FLT_MIN without .ftz.
    std::vector<float> x = {0x1p-126f}, y = {std::bit_cast<float>(0x3f7fffffu)};
    EXPECT_EQ(bits(run_op<float, float, float>("  mul.rn.ftz.f32 %d, %a, %b;", x, y)[0]), 0u);
    EXPECT_EQ(bits(run_op<float, float, float>("  mul.rn.f32 %d, %a, %b;", x, y)[0]), 0x00800000u);
    // ... but not FLT_MIN * (1 - 2^-24) * 2 (normal) or a product that stays normal after rounding to 24 bits.
    std::vector<float> z = {0x1p-125f};
    EXPECT_EQ(bits(run_op<float, float, float>("  mul.rn.ftz.f32 %d, %a, %b;", z, y)[0]),
              bits(0x1p-125f * std::bit_cast<float>(0x3f7fffffu)));
}

TEST(PtxsimFloat, MinMaxNaNAndZeroRules) {
    const float nan = std::bit_cast<float>(0x7fc00001u);
    std::vector<float> a = {1.0f, nan, nan, -0.0f, 0.0f, -2.0f, 3.0f, -INFINITY};
    std::vector<float> b = {nan, 2.0f, nan, 0.0f, -0.0f, 5.0f, -4.0f, 7.0f};
    auto mn = run_op<float, float, float>("  min.f32 %d, %a, %b;", a, b);
    auto mx = run_op<float, float, float>("  max.f32 %d, %a, %b;", a, b);
    auto mnn = run_op<float, float, float>("  min.NaN.f32 %d, %a, %b;", a, b);
    auto xs = run_op<float, float, float>("  max.xorsign.abs.f32 %d, %a, %b;", a, b);
    // A NaN operand yields the other operand; two NaNs the canonical NaN (the H200 goldens of corpus case
    // f32_minmax, with distinct NaN payloads on both sides).
    EXPECT_EQ(mn[0], 1.0f);
    EXPECT_EQ(mx[1], 2.0f);
    EXPECT_EQ(bits(mn[2]), 0x7fffffffu);
    // -0.0 is below +0.0.
    EXPECT_EQ(bits(mn[3]), bits(-0.0f));
    EXPECT_EQ(bits(mn[4]), bits(-0.0f));
    EXPECT_EQ(bits(mx[3]), bits(0.0f));
    EXPECT_EQ(bits(mx[4]), bits(0.0f));
    EXPECT_EQ(mn[5], -2.0f);
    EXPECT_EQ(mx[6], 3.0f);
    // .NaN: any NaN operand gives the canonical NaN.
    EXPECT_EQ(bits(mnn[0]), 0x7fffffffu);
    EXPECT_EQ(mnn[5], -2.0f);
    // .xorsign.abs: larger magnitude, sign = XOR of the signs.
    EXPECT_EQ(xs[5], -5.0f);
    EXPECT_EQ(xs[6], -4.0f);
    EXPECT_EQ(xs[7], -INFINITY);
    const double dnan = std::bit_cast<double>(0x7ff8000000012345ull);
    std::vector<double> da = {1.0, dnan, -0.0}, db = {NAN, NAN, 0.0};
    auto dmn = run_op<double, double, double>("  min.f64 %d, %a, %b;", da, db);
    EXPECT_EQ(dmn[0], 1.0);
    EXPECT_EQ(bits(dmn[1]), bits(double(NAN))); // two NaNs: the second, quieted (measured on the H200)
    EXPECT_EQ(bits(dmn[2]), bits(-0.0));
}

TEST(PtxsimFloat, AbsNegCopysignTestp) {
    std::vector<float> a = {1.5f, -2.0f, -0.0f, INFINITY, 1e-40f, NAN};
    std::vector<float> b = {-1.0f, 1.0f, 1.0f, -1.0f, -1.0f, 1.0f};
    auto abs = run_op<float, float>("  abs.f32 %d, %a;", a);
    auto neg = run_op<float, float>("  neg.f32 %d, %a;", a);
    auto absf = run_op<float, float>("  abs.ftz.f32 %d, %a;", a);
    auto cs = run_op<float, float, float>("  copysign.f32 %d, %a, %b;", a, b);
    for (size_t i = 0; i + 1 < a.size(); ++i) {
        EXPECT_EQ(bits(abs[i]), bits(std::fabs(a[i])));
        EXPECT_EQ(bits(neg[i]), bits(-a[i]));
        EXPECT_EQ(bits(cs[i]), bits(std::copysign(b[i], a[i]))); // b with a's sign
    }
    EXPECT_EQ(bits(absf[4]), bits(0.0f));
    std::vector<float> t = {0.0f, 1.0f, INFINITY, NAN, 1e-40f, -0.0f};
    auto tp = run_op<uint32_t, float>(R"(  testp.finite.f32 %p0, %a;
  testp.infinite.f32 %p1, %a;
  testp.notanumber.f32 %p2, %a;
  testp.subnormal.f32 %p3, %a;
  testp.normal.f32 %q0, %a;
  testp.number.f32 %q1, %a;
  selp.b32 %r5, 1, 0, %p0;
  selp.b32 %r6, 2, 0, %p1;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 4, 0, %p2;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 8, 0, %p3;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 16, 0, %q0;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 32, 0, %q1;
  or.b32 %d, %r5, %r6;)",
                                      t);
    // zero counts as normal (ISA)
    std::vector<uint32_t> expect = {1 | 16 | 32, 1 | 16 | 32, 2 | 32, 4, 1 | 8 | 32, 1 | 16 | 32};
    EXPECT_EQ(tp, expect);
}

TEST(PtxsimFloat, ApproximateFunctionsWithinIsaBounds) {
    std::vector<float> x;
    TestRng rng(21);
    for (int i = 0; i < 512; ++i) x.push_back(float(double(rng.next() >> 11) / 9007199254740992.0 * 6.0 - 3.0));
    auto sin = run_op<float, float>("  sin.approx.f32 %d, %a;", x);
    auto cos = run_op<float, float>("  cos.approx.ftz.f32 %d, %a;", x);
    auto ex2 = run_op<float, float>("  ex2.approx.f32 %d, %a;", x);
    auto tanh = run_op<float, float>("  tanh.approx.f32 %d, %a;", x);
    std::vector<float> pos;
    for (float v : x) pos.push_back(std::fabs(v) + 1e-3f);
    auto lg2 = run_op<float, float>("  lg2.approx.f32 %d, %a;", pos);
    auto rsqrt = run_op<float, float>("  rsqrt.approx.f32 %d, %a;", pos);
    auto rcp = run_op<float, float>("  rcp.approx.ftz.f32 %d, %a;", pos);
    for (size_t i = 0; i < x.size(); ++i) {
        double v = x[i], p = pos[i];
        EXPECT_LE(std::fabs(sin[i] - std::sin(v)), std::exp2(-20.5)) << v; // ISA: 2^-20.5 absolute in [-2pi, 2pi]
        EXPECT_LE(std::fabs(cos[i] - std::cos(v)), std::exp2(-20.5)) << v;
        EXPECT_LE(std::fabs(ex2[i] - std::exp2(v)), 2 * std::ldexp(std::exp2(v), -23)) << v; // 2 ulp
        EXPECT_LE(std::fabs(tanh[i] - std::tanh(v)), std::ldexp(std::fabs(std::tanh(v)), -11))
            << v; // ISA: 2^-11 relative
        EXPECT_LE(std::fabs(lg2[i] - std::log2(p)), std::ldexp(1.0, -22) * std::fmax(1.0, std::fabs(std::log2(p))))
            << p; // ISA: 2^-22 abs / rel
        EXPECT_LE(std::fabs(rsqrt[i] - 1.0 / std::sqrt(p)), std::ldexp(1.0 / std::sqrt(p), -22)) << p;
        EXPECT_LE(std::fabs(rcp[i] - 1.0 / p), std::ldexp(1.0 / p, -23)) << p;
    }
    // Special values: lg2(0) = -inf, lg2(-1) = NaN (canonical), ex2(-inf) = 0, sin(inf) = NaN.
    std::vector<float> s = {0.0f, -1.0f, -INFINITY, INFINITY};
    auto slg = run_op<float, float>("  lg2.approx.f32 %d, %a;", s);
    auto sex = run_op<float, float>("  ex2.approx.f32 %d, %a;", s);
    auto ssin = run_op<float, float>("  sin.approx.f32 %d, %a;", s);
    EXPECT_EQ(slg[0], -INFINITY);
    EXPECT_EQ(bits(slg[1]), 0x7fffffffu);
    EXPECT_EQ(sex[2], 0.0f);
    EXPECT_EQ(bits(ssin[3]), 0x7fffffffu);
}

// f64 NaN results, as measured on the H200 (driver 580.159, sm_90) with quiet and signaling NaNs of both
// signs and distinct payloads: the result is a NaN operand, quieted, sign and payload kept; add, sub
// and mul prefer b over a, fma prefers b, then c, then a; div prefers a over b; min/max give the second
// of two NaNs; invalid operations give 0xfff8000000000000.
TEST(PtxsimFloat, F64NaNOperandSelectionMeasuredOnTheH200) {
    const uint64_t qa = 0x7ff8000000000aaaull, qb = 0xfff80000000000bbull, sa = 0x7ff0000000000a01ull;
    const uint64_t sb = 0xfff00000000000b2ull;
    auto d = [](uint64_t b) { return std::bit_cast<double>(b); };
    std::vector<double> a = {d(qa), d(qb), d(sa), d(sb), d(qa), 1.0, d(sa)};
    std::vector<double> b = {d(qb), d(qa), d(qa), d(sa), 1.0, d(sb), 2.0};
    auto add = run_op<double, double, double>("  add.rn.f64 %d, %a, %b;", a, b);
    auto sub = run_op<double, double, double>("  sub.rz.f64 %d, %a, %b;", a, b);
    auto mul = run_op<double, double, double>("  mul.rn.f64 %d, %a, %b;", a, b);
    auto div = run_op<double, double, double>("  div.rn.f64 %d, %a, %b;", a, b);
    auto mx = run_op<double, double, double>("  max.f64 %d, %a, %b;", a, b);
    const uint64_t second[] = {
        qb, qa, qa, sa | 0x0008000000000000ull, qa, sb | 0x0008000000000000ull, sa | 0x0008000000000000ull};
    const uint64_t first[] = {qa,
                              qb,
                              sa | 0x0008000000000000ull,
                              sb | 0x0008000000000000ull,
                              qa,
                              sb | 0x0008000000000000ull,
                              sa | 0x0008000000000000ull};
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(bits(add[i]), second[i]) << i;
        EXPECT_EQ(bits(sub[i]), second[i]) << i; // the NaN b is not negated
        EXPECT_EQ(bits(mul[i]), second[i]) << i;
        EXPECT_EQ(bits(div[i]), first[i]) << i;
    }
    EXPECT_EQ(bits(mx[0]), qb);
    EXPECT_EQ(bits(mx[3]), sa | 0x0008000000000000ull);
    EXPECT_EQ(mx[4], 1.0);
    // fma: b, then c, then a.
    std::vector<double> fa = {d(qa), d(qa), d(qa), 1.0}, fb = {d(qb), 1.0, 1.0, 1.0}, fc = {d(sa), d(sa), 1.0, d(sb)};
    auto fma = run_op<double, double, double, double>("  fma.rn.f64 %d, %a, %b, %c;", fa, fb, fc);
    EXPECT_EQ(bits(fma[0]), qb);
    EXPECT_EQ(bits(fma[1]), sa | 0x0008000000000000ull);
    EXPECT_EQ(bits(fma[2]), qa);
    EXPECT_EQ(bits(fma[3]), sb | 0x0008000000000000ull);
    // Invalid operations: the negative default NaN.
    std::vector<double> ia = {INFINITY, 0.0, INFINITY}, ib = {INFINITY, INFINITY, 0.0};
    auto isub = run_op<double, double, double>("  sub.rn.f64 %d, %a, %b;", ia, ib);
    auto imul = run_op<double, double, double>("  mul.rn.f64 %d, %a, %b;", ia, ib);
    EXPECT_EQ(bits(isub[0]), 0xfff8000000000000ull);
    EXPECT_EQ(bits(imul[1]), 0xfff8000000000000ull);
    EXPECT_EQ(bits(imul[2]), 0xfff8000000000000ull);
}

// div.approx.f32 multiplies by an approximate reciprocal: for 2^126 < |b| < 2^128 the ISA (and the H200)
// give 0 with the sign of the quotient, and NaN for an infinite or NaN a. div.full.f32 keeps full range.
TEST(PtxsimFloat, DivApproxByHugeDivisors) {
    const float big = std::bit_cast<float>(0x7f7fffffu);
    std::vector<float> a = {1.5f, -6.0f, 1.0f, INFINITY, 3.0f, 1.0f, 0x1p-100f};
    std::vector<float> b = {big, big, -0x1.8p126f, big, 0x1p126f, -2.0f, 4.0f};
    auto ap = run_op<float, float, float>("  div.approx.f32 %d, %a, %b;", a, b);
    auto full = run_op<float, float, float>("  div.full.f32 %d, %a, %b;", a, b);
    EXPECT_EQ(bits(ap[0]), 0u);
    EXPECT_EQ(bits(ap[1]), 0x80000000u);
    EXPECT_EQ(bits(ap[2]), 0x80000000u);
    EXPECT_EQ(bits(ap[3]), 0x7fffffffu);
    EXPECT_EQ(ap[4], 3.0f * 0x1p-126f); // |b| = 2^126 is still inside the bounded range
    EXPECT_EQ(ap[5], -0.5f);
    EXPECT_EQ(ap[6], 0x1p-102f);
    // div.full: the quotient, within 2 ulp (exact here).
    EXPECT_EQ(full[0], 1.5f / big);
    EXPECT_EQ(full[1], -6.0f / big);
}

// sin/cos.approx.f32 reduce like the hardware: x * (1/2pi) as an f32 product rounded toward zero, then the
// fraction of a revolution. Huge arguments keep no fraction (an integer number of revolutions).
TEST(PtxsimFloat, SinCosReduceLikeTheHardware) {
    std::vector<float> x = {-0x1p31f,       0x1p31f,
                            0x1p24f,        std::bit_cast<float>(0x4b7fffffu),
                            0x1p24f + 2.0f, std::bit_cast<float>(0x7f7fffffu),
                            -0.0f};
    auto sn = run_op<float, float>("  sin.approx.f32 %d, %a;", x);
    auto cs = run_op<float, float>("  cos.approx.f32 %d, %a;", x);
    // 2^31 / 2pi = 341782637.8...: above 2^24 every f32 is an integer, so 0 revolutions left over.
    EXPECT_EQ(bits(sn[0]), 0x80000000u); // H200: -0
    EXPECT_EQ(bits(sn[1]), 0u);
    EXPECT_EQ(cs[0], 1.0f);
    EXPECT_EQ(cs[1], 1.0f);
    // 2^24 / 2pi = 2670176.8..., truncated to the f32 grid of 0.25: 2670176.75, three quarters of a turn.
    EXPECT_EQ(sn[2], -1.0f);
    EXPECT_EQ(bits(cs[2]), 0u);
    // (2^24 - 1) / 2pi = 2670176.6... -> 2670176.5: half a turn (H200: sin -0, cos -1).
    EXPECT_EQ(bits(sn[3]), 0x80000000u);
    EXPECT_EQ(cs[3], -1.0f);
    // (2^24 + 2) / 2pi = 2670177.1... -> 2670177: whole turns.
    EXPECT_EQ(bits(sn[4]), 0u);
    EXPECT_EQ(cs[4], 1.0f);
    EXPECT_EQ(bits(sn[5]), 0u);
    EXPECT_EQ(bits(sn[6]), 0x80000000u);
    EXPECT_EQ(cs[6], 1.0f);
}

// rcp.approx.ftz.f64 (ISA): 1 / (the high word of a, 1.11.20), as a 1.11.20 result with a zero low word;
// subnormal inputs act as zero, NaN gives 0x7fffffff00000000.
TEST(PtxsimFloat, RcpApproxFtzF64WorksOnTheHighWord) {
    auto d = [](uint64_t b) { return std::bit_cast<double>(b); };
    std::vector<double> a = {1.0,
                             d(0x3ff00000ffffffffull),
                             3.0,
                             -0.5,
                             0.0,
                             d(0x8000000000000001ull),
                             INFINITY,
                             d(0x7ff8000000012345ull),
                             d(0x7ff0000000000001ull),
                             d(0x7fefffffffffffffull),
                             0x1p-1022};
    auto r = run_op<double, double>("  rcp.approx.ftz.f64 %d, %a;", a);
    EXPECT_EQ(r[0], 1.0);
    EXPECT_EQ(r[1], 1.0);                         // the low word of a is ignored
    EXPECT_EQ(bits(r[2]), 0x3fd5555500000000ull); // 1/3 = 0x3fd55555|55555555: 20 bits kept
    EXPECT_EQ(r[3], -2.0);
    EXPECT_EQ(bits(r[4]), 0x7ff0000000000000ull);
    EXPECT_EQ(bits(r[5]), 0xfff0000000000000ull); // -subnormal -> -inf
    EXPECT_EQ(bits(r[6]), 0u);
    EXPECT_EQ(bits(r[7]), 0x7fffffff00000000ull);
    EXPECT_EQ(bits(r[8]), 0u); // high word 0x7ff00000: infinity
    EXPECT_EQ(bits(r[9]), 0u); // 1/DBL_MAX is subnormal: flushed
    EXPECT_EQ(r[10], 0x1p1022);
    for (double v : r) EXPECT_EQ(bits(v) & 0xffffffffull, 0u) << v; // the low word is always zero
}

} // namespace
} // namespace d4r::ptxsim::test
