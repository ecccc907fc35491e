// wmma: load/mma/store round trips for every supported shape and type, row and column layouts with
// strides, checked against a host reference on small integer values (exact in every format, so the
// result does not depend on the rounding rule), plus integer saturation, f64, the element-wise use of
// accumulator fragments, and the forms the decoder rejects.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "ptxsim/numerics.h"
#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

struct Case {
    const char* shape;
    unsigned m, n, k;
    const char* ab;  // input type
    const char* acc; // C and D type
    bool a_col, b_col, c_col, d_col;
};

unsigned bits_of(const std::string& t) {
    if (t == "f16" || t == "bf16") return 16;
    if (t == "s8" || t == "u8") return 8;
    if (t == "f64") return 64;
    return 32;
}

unsigned regs_of(const std::string& frag, const Case& c, const std::string& t) {
    if (frag != "c" && t == "f16") return 8;
    unsigned rows = frag == "a" ? c.m : frag == "b" ? c.k : c.m;
    unsigned cols = frag == "a" ? c.k : c.n; // B is K x N, C is M x N
    unsigned per = t == "f64" ? 1 : 32 / bits_of(t);
    return rows * cols / 32 / per;
}

std::string reg_list(const std::string& prefix, unsigned first, unsigned n) {
    std::string s = "{";
    for (unsigned i = 0; i < n; ++i) s += (i ? ", " : "") + prefix + std::to_string(first + i);
    return s + "}";
}

// One warp: D = A * B + C with the fragments loaded from global memory (strides = matrix width + 3
// elements, so a wrong stride shows), then D stored.
std::string kernel(const Case& c) {
    const std::string ab = c.ab, acc = c.acc;
    const bool wide = ab == "f64";
    const std::string rp = wide ? "%fd" : "%r";
    const unsigned na = regs_of("a", c, ab), nb = regs_of("b", c, ab), nc = regs_of("c", c, acc);
    const std::string shape = c.shape;
    auto stride = [](bool col, unsigned rows, unsigned cols) { return (col ? rows : cols) + 3; };
    std::string mma_types = ab == "f16" ? "." + acc + "." + acc : "." + acc + "." + ab + "." + ab + "." + acc;
    std::string t;
    t += ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n";
    t += "  .reg .b32 %r<100>;\n  .reg .b64 %rd<8>;\n  .reg .f64 %fd<100>;\n";
    t +=
        "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n  ld.param.u64 %rd4, [pd];\n";
    t += fmt::format("  wmma.load.a.sync.aligned.{}.{}.global.{} {}, [%rd1], {};\n", c.a_col ? "col" : "row", shape, ab,
                     reg_list(rp, 10, na), stride(c.a_col, c.m, c.k));
    t += fmt::format("  wmma.load.b.sync.aligned.{}.{}.global.{} {}, [%rd2], {};\n", c.b_col ? "col" : "row", shape, ab,
                     reg_list(rp, 30, nb), stride(c.b_col, c.k, c.n));
    t += fmt::format("  wmma.load.c.sync.aligned.{}.{}.global.{} {}, [%rd3], {};\n", c.c_col ? "col" : "row", shape,
                     acc, reg_list(rp, 50, nc), stride(c.c_col, c.m, c.n));
    t += fmt::format("  wmma.mma.sync.aligned.{}.{}.{}{}{} {}, {}, {}, {};\n", c.a_col ? "col" : "row",
                     c.b_col ? "col" : "row", shape, ab == "f64" ? ".rn" : "", mma_types, reg_list(rp, 70, nc),
                     reg_list(rp, 10, na), reg_list(rp, 30, nb), reg_list(rp, 50, nc));
    t += fmt::format("  wmma.store.d.sync.aligned.{}.{}.global.{} [%rd4], {}, {};\n", c.d_col ? "col" : "row", shape,
                     acc, reg_list(rp, 70, nc), stride(c.d_col, c.m, c.n));
    t += "  ret;\n}\n";
    return t;
}

uint64_t encode(double v, const std::string& t) {
    if (t == "f16") return round_to_small(v, kF16, Round::Rn);
    if (t == "bf16") return round_to_small(v, kBF16, Round::Rn);
    if (t == "f32" || t == "tf32") return std::bit_cast<uint32_t>(static_cast<float>(v));
    if (t == "f64") return std::bit_cast<uint64_t>(v);
    return static_cast<uint64_t>(static_cast<int64_t>(v)); // s8 u8 s32 (truncated to the width)
}

double decode(uint64_t bits, const std::string& t) {
    if (t == "f16") return f16_to_float(static_cast<uint32_t>(bits));
    if (t == "f32") return std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (t == "f64") return std::bit_cast<double>(bits);
    return static_cast<int32_t>(bits);
}

