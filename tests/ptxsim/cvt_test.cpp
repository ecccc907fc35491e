// cvt: float-to-integer rounding and saturation, integer-to-float and f64-to-f32 in every rounding
// mode (binary128 reference), integer narrowing/widening with and without .sat, and f16 / bf16
// conversions against a reference that searches the table of every half-precision value.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

using Q = __float128;
enum class Mode { Rn, Rz, Rm, Rp };

template <class F>
F round_q(Q q, Mode m) {
    F r = static_cast<F>(q);
    if (q != q || static_cast<Q>(r) == q) return r;
    const F inf = std::numeric_limits<F>::infinity();
    if (m == Mode::Rz && ((r > 0 && Q(r) > q) || (r < 0 && Q(r) < q))) r = std::nextafter(r, F(0));
    if (m == Mode::Rm && Q(r) > q) r = std::nextafter(r, -inf);
    if (m == Mode::Rp && Q(r) < q) r = std::nextafter(r, inf);
    return r;
}

TEST(PtxsimCvt, FloatToIntegerRoundsAndSaturates) {
    std::vector<float> x = {0.5f,           1.5f,          2.5f,   -0.5f,    -1.5f,     -2.5f, 2.7f,
                            -2.7f,          1e10f,         -1e10f, INFINITY, -INFINITY, NAN,   2147483520.0f,
                            -2147483648.0f, 4294967040.0f, -0.0f,  1e-40f,   65535.5f,  255.9f};
    struct Case {
        const char* rnd;
        double (*f)(double);
    };
    const Case cases[] = {{"rni", [](double v) { return std::nearbyint(v); }},
                          {"rzi", [](double v) { return std::trunc(v); }},
                          {"rmi", [](double v) { return std::floor(v); }},
                          {"rpi", [](double v) { return std::ceil(v); }}};
    auto sat = [](double v, double lo, double hi) { return std::isnan(v) ? 0.0 : std::clamp(v, lo, hi); };
    for (const Case& c : cases) {
        auto s32 = run_op<int32_t, float>(std::string("  cvt.") + c.rnd + ".s32.f32 %d, %a;", x);
        auto u32 = run_op<uint32_t, float>(std::string("  cvt.") + c.rnd + ".u32.f32 %d, %a;", x);
        auto s64 = run_op<int64_t, float>(std::string("  cvt.") + c.rnd + ".s64.f32 %d, %a;", x);
        auto u8 = run_op<uint16_t, float>(std::string("  cvt.") + c.rnd + ".u8.f32 %d, %a;", x);
        for (size_t i = 0; i < x.size(); ++i) {
            double r = c.f(double(x[i]));
            EXPECT_EQ(s32[i], int32_t(sat(r, INT32_MIN, INT32_MAX))) << c.rnd << " " << x[i];
            EXPECT_EQ(u32[i], uint32_t(sat(r, 0, 4294967295.0))) << c.rnd << " " << x[i];
            double s64v = sat(r, -9223372036854775808.0, 9223372036854775807.0);
            int64_t e64 = s64v >= 9223372036854775807.0 ? INT64_MAX : int64_t(s64v);
            // NaN to a 64-bit integer gives the sign-bit pattern (H200 goldens, corpus case cvt_f2i).
            if (std::isnan(x[i])) e64 = INT64_MIN;
            EXPECT_EQ(s64[i], e64) << c.rnd << " " << x[i];
            EXPECT_EQ(u8[i], uint16_t(sat(r, 0, 255))) << c.rnd << " " << x[i];
        }
    }
    std::vector<double> d = {1e300, -1e300, 9.3e18, -9.3e18, 1.8446744073709552e19, NAN, -1.0, 4294967295.7};
    auto u64 = run_op<uint64_t, double>("  cvt.rzi.u64.f64 %d, %a;", d);
    auto s64 = run_op<int64_t, double>("  cvt.rni.s64.f64 %d, %a;", d);
    // NaN (index 5) gives the sign-bit pattern for 64-bit destinations, unsigned too (H200, corpus cvt_d2i).
    std::vector<uint64_t> eu = {UINT64_MAX,   0, 9300000000000000000ull, 0, UINT64_MAX, 0x8000000000000000ull, 0,
                                4294967295ull};
    std::vector<int64_t> es = {INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, -1, 4294967296ll};
    EXPECT_EQ(u64, eu);
    EXPECT_EQ(s64, es);
}

