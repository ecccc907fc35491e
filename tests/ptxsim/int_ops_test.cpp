// Integer arithmetic and bit operations, each checked against plain C++ written from the PTX ISA's
// pseudo-code, over edge values and pseudo-random inputs.
#include <gtest/gtest.h>

#include <bit>
#include <limits>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// Every pair of edge values, then random pairs.
template <class T>
void pairs(std::vector<T>& a, std::vector<T>& b, size_t random = 256) {
    using L = std::numeric_limits<T>;
    std::vector<T> edges = {T(0),
                            T(1),
                            T(2),
                            T(3),
                            T(-1),
                            T(-2),
                            L::min(),
                            L::max(),
                            T(L::min() + 1),
                            T(L::max() - 1),
                            T(7),
                            T(100),
                            T(T(1) << (sizeof(T) * 8 - 2))};
    for (T x : edges)
        for (T y : edges) {
            a.push_back(x);
            b.push_back(y);
        }
    TestRng rng(sizeof(T) * 31 + random);
    for (size_t i = 0; i < random; ++i) {
        a.push_back(T(rng.next()));
        b.push_back(T(rng.next() >> (rng.next() & 63)));
    }
}

template <class T>
void check_binary(const std::string& op, auto ref) {
    std::vector<T> a, b;
    pairs(a, b);
    auto got = run_op<T, T, T>("  " + op + " %d, %a, %b;", a, b);
    ASSERT_EQ(got.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i)
        ASSERT_EQ(bits_of(got[i]), bits_of(T(ref(a[i], b[i])))) << op << " a=" << +a[i] << " b=" << +b[i];
}

TEST(PtxsimInt, AddSubWrap) {
    check_binary<int32_t>("add.s32", [](int32_t x, int32_t y) { return int32_t(uint32_t(x) + uint32_t(y)); });
    check_binary<uint32_t>("sub.u32", [](uint32_t x, uint32_t y) { return x - y; });
    check_binary<int64_t>("add.s64", [](int64_t x, int64_t y) { return int64_t(uint64_t(x) + uint64_t(y)); });
    check_binary<uint16_t>("sub.u16", [](uint16_t x, uint16_t y) { return uint16_t(x - y); });
    check_binary<int16_t>("add.s16", [](int16_t x, int16_t y) { return int16_t(x + y); });
}

TEST(PtxsimInt, SaturatingAddSub) {
    auto clamp = [](int64_t v) { return int32_t(std::min<int64_t>(std::max<int64_t>(v, INT32_MIN), INT32_MAX)); };
    check_binary<int32_t>("add.sat.s32", [&](int32_t x, int32_t y) { return clamp(int64_t(x) + y); });
    check_binary<int32_t>("sub.sat.s32", [&](int32_t x, int32_t y) { return clamp(int64_t(x) - y); });
}

TEST(PtxsimInt, MultiplyLoHiWide) {
    check_binary<int32_t>("mul.lo.s32", [](int32_t x, int32_t y) { return int32_t(uint32_t(x) * uint32_t(y)); });
    check_binary<int32_t>("mul.hi.s32", [](int32_t x, int32_t y) { return int32_t((int64_t(x) * y) >> 32); });
    check_binary<uint32_t>("mul.hi.u32", [](uint32_t x, uint32_t y) { return uint32_t((uint64_t(x) * y) >> 32); });
    check_binary<uint64_t>(
        "mul.hi.u64", [](uint64_t x, uint64_t y) { return uint64_t((static_cast<unsigned __int128>(x) * y) >> 64); });
    check_binary<int64_t>("mul.hi.s64",
                          [](int64_t x, int64_t y) { return int64_t((static_cast<__int128>(x) * y) >> 64); });
    check_binary<uint16_t>("mul.lo.u16", [](uint16_t x, uint16_t y) { return uint16_t(uint32_t(x) * y); });
    check_binary<int16_t>("mul.hi.s16", [](int16_t x, int16_t y) { return int16_t((int32_t(x) * y) >> 16); });

    std::vector<int32_t> a, b;
    pairs(a, b);
    auto wide = run_op<int64_t, int32_t, int32_t>("  mul.wide.s32 %d, %a, %b;", a, b);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(wide[i], int64_t(a[i]) * b[i]) << a[i] << " " << b[i];
    std::vector<uint32_t> ua(a.begin(), a.end()), ub(b.begin(), b.end());
    auto uwide = run_op<uint64_t, uint32_t, uint32_t>("  mul.wide.u32 %d, %a, %b;", ua, ub);
    for (size_t i = 0; i < ua.size(); ++i) ASSERT_EQ(uwide[i], uint64_t(ua[i]) * ub[i]);
    std::vector<int16_t> ha, hb;
    pairs(ha, hb);
    auto hwide = run_op<int32_t, int16_t, int16_t>("  mul.wide.s16 %d, %a, %b;", ha, hb);
    for (size_t i = 0; i < ha.size(); ++i) ASSERT_EQ(hwide[i], int32_t(ha[i]) * hb[i]);
}

