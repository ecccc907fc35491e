// Sub-byte wmma: m8n8k32 with s4/u4 inputs (wrapping or .satfinite) and m8n8k128 with b1 inputs
// (.xor.popc and .and.popc), loaded from packed memory with several strides (counted in 4-bit or 1-bit
// elements), row- and column-major accumulators, checked element by element against a plain C++
// reference on random inputs; the misaligned-row fault; and the forms the decoder refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

struct SubCase {
    const char* type; // s4, u4 or b1
    const char* op;   // "" (s4/u4), "xor" or "and" (b1)
    bool satfinite;
    unsigned lda, ldb; // strides of A (row-major) and B (column-major) in elements; 0: the default
    bool c_col, d_col; // accumulator layouts
    bool generic;      // generic addressing instead of .global
};

unsigned k_of(const std::string& type) { return type == "b1" ? 128 : 32; }
unsigned width_of(const std::string& type) { return type == "b1" ? 1 : 4; }

// C and D strides (s32 elements): wider than the matrix, so a wrong stride shows.
constexpr unsigned kLdc = 11, kLdd = 13;

std::string sub_kernel(const SubCase& c) {
    const std::string type = c.type, shape = type == "b1" ? "m8n8k128" : "m8n8k32";
    const std::string space = c.generic ? "" : ".global";
    const std::string op = std::string(c.op).empty() ? "" : fmt::format(".{}.popc", c.op);
    auto stride = [](unsigned s, const char* reg) { return s ? fmt::format(", {}", reg) : std::string(); };
    std::string t;
    t += ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 sa, "
         ".param .u32 sb)\n{\n";
    t += "  .reg .b32 %r<20>;\n  .reg .b64 %rd<8>;\n";
    t +=
        "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n  ld.param.u64 %rd4, [pd];\n";
    t += "  ld.param.u32 %r1, [sa];\n  ld.param.u32 %r2, [sb];\n";
    t += fmt::format("  wmma.load.a.sync.aligned.row.{}{}.{} {{%r3}}, [%rd1]{};\n", shape, space, type,
                     stride(c.lda, "%r1"));
    t += fmt::format("  wmma.load.b.sync.aligned.col.{}{}.{} {{%r4}}, [%rd2]{};\n", shape, space, type,
                     stride(c.ldb, "%r2"));
    t += fmt::format("  wmma.load.c.sync.aligned.{}.{}{}.s32 {{%r5, %r6}}, [%rd3], {};\n", c.c_col ? "col" : "row",
                     shape, space, kLdc);
    t += fmt::format(
        "  wmma.mma{}.sync.aligned.row.col.{}.s32.{}.{}.s32{} {{%r7, %r8}}, {{%r3}}, {{%r4}}, {{%r5, %r6}};\n", op,
        shape, type, type, c.satfinite ? ".satfinite" : "");
    t += fmt::format("  wmma.store.d.sync.aligned.{}.{}{}.s32 [%rd4], {{%r7, %r8}}, {};\n", c.d_col ? "col" : "row",
                     shape, space, kLdd);
    t += "  ret;\n}\n";
    return t;
}

// A packed sub-byte matrix: LINES lines (rows of A, columns of B) of K elements, STRIDE elements apart.
// Every bit of the buffer is random, padding included, so reading outside the lines changes the result.
struct Packed {
    std::vector<uint8_t> bytes;
    unsigned width, stride;
    Packed(unsigned lines, unsigned stride_elems, unsigned w, TestRng& rng) : width(w), stride(stride_elems) {
        bytes.resize(size_t(lines) * stride * width / 8 + 16);
        for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.next() >> 24);
    }
    unsigned get(unsigned line, unsigned k) const {
        const size_t bit = (size_t(line) * stride + k) * width;
        return (bytes[bit / 8] >> (bit % 8)) & ((1u << width) - 1);
    }
};

struct Acc {
    std::vector<int32_t> v;
    unsigned ld;
    bool col;
    Acc(unsigned ld_, bool column) : v(size_t(ld_) * 8 + 8, 0x5a5a5a5a), ld(ld_), col(column) {}
    int32_t& at(unsigned i, unsigned j) { return v[col ? size_t(j) * ld + i : size_t(i) * ld + j]; }
};

// C + row i of A times column j of B, exactly (b1: the popcounts of AND or XOR).
int64_t exact_sum(const SubCase& c, const Packed& a, const Packed& b, int32_t acc, unsigned i, unsigned j) {
    const std::string type = c.type;
    int64_t s = acc;
    for (unsigned k = 0; k < k_of(type); ++k) {
        int64_t x = a.get(i, k), y = b.get(j, k);
        if (type == "b1") {
            s += std::string(c.op) == "and" ? (x & y) : (x ^ y);
            continue;
        }
        if (type == "s4") {
            x = x >= 8 ? x - 16 : x;
            y = y >= 8 ? y - 16 : y;
        }
        s += x * y;
    }
    return s;
}

