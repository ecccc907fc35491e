// Tensor-core instructions: the mma numerics against the accumulation model that matched the H200
// (tests/device/mma_models.h, an independent 128-bit implementation) and against probe results
// recorded in docs/numerics.md; mma.sync fragment layouts from the PTX ISA with exact small-integer
// GEMMs; ldmatrix (plain and .trans); cp.async copies, zero fill, and its memory checks; load errors.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include <fmt/format.h>

#include "numerics/mma_numerics.h"
#include "ptxsim_test_util.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../device/mma_models.h"
#pragma GCC diagnostic pop

namespace d4r::ptxsim::test {
namespace {

namespace mm = d4r::numerics::mma;

// ---- numerics ---------------------------------------------------------------------------------------

// The model of mma_models.h the H200 matched (docs/numerics.md, "Findings").
::Model measured_model(bool acc16, bool fp8) {
    ::Model m{};
    m.F = 25;
    m.G = 32;
    m.floor = false;
    m.rn = acc16;
    m.c_last = false;
    m.mid_f16 = false;
    m.expsum = true;
    m.split_fp8 = fp8;
    return m;
}

// Random finite bits of a format with exponents in a band around 1 (so that cancellation and
// truncation both happen), sometimes zero or denormal.
uint32_t random_bits(std::mt19937& rng, ::Fmt f, int spread) {
    const uint32_t sign = rng() & 1, man = rng() & ((1u << f.man_bits) - 1);
    const int r = int(rng() % 16);
    uint32_t ex;
    if (r == 0)
        ex = 0; // zero or denormal
    else
        ex = uint32_t(std::clamp(f.bias + int(rng() % (2 * spread + 1)) - spread, 1, (1 << f.exp_bits) - 2));
    uint32_t bits = (sign << (f.exp_bits + f.man_bits)) | (ex << f.man_bits) | man;
    if (!f.ieee && ::is_special(bits, f)) bits &= ~1u; // e4m3: avoid the NaN encoding
    return bits;
}

struct ShapeCase {
    mm::Format in;
    ::Fmt fmt;
    int k;
    bool acc16;
};

TEST(PtxsimMmaNumerics, MatchesTheMeasuredModelOnRandomDotProducts) {
    const ShapeCase cases[] = {
        {mm::Format::F16, kF16, 16, false}, {mm::Format::F16, kF16, 16, true},    {mm::Format::F16, kF16, 8, false},
        {mm::Format::F16, kF16, 8, true},   {mm::Format::BF16, kBF16, 16, false}, {mm::Format::BF16, kBF16, 8, false},
    };
    std::mt19937 rng(12345);
    for (const ShapeCase& sc : cases) {
        const ::Fmt cf = sc.acc16 ? kF16 : kF32;
        for (int spread : {3, 12}) {
            for (int trial = 0; trial < 3000; ++trial) {
                std::vector<uint32_t> a(sc.k), b(sc.k);
                std::vector<::Term> prods;
                std::vector<mm::Elem> ea, eb;
                for (int i = 0; i < sc.k; ++i) {
                    a[i] = random_bits(rng, sc.fmt, spread);
                    b[i] = random_bits(rng, sc.fmt, spread);
                    // Cancellation-heavy: every other k repeats the previous product with the sign flipped.
                    if (trial % 3 == 0 && i % 2 == 1) {
                        a[i] = a[i - 1] ^ (1u << (sc.fmt.exp_bits + sc.fmt.man_bits));
                        b[i] = b[i - 1] ^ (rng() & 1);
                    }
                    prods.push_back(::mul(::decode(a[i], sc.fmt), ::decode(b[i], sc.fmt)));
                    ea.push_back(mm::decode(a[i], sc.in));
                    eb.push_back(mm::decode(b[i], sc.in));
                }
                const uint32_t c = random_bits(rng, cf, spread + 4);
                const uint32_t want = ::model_eval(measured_model(sc.acc16, false), prods, ::decode(c, cf), sc.acc16);
                const mm::Elem ce = mm::decode(c, sc.acc16 ? mm::Format::F16 : mm::Format::F32);
                const uint32_t got =
                    mm::dot(ea.data(), eb.data(), sc.k, ce, sc.in == mm::Format::BF16 ? 7 : 10, sc.acc16);
                ASSERT_EQ(got, want) << "k" << sc.k << (sc.acc16 ? " f16" : " f32") << " acc, trial " << trial;
            }
        }
    }
}

TEST(PtxsimMmaNumerics, Fp8MatchesTheTwoPassModel) {
    std::mt19937 rng(777);
    for (bool acc16 : {false, true}) {
        for (int pairing = 0; pairing < 4; ++pairing) {
            const bool a5 = pairing & 1, b5 = pairing & 2;
            const ::Fmt fa = a5 ? kE5M2 : kE4M3, fb = b5 ? kE5M2 : kE4M3, cf = acc16 ? kF16 : kF32;
            for (int trial = 0; trial < 2000; ++trial) {
                std::vector<::Term> prods;
                mm::Elem ea[32], eb[32];
                for (int i = 0; i < 32; ++i) {
                    uint32_t x = random_bits(rng, fa, 4), y = random_bits(rng, fb, 4);
                    prods.push_back(::mul(::decode(x, fa), ::decode(y, fb)));
                    ea[i] = mm::decode(x, a5 ? mm::Format::E5M2 : mm::Format::E4M3);
                    eb[i] = mm::decode(y, b5 ? mm::Format::E5M2 : mm::Format::E4M3);
                }
                const uint32_t c = random_bits(rng, cf, 6);
                const uint32_t want = ::model_eval(measured_model(acc16, true), prods, ::decode(c, cf), acc16);
                ASSERT_EQ(mm::dot_fp8(ea, eb, c, acc16), want) << "pairing " << pairing << " trial " << trial;
            }
        }
    }
}

// One f16 m16n8k16 dot product: products (a_i, b_i) at k = 0.., the rest zero, accumulator c.
uint32_t dot16(std::vector<std::pair<uint16_t, uint16_t>> p, uint32_t c, bool acc16) {
    mm::Elem a[16], b[16];
    for (size_t i = 0; i < p.size(); ++i) {
        a[i] = mm::decode(p[i].first, mm::Format::F16);
        b[i] = mm::decode(p[i].second, mm::Format::F16);
    }
    return mm::dot(a, b, 16, mm::decode(c, acc16 ? mm::Format::F16 : mm::Format::F32), 10, acc16);
}

// Probe results observed on the H200 (docs/numerics.md, appendix, m16n8k16 f16 -> f32 / f16).
TEST(PtxsimMmaNumerics, ReproducesTheRecordedProbes) {
    const uint16_t one = 0x3c00, three = 0x4200, five = 0x4500, zero = 0;
    // C = 2^24 plus product 3: round toward zero gives 2^24 + 2; product 5 gives 2^24 + 4.
    EXPECT_EQ(dot16({{three, one}}, 0x4b800000, false), 0x4b800001u);
    EXPECT_EQ(dot16({{five, one}}, 0x4b800000, false), 0x4b800002u);
    // C = 2^24 with a product -2^-10: truncated toward zero, not floor.
    EXPECT_EQ(dot16({{0x9400, one}}, 0x4b800000, false), 0x4b800000u);
    // (1 + 2^-10)^2 is exact.
    EXPECT_EQ(dot16({{0x3c01, 0x3c01}}, 0, false), 0x3f804008u);
    // big, big*2^-25, -big with big = 2^15 * 2^15: the middle term (32) survives, big*2^-26 does not.
    const uint16_t p15 = 0x7800, m15 = 0xf800;
    EXPECT_EQ(dot16({{p15, p15}, {0x5400 /*2^6*/, 0x3400 /*2^-2*/}, {m15, p15}}, 0, false), 0u);
    EXPECT_EQ(dot16({{p15, p15}, {0x5800 /*2^7*/, 0x3400 /*2^-2*/}, {m15, p15}}, 0, false), 0x42000000u);
    // C = 2^-140 (f32 denormal) kept.
    EXPECT_EQ(dot16({}, 0x00000200, false), 0x00000200u);
    // FLT_MAX + 2^30: round toward zero keeps FLT_MAX.
    EXPECT_EQ(dot16({{0x7800, 0x7800}}, 0x7f7fffff, false), 0x7f7fffffu);
    // Exact zero sums are +0, also with C = -0.
    EXPECT_EQ(dot16({{one, one}}, 0xbf800000, false), 0u);
    EXPECT_EQ(dot16({{0xbc00, one}, {one, one}}, 0x80000000, false), 0u);
    // f16 accumulators: 1 + 2^-10 + 2^-11 -> 0x3c02; 1 + 2^-11 + 2^-24 -> 0x3c01; 65504 + 16 -> inf.
    EXPECT_EQ(dot16({{0x1400, one}, {0x1000, one}}, one, true), 0x3c02u);
    EXPECT_EQ(dot16({{0x1000, one}, {0x0001, one}}, one, true), 0x3c01u);
    EXPECT_EQ(dot16({{0x4c00 /*16*/, one}}, 0x7bff, true), 0x7c00u);
    EXPECT_EQ(dot16({{0x4800 /*8*/, one}}, 0x7bff, true), 0x7bffu);
    // Specials: inf*1 = inf, inf*0 = NaN, inf - inf = NaN, NaN input and NaN C canonical, C=-inf.
    EXPECT_EQ(dot16({{0x7c00, one}}, 0, false), 0x7f800000u);
    EXPECT_EQ(dot16({{0x7c00, zero}}, 0, false), 0x7fffffffu);
    EXPECT_EQ(dot16({{0x7c00, one}, {0xfc00, one}}, 0, false), 0x7fffffffu);
    EXPECT_EQ(dot16({{0x7c01, one}}, 0, false), 0x7fffffffu);
    EXPECT_EQ(dot16({{one, one}}, 0x7fc12345, false), 0x7fffffffu);
    EXPECT_EQ(dot16({{one, one}}, 0xff800000, false), 0xff800000u);
    EXPECT_EQ(dot16({{one, one}}, 0x7e55, true), 0x7fffu);
}

// A sum past the f32 range is infinity even though f32 accumulators round toward zero (H200 golden of
// corpus case mma_bf16_special; docs/numerics.md).
TEST(PtxsimMmaNumerics, F32OverflowGivesInfinity) {
    mm::Elem big = mm::decode(0x7f7f, mm::Format::BF16), nbig = mm::decode(0xff7f, mm::Format::BF16);
    mm::Elem a[16] = {big}, b[16] = {big}, c = mm::decode(0, mm::Format::F32);
    EXPECT_EQ(mm::dot(a, b, 16, c, 7, false), 0x7f800000u);
    a[0] = nbig;
    EXPECT_EQ(mm::dot(a, b, 16, c, 7, false), 0xff800000u);
}

TEST(PtxsimMmaNumerics, Fp8ConvertsExactlyToF16) {
    // e4m3: 0x38 = 1.0, 0x7e = 448 (largest), 0x01 = 2^-9 (smallest denormal), 0x7f = NaN.
    EXPECT_EQ(mm::fp8_to_f16(0x38, false), 0x3c00);
    EXPECT_EQ(mm::fp8_to_f16(0x7e, false), 0x5f00);
    EXPECT_EQ(mm::fp8_to_f16(0x01, false), 0x1800);
    EXPECT_EQ(mm::fp8_to_f16(0x81, false), 0x9800);
    EXPECT_EQ(mm::fp8_to_f16(0x7f, false), 0x7fff);
    // e5m2 is the top byte of f16.
    EXPECT_EQ(mm::fp8_to_f16(0x3c, true), 0x3c00);
    EXPECT_EQ(mm::fp8_to_f16(0x7c, true), 0x7c00);
}

// ---- mma.sync execution -----------------------------------------------------------------------------

uint16_t f16_of_int(int v) {
    static const uint16_t mag[] = {0x0000, 0x3c00, 0x4000, 0x4200};
    return static_cast<uint16_t>(mag[std::abs(v)] | (v < 0 ? 0x8000 : 0));
}

const char* kMma16 = R"(
.visible .entry mma16(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<9>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pd];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.v4.b32 {%r2,%r3,%r4,%r5}, [%rd6];
  mul.wide.u32 %rd7, %r1, 8;
  add.s64 %rd8, %rd2, %rd7;
  ld.global.v2.b32 {%r6,%r7}, [%rd8];
  add.s64 %rd9, %rd3, %rd5;
  ld.global.v4.f32 {%f1,%f2,%f3,%f4}, [%rd9];
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5,%f6,%f7,%f8}, {%r2,%r3,%r4,%r5}, {%r6,%r7}, {%f1,%f2,%f3,%f4};
  add.s64 %rd10, %rd4, %rd5;
  st.global.v4.f32 [%rd10], {%f5,%f6,%f7,%f8};
  ret;
}
)";