TEST(PtxsimInt, MultiplyAdd) {
    std::vector<int32_t> a, b;
    pairs(a, b);
    std::vector<int32_t> c(a.size());
    TestRng rng(5);
    for (auto& v : c) v = int32_t(rng.next());
    auto lo = run_op<int32_t, int32_t, int32_t, int32_t>("  mad.lo.s32 %d, %a, %b, %c;", a, b, c);
    auto hi = run_op<int32_t, int32_t, int32_t, int32_t>("  mad.hi.s32 %d, %a, %b, %c;", a, b, c);
    auto sat = run_op<int32_t, int32_t, int32_t, int32_t>("  mad.hi.sat.s32 %d, %a, %b, %c;", a, b, c);
    std::vector<int64_t> c64(c.begin(), c.end());
    auto wide = run_op<int64_t, int32_t, int32_t, int64_t>("  mad.wide.s32 %d, %a, %b, %c;", a, b, c64);
    for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(lo[i], int32_t(uint32_t(a[i]) * uint32_t(b[i]) + uint32_t(c[i])));
        int64_t h = (int64_t(a[i]) * b[i]) >> 32;
        ASSERT_EQ(hi[i], int32_t(uint32_t(h) + uint32_t(c[i])));
        ASSERT_EQ(sat[i], int32_t(std::clamp<int64_t>(h + c[i], INT32_MIN, INT32_MAX)));
        ASSERT_EQ(wide[i], int64_t(uint64_t(int64_t(a[i]) * b[i]) + uint64_t(c64[i])));
    }
}

TEST(PtxsimInt, Mul24AndSad) {
    std::vector<uint32_t> a, b;
    pairs(a, b);
    auto lo = run_op<uint32_t, uint32_t, uint32_t>("  mul24.lo.u32 %d, %a, %b;", a, b);
    auto hi = run_op<uint32_t, uint32_t, uint32_t>("  mul24.hi.u32 %d, %a, %b;", a, b);
    auto shi = run_op<uint32_t, uint32_t, uint32_t>("  mul24.hi.s32 %d, %a, %b;", a, b);
    auto sad = run_op<uint32_t, uint32_t, uint32_t, uint32_t>("  sad.u32 %d, %a, %b, %c;", a, b, b);
    for (size_t i = 0; i < a.size(); ++i) {
        uint64_t p = uint64_t(a[i] & 0xffffff) * (b[i] & 0xffffff);
        ASSERT_EQ(lo[i], uint32_t(p));
        ASSERT_EQ(hi[i], uint32_t(p >> 16));
        auto s24 = [](uint32_t v) { return int64_t(v & 0x800000 ? int32_t(v | 0xff000000u) : int32_t(v & 0xffffff)); };
        ASSERT_EQ(shi[i], uint32_t(uint64_t(s24(a[i]) * s24(b[i])) >> 16));
        ASSERT_EQ(sad[i], b[i] + (a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]));
    }
}

