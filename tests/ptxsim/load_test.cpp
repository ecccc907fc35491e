// Module loading: syntax the parser must accept (debug sections, .loc, .pragma, register ranges,
// nested scopes, immediates in every notation, ::-qualified opcodes) and load-time errors that name the
// module, line and instruction text.
#include <gtest/gtest.h>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

TEST(PtxsimLoad, AcceptsDebugInfoScopesAndImmediateNotations) {
    auto m = load_ok(R"(//
// comment
.version 8.5
.target sm_90, debug
.address_size 64
.file 1 "/tmp/k.cu"
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<3>;
  .reg .f64 %fd<2>;
  .reg .b64 %rd<3>;
  .loc 1 10 3
  ld.param.u64 %rd1, [out];
  .pragma "nounroll";
  mov.f32 %f1, 0f3FC00000;
  add.f32 %f2, %f1, 0f3F000000;
  mov.f64 %fd1, 0d4000000000000000;
  mov.u32 %r1, -7;
  mov.u32 %r2, 0x10;
  { .reg .b32 %r<2>; mov.u32 %r1, 99; }
  { .reg .b32 %t; mov.u32 %t, 5; add.u32 %r2, %r2, %t; }
  ld.global.L1::evict_last.u32 %r3, [%rd1+4];
  st.global.f32 [%rd1], %f2;
  st.global.u32 [%rd1+8], %r1;
  st.global.u32 [%rd1+12], %r2;
  st.global.f64 [%rd1+16], %fd1;
  st.global.u32 [%rd1+24], %r3;
  ret;
}
.section .debug_abbrev
{
.b8 1
.b8 17
}
)");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->kernel_names(), std::vector<std::string>{"k"});
    Device dev;
    std::vector<uint32_t> init(8, 0);
    init[1] = 1234;
    DevicePtr out = upload(dev, init);
    Params p(kernel_of(*m, "k"));
    p.set(0, out);
    run_ok(dev, *m, "k", config({1}, {1}), p);
    auto got = download<uint32_t>(dev, out, 8);
    float f;
    std::memcpy(&f, &got[0], 4);
    EXPECT_EQ(f, 2.0f);
    EXPECT_EQ(int32_t(got[2]), -7); // the inner %r1 was a different register
    EXPECT_EQ(got[3], 21u);
    double d;
    std::memcpy(&d, &got[4], 8);
    EXPECT_EQ(d, 2.0);
    EXPECT_EQ(got[6], 1234u);
}