// The PTX ISA fragment layout of m16n8k16 (f16 A/B, f32 C/D) checked with an exact small-integer GEMM.
TEST(PtxsimMma, M16n8k16FragmentsFollowTheIsaLayout) {
    std::mt19937 rng(5);
    int A[16][16], B[16][8];
    float C[16][8];
    for (auto& r : A)
        for (int& v : r) v = int(rng() % 7) - 3;
    for (auto& r : B)
        for (int& v : r) v = int(rng() % 7) - 3;
    for (auto& r : C)
        for (float& v : r) v = float(int(rng() % 201) - 100);
    std::vector<uint32_t> a(32 * 4), b(32 * 2);
    std::vector<float> c(32 * 4);
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned g = l / 4, t = l % 4;
        for (unsigned i = 0; i < 8; ++i) { // ISA: a_i row g (+8 for i in 2,3,6,7), col 2t + (i&1) (+8 for i >= 4)
            const unsigned row = g + ((i % 4) >= 2 ? 8 : 0), col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
            a[l * 4 + i / 2] |= uint32_t(f16_of_int(A[row][col])) << (16 * (i & 1));
        }
        for (unsigned i = 0; i < 4; ++i) { // b_i row 2t + (i&1) (+8 for i >= 2), col g
            const unsigned row = 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
            b[l * 2 + i / 2] |= uint32_t(f16_of_int(B[row][g])) << (16 * (i & 1));
        }
        for (unsigned i = 0; i < 4; ++i) c[l * 4 + i] = C[g + (i >= 2 ? 8 : 0)][2 * t + (i & 1)];
    }
    Device dev;
    auto m = load_ok(ptx(kMma16));
    ASSERT_TRUE(m);
    auto da = upload(dev, a), db = upload(dev, b), dc = upload(dev, c), dd = upload(dev, std::vector<float>(128));
    Params p(kernel_of(*m, "mma16"));
    p.set(0, da).set(1, db).set(2, dc).set(3, dd);
    run_ok(dev, *m, "mma16", config({1}, {32}), p);
    auto d = download<float>(dev, dd, 128);
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned g = l / 4, t = l % 4;
        for (unsigned i = 0; i < 4; ++i) {
            const unsigned row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
            int sum = 0;
            for (int k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
            EXPECT_EQ(d[l * 4 + i], float(sum) + C[row][col]) << "lane " << l << " element " << i;
        }
    }
}