TEST(PtxsimInt, DivisionAndRemainderIncludingZeroDivisors) {
    // The ISA leaves division by zero open. Measured on the H200 (docs/ptxsim.md): quotient and
    // remainder are all ones for every type; INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 is 0.
    check_binary<uint32_t>("div.u32", [](uint32_t x, uint32_t y) { return y == 0 ? 0xffffffffu : x / y; });
    check_binary<uint32_t>("rem.u32", [](uint32_t x, uint32_t y) { return y == 0 ? 0xffffffffu : x % y; });
    check_binary<int32_t>("div.s32", [](int32_t x, int32_t y) {
        if (y == 0) return -1;
        if (y == -1) return int32_t(0u - uint32_t(x));
        return x / y;
    });
    check_binary<int32_t>("rem.s32", [](int32_t x, int32_t y) { return y == 0 ? -1 : y == -1 ? 0 : x % y; });
    check_binary<uint64_t>("div.u64", [](uint64_t x, uint64_t y) { return y == 0 ? ~0ull : x / y; });
    check_binary<int64_t>("rem.s64", [](int64_t x, int64_t y) {
        return y == 0 ? int64_t(-1) : y == -1 ? int64_t(0) : x % y;
    });
    check_binary<int16_t>("div.s16", [](int16_t x, int16_t y) {
        if (y == 0) return int16_t(-1);
        return int16_t(int32_t(x) / y);
    });
    check_binary<uint16_t>("rem.u16",
                           [](uint16_t x, uint16_t y) { return y == 0 ? uint16_t(0xffff) : uint16_t(x % y); });
}

TEST(PtxsimInt, MinMaxAbsNeg) {
    check_binary<int32_t>("min.s32", [](int32_t x, int32_t y) { return std::min(x, y); });
    check_binary<uint32_t>("max.u32", [](uint32_t x, uint32_t y) { return std::max(x, y); });
    check_binary<int64_t>("max.s64", [](int64_t x, int64_t y) { return std::max(x, y); });
    check_binary<uint16_t>("min.u16", [](uint16_t x, uint16_t y) { return std::min(x, y); });
    check_binary<int32_t>("max.relu.s32", [](int32_t x, int32_t y) { return std::max(std::max(x, y), 0); });
    std::vector<int32_t> a, b;
    pairs(a, b);
    auto abs = run_op<int32_t, int32_t>("  abs.s32 %d, %a;", a);
    auto neg = run_op<int32_t, int32_t>("  neg.s32 %d, %a;", a);
    for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(abs[i], a[i] == INT32_MIN ? INT32_MIN : std::abs(a[i]));
        ASSERT_EQ(neg[i], int32_t(0u - uint32_t(a[i])));
    }
}

