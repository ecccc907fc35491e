// setp (every comparison, ordered and unordered, combining with .and/.or/.xor, two destinations),
// set, selp, slct and predicate logic, against C++ comparisons.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

std::vector<float> float_edges() {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    return {0.0f, -0.0f, 1.0f, -1.0f, 1.5f, inf, -inf, nan, -nan, 1e-40f, -1e-40f, 3.0e38f, 2.0f, 0.5f};
}

template <class T>
void check_setp(const std::string& cmp, const std::string& type, const std::vector<T>& edges, auto ref) {
    std::vector<T> a, b;
    for (T x : edges)
        for (T y : edges) {
            a.push_back(x);
            b.push_back(y);
        }
    std::string body = "  setp." + cmp + "." + type +
                       " %p0|%p1, %a, %b;\n  selp.b32 %r5, 1, 0, %p0;\n"
                       "  selp.b32 %r6, 2, 0, %p1;\n  or.b32 %d, %r5, %r6;";
    auto got = run_op<uint32_t, T, T>(body, a, b);
    for (size_t i = 0; i < a.size(); ++i) {
        bool r = ref(a[i], b[i]);
        // The second destination receives the complement of the comparison.
        ASSERT_EQ(got[i], (r ? 1u : 0u) | (r ? 0u : 2u)) << cmp << "." << type << " " << a[i] << " " << b[i];
    }
}

TEST(PtxsimCompare, FloatComparisonsOrderedAndUnordered) {
    auto e = float_edges();
    auto un = [](float x, float y) { return std::isnan(x) || std::isnan(y); };
    check_setp<float>("eq", "f32", e, [](float x, float y) { return x == y; });
    check_setp<float>("ne", "f32", e, [&](float x, float y) { return !un(x, y) && x != y; });
    check_setp<float>("lt", "f32", e, [](float x, float y) { return x < y; });
    check_setp<float>("le", "f32", e, [](float x, float y) { return x <= y; });
    check_setp<float>("gt", "f32", e, [](float x, float y) { return x > y; });
    check_setp<float>("ge", "f32", e, [](float x, float y) { return x >= y; });
    check_setp<float>("equ", "f32", e, [&](float x, float y) { return un(x, y) || x == y; });
    check_setp<float>("neu", "f32", e, [&](float x, float y) { return un(x, y) || x != y; });
    check_setp<float>("ltu", "f32", e, [&](float x, float y) { return un(x, y) || x < y; });
    check_setp<float>("leu", "f32", e, [&](float x, float y) { return un(x, y) || x <= y; });
    check_setp<float>("gtu", "f32", e, [&](float x, float y) { return un(x, y) || x > y; });
    check_setp<float>("geu", "f32", e, [&](float x, float y) { return un(x, y) || x >= y; });
    check_setp<float>("num", "f32", e, [&](float x, float y) { return !un(x, y); });
    check_setp<float>("nan", "f32", e, [&](float x, float y) { return un(x, y); });
    // .ftz: subnormal operands compare as zero.
    check_setp<float>("eq.ftz", "f32", e, [](float x, float y) {
        auto f = [](float v) { return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v; };
        return f(x) == f(y);
    });
    std::vector<double> d = {0.0, -0.0, 1.0, -2.5, INFINITY, -INFINITY, NAN, 1e-310, 1e308};
    check_setp<double>("ltu", "f64", d, [](double x, double y) { return std::isnan(x) || std::isnan(y) || x < y; });
}

TEST(PtxsimCompare, IntegerComparisonsSignedAndUnsigned) {
    std::vector<int32_t> e = {0, 1, -1, 2, -2, INT32_MIN, INT32_MAX, 1000, -1000};
    check_setp<int32_t>("lt", "s32", e, [](int32_t x, int32_t y) { return x < y; });
    check_setp<int32_t>("ge", "s32", e, [](int32_t x, int32_t y) { return x >= y; });
    check_setp<int32_t>("lo", "s32", e, [](int32_t x, int32_t y) { return uint32_t(x) < uint32_t(y); });
    check_setp<int32_t>("hs", "u32", e, [](int32_t x, int32_t y) { return uint32_t(x) >= uint32_t(y); });
    check_setp<int32_t>("gt", "u32", e, [](int32_t x, int32_t y) { return uint32_t(x) > uint32_t(y); });
    check_setp<int32_t>("ne", "b32", e, [](int32_t x, int32_t y) { return x != y; });
    std::vector<int64_t> w = {0, -1, 1, INT64_MIN, INT64_MAX, 1ll << 40};
    check_setp<int64_t>("le", "s64", w, [](int64_t x, int64_t y) { return x <= y; });
    check_setp<int64_t>("ls", "u64", w, [](int64_t x, int64_t y) { return uint64_t(x) <= uint64_t(y); });
    std::vector<int16_t> h = {0, -1, 1, INT16_MIN, INT16_MAX};
    check_setp<int16_t>("gt", "s16", h, [](int16_t x, int16_t y) { return x > y; });
}

