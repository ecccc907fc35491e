// The JIT's integer lowering (src/jit/lower_int.cpp, lower_simd.cpp, cvt.sat in lower_float.cpp) against the
// interpreter: one kernel runs every form on edge values (widths, shift counts, field positions, signs, carries) and
// must compile and write, thread for thread, the bits the interpreter writes. The corpus checks the H200's goldens
// on ordinary inputs; this checks the corners the goldens do not reach, where the interpreter is the reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "jit/kernel_compiler.h"
#include "ptxsim/ptxsim.h"

using namespace d4r;

namespace {

// One instruction under test: its text with %D the result, %A %B %C %E the u32 inputs, %X %Y the u64 ones; WIDE: a
// 64-bit result. Carry chains are whole sequences ending in %D.
struct Form {
    std::string text;
    bool wide = false;
};

std::vector<Form> forms() {
    std::vector<Form> f;
    auto add = [&](std::string text, bool wide = false) { f.push_back({std::move(text), wide}); };
    for (const char* t : {"u32", "s32"}) {
        add(fmt::format("sad.{} %D, %A, %B, %C;", t));
        for (const char* m : {"lo", "hi"}) {
            add(fmt::format("mul24.{}.{} %D, %A, %B;", m, t));
            add(fmt::format("mad24.{}.{} %D, %A, %B, %C;", m, t));
        }
        add(fmt::format("bfe.{} %D, %A, %B, %C;", t));
        add(fmt::format("bfind.{} %D, %A;", t));
        add(fmt::format("bfind.shiftamt.{} %D, %A;", t));
    }
    for (const char* t : {"u64", "s64"}) {
        add(fmt::format("sad.{} %D, %X, %Y, %X;", t), true);
        add(fmt::format("bfe.{} %D, %X, %B, %C;", t), true);
        add(fmt::format("bfind.{} %D, %X;", t));
        add(fmt::format("bfind.shiftamt.{} %D, %X;", t));
    }
    add("bfi.b32 %D, %A, %B, %C, %E;");
    add("bfi.b64 %D, %X, %Y, %C, %E;", true);
    add("bmsk.clamp.b32 %D, %A, %B;");
    add("bmsk.wrap.b32 %D, %A, %B;");
    add("bmsk.clamp.b32 %D, %C, %E;");
    add("bmsk.wrap.b32 %D, %C, %E;");
    for (const char* m : {"", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"})
        add(fmt::format("prmt.b32{} %D, %A, %B, %C;", m));
    for (unsigned lut : {0x96u, 0xe8u, 0x01u, 0x80u, 0x6bu, 0xf0u, 0xccu, 0xaau})
        add(fmt::format("lop3.b32 %D, %A, %B, %C, {};", lut));
    for (const char* d : {"l", "r"})
        for (const char* m : {"wrap", "clamp"}) add(fmt::format("shf.{}.{}.b32 %D, %A, %B, %C;", d, m));
    add("fns.b32 %D, %A, %B, %C;");
    add("fns.b32 %D, %A, %C, %E;");
    add("fns.b32 %D, %A, %E, %C;");
    // Carry chains, 32 and 64 bits.
    add("add.cc.u32 %T, %A, %B; addc.cc.u32 %T, %C, %E; addc.u32 %D, %A, %C;");
    add("sub.cc.u32 %T, %A, %B; subc.cc.u32 %T, %C, %E; subc.u32 %D, %B, %C;");
    add("sub.cc.s32 %T, %A, %B; addc.cc.s32 %D, %C, %E; subc.u32 %D, %D, %A;");
    add("mad.lo.cc.u32 %T, %A, %B, %C; madc.hi.cc.u32 %T, %A, %B, %E; madc.lo.u32 %D, %C, %E, %T;");
    add("mad.hi.cc.s32 %T, %A, %B, %C; madc.hi.s32 %D, %A, %E, %T;");
    add("add.cc.u64 %W, %X, %Y; addc.cc.u64 %W, %Y, %Y; addc.u64 %D, %X, %X;", true);
    add("sub.cc.u64 %W, %X, %Y; subc.cc.u64 %W, %Y, %X; subc.u64 %D, %X, %Y;", true);
    add("mad.lo.cc.u64 %W, %X, %Y, %X; madc.hi.cc.u64 %W, %X, %Y, %Y; madc.lo.u64 %D, %X, %X, %W;", true);
    add("mad.hi.cc.s64 %W, %X, %Y, %Y; madc.hi.s64 %D, %X, %X, %W;", true);
    // cvt.sat between integers, every pair of these types.
    const char* narrow[] = {"u8", "s8", "u16", "s16", "u32", "s32"};
    for (const char* d : {"u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"}) {
        const bool d64 = d[1] == '6';
        for (const char* s : {"u32", "s32"})
            add(d64 ? fmt::format("cvt.sat.{}.{} %D, %A;", d, s) : fmt::format("cvt.sat.{}.{} %D, %A;", d, s), d64);
        for (const char* s : {"u64", "s64"})
            add(d64 ? fmt::format("cvt.sat.{}.{} %D, %X;", d, s) : fmt::format("cvt.sat.{}.{} %D, %X;", d, s), d64);
    }
    for (const char* d : narrow)
        for (const char* s : {"u8", "s8", "u16", "s16"}) add(fmt::format("cvt.sat.{}.{} %D, %A;", d, s));
    // Packed integers.
    for (const char* a : {"u32", "s32"})
        for (const char* b : {"u32", "s32"}) {
            add(fmt::format("dp4a.{}.{} %D, %A, %B, %C;", a, b));
            add(fmt::format("dp2a.lo.{}.{} %D, %A, %B, %C;", a, b));
            add(fmt::format("dp2a.hi.{}.{} %D, %A, %B, %C;", a, b));
            add(fmt::format("vabsdiff4.u32.{}.{}.add %D, %A, %B, %C;", a, b));
        }
    for (const char* op : {"min", "max"}) {
        add(fmt::format("{}.u16x2 %D, %A, %B;", op));
        add(fmt::format("{}.s16x2 %D, %A, %B;", op));
        add(fmt::format("{}.relu.s16x2 %D, %A, %B;", op));
    }
    return f;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// The kernel: thread i reads u32 a b c e at in32[4i..] and u64 x y at in64[2i..], and writes form k's result to
// out[i * forms + k] (8 bytes each).
std::string kernel_ptx(const std::vector<Form>& fs) {
    std::string body;
    for (size_t k = 0; k < fs.size(); ++k) {
        std::string t = fs[k].text;
        t = replace_all(t, "%D", fs[k].wide ? "%rd20" : "%r20");
        t = replace_all(t, "%T", "%r21");
        t = replace_all(t, "%W", "%rd21");
        t = replace_all(t, "%A", "%r10");
        t = replace_all(t, "%B", "%r11");
        t = replace_all(t, "%C", "%r12");
        t = replace_all(t, "%E", "%r13");
        t = replace_all(t, "%X", "%rd10");
        t = replace_all(t, "%Y", "%rd11");
        body += fmt::format("\tmov.b64 %rd20, 0;\n\tmov.b32 %r20, 0;\n\t{}\n", t);
        body += fs[k].wide ? fmt::format("\tst.global.u64 [%rd9+{}], %rd20;\n", 8 * k)
                           : fmt::format("\tst.global.u32 [%rd9+{}], %r20;\n", 8 * k);
    }
    return fmt::format(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry edges(.param .u64 in32, .param .u64 in64, .param .u64 out)
{{
	.reg .b32 %r<40>;
	.reg .b64 %rd<40>;
	ld.param.u64 %rd1, [in32];
	ld.param.u64 %rd2, [in64];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	mul.wide.u32 %rd4, %r4, 16;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd5];
	add.s64 %rd6, %rd2, %rd4;
	ld.global.v2.u64 {{%rd10, %rd11}}, [%rd6];
	mul.wide.u32 %rd8, %r4, {};
	add.s64 %rd9, %rd3, %rd8;
{}	ret;
}}
)",
                       8 * fs.size(), body);
}

// Edge values of 32 bits: small counts and positions, both sides of each width, signs.
const uint32_t kEdges32[] = {0,          1,          2,          7,          8,          15,         16,
                             17,         23,         24,         31,         32,         33,         63,
                             64,         65,         127,        128,        255,        256,        0x7fff,
                             0x8000,     0xffff,     0x10000,    0x7fffff,   0x800000,   0xffffff,   0x1000000,
                             0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0xffffffe1, 0xffffffe0,
                             0xffffffdf, 0x12345678, 0x9abcdef0, 0x00ff00ff, 0xff00ff00, 0x80808080, 0x7f7f7f7f};
const uint64_t kEdges64[] = {0,
                             1,
                             0xffffffffull,
                             0x100000000ull,
                             0x7fffffffull,
                             0x80000000ull,
                             0xffffffff80000000ull,
                             0x7fffffffffffffffull,
                             0x8000000000000000ull,
                             0xffffffffffffffffull,
                             0xfffffffffffffffeull,
                             0xff,
                             0xffff,
                             0x123456789abcdef0ull,
                             0xfedcba9876543210ull,
                             0x0000ffff0000ffffull};

struct Outputs {
    std::vector<uint8_t> bytes;
    bool compiled = false;
    std::string refusal;
    bool warp = false; // compiled to warp code
    std::string why_not_warp;
};

Outputs run(const std::string& ptx, const std::vector<uint32_t>& in32, const std::vector<uint64_t>& in64,
            size_t threads, size_t forms, bool jit, bool warp = true) {
    Outputs o;
    ptxsim::Device device;
    auto module = ptxsim::Module::load(ptx, "edges.ptx");
    EXPECT_TRUE(module) << module.error().text();
    if (!module) return o;
    auto kernel = (*module)->kernel("edges");
    EXPECT_TRUE(kernel) << kernel.error().text();
    if (!kernel) return o;
    const uint64_t out_bytes = threads * forms * 8;
    auto a = device.alloc(in32.size() * 4), b = device.alloc(in64.size() * 8), c = device.alloc(out_bytes);
    EXPECT_TRUE(a && b && c);
    if (!a || !b || !c) return o;
    EXPECT_TRUE(device.copy_to_device(*a, in32.data(), in32.size() * 4));
    EXPECT_TRUE(device.copy_to_device(*b, in64.data(), in64.size() * 8));
    ptxsim::LaunchConfig config;
    config.grid = {static_cast<uint32_t>(threads / 128), 1, 1};
    config.block = {128, 1, 1};
    if (jit) {
        auto compiler = jit::KernelCompiler::instance();
        EXPECT_TRUE(compiler) << compiler.error().text();
        if (!compiler) return o;
        auto compiled = (*compiler)->compile(ptxsim::kernel_source(**kernel), warp);
        if (compiled) {
            config.compiled = *compiled;
            config.instruction_budget = 0;
            o.compiled = true;
            o.warp = (*compiled)->warp;
            o.why_not_warp = (*compiled)->why_not_warp;
        } else {
            o.refusal = compiled.error().text();
        }
    }
    std::vector<uint8_t> params(24);
    const uint64_t ptrs[3] = {*a, *b, *c};
    std::memcpy(params.data(), ptrs, 24);
    auto result = ptxsim::launch(device, **kernel, config, params);
    EXPECT_TRUE(result) << result.error().text();
    o.bytes.resize(out_bytes);
    EXPECT_TRUE(device.copy_to_host(o.bytes.data(), *c, out_bytes));
    return o;
}

} // namespace

TEST(JitIntegerLowering, EveryFormMatchesTheInterpreterOnEdgeValues) {
    const std::vector<Form> fs = forms();
    const std::string ptx = kernel_ptx(fs);
    // Inputs: every edge in each position, then pseudo-random picks of edges.
    const size_t threads = 128 * 24;
    std::vector<uint32_t> in32(threads * 4);
    std::vector<uint64_t> in64(threads * 2);
    uint64_t state = 0x9e3779b97f4a7c15ull;
    auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>(state >> 33);
    };
    const size_t n32 = std::size(kEdges32), n64 = std::size(kEdges64);
    for (size_t i = 0; i < threads; ++i) {
        for (size_t k = 0; k < 4; ++k)
            in32[4 * i + k] = (next() & 3) == 0 ? next() : kEdges32[(i < n32 * 4 && k == i % 4) ? i / 4 : next() % n32];
        for (size_t k = 0; k < 2; ++k)
            in64[2 * i + k] = (next() & 3) == 0 ? (uint64_t(next()) << 32 | next()) : kEdges64[next() % n64];
    }
    const Outputs interpreted = run(ptx, in32, in64, threads, fs.size(), false);
    for (bool warp : {true, false}) {
        const Outputs compiled = run(ptx, in32, in64, threads, fs.size(), true, warp);
        ASSERT_TRUE(compiled.compiled) << compiled.refusal;
        EXPECT_EQ(compiled.warp, warp) << compiled.why_not_warp;
        ASSERT_EQ(interpreted.bytes.size(), compiled.bytes.size());
        int reported = 0;
        for (size_t i = 0; i < threads && reported < 20; ++i)
            for (size_t k = 0; k < fs.size() && reported < 20; ++k) {
                uint64_t want = 0, got = 0;
                std::memcpy(&want, interpreted.bytes.data() + (i * fs.size() + k) * 8, 8);
                std::memcpy(&got, compiled.bytes.data() + (i * fs.size() + k) * 8, 8);
                if (want == got) continue;
                ++reported;
                ADD_FAILURE() << fmt::format("'{}' a={:#x} b={:#x} c={:#x} e={:#x} x={:#x} y={:#x}: interpreted {:#x}, "
                                             "compiled {:#x}",
                                             fs[k].text, in32[4 * i], in32[4 * i + 1], in32[4 * i + 2], in32[4 * i + 3],
                                             in64[2 * i], in64[2 * i + 1], want, got);
            }
    }
}