TEST(PtxsimInt, BitwiseAndShifts) {
    check_binary<uint32_t>("and.b32", [](uint32_t x, uint32_t y) { return x & y; });
    check_binary<uint64_t>("or.b64", [](uint64_t x, uint64_t y) { return x | y; });
    check_binary<uint16_t>("xor.b16", [](uint16_t x, uint16_t y) { return uint16_t(x ^ y); });
    std::vector<uint32_t> a, b;
    pairs(a, b);
    auto nt = run_op<uint32_t, uint32_t>("  not.b32 %d, %a;", a);
    auto cn = run_op<uint32_t, uint32_t>("  cnot.b32 %d, %a;", a);
    for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(nt[i], ~a[i]);
        ASSERT_EQ(cn[i], a[i] == 0 ? 1u : 0u);
    }
    // Shift amounts past the width clamp: shl and shr.u give 0, shr.s the sign.
    std::vector<uint64_t> v;
    std::vector<uint32_t> n;
    TestRng rng(9);
    for (uint32_t s = 0; s < 70; ++s) {
        v.push_back(rng.next());
        n.push_back(s);
        v.push_back(0x8000000000000000ull | rng.next());
        n.push_back(s);
    }
    n.push_back(0xffffffffu);
    v.push_back(~0ull);
    auto shl = run_op<uint64_t, uint64_t, uint32_t>("  shl.b64 %d, %a, %b;", v, n);
    auto shru = run_op<uint64_t, uint64_t, uint32_t>("  shr.u64 %d, %a, %b;", v, n);
    auto shrs = run_op<uint64_t, uint64_t, uint32_t>("  shr.s64 %d, %a, %b;", v, n);
    for (size_t i = 0; i < v.size(); ++i) {
        ASSERT_EQ(shl[i], n[i] >= 64 ? 0 : v[i] << n[i]) << n[i];
        ASSERT_EQ(shru[i], n[i] >= 64 ? 0 : v[i] >> n[i]) << n[i];
        int64_t sv = int64_t(v[i]);
        ASSERT_EQ(int64_t(shrs[i]), n[i] >= 64 ? (sv < 0 ? -1 : 0) : sv >> n[i]) << n[i];
    }
    std::vector<uint32_t> w(v.begin(), v.end());
    for (uint32_t s : {0u, 1u, 5u, 31u, 32u, 33u, 100u}) {
        std::string amount = std::to_string(s);
        auto l = run_op<uint32_t, uint32_t>("  shl.b32 %d, %a, " + amount + ";", w);
        auto r = run_op<uint32_t, uint32_t>("  shr.s32 %d, %a, " + amount + ";", w);
        for (size_t i = 0; i < w.size(); ++i) {
            ASSERT_EQ(l[i], s >= 32 ? 0u : w[i] << s) << s;
            ASSERT_EQ(int32_t(r[i]), s >= 32 ? (int32_t(w[i]) < 0 ? -1 : 0) : int32_t(w[i]) >> s) << s;
        }
    }
}

TEST(PtxsimInt, CountsAndBitReverse) {
    std::vector<uint32_t> a, b;
    pairs(a, b);
    auto popc = run_op<uint32_t, uint32_t>("  popc.b32 %d, %a;", a);
    auto clz = run_op<uint32_t, uint32_t>("  clz.b32 %d, %a;", a);
    auto brev = run_op<uint32_t, uint32_t>("  brev.b32 %d, %a;", a);
    auto bfind = run_op<uint32_t, uint32_t>("  bfind.s32 %d, %a;", a);
    auto shamt = run_op<uint32_t, uint32_t>("  bfind.shiftamt.u32 %d, %a;", a);
    for (size_t i = 0; i < a.size(); ++i) {
        uint32_t x = a[i];
        uint32_t pc = 0, lz = 32, rev = 0;
        for (int k = 0; k < 32; ++k) {
            pc += (x >> k) & 1;
            rev |= ((x >> k) & 1) << (31 - k);
        }
        for (int k = 31; k >= 0; --k)
            if ((x >> k) & 1) {
                lz = 31 - k;
                break;
            }
        ASSERT_EQ(popc[i], pc);
        ASSERT_EQ(clz[i], lz);
        ASSERT_EQ(brev[i], rev);
        // bfind.s32: position of the most significant bit that differs from the sign.
        uint32_t s = int32_t(x) < 0 ? ~x : x;
        uint32_t pos = 0xffffffffu;
        for (int k = 31; k >= 0; --k)
            if ((s >> k) & 1) {
                pos = uint32_t(k);
                break;
            }
        ASSERT_EQ(bfind[i], pos);
        uint32_t upos = x ? 31 - lz : 0xffffffffu;
        ASSERT_EQ(shamt[i], upos == 0xffffffffu ? upos : 31 - upos);
    }
    std::vector<uint64_t> w(a.begin(), a.end());
    for (auto& v : w) v = v * 0x9e3779b97f4a7c15ull;
    auto popc64 = run_op<uint32_t, uint64_t>("  popc.b64 %d, %a;", w);
    auto clz64 = run_op<uint32_t, uint64_t>("  clz.b64 %d, %a;", w);
    for (size_t i = 0; i < w.size(); ++i) {
        ASSERT_EQ(popc64[i], uint32_t(std::popcount(w[i])));
        ASSERT_EQ(clz64[i], uint32_t(std::countl_zero(w[i])));
    }
}