TEST(PtxsimCvt, IntegerAndDoubleToFloatEveryRoundingMode) {
    std::vector<int64_t> v;
    TestRng rng(4);
    for (int i = 0; i < 300; ++i) v.push_back(int64_t(rng.next() >> (rng.next() % 40)) * ((i & 1) ? -1 : 1));
    v.push_back(INT64_MIN);
    v.push_back(INT64_MAX);
    v.push_back((1ll << 24) + 1);
    v.push_back((1ll << 53) + 1);
    std::vector<uint64_t> u(v.begin(), v.end());
    std::vector<double> d;
    for (int i = 0; i < 300; ++i) d.push_back(std::ldexp(double(rng.next() >> 11), int(rng.next() % 300) - 200));
    d.push_back(1e300);
    d.push_back(-1e300);
    d.push_back(1e-320);
    const char* modes[] = {"rn", "rz", "rm", "rp"};
    for (int m = 0; m < 4; ++m) {
        std::string mode = modes[m];
        auto fs = run_op<float, int64_t>("  cvt." + mode + ".f32.s64 %d, %a;", v);
        auto fu = run_op<float, uint64_t>("  cvt." + mode + ".f32.u64 %d, %a;", u);
        auto ds = run_op<double, int64_t>("  cvt." + mode + ".f64.s64 %d, %a;", v);
        auto fd = run_op<float, double>("  cvt." + mode + ".f32.f64 %d, %a;", d);
        for (size_t i = 0; i < v.size(); ++i) {
            EXPECT_EQ(bits_of(fs[i]), bits_of(round_q<float>(Q(v[i]), Mode(m)))) << mode << " " << v[i];
            EXPECT_EQ(bits_of(fu[i]), bits_of(round_q<float>(Q(u[i]), Mode(m)))) << mode << " " << u[i];
            EXPECT_EQ(bits_of(ds[i]), bits_of(round_q<double>(Q(v[i]), Mode(m)))) << mode << " " << v[i];
        }
        for (size_t i = 0; i < d.size(); ++i)
            EXPECT_EQ(bits_of(fd[i]), bits_of(round_q<float>(Q(d[i]), Mode(m)))) << mode << " " << d[i];
    }
    std::vector<int32_t> small = {0, 1, -1, 16777217, -16777217, INT32_MIN, INT32_MAX};
    auto f = run_op<float, int32_t>("  cvt.rn.f32.s32 %d, %a;", small);
    auto dd = run_op<double, int32_t>("  cvt.f64.s32 %d, %a;", small);
    for (size_t i = 0; i < small.size(); ++i) {
        EXPECT_EQ(f[i], static_cast<float>(small[i]));
        EXPECT_EQ(dd[i], static_cast<double>(small[i]));
    }
}

TEST(PtxsimCvt, FloatToFloatIntegralAndWidening) {
    std::vector<float> x = {0.5f, 1.5f, 2.5f, -2.5f, 2.7f, -0.3f, 1e20f, NAN, INFINITY, 1e-40f};
    auto rni = run_op<float, float>("  cvt.rni.f32.f32 %d, %a;", x);
    auto rmi = run_op<float, float>("  cvt.rmi.f32.f32 %d, %a;", x);
    auto wide = run_op<double, float>("  cvt.f64.f32 %d, %a;", x);
    auto wide_ftz = run_op<double, float>("  cvt.ftz.f64.f32 %d, %a;", x);
    auto sat = run_op<float, float>("  cvt.sat.f32.f32 %d, %a;", x);
    for (size_t i = 0; i + 3 < x.size(); ++i) {
        EXPECT_EQ(rni[i], std::nearbyint(x[i])) << x[i];
        EXPECT_EQ(rmi[i], std::floor(x[i])) << x[i];
        EXPECT_EQ(wide[i], double(x[i]));
    }
    EXPECT_EQ(bits_of(rni[7]), 0x7fffffffu);            // NaN -> canonical NaN
    EXPECT_EQ(bits_of(wide[7]), 0x7ff8000000000000ull); // f32 -> f64 keeps the NaN (payload shifted)
    EXPECT_EQ(wide[9], double(1e-40f));                 // subnormal widened exactly
    EXPECT_EQ(bits_of(wide_ftz[9]), bits_of(0.0));      // .ftz flushes the f32 input
    EXPECT_EQ(sat[4], 1.0f);
    EXPECT_EQ(bits_of(sat[5]), bits_of(0.0f));
    EXPECT_EQ(bits_of(sat[7]), bits_of(0.0f));
}