TEST(PtxsimMma, NeedsTheWholeWarp) {
    Device dev;
    auto m = load_ok(ptx(kMma16));
    ASSERT_TRUE(m);
    auto buf = upload(dev, std::vector<uint32_t>(128));
    Params p(kernel_of(*m, "mma16"));
    p.set(0, buf).set(1, buf).set(2, buf).set(3, buf);
    LaunchFault fault;
    auto r = launch(dev, kernel_of(*m, "mma16"), config({1}, {16}), p.bytes(), &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(fault.kind, FaultKind::IllegalInstruction);
    EXPECT_NE(fault.message.find("32 lanes"), std::string::npos) << fault.message;
}

TEST(PtxsimMma, RejectsUnsupportedForms) {
    auto body = [](const std::string& instr) {
        return ptx(".visible .entry k()\n{\n  .reg .b32 %r<8>;\n  .reg .f32 %f<9>;\n  " + instr + ";\n  ret;\n}\n");
    };
    EXPECT_NE(load_error(body("mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, "
                              "{%r5,%r6}, {%f5,%f6,%f7,%f8}"))
                  .find("row.col"),
              std::string::npos);
    EXPECT_NE(load_error(body("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3}, {%r1,%r2,%r3,%r4}, "
                              "{%r5,%r6}, {%f5,%f6,%f7,%f8}"))
                  .find("list of 4"),
              std::string::npos);
    EXPECT_NE(load_error(body("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, "
                              "{%r5,%r6}, {%f5,%f6,%f7,%f8}"))
                  .find("shape"),
              std::string::npos);
    EXPECT_NE(load_error(body("cp.async.bulk.shared::cluster.global [%r1], [%r2], 16")).find("cp.async"),
              std::string::npos);
}

// ---- ldmatrix ---------------------------------------------------------------------------------------

// 32 rows of 8 b16 in shared memory (value = row * 8 + column); lane l gives the address of row l.
std::string ldmatrix_kernel(const std::string& form, int n) {
    std::string regs, stores;
    for (int i = 0; i < n; ++i) {
        regs += (i ? "," : "") + fmt::format("%r{}", 10 + i);
        stores += fmt::format("  st.global.u32 [%rd3+{}], %r{};\n", i * 128, 10 + i);
    }
    return ptx(R"(
.visible .entry ldm(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 sm[512];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  shl.b32 %r5, %r1, 3;
  add.u32 %r6, %r5, 1;
  shl.b32 %r6, %r6, 16;
  or.b32 %r7, %r5, %r6;
  add.u32 %r8, %r7, 0x00020002;
  add.u32 %r9, %r7, 0x00040004;
  add.u32 %r15, %r7, 0x00060006;
  st.shared.v4.u32 [%r4], {%r7, %r8, %r9, %r15};
  bar.warp.sync -1;
  ldmatrix.sync.aligned.m8n8.)" +
               form + ".shared.b16 {" + regs + R"(}, [%r4];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
)" + stores + "  ret;\n}\n");
}