// bfe / bfi references: the ISA's bit-by-bit loops. The ISA takes position and length modulo 256; the
// H200 does so for the 32-bit forms only: the 64-bit forms (expanded by ptxas into 32-bit operations) use
// the whole 32-bit operands (corpus case int_bits: with pos 0x8000 bfe.u64 gives 0 and bfe.s64 the sign).
template <class T>
constexpr uint64_t kFieldMask = sizeof(T) == 8 ? 0xffffffffull : 0xffull;

template <class T>
T bfe_ref(T a, uint32_t b, uint32_t c, bool is_signed) {
    const uint64_t msb = sizeof(T) * 8 - 1;
    uint64_t pos = b & kFieldMask<T>, len = c & kFieldMask<T>;
    unsigned sbit = (!is_signed || len == 0) ? 0 : unsigned((a >> std::min(pos + len - 1, msb)) & 1);
    T d = 0;
    for (uint64_t i = 0; i <= msb; ++i) {
        unsigned bit = (i < len && pos + i <= msb) ? unsigned((a >> (pos + i)) & 1) : sbit;
        d |= T(bit) << i;
    }
    return d;
}

template <class T>
T bfi_ref(T a, T b, uint32_t c, uint32_t d) {
    const uint64_t msb = sizeof(T) * 8 - 1;
    uint64_t pos = c & kFieldMask<T>, len = d & kFieldMask<T>;
    T f = b;
    for (uint64_t i = 0; i < len && pos + i <= msb; ++i) {
        T bit = (a >> i) & 1;
        f = T((f & ~(T(1) << (pos + i))) | (bit << (pos + i)));
    }
    return f;
}

TEST(PtxsimInt, BitFieldExtractAndInsert) {
    std::vector<uint32_t> a, pos, len, b;
    TestRng rng(77);
    for (uint32_t p : {0u, 1u, 7u, 16u, 31u, 32u, 40u, 63u, 64u, 200u, 255u, 256u + 3u})
        for (uint32_t l : {0u, 1u, 4u, 8u, 24u, 31u, 32u, 33u, 64u, 255u, 256u + 2u}) {
            a.push_back(uint32_t(rng.next()) | 0x80000000u);
            b.push_back(uint32_t(rng.next()));
            pos.push_back(p);
            len.push_back(l);
        }
    auto u = run_op<uint32_t, uint32_t, uint32_t, uint32_t>("  bfe.u32 %d, %a, %b, %c;", a, pos, len);
    auto s = run_op<uint32_t, uint32_t, uint32_t, uint32_t>("  bfe.s32 %d, %a, %b, %c;", a, pos, len);
    for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(u[i], bfe_ref<uint32_t>(a[i], pos[i], len[i], false)) << pos[i] << "," << len[i];
        ASSERT_EQ(s[i], bfe_ref<uint32_t>(a[i], pos[i], len[i], true)) << pos[i] << "," << len[i];
    }
    std::vector<uint64_t> a64(a.size());
    for (size_t i = 0; i < a.size(); ++i) a64[i] = (uint64_t(b[i]) << 32) | a[i];
    auto s64 = run_op<uint64_t, uint64_t, uint32_t, uint32_t>("  bfe.s64 %d, %a, %b, %c;", a64, pos, len);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(s64[i], bfe_ref<uint64_t>(a64[i], pos[i], len[i], true));
    auto u64 = run_op<uint64_t, uint64_t, uint32_t, uint32_t>("  bfe.u64 %d, %a, %b, %c;", a64, pos, len);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(u64[i], bfe_ref<uint64_t>(a64[i], pos[i], len[i], false));
    // The 64-bit forms by hand: position 256 is past the field (not position 0), length 256 the whole value.
    auto big = run_op<uint64_t, uint64_t, uint32_t, uint32_t>(
        "  bfe.s64 %d, %a, %b, %c;", {0x8000000000000001ull, 0x8000000000000001ull}, {256u, 0u}, {1u, 256u});
    EXPECT_EQ(big[0], ~0ull);                 // sign bit 63 fills
    EXPECT_EQ(big[1], 0x8000000000000001ull); // all 64 bits
    auto ins = run_op<uint64_t, uint64_t, uint64_t>("  bfi.b64 %d, %a, %b, 256, 8;\n  bfi.b64 %a, %a, %b, 0, 8;\n"
                                                    "  xor.b64 %d, %d, %a;",
                                                    {0xabull}, {0x1100ull});
    EXPECT_EQ(ins[0], 0x1100ull ^ 0x11abull); // pos 256 inserts nothing; pos 0 inserts the byte
    // bfi f, a, b, c, d: four sources; the harness has three, so position and length are immediates.
    for (uint32_t p : {0u, 5u, 31u, 32u, 250u})
        for (uint32_t l : {0u, 3u, 16u, 32u, 40u}) {
            std::string body = "  bfi.b32 %d, %a, %b, " + std::to_string(p) + ", " + std::to_string(l) + ";";
            auto r = run_op<uint32_t, uint32_t, uint32_t>(body, a, b);
            for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(r[i], bfi_ref<uint32_t>(a[i], b[i], p, l)) << p << "," << l;
        }
}