// What D holds: the exact sum clamped to int32 with .satfinite, else wrapped to 32 bits.
int32_t reference(const SubCase& c, int64_t exact) {
    if (c.satfinite) exact = std::clamp<int64_t>(exact, INT32_MIN, INT32_MAX);
    return static_cast<int32_t>(static_cast<uint32_t>(exact));
}

// Runs CASE on random inputs; C holds values near the int32 limits where EXTREME_C. Returns how many
// results the reference clamped or wrapped (so a saturation test can show it saturated).
unsigned run_sub_case(const SubCase& c, uint64_t seed, bool extreme_c) {
    SCOPED_TRACE(fmt::format("{}{}{} lda {} ldb {} c_col {} d_col {} generic {} seed {}", c.type, c.op,
                             c.satfinite ? " satfinite" : "", c.lda, c.ldb, c.c_col, c.d_col, c.generic, seed));
    auto m = load_ok(ptx(sub_kernel(c)));
    if (!m) return 0;
    EXPECT_TRUE(m->unavailable().empty()) << m->unavailable()[0].reason;
    if (!m->unavailable().empty()) return 0;
    const unsigned k = k_of(c.type), w = width_of(c.type);
    TestRng rng(seed);
    Packed A(8, c.lda ? c.lda : k, w, rng), B(8, c.ldb ? c.ldb : k, w, rng);
    Acc C(kLdc, c.c_col), D(kLdd, c.d_col);
    for (unsigned i = 0; i < 8; ++i)
        for (unsigned j = 0; j < 8; ++j) {
            const int32_t small = static_cast<int32_t>(rng.next() % 20001) - 10000;
            C.at(i, j) = !extreme_c         ? small
                         : (i + j) % 3 == 0 ? INT32_MAX - 40 - int32_t(j)
                         : (i + j) % 3 == 1 ? INT32_MIN + 40 + int32_t(i)
                                            : small;
        }
    Device dev;
    DevicePtr pa = upload(dev, A.bytes), pb = upload(dev, B.bytes), pc = upload(dev, C.v), pd = upload(dev, D.v);
    Params p(kernel_of(*m, "k"));
    p.set(0, pa).set(1, pb).set(2, pc).set(3, pd).set(4, c.lda).set(5, c.ldb);
    run_ok(dev, *m, "k", config({1}, {32}), p);
    D.v = download<int32_t>(dev, pd, D.v.size());
    unsigned limited = 0;
    for (unsigned i = 0; i < 8; ++i)
        for (unsigned j = 0; j < 8; ++j) {
            const int64_t exact = exact_sum(c, A, B, C.at(i, j), i, j);
            const int32_t want = reference(c, exact);
            if (exact != want) ++limited;
            EXPECT_EQ(D.at(i, j), want) << "D[" << i << "][" << j << "]";
        }
    // The stride's padding after row/column 0 of D is untouched.
    EXPECT_EQ(D.v[8], 0x5a5a5a5a);
    return limited;
}

TEST(PtxsimWmmaSubByte, S4U4EveryStrideAndLayoutMatchTheReference) {
    const SubCase cases[] = {
        {"s4", "", false, 0, 0, false, false, false},  // default strides (32 elements)
        {"s4", "", false, 40, 56, true, false, false}, // padded rows and columns
        {"s4", "", false, 64, 32, false, true, true},  // generic addressing
        {"u4", "", false, 0, 0, false, false, false},   {"u4", "", false, 48, 72, true, true, false},
        {"u4", "", false, 128, 40, false, false, true},
    };
    uint64_t seed = 1;
    for (const SubCase& c : cases) run_sub_case(c, seed++, false);
}

TEST(PtxsimWmmaSubByte, S4U4SatfiniteClampsAndPlainWraps) {
    for (const char* type : {"s4", "u4"})
        for (bool sat : {false, true}) {
            SubCase c{type, "", sat, 40, 0, false, false, false};
            // Near the limits some sums leave the int32 range: wrapped without .satfinite, clamped with it.
            const unsigned limited = run_sub_case(c, 77, true);
            EXPECT_GT(limited, 0u) << type << " satfinite " << sat << ": no sum left the int32 range";
        }
}

TEST(PtxsimWmmaSubByte, B1XorAndPopcMatchTheReference) {
    const SubCase cases[] = {
        {"b1", "xor", false, 0, 0, false, false, false}, // default strides (128 elements)
        {"b1", "xor", false, 160, 256, true, false, false},
        {"b1", "and", false, 0, 0, false, true, false},
        {"b1", "and", false, 384, 160, true, true, true},
    };
    uint64_t seed = 100;
    for (const SubCase& c : cases) run_sub_case(c, seed++, false);
    // C near INT32_MAX: the popcount wraps.
    EXPECT_GT(run_sub_case({"b1", "xor", false, 0, 0, false, false, false}, 7, true), 0u);
}