TEST(PtxsimCvt, IntegerNarrowingWideningAndSaturation) {
    std::vector<int32_t> v = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, INT32_MIN, INT32_MAX};
    auto s8 = run_op<int32_t, int32_t>("  cvt.s32.s8 %d, %a;", v);         // sign-extend the low byte
    auto u16 = run_op<uint32_t, int32_t>("  cvt.u32.u16 %d, %a;", v);      // zero-extend the low half
    auto sat8 = run_op<uint16_t, int32_t>("  cvt.sat.s8.s32 %d, %a;", v);  // clamp to [-128, 127]
    auto satu8 = run_op<uint16_t, int32_t>("  cvt.sat.u8.s32 %d, %a;", v); // clamp to [0, 255]
    auto w = run_op<int64_t, int32_t>("  cvt.s64.s32 %d, %a;", v);
    auto uw = run_op<uint64_t, int32_t>("  cvt.u64.u32 %d, %a;", v);
    auto satu32 = run_op<uint32_t, int32_t>("  cvt.sat.u32.s32 %d, %a;", v);
    for (size_t i = 0; i < v.size(); ++i) {
        EXPECT_EQ(s8[i], int32_t(int8_t(v[i])));
        EXPECT_EQ(u16[i], uint32_t(uint16_t(v[i])));
        EXPECT_EQ(int8_t(sat8[i]), int8_t(std::clamp(v[i], -128, 127)));
        EXPECT_EQ(uint8_t(satu8[i]), uint8_t(std::clamp(v[i], 0, 255)));
        EXPECT_EQ(w[i], int64_t(v[i]));
        EXPECT_EQ(uw[i], uint64_t(uint32_t(v[i])));
        EXPECT_EQ(satu32[i], uint32_t(std::max(v[i], 0)));
    }
    // A source register wider than the type: the low bits are converted.
    std::vector<int64_t> big = {0x1234567890ll, -1, 0x80, 0x17f};
    auto narrow = run_op<int64_t, int64_t>("  cvt.s64.s8 %d, %a;", big);
    for (size_t i = 0; i < big.size(); ++i) EXPECT_EQ(narrow[i], int64_t(int8_t(big[i])));
    std::vector<uint64_t> ubig = {0xffffffff00000005ull, 0x100000000ull};
    auto trunc = run_op<uint32_t, uint64_t>("  cvt.u32.u64 %d, %a;", ubig);
    EXPECT_EQ(trunc[0], 5u);
    EXPECT_EQ(trunc[1], 0u);
}

// Half precision reference: all finite f16 values, sorted, searched for the neighbours of x.
struct HalfTable {
    std::vector<std::pair<double, uint16_t>> positive; // value, bits (sign clear)
    HalfTable() {
        for (uint32_t b = 0; b < 0x7c00; ++b) {
            uint32_t e = b >> 10, m = b & 0x3ff;
            double v = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(double(m | 0x400), int(e) - 25);
            positive.push_back({v, uint16_t(b)});
        }
    }
    uint16_t round(double x, Mode mode) const {
        if (std::isnan(x)) return 0x7fff;
        uint16_t sign = std::signbit(x) ? 0x8000 : 0;
        if (std::isinf(x)) return sign | 0x7c00; // infinity is exact in every mode
        double a = std::fabs(x);
        bool neg = sign != 0;
        // Toward +inf for a positive value is away from zero; for a negative value toward zero.
        bool away;
        auto it = std::lower_bound(positive.begin(), positive.end(), std::make_pair(a, uint16_t(0)));
        if (it != positive.end() && it->first == a) return sign | it->second;
        const double max = positive.back().first;
        if (it == positive.end()) {                                     // beyond the largest finite value
            bool inf = mode == Mode::Rn ? a >= max + std::ldexp(1.0, 4) /* half ulp of 65504 */
                                        : (mode == Mode::Rp && !neg) || (mode == Mode::Rm && neg);
            return sign | (inf ? 0x7c00 : positive.back().second);
        }
        auto lo = it - 1, hi = it;
        switch (mode) {
        case Mode::Rz:
            away = false;
            break;
        case Mode::Rp:
            away = !neg;
            break;
        case Mode::Rm:
            away = neg;
            break;
        default: {
            double dl = a - lo->first, dh = hi->first - a;
            away = dh < dl || (dh == dl && (hi->second & 1) == 0);
        }
        }
        return sign | (away ? hi->second : lo->second);
    }
};