TEST(PtxsimInt, PermuteBytes) {
    // Generic mode: each selector nibble picks a byte of {b, a}; bit 3 replicates its sign.
    std::vector<uint32_t> a, b, c;
    TestRng rng(3);
    for (int i = 0; i < 512; ++i) {
        a.push_back(uint32_t(rng.next()));
        b.push_back(uint32_t(rng.next()));
        c.push_back(uint32_t(rng.next()));
    }
    auto r = run_op<uint32_t, uint32_t, uint32_t, uint32_t>("  prmt.b32 %d, %a, %b, %c;", a, b, c);
    for (size_t i = 0; i < a.size(); ++i) {
        uint64_t src = (uint64_t(b[i]) << 32) | a[i];
        uint32_t expect = 0;
        for (int k = 0; k < 4; ++k) {
            uint32_t sel = (c[i] >> (4 * k)) & 0xf;
            uint32_t byte = uint32_t(src >> (8 * (sel & 7))) & 0xff;
            if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
            expect |= byte << (8 * k);
        }
        ASSERT_EQ(r[i], expect);
    }
    // Specialised modes, expected bytes read off the ISA's table (result bytes listed b3 b2 b1 b0 of
    // {b, a} = {77 66 55 44, 33 22 11 00}).
    std::vector<uint32_t> A(4, 0x33221100u), B(4, 0x77665544u), C = {0, 1, 2, 3};
    struct Mode {
        const char* name;
        uint32_t expect[4];
    };
    const Mode modes[] = {
        {"f4e", {0x33221100u, 0x44332211u, 0x55443322u, 0x66554433u}},
        {"b4e", {0x55667700u, 0x66770011u, 0x77001122u, 0x00112233u}},
        {"rc8", {0x00000000u, 0x11111111u, 0x22222222u, 0x33333333u}},
        {"ecl", {0x33221100u, 0x33221111u, 0x33222222u, 0x33333333u}},
        {"ecr", {0x00000000u, 0x11111100u, 0x22221100u, 0x33221100u}},
        {"rc16", {0x11001100u, 0x33223322u, 0x11001100u, 0x33223322u}},
    };
    for (const Mode& m : modes) {
        auto got = run_op<uint32_t, uint32_t, uint32_t, uint32_t>(
            std::string("  prmt.b32.") + m.name + " %d, %a, %b, %c;", A, B, C);
        for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], m.expect[i]) << m.name << " c=" << i;
    }
}