// Rows must start on the fragment's 4-byte boundary: a stride of 36 s4 elements (18 bytes) faults.
TEST(PtxsimWmmaSubByte, MisalignedRowsFault) {
    for (const char* type : {"s4", "b1"}) {
        SubCase c{type,  std::string(type) == "b1" ? "xor" : "",
                  false, std::string(type) == "b1" ? 136u : 36u,
                  0,     false,
                  false, false};
        auto m = load_ok(ptx(sub_kernel(c)));
        ASSERT_TRUE(m);
        Device dev;
        DevicePtr buf = upload(dev, std::vector<uint8_t>(4096, 0));
        Params p(kernel_of(*m, "k"));
        p.set(0, buf).set(1, buf).set(2, buf).set(3, buf + 2048).set(4, c.lda).set(5, 0u);
        LaunchFault fault;
        auto r = launch(dev, kernel_of(*m, "k"), config({1}, {32}), p.bytes(), &fault);
        ASSERT_FALSE(r.ok()) << type;
        EXPECT_EQ(fault.kind, FaultKind::MisalignedAddress) << type;
        EXPECT_NE(r.error().text().find("4-byte boundary"), std::string::npos) << r.error().text();
    }
}

std::string body(const std::string& target, const std::string& in) {
    return ".version 8.0\n.target " + target +
           "\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<40>;\n"
           "  .reg .b64 %rd<2>;\n  " +
           in + "\n  ret;\n}\n";
}

// The error names the module, the line (8: the instruction's) and why.
void expect_refused(const std::string& target, const std::string& in, const std::string& why) {
    const std::string e = load_error(body(target, in));
    EXPECT_NE(e.find("test.ptx:8:"), std::string::npos) << e;
    EXPECT_NE(e.find(why), std::string::npos) << in << "\n -> " << e;
}

TEST(PtxsimWmmaSubByte, DecoderRefusesWhatTheIsaDoesNotHave) {
    const std::string mma4 = "{%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};";
    // Layouts: sub-byte A is row-major only, B column-major only, and wmma.mma is .row.col.
    expect_refused("sm_80", "wmma.load.a.sync.aligned.col.m8n8k32.s4 {%r1}, [%rd1];", "must be .row");
    expect_refused("sm_80", "wmma.load.b.sync.aligned.row.m8n8k128.b1 {%r1}, [%rd1];", "must be .col");
    expect_refused("sm_80", "wmma.mma.sync.aligned.row.row.m8n8k32.s32.s4.s4.s32 " + mma4, "must be .row.col");
    expect_refused("sm_80", "wmma.mma.xor.popc.sync.aligned.col.col.m8n8k128.s32.b1.b1.s32 " + mma4,
                   "must be .row.col");
    // Mixed signedness and types that do not belong to the shape.
    expect_refused("sm_80", "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32 " + mma4, "must be the same");
    expect_refused("sm_80", "wmma.mma.sync.aligned.row.col.m16n16k16.s32.s4.s4.s32 " + mma4, "do not exist");
    expect_refused("sm_80", "wmma.load.a.sync.aligned.row.m8n8k32.s8 {%r1}, [%rd1];", "does not exist");
    expect_refused("sm_80", "wmma.load.c.sync.aligned.row.m8n8k32.f32 {%r1, %r2}, [%rd1];", "does not exist");
    expect_refused("sm_80", "wmma.store.d.sync.aligned.row.m8n8k128.s4 [%rd1], {%r1};", "does not exist");
    expect_refused("sm_80", "wmma.mma.sync.aligned.row.col.m8n8k32.f32.s4.s4.f32 " + mma4, "accumulator types");
    // The fragment is one register for A and B, two for C and D.
    expect_refused("sm_80", "wmma.load.a.sync.aligned.row.m8n8k32.u4 {%r1, %r2}, [%rd1];", "1 registers");
    expect_refused("sm_80", "wmma.mma.sync.aligned.row.col.m8n8k32.s32.u4.u4.s32 {%r1}, {%r3}, {%r4}, {%r5, %r6};",
                   "2 registers");
    // Single-bit needs its operation; the operation and .satfinite belong to their own types.
    expect_refused("sm_80", "wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 " + mma4, ".xor.popc or .and.popc");
    expect_refused("sm_80", "wmma.mma.xor.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 " + mma4,
                   ".xor.popc or .and.popc");
    expect_refused("sm_80", "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 " + mma4,
                   "for .b1 inputs only");
    expect_refused("sm_80", "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32.satfinite " + mma4,
                   ".satfinite is supported for s8/u8/s4/u4");
    // Targets: .and.popc from sm_80, sub-byte wmma from sm_75.
    expect_refused("sm_75", "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 " + mma4,
                   "needs .target sm_80 or later (the module targets sm_75)");
    expect_refused("sm_72", "wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r1}, [%rd1];", "need .target sm_75 or later");
    expect_refused("sm_72", "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 " + mma4,
                   "need .target sm_75 or later");
    // ... and the same forms load for the targets that have them.
    for (const char* in : {"wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 ",
                           "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32.satfinite "}) {
        auto m = load_ok(body("sm_75", in + mma4));
        ASSERT_TRUE(m);
        EXPECT_TRUE(m->unavailable().empty()) << in;
    }
    auto m = load_ok(body("sm_80", "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 " + mma4));
    ASSERT_TRUE(m);
    EXPECT_TRUE(m->unavailable().empty());
}

} // namespace
} // namespace d4r::ptxsim::test