TEST(PtxsimCvt, HalfPrecisionEveryRoundingModeAgainstTable) {
    static const HalfTable table;
    std::vector<float> x = {0.0f,     -0.0f,    1.0f,     65504.0f,  65519.0f, 65520.0f, 1e6f, -1e6f, INFINITY, NAN,
                            5.96e-8f, 2.98e-8f, 2.99e-8f, -2.98e-8f, 1e-10f,   6.1e-5f,  0.1f, -0.3f, 3.14159f};
    TestRng rng(8);
    for (int i = 0; i < 2000; ++i) {
        float v = std::ldexp(float(rng.next() >> 40) / 16777216.0f, int(rng.next() % 44) - 28);
        x.push_back((i & 1) ? -v : v);
    }
    const char* modes[] = {"rn", "rz", "rm", "rp"};
    for (int m = 0; m < 4; ++m) {
        auto h = run_op<uint16_t, float>(std::string("  cvt.") + modes[m] + ".f16.f32 %d, %a;", x);
        for (size_t i = 0; i < x.size(); ++i)
            ASSERT_EQ(h[i], table.round(x[i], Mode(m))) << modes[m] << " " << x[i] << " i=" << i;
    }
    // Back to f32 exactly, and packed pairs (a in the upper half).
    std::vector<uint16_t> hv;
    for (uint32_t b = 0; b < 0x10000; b += 7) hv.push_back(uint16_t(b));
    auto back = run_op<float, uint16_t>("  cvt.f32.f16 %d, %a;", hv);
    for (size_t i = 0; i < hv.size(); ++i) {
        uint16_t b = hv[i];
        if ((b & 0x7c00) == 0x7c00 && (b & 0x3ff)) {
            EXPECT_EQ(bits_of(back[i]), 0x7fffffffu); // NaN -> canonical
            continue;
        }
        double mag = (b & 0x7c00) == 0x7c00 ? INFINITY : table.positive[b & 0x7fff].first;
        EXPECT_EQ(back[i], float((b & 0x8000) ? -mag : mag)) << b;
    }
    std::vector<float> a = {1.0f, -2.0f, 65520.0f}, c = {0.5f, 1e-8f, NAN};
    auto packed = run_op<uint32_t, float, float>("  cvt.rn.f16x2.f32 %d, %a, %b;", a, c);
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(packed[i], (uint32_t(table.round(a[i], Mode::Rn)) << 16) | table.round(c[i], Mode::Rn));
}

TEST(PtxsimCvt, HalfPrecisionReluAndSatfinite) {
    static const HalfTable table;
    std::vector<float> x = {1.5f, -1.5f, -0.0f, 1e6f, -1e6f, INFINITY, -INFINITY, NAN, -1e-9f, 65520.0f};
    auto relu = run_op<uint16_t, float>("  cvt.rn.relu.f16.f32 %d, %a;", x);
    auto satf = run_op<uint16_t, float>("  cvt.rn.satfinite.f16.f32 %d, %a;", x);
    for (size_t i = 0; i < x.size(); ++i) {
        uint16_t plain = table.round(x[i], Mode::Rn);
        bool nan = std::isnan(x[i]);
        uint16_t r = nan ? 0x7fff : (plain & 0x8000) ? 0 : plain;
        EXPECT_EQ(relu[i], r) << x[i];
        uint16_t s = nan ? 0x7fff : ((plain & 0x7fff) == 0x7c00 ? uint16_t((plain & 0x8000) | 0x7bff) : plain);
        EXPECT_EQ(satf[i], s) << x[i];
    }
    std::vector<float> a = {-3.0f, 70000.0f}, b = {2.0f, -70000.0f};
    auto packed = run_op<uint32_t, float, float>("  cvt.rn.relu.satfinite.f16x2.f32 %d, %a, %b;", a, b);
    EXPECT_EQ(packed[0], (0u << 16) | table.round(2.0f, Mode::Rn));
    EXPECT_EQ(packed[1], (0x7bffu << 16) | 0u);
}

} // namespace
} // namespace d4r::ptxsim::test