TEST(PtxsimLdmatrix, PlainAndTransposedFollowTheIsa) {
    for (int n : {1, 2, 4}) {
        for (bool trans : {false, true}) {
            const std::string form = fmt::format("x{}{}", n, trans ? ".trans" : "");
            Device dev;
            auto m = load_ok(ldmatrix_kernel(form, n));
            ASSERT_TRUE(m) << form;
            auto out = upload(dev, std::vector<uint32_t>(32 * 4));
            Params p(kernel_of(*m, "ldm"));
            p.set(0, out);
            run_ok(dev, *m, "ldm", config({1}, {32}), p);
            auto got = download<uint32_t>(dev, out, 32 * 4);
            for (int i = 0; i < n; ++i) {
                for (unsigned l = 0; l < 32; ++l) {
                    // Matrix i is rows 8i..8i+7 (addresses of lanes 8i..8i+7). Lane l holds row l/4, columns
                    // 2(l%4) and 2(l%4)+1; transposed: rows 2(l%4), 2(l%4)+1 of column l/4.
                    const unsigned r = l / 4, c = 2 * (l % 4);
                    uint32_t lo, hi;
                    if (!trans) {
                        lo = (8 * i + r) * 8 + c;
                        hi = lo + 1;
                    } else {
                        lo = (8 * i + c) * 8 + r;
                        hi = (8 * i + c + 1) * 8 + r;
                    }
                    EXPECT_EQ(got[i * 32 + l], lo | (hi << 16)) << form << " matrix " << i << " lane " << l;
                }
            }
        }
    }
}