TEST(PtxsimLoad, UnknownInstructionNamesModuleLineAndText) {
    std::string msg = load_error(ptx(R"(
.visible .entry k()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 1;
  frobnicate.b32 %r2, %r1;
  ret;
}
)"),
                                 "mine.ptx");
    EXPECT_NE(msg.find("mine.ptx:9:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'frobnicate' is not a PTX instruction"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'frobnicate.b32 %r2, %r1'"), std::string::npos) << msg;
}

TEST(PtxsimLoad, UnknownModifiersAndBadOperandsAreErrors) {
    struct Case {
        const char* body;
        const char* expect;
    };
    const Case cases[] = {
        {"add.wobble.s32 %r1, %r2, %r3;", "unsupported modifier '.wobble'"},
        {"add.s32 %rd1, %r2, %r3;", "does not fit type .s32"},
        {"add.s32 %r1, %r2, %nope;", "unknown register '%nope'"},
        {"bra.uni NOWHERE;", "unknown label 'NOWHERE'"},
        {"mul.s32 %r1, %r2, %r3;", "needs .lo, .hi or .wide"},
        {"fma.f32 %f1, %f1, %f1, %f1;", "needs a rounding modifier"},
        {"cvt.s32.f32 %r1, %f1;", "needs .rni, .rzi, .rmi or .rpi"},
        {"shfl.up.b32 %r1, %r2, 1, 0;", "without .sync"},
        {"ld.global.u32 %r1, %rd1;", "expected an address operand"},
        {"@%r1 add.s32 %r1, %r2, %r3;", "is not a predicate register"},
        {"setp.lo.f32 %p1, %f1, %f1;", "compare integers"},
    };
    for (const Case& c : cases) {
        std::string text = ptx(std::string(".visible .entry k()\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<4>;\n"
                                           "  .reg .b64 %rd<2>;\n  .reg .f32 %f<2>;\n  ") +
                               c.body + "\n  ret;\n}\n");
        std::string msg = load_error(text);
        EXPECT_NE(msg.find(c.expect), std::string::npos) << c.body << " -> " << msg;
        EXPECT_NE(msg.find("test.ptx:10:"), std::string::npos) << c.body << " -> " << msg;
    }
}

TEST(PtxsimLoad, SyntaxErrorsFailTheModule) {
    // What no assembler accepts fails the whole module (as ptxas fails it): unknown instructions,
    // registers and labels, wrong operand counts.
    for (const char* body :
         {"frobnicate.b32 %r1;", "add.s32 %r1, %r2, %nope;", "bra.uni NOWHERE;", "add.s32 %r1, %r2;"}) {
        auto bad = Module::load(ptx(std::string(".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  ") + body +
                                    "\n  ret;\n}\n.visible .entry fine()\n{\n  ret;\n}\n"),
                                "test.ptx");
        ASSERT_FALSE(bad.ok()) << body;
        EXPECT_EQ(bad.error().code(), ErrorCode::Invalid) << body;
        EXPECT_NE(bad.error().text().find("test.ptx:7:"), std::string::npos) << bad.error().text();
    }
    auto m = Module::load(ptx(".visible .entry k()\n{\n  add.s32 %r1 %r2;\n}\n"), "test.ptx");
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.error().text().find("test.ptx:6:"), std::string::npos) << m.error().text();
    auto two = load_ok(ptx(".visible .entry a()\n{\n  ret;\n}\n.visible .entry b()\n{\n  exit;\n}\n"));
    ASSERT_TRUE(two);
    EXPECT_EQ(two->kernel_names(), (std::vector<std::string>{"a", "b"}));
    EXPECT_FALSE(two->kernel("c").ok());
    EXPECT_EQ(two->kernel("c").error().code(), ErrorCode::NotFound);
}

// What ptxsim cannot execute makes only the kernels that reach it unavailable: the others load and
// run, and the refusal names the module, line and instruction.
TEST(PtxsimLoad, UnsupportedInstructionMakesOnlyItsKernelsUnavailable) {
    auto m = load_ok(ptx(R"(
.func helper()
{
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  elect.sync %r1|%p1, -1;
  ret;
}
.func unused()
{
  .reg .b32 %r<2>;
  setmaxnreg.inc.sync.aligned.u32 240;
  ret;
}
.visible .entry bad()
{
  call helper, ();
  ret;
}
.visible .entry good(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 42;
  st.global.u32 [%rd1], %r1;
  ret;
}
)"),
                     "mixed.ptx");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->kernel_names(), (std::vector<std::string>{"good"}));
    ASSERT_EQ(m->unavailable().size(), 1u);
    EXPECT_EQ(m->unavailable()[0].kernel, "bad");
    auto bad = m->kernel("bad");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code(), ErrorCode::Unsupported);
    EXPECT_NE(bad.error().text().find("mixed.ptx:9:"), std::string::npos) << bad.error().text();
    EXPECT_NE(bad.error().text().find("unsupported instruction 'elect'"), std::string::npos) << bad.error().text();

    Device dev;
    DevicePtr out = upload(dev, std::vector<uint32_t>{0});
    Params p(kernel_of(*m, "good"));
    p.set(0, out);
    run_ok(dev, *m, "good", config({1, 1, 1}, {1, 1, 1}, 1), p);
    EXPECT_EQ(download<uint32_t>(dev, out, 1)[0], 42u);
}

} // namespace
} // namespace d4r::ptxsim::test