TEST(PtxsimCompare, CombiningPredicatesSetSelpSlct) {
    std::vector<int32_t> a, b, c;
    for (int x = -2; x <= 2; ++x)
        for (int y = -2; y <= 2; ++y)
            for (int z = -1; z <= 1; ++z) {
                a.push_back(x);
                b.push_back(y);
                c.push_back(z);
            }
    // setp.lt.and with a negated predicate: p = (a < b) & !(c == 0); q = (a >= b) & !(c == 0).
    auto comb = run_op<uint32_t, int32_t, int32_t, int32_t>(R"(  setp.eq.s32 %p2, %c, 0;
  setp.lt.and.s32 %p0|%p1, %a, %b, !%p2;
  setp.gt.xor.s32 %p3, %a, %b, %p2;
  selp.b32 %r5, 1, 0, %p0;
  selp.b32 %r6, 2, 0, %p1;
  selp.b32 %r7, 4, 0, %p3;
  or.b32 %r5, %r5, %r6;
  or.b32 %d, %r5, %r7;)",
                                                            a, b, c);
    auto set = run_op<uint32_t, int32_t, int32_t>("  set.lt.u32.s32 %d, %a, %b;", a, b);
    auto setf = run_op<float, int32_t, int32_t>("  set.ge.f32.s32 %d, %a, %b;", a, b);
    auto slct = run_op<uint32_t, int32_t, int32_t, int32_t>("  slct.b32.s32 %d, %a, %b, %c;", a, b, c);
    for (size_t i = 0; i < a.size(); ++i) {
        bool nz = c[i] != 0;
        uint32_t e =
            ((a[i] < b[i]) && nz ? 1u : 0u) | ((a[i] >= b[i]) && nz ? 2u : 0u) | (((a[i] > b[i]) != !nz) ? 4u : 0u);
        ASSERT_EQ(comb[i], e) << a[i] << " " << b[i] << " " << c[i];
        ASSERT_EQ(set[i], a[i] < b[i] ? 0xffffffffu : 0u);
        ASSERT_EQ(setf[i], a[i] >= b[i] ? 1.0f : 0.0f);
        ASSERT_EQ(slct[i], uint32_t(c[i] >= 0 ? a[i] : b[i]));
    }
    // slct with an f32 selector: -0.0 counts as >= 0, NaN selects b.
    std::vector<float> sel = {1.0f, -0.0f, -1e-40f, NAN, -INFINITY, 0.0f};
    std::vector<uint32_t> x(sel.size(), 11), y(sel.size(), 22);
    auto fs = run_op<uint32_t, uint32_t, uint32_t, float>("  slct.b32.f32 %d, %a, %b, %c;", x, y, sel);
    auto fz = run_op<uint32_t, uint32_t, uint32_t, float>("  slct.ftz.b32.f32 %d, %a, %b, %c;", x, y, sel);
    std::vector<uint32_t> expect = {11, 11, 22, 22, 22, 11};
    std::vector<uint32_t> expect_ftz = {11, 11, 11, 22, 22, 11}; // the subnormal -1e-40 flushes to -0.0
    EXPECT_EQ(fs, expect);
    EXPECT_EQ(fz, expect_ftz);
}

TEST(PtxsimCompare, PredicateLogic) {
    std::vector<int32_t> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
    auto r = run_op<uint32_t, int32_t, int32_t>(R"(  setp.ne.s32 %p0, %a, 0;
  setp.ne.s32 %p1, %b, 0;
  and.pred %p2, %p0, %p1;
  or.pred %p3, %p0, %p1;
  xor.pred %q0, %p0, %p1;
  not.pred %q1, %p0;
  mov.pred %q2, %p1;
  selp.b32 %r5, 1, 0, %p2;
  selp.b32 %r6, 2, 0, %p3;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 4, 0, %q0;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 8, 0, %q1;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 16, 0, %q2;
  or.b32 %d, %r5, %r6;)",
                                                a, b);
    for (size_t i = 0; i < 4; ++i) {
        bool x = a[i], y = b[i];
        uint32_t e = (x && y ? 1 : 0) | (x || y ? 2 : 0) | (x != y ? 4 : 0) | (!x ? 8 : 0) | (y ? 16 : 0);
        EXPECT_EQ(r[i], e) << i;
    }
}

// A predicate source may be an integer constant, nonzero true (nvcc writes `xor.pred %p1, %p2, -1` for a
// negation): each operation with a constant on either side, and with constants only.
TEST(PtxsimCompare, PredicateLogicWithConstants) {
    std::vector<int32_t> a = {0, 1}, unused = {0, 0};
    auto r = run_op<uint32_t, int32_t, int32_t>(R"(  setp.ne.s32 %p0, %a, 0;
  xor.pred %p1, %p0, -1;
  xor.pred %p2, 0, %p0;
  and.pred %p3, 1, %p0;
  and.pred %q0, %p0, 0;
  or.pred %q1, %p0, 1;
  or.pred %q2, 0, %p0;
  xor.pred %q3, 1, 1;
  selp.b32 %r5, 1, 0, %p1;
  selp.b32 %r6, 2, 0, %p2;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 4, 0, %p3;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 8, 0, %q0;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 16, 0, %q1;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 32, 0, %q2;
  or.b32 %r5, %r5, %r6;
  selp.b32 %r6, 64, 0, %q3;
  or.b32 %r5, %r5, %r6;
  not.pred %p1, 0;
  selp.b32 %r6, 128, 0, %p1;
  or.b32 %d, %r5, %r6;)",
                                                a, unused);
    for (size_t i = 0; i < 2; ++i) {
        const bool x = a[i];
        const uint32_t e = (!x ? 1 : 0) | (x ? 2 : 0) | (x ? 4 : 0) | 0 | 16 | (x ? 32 : 0) | 0 | 128;
        EXPECT_EQ(r[i], e) << i;
    }
}

} // namespace
} // namespace d4r::ptxsim::test