// A matrix stored with the case's layout and stride in a byte buffer.
struct Stored {
    std::vector<uint8_t> bytes;
    unsigned rows, cols, stride, esize;
    bool col;
    Stored(unsigned r, unsigned c, bool column, const std::string& t)
        : rows(r), cols(c), stride((column ? r : c) + 3), esize(bits_of(t) / 8), col(column) {
        bytes.assign(size_t(stride) * (column ? c : r) * esize + 64, 0xee);
    }
    size_t at(unsigned r, unsigned c) const { return (col ? size_t(c) * stride + r : size_t(r) * stride + c) * esize; }
    void put(unsigned r, unsigned c, uint64_t v) { std::memcpy(&bytes[at(r, c)], &v, esize); }
    uint64_t get(unsigned r, unsigned c) const {
        uint64_t v = 0;
        std::memcpy(&v, &bytes[at(r, c)], esize);
        return v;
    }
};

void run_case(const Case& c) {
    SCOPED_TRACE(fmt::format("{} {} -> {} a{} b{} c{} d{}", c.shape, c.ab, c.acc, c.a_col, c.b_col, c.c_col, c.d_col));
    auto m = load_ok(ptx(kernel(c)));
    ASSERT_TRUE(m);
    ASSERT_TRUE(m->unavailable().empty()) << m->unavailable()[0].reason;
    const std::string ab = c.ab, acc = c.acc;
    const bool is_unsigned = ab == "u8";
    auto val_a = [&](unsigned i, unsigned k) { return double(int((i * 7 + k * 3) % 9) - (is_unsigned ? 0 : 4)); };
    auto val_b = [&](unsigned k, unsigned j) { return double(int((k * 5 + j * 11) % 7) - (is_unsigned ? 0 : 3)); };
    auto val_c = [&](unsigned i, unsigned j) { return double(int((i + 2 * j) % 5) - 2); };
    Stored A(c.m, c.k, c.a_col, ab), B(c.k, c.n, c.b_col, ab), C(c.m, c.n, c.c_col, acc), D(c.m, c.n, c.d_col, acc);
    for (unsigned i = 0; i < c.m; ++i)
        for (unsigned k = 0; k < c.k; ++k) A.put(i, k, encode(val_a(i, k), ab));
    for (unsigned k = 0; k < c.k; ++k)
        for (unsigned j = 0; j < c.n; ++j) B.put(k, j, encode(val_b(k, j), ab));
    for (unsigned i = 0; i < c.m; ++i)
        for (unsigned j = 0; j < c.n; ++j) C.put(i, j, encode(val_c(i, j), acc));
    Device dev;
    DevicePtr pa = upload(dev, A.bytes), pb = upload(dev, B.bytes), pc = upload(dev, C.bytes),
              pd = upload(dev, D.bytes);
    Params p(kernel_of(*m, "k"));
    p.set(0, pa).set(1, pb).set(2, pc).set(3, pd);
    run_ok(dev, *m, "k", config({1}, {32}), p);
    D.bytes = download<uint8_t>(dev, pd, D.bytes.size());
    for (unsigned i = 0; i < c.m; ++i)
        for (unsigned j = 0; j < c.n; ++j) {
            double want = val_c(i, j);
            for (unsigned k = 0; k < c.k; ++k) want += val_a(i, k) * val_b(k, j);
            ASSERT_EQ(decode(D.get(i, j), acc), want) << "D[" << i << "][" << j << "]";
        }
    // Bytes between the rows (the stride's padding) are untouched.
    const size_t pad = D.at(0, 0) + size_t(D.col ? D.rows : D.cols) * D.esize;
    EXPECT_EQ(D.bytes[pad], 0xee);
}

TEST(PtxsimWmma, EveryShapeTypeAndLayout) {
    const Case cases[] = {
        {"m16n16k16", 16, 16, 16, "f16", "f32", false, true, false, false},
        {"m16n16k16", 16, 16, 16, "f16", "f32", true, false, true, true},
        {"m16n16k16", 16, 16, 16, "f16", "f16", false, true, false, true},
        {"m32n8k16", 32, 8, 16, "f16", "f32", false, true, false, false},
        {"m8n32k16", 8, 32, 16, "f16", "f16", false, false, true, false},
        {"m16n16k16", 16, 16, 16, "bf16", "f32", false, true, false, false},
        {"m32n8k16", 32, 8, 16, "bf16", "f32", true, true, false, true},
        {"m8n32k16", 8, 32, 16, "bf16", "f32", false, true, false, false},
        {"m16n16k16", 16, 16, 16, "s8", "s32", false, true, false, false},
        {"m32n8k16", 32, 8, 16, "u8", "s32", false, false, true, false},
        {"m8n32k16", 8, 32, 16, "s8", "s32", true, true, false, true},
        {"m16n16k8", 16, 16, 8, "tf32", "f32", false, true, false, false},
        {"m8n8k4", 8, 8, 4, "f64", "f64", false, true, false, true},
    };
    for (const Case& c : cases) run_case(c);
}