TEST(PtxsimInt, Lop3AndFunnelShift) {
    std::vector<uint32_t> a, b, c;
    TestRng rng(11);
    for (int i = 0; i < 128; ++i) {
        a.push_back(uint32_t(rng.next()));
        b.push_back(uint32_t(rng.next()));
        c.push_back(uint32_t(rng.next()));
    }
    for (uint32_t lut : {0x00u, 0xffu, 0x96u, 0xe8u, 0x80u, 0xf0u, 0xccu, 0xaau, 0x1bu}) {
        auto r = run_op<uint32_t, uint32_t, uint32_t, uint32_t>(
            "  lop3.b32 %d, %a, %b, %c, " + std::to_string(lut) + ";", a, b, c);
        for (size_t i = 0; i < a.size(); ++i) {
            uint32_t e = 0;
            for (int k = 0; k < 32; ++k) {
                unsigned idx = (((a[i] >> k) & 1) << 2) | (((b[i] >> k) & 1) << 1) | ((c[i] >> k) & 1);
                e |= ((lut >> idx) & 1) << k;
            }
            ASSERT_EQ(r[i], e) << "lut " << lut;
        }
    }
    std::vector<uint32_t> n;
    for (size_t i = 0; i < a.size(); ++i) n.push_back(uint32_t(i % 70));
    auto lw = run_op<uint32_t, uint32_t, uint32_t, uint32_t>("  shf.l.wrap.b32 %d, %a, %b, %c;", a, b, n);
    auto rc = run_op<uint32_t, uint32_t, uint32_t, uint32_t>("  shf.r.clamp.b32 %d, %a, %b, %c;", a, b, n);
    for (size_t i = 0; i < a.size(); ++i) {
        unsigned __int128 v = (static_cast<unsigned __int128>(b[i]) << 32) | a[i];
        uint32_t wrap = n[i] & 31, clamp = std::min(n[i], 32u);
        ASSERT_EQ(lw[i], uint32_t((v << wrap) >> 32)) << n[i];
        ASSERT_EQ(rc[i], uint32_t(v >> clamp)) << n[i];
    }
}

TEST(PtxsimInt, ExtendedPrecisionCarryChains) {
    // 64-bit add/sub and a 32x32 -> 64 multiply-add built from 32-bit carry chains, against 64-bit C++.
    std::vector<uint64_t> x, y;
    pairs(x, y);
    const char* add = R"(  { .reg .b32 %lo, %hi, %xl, %xh, %yl, %yh;
    mov.b64 {%xl, %xh}, %a;
    mov.b64 {%yl, %yh}, %b;
    add.cc.u32 %lo, %xl, %yl;
    addc.u32 %hi, %xh, %yh;
    mov.b64 %d, {%lo, %hi}; })";
    const char* sub = R"(  { .reg .b32 %lo, %hi, %xl, %xh, %yl, %yh;
    mov.b64 {%xl, %xh}, %a;
    mov.b64 {%yl, %yh}, %b;
    sub.cc.u32 %lo, %xl, %yl;
    subc.u32 %hi, %xh, %yh;
    mov.b64 %d, {%lo, %hi}; })";
    const char* madc = R"(  { .reg .b32 %lo, %hi, %xl, %xh, %yl, %yh;
    mov.b64 {%xl, %xh}, %a;
    mov.b64 {%yl, %yh}, %b;
    mad.lo.cc.u32 %lo, %xl, %yl, %yh;
    madc.hi.u32 %hi, %xl, %yl, 0;
    mov.b64 %d, {%lo, %hi}; })";
    auto s = run_op<uint64_t, uint64_t, uint64_t>(add, x, y);
    auto d = run_op<uint64_t, uint64_t, uint64_t>(sub, x, y);
    auto m = run_op<uint64_t, uint64_t, uint64_t>(madc, x, y);
    for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(s[i], x[i] + y[i]);
        ASSERT_EQ(d[i], x[i] - y[i]);
        uint64_t xl = uint32_t(x[i]), yl = uint32_t(y[i]), yh = y[i] >> 32;
        ASSERT_EQ(m[i], xl * yl + yh);
    }
}