// ---- cp.async ---------------------------------------------------------------------------------------

const char* kCpAsync = R"(
.visible .entry cpa(.param .u64 src, .param .u64 out, .param .u32 ssz, .param .u32 ignore)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 sm[48];
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [ssz];
  ld.param.u32 %r3, [ignore];
  mov.u64 %rd3, 0;
  mov.u32 %r2, sm;
  st.shared.v4.u32 [%r2], {-1, -1, -1, -1};
  st.shared.v4.u32 [%r2+16], {-1, -1, -1, -1};
  st.shared.v4.u32 [%r2+32], {-1, -1, -1, -1};
  setp.ne.u32 %p1, %r3, 0;
  cp.async.ca.shared.global [%r2], [%rd1], 8, %r1;
  cp.async.commit_group;
  cp.async.cg.shared.global.L2::cache_hint.L2::128B [%r2+16], [%rd1], 16, %rd3;
  cp.async.ca.shared.global [%r2+32], [%rd1+4], 4, %p1;
  cp.async.commit_group;
  cp.async.wait_group 1;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r4,%r5,%r6,%r7}, [%r2];
  ld.shared.v4.u32 {%r8,%r9,%r10,%r11}, [%r2+16];
  ld.shared.u32 %r12, [%r2+32];
  st.global.v4.u32 [%rd2], {%r4,%r5,%r6,%r7};
  st.global.v4.u32 [%rd2+16], {%r8,%r9,%r10,%r11};
  st.global.u32 [%rd2+32], %r12;
  ret;
}
)";

