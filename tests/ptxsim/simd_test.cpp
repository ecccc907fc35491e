// Packed integer SIMD: min/max on 16-bit halves (.u16x2, .s16x2, .relu), dp4a and dp2a in every
// signedness form. Expected values come from the PTX ISA pseudo-code, re-implemented here lane by lane
// (and a few worked by hand).
#include <gtest/gtest.h>

#include <algorithm>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

int32_t half(uint32_t v, int k, bool s) {
    uint32_t h = (v >> (16 * k)) & 0xffff;
    return s ? int32_t(int16_t(h)) : int32_t(h);
}
int32_t byte(uint32_t v, int k, bool s) {
    uint32_t b = (v >> (8 * k)) & 0xff;
    return s ? int32_t(int8_t(b)) : int32_t(b);
}

std::vector<uint32_t> inputs(uint64_t seed) {
    std::vector<uint32_t> v = {0,           1,           0xffffffffu, 0x80008000u, 0x7fff7fffu, 0x00ff00ffu,
                               0xff00ff00u, 0x80000001u, 0x12345678u, 0xfedcba98u, 0x7f80017fu, 0x01800080u};
    TestRng rng(seed);
    while (v.size() < 128) v.push_back(uint32_t(rng.next()));
    return v;
}

TEST(PtxsimSimd, MinMaxOnHalves) {
    auto a = inputs(1), b = inputs(2);
    std::reverse(b.begin(), b.end());
    struct Form {
        const char* op;
        bool is_signed, is_max, relu;
    };
    for (Form f : {Form{"min.u16x2", false, false, false}, Form{"max.u16x2", false, true, false},
                   Form{"min.s16x2", true, false, false}, Form{"max.s16x2", true, true, false},
                   Form{"min.relu.s16x2", true, false, true}, Form{"max.relu.s16x2", true, true, true}}) {
        auto got = run_op<uint32_t, uint32_t>(std::string("  ") + f.op + " %d, %a, %b;", a, b);
        for (size_t i = 0; i < a.size(); ++i) {
            uint32_t e = 0;
            for (int k = 0; k < 2; ++k) {
                int32_t x = half(a[i], k, f.is_signed), y = half(b[i], k, f.is_signed);
                int32_t r = f.is_max ? std::max(x, y) : std::min(x, y);
                if (f.relu) r = std::max(r, 0);
                e |= (uint32_t(r) & 0xffff) << (16 * k);
            }
            ASSERT_EQ(got[i], e) << f.op << " " << std::hex << a[i] << " " << b[i];
        }
    }
    // By hand: halves (-1, 5) and (3, -7).
    auto hand = run_op<uint32_t, uint32_t>("  min.s16x2 %d, %a, %b;\n  max.relu.s16x2 %r5, %a, %b;\n"
                                           "  min.u16x2 %r6, %a, %b;\n  xor.b32 %d, %d, %r5;\n  xor.b32 %d, %d, %r6;",
                                           {0x0005ffffu}, {0xfff90003u});
    // min.s16x2 = (-1, -7) = 0xfff9ffff; max.relu = (3, 5) = 0x00050003; min.u16x2 = (3, 5) = 0x00050003.
    EXPECT_EQ(hand[0], 0xfff9ffffu ^ 0x00050003u ^ 0x00050003u);
}

TEST(PtxsimSimd, Dp4aEverySignedness) {
    auto a = inputs(3), b = inputs(4), c = inputs(5);
    for (bool sa : {false, true}) {
        for (bool sb : {false, true}) {
            std::string op = std::string("dp4a.") + (sa ? "s32" : "u32") + (sb ? ".s32" : ".u32");
            auto got = run_op<uint32_t, uint32_t>("  " + op + " %d, %a, %b, %c;", a, b, c);
            for (size_t i = 0; i < a.size(); ++i) {
                int64_t e = int64_t(int32_t(c[i]));
                for (int k = 0; k < 4; ++k) e += int64_t(byte(a[i], k, sa)) * byte(b[i], k, sb);
                ASSERT_EQ(got[i], uint32_t(e)) << op << " " << std::hex << a[i] << " " << b[i] << " " << c[i];
            }
        }
    }
    // By hand: bytes (1, -1, 1, -1) . (2, 2, 2, 2) + 10 = 10 signed; unsigned a bytes (1, 255, 1, 255).
    auto s = run_op<uint32_t, uint32_t>("  dp4a.s32.s32 %d, %a, %b, %c;", {0xff01ff01u}, {0x02020202u}, {10u});
    auto u = run_op<uint32_t, uint32_t>("  dp4a.u32.u32 %d, %a, %b, %c;", {0xff01ff01u}, {0x02020202u}, {10u});
    EXPECT_EQ(s[0], 10u);
    EXPECT_EQ(u[0], 10u + 2 * (1 + 255 + 1 + 255));
}