// brx.idx through its table, and an index outside it faulting with the interpreter's report.
TEST(JitIntegerLowering, BranchTablesJumpAndFaultAsInterpreted) {
    const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry table(.param .u64 out, .param .u32 limit)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r5, [limit];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	rem.u32 %r2, %r1, %r5;
	mov.u32 %r3, 0;
	ts: .branchtargets L0, L1, L2;
L0:
	add.u32 %r3, %r3, 1;
	setp.gt.u32 %p1, %r3, 5;
	@%p1 bra Done;
	brx.idx %r2, ts;
L1:
	add.u32 %r3, %r3, 10;
	bra Done;
L2:
	add.u32 %r3, %r3, 100;
Done:
	st.global.u32 [%rd3], %r3;
	ret;
}
)";
    for (uint32_t limit : {3u, 4u}) { // 4: thread 3's index is outside the table
        std::string reports[2];
        std::vector<uint32_t> outs[2];
        for (int jit = 0; jit < 2; ++jit) {
            ptxsim::Device device;
            auto module = ptxsim::Module::load(ptx, "table.ptx");
            ASSERT_TRUE(module) << module.error().text();
            auto kernel = (*module)->kernel("table");
            ASSERT_TRUE(kernel) << kernel.error().text();
            auto out = device.alloc(64 * 4);
            ASSERT_TRUE(out);
            ptxsim::LaunchConfig config;
            config.grid = {1, 1, 1};
            config.block = {64, 1, 1};
            if (jit) {
                auto compiler = jit::KernelCompiler::instance();
                ASSERT_TRUE(compiler) << compiler.error().text();
                auto compiled = (*compiler)->compile(ptxsim::kernel_source(**kernel));
                ASSERT_TRUE(compiled) << compiled.error().text();
                config.compiled = *compiled;
                config.instruction_budget = 0;
            }
            std::vector<uint8_t> params(12);
            const uint64_t p = *out;
            std::memcpy(params.data(), &p, 8);
            std::memcpy(params.data() + 8, &limit, 4);
            auto result = ptxsim::launch(device, **kernel, config, params);
            reports[jit] = result ? "" : result.error().text();
            outs[jit].resize(64);
            ASSERT_TRUE(device.copy_to_host(outs[jit].data(), *out, 64 * 4));
        }
        EXPECT_EQ(reports[0], reports[1]);
        if (limit == 3) {
            EXPECT_EQ(reports[0], "");
            EXPECT_EQ(outs[0], outs[1]);
        } else {
            EXPECT_NE(reports[0].find("brx.idx index 3 is outside its 3-entry table"), std::string::npos) << reports[0];
        }
    }
}