// fns: the ISA's pseudo-code, literally.
uint32_t fns_ref(uint32_t mask, uint32_t base, int32_t offset) {
    if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
    int pos = int(base), inc = offset > 0 ? 1 : -1;
    int64_t count = (offset > 0 ? int64_t(offset) : -int64_t(offset)) - 1;
    while (pos >= 0 && pos < 32) {
        if ((mask >> pos) & 1) {
            if (count == 0) return uint32_t(pos);
            --count;
        }
        pos += inc;
    }
    return 0xffffffffu;
}

TEST(PtxsimInt, FindNthSetBit) {
    // The ISA's examples.
    auto ex = run_op<uint32_t, uint32_t, uint32_t, uint32_t>("  fns.b32 %d, %a, %b, %c;",
                                                             {0xaaaaaaaau, 0xaaaaaaaau, 0xaaaaaaaau, 0xaaaaaaaau},
                                                             {3, 3, 2, 2}, {1, uint32_t(-1), 1, uint32_t(-1)});
    EXPECT_EQ(ex, (std::vector<uint32_t>{3, 3, 3, 1}));
    std::vector<uint32_t> mask, base, off;
    TestRng rng(91);
    for (uint32_t m : {0u, 1u, 0x80000000u, 0xffffffffu, 0xaaaaaaaau, 0x00010001u})
        for (uint32_t b : {0u, 1u, 15u, 16u, 31u})
            for (int32_t o : {0, 1, 2, 3, 17, 32, 33, -1, -2, -17, -32, -33, INT32_MIN, INT32_MAX}) {
                mask.push_back(m);
                base.push_back(b);
                off.push_back(uint32_t(o));
            }
    for (int i = 0; i < 400; ++i) {
        mask.push_back(uint32_t(rng.next()));
        base.push_back(uint32_t(rng.next() % 32));
        off.push_back(uint32_t(int32_t(rng.next() % 71) - 35));
    }
    auto got = run_op<uint32_t, uint32_t, uint32_t, uint32_t>("  fns.b32 %d, %a, %b, %c;", mask, base, off);
    for (size_t i = 0; i < mask.size(); ++i)
        ASSERT_EQ(got[i], fns_ref(mask[i], base[i], int32_t(off[i])))
            << std::hex << mask[i] << std::dec << " base " << base[i] << " offset " << int32_t(off[i]);
    // Immediate operands, a negative offset among them.
    auto imm = run_op<uint32_t, uint32_t>("  fns.b32 %d, %a, 31, -3;", {0xf0000000u, 0x80000001u});
    EXPECT_EQ(imm, (std::vector<uint32_t>{29u, 0xffffffffu}));
}

// bmsk: a mask of b bits starting at bit a (CUB's radix sort); .clamp caps a and b at 32, .wrap takes them
// modulo 32, and bits from 32 on are cut off.
TEST(PtxsimInt, BmskClampAndWrap) {
    const std::vector<uint32_t> a = {0, 0, 4, 28, 31, 32, 40, 3};
    const std::vector<uint32_t> b = {0, 32, 8, 8, 1, 5, 3, 40};
    auto clamp = run_op<uint32_t, uint32_t>("  bmsk.clamp.b32 %d, %a, %b;", a, b);
    auto wrap = run_op<uint32_t, uint32_t>("  bmsk.wrap.b32 %d, %a, %b;", a, b);
    auto mask = [](uint64_t start, uint64_t width) {
        const uint64_t m = ((width >= 64 ? ~0ull : ((1ull << width) - 1)) << start) & 0xffffffffull;
        return uint32_t(start >= 32 ? 0 : m);
    };
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(clamp[i], mask(std::min<uint32_t>(a[i], 32), std::min<uint32_t>(b[i], 32))) << i;
        EXPECT_EQ(wrap[i], mask(a[i] & 31, b[i] & 31)) << i;
    }
    EXPECT_EQ(clamp[2], 0x00000ff0u);
    EXPECT_EQ(clamp[3], 0xf0000000u);
    EXPECT_EQ(clamp[1], 0xffffffffu);
}

} // namespace
} // namespace d4r::ptxsim::test