// Accumulator fragments hold each element once: scaling every element (what wmma::fragment users do
// with frag.x[i]) scales the matrix. A program loads C, doubles each element and stores it.
TEST(PtxsimWmma, AccumulatorElementsAreTheMatrix) {
    auto m = load_ok(ptx(R"(
.visible .entry k(.param .u64 p)
{
  .reg .f32 %f<20>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];
  add.f32 %f1, %f1, %f1;  add.f32 %f2, %f2, %f2;  add.f32 %f3, %f3, %f3;  add.f32 %f4, %f4, %f4;
  add.f32 %f5, %f5, %f5;  add.f32 %f6, %f6, %f6;  add.f32 %f7, %f7, %f7;  add.f32 %f8, %f8, %f8;
  wmma.store.d.sync.aligned.col.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, 16;
  ret;
}
)"));
    ASSERT_TRUE(m);
    std::vector<float> in(256);
    for (unsigned i = 0; i < 256; ++i) in[i] = float(i);
    Device dev;
    DevicePtr p = upload(dev, in);
    Params params(kernel_of(*m, "k"));
    params.set(0, p);
    run_ok(dev, *m, "k", config({1}, {32}), params);
    auto out = download<float>(dev, p, 256);
    for (unsigned r = 0; r < 16; ++r)
        for (unsigned c = 0; c < 16; ++c)
            ASSERT_EQ(out[c * 16 + r], 2.0f * in[r * 16 + c]) << r << "," << c; // transposed
}

TEST(PtxsimWmma, IntegerSaturationAndRejectedForms) {
    // 16 products of 127 * 127 added to INT32_MAX - 10: wraps without .satfinite, clamps with it.
    for (bool sat : {false, true}) {
        Case c{"m16n16k16", 16, 16, 16, "s8", "s32", false, true, false, false};
        std::string text = kernel(c);
        if (sat) text.replace(text.find(".s32.s8.s8.s32"), 14, ".satfinite.s32.s8.s8.s32");
        auto m = load_ok(ptx(text));
        ASSERT_TRUE(m);
        Stored A(16, 16, false, "s8"), B(16, 16, true, "s8"), C(16, 16, false, "s32"), D(16, 16, false, "s32");
        for (unsigned i = 0; i < 16; ++i)
            for (unsigned j = 0; j < 16; ++j) {
                A.put(i, j, 127);
                B.put(i, j, 127);
                C.put(i, j, static_cast<uint32_t>(INT32_MAX - 10));
            }
        Device dev;
        DevicePtr pa = upload(dev, A.bytes), pb = upload(dev, B.bytes), pc = upload(dev, C.bytes),
                  pd = upload(dev, D.bytes);
        Params p(kernel_of(*m, "k"));
        p.set(0, pa).set(1, pb).set(2, pc).set(3, pd);
        run_ok(dev, *m, "k", config({1}, {32}), p);
        D.bytes = download<uint8_t>(dev, pd, D.bytes.size());
        int64_t exact = int64_t(INT32_MAX) - 10 + 16 * 127 * 127;
        int32_t want = sat ? INT32_MAX : static_cast<int32_t>(static_cast<uint32_t>(exact));
        EXPECT_EQ(static_cast<int32_t>(D.get(3, 5)), want) << "satfinite " << sat;
    }
    auto body = [](const std::string& in) {
        return ptx(".visible .entry k()\n{\n  .reg .b32 %r<40>;\n  .reg .b64 %rd<2>;\n  " + in + "\n  ret;\n}\n");
    };
    // m16n8k16 is an mma.sync shape, not a wmma one (the sub-byte forms: wmma_subbyte_test.cpp).
    EXPECT_NE(load_error(body("wmma.load.a.sync.aligned.row.m16n8k16.f16 {%r1}, [%rd1];")).find("shape"),
              std::string::npos);
    EXPECT_NE(load_error(body("wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2}, [%rd1];")).find("8 registers"),
              std::string::npos);
    EXPECT_NE(load_error(body("wmma.load.a.sync.aligned.row.m16n16k8.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1];"))
                  .find("does not exist"),
              std::string::npos);
}

} // namespace
} // namespace d4r::ptxsim::test