TEST(PtxsimCpAsync, CopiesWithZeroFillAndIgnoreSrc) {
    Device dev;
    auto m = load_ok(ptx(kCpAsync));
    ASSERT_TRUE(m);
    const std::vector<uint8_t> src = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    for (uint32_t ssz : {8u, 5u, 0u}) {
        for (uint32_t ignore : {0u, 1u}) {
            auto dsrc = upload(dev, src);
            auto out = upload(dev, std::vector<uint8_t>(36));
            Params p(kernel_of(*m, "cpa"));
            p.set(0, dsrc).set(1, out).set(2, ssz).set(3, ignore);
            run_ok(dev, *m, "cpa", config({1}, {1}), p);
            auto got = download<uint8_t>(dev, out, 36);
            for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(got[i], i < ssz ? src[i] : 0) << "ssz " << ssz << " byte " << i;
            for (unsigned i = 8; i < 16; ++i) EXPECT_EQ(got[i], 0xff) << "untouched byte " << i; // not copied to
            for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(got[16 + i], src[i]);
            for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(got[32 + i], ignore ? 0 : src[4 + i]);
        }
    }
}

TEST(PtxsimCpAsync, ChecksSourceBoundsAndAlignment) {
    Device dev;
    auto m = load_ok(ptx(kCpAsync));
    ASSERT_TRUE(m);
    auto dsrc = upload(dev, std::vector<uint8_t>(16));
    auto out = upload(dev, std::vector<uint8_t>(36));
    {
        Params p(kernel_of(*m, "cpa"));
        p.set(0, DevicePtr(dsrc + 4096)).set(1, out).set(2, 8u).set(3, 0u);
        LaunchFault fault;
        ASSERT_FALSE(launch(dev, kernel_of(*m, "cpa"), config({1}, {1}), p.bytes(), &fault).ok());
        EXPECT_EQ(fault.kind, FaultKind::IllegalAddress);
        EXPECT_EQ(fault.address, dsrc + 4096);
    }
    {
        Params p(kernel_of(*m, "cpa"));
        p.set(0, DevicePtr(dsrc + 4)).set(1, out).set(2, 8u).set(3, 0u);
        LaunchFault fault;
        ASSERT_FALSE(launch(dev, kernel_of(*m, "cpa"), config({1}, {1}), p.bytes(), &fault).ok());
        EXPECT_EQ(fault.kind, FaultKind::MisalignedAddress);
    }
}

} // namespace
} // namespace d4r::ptxsim::test