TEST(PtxsimSimd, Dp2aLowAndHighBytes) {
    auto a = inputs(6), b = inputs(7), c = inputs(8);
    for (bool hi : {false, true}) {
        for (bool sa : {false, true}) {
            for (bool sb : {false, true}) {
                std::string op =
                    std::string("dp2a.") + (hi ? "hi." : "lo.") + (sa ? "s32" : "u32") + (sb ? ".s32" : ".u32");
                auto got = run_op<uint32_t, uint32_t>("  " + op + " %d, %a, %b, %c;", a, b, c);
                for (size_t i = 0; i < a.size(); ++i) {
                    int64_t e = int64_t(int32_t(c[i]));
                    for (int k = 0; k < 2; ++k) e += int64_t(half(a[i], k, sa)) * byte(b[i], (hi ? 2 : 0) + k, sb);
                    ASSERT_EQ(got[i], uint32_t(e)) << op << " " << std::hex << a[i] << " " << b[i] << " " << c[i];
                }
            }
        }
    }
    // By hand: halves (-2, 3) . bytes 2,3 of b = (4, -1): -8 - 3 + 100 = 89.
    auto h = run_op<uint32_t, uint32_t>("  dp2a.hi.s32.s32 %d, %a, %b, %c;", {0x0003fffeu}, {0xff040000u}, {100u});
    EXPECT_EQ(h[0], 89u);
}

TEST(PtxsimSimd, MalformedFormsAreLoadErrors) {
    auto k = [](const std::string& ins) {
        return ptx(".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  " + ins + "\n  ret;\n}\n");
    };
    EXPECT_NE(load_error(k("min.relu.u16x2 %r1, %r2, %r3;")).find(".relu"), std::string::npos);
    EXPECT_NE(load_error(k("dp4a.u32 %r1, %r2, %r3, %r0;")).find("dp4a"), std::string::npos);
    EXPECT_NE(load_error(k("dp2a.u32.u32 %r1, %r2, %r3, %r0;")).find(".lo or .hi"), std::string::npos);
    EXPECT_NE(load_error(k("dp4a.u32.u32.sat %r1, %r2, %r3, %r0;")).find("sat"), std::string::npos);
}

// vabsdiff4 in its reduction form: c plus the four byte lanes' absolute differences, bytes signed or
// unsigned as the types say (stereoDisparity's sum of absolute differences).
TEST(PtxsimSimd, Vabsdiff4AddsTheByteDifferences) {
    const std::vector<uint32_t> a = {0x00000000u, 0x01020304u, 0xff00ff00u, 0x80807f7fu, 0x12345678u};
    const std::vector<uint32_t> b = {0x00000000u, 0x04030201u, 0x00ff00ffu, 0x7f7f8080u, 0x87654321u};
    auto ref = [](uint32_t x, uint32_t y, bool sx, bool sy) {
        uint32_t sum = 100;
        for (int k = 0; k < 4; ++k) {
            const int bx = sx ? int(int8_t(x >> (8 * k))) : int((x >> (8 * k)) & 0xff);
            const int by = sy ? int(int8_t(y >> (8 * k))) : int((y >> (8 * k)) & 0xff);
            sum += uint32_t(bx > by ? bx - by : by - bx);
        }
        return sum;
    };
    const char* types[] = {"u32.u32", "s32.s32", "u32.s32", "s32.u32"};
    for (int t = 0; t < 4; ++t) {
        SCOPED_TRACE(types[t]);
        auto got = run_op<uint32_t, uint32_t>(
            std::string("  mov.u32 %r5, 100;\n  vabsdiff4.u32.") + types[t] + ".add %d, %a, %b, %r5;", a, b);
        for (size_t i = 0; i < a.size(); ++i)
            EXPECT_EQ(got[i], ref(a[i], b[i], t == 1 || t == 3, t == 1 || t == 2)) << i;
    }
}

} // namespace
} // namespace d4r::ptxsim::test
