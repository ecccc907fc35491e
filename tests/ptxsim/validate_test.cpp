// What ptxas refuses must not load (issue 14, item 17): each mutation of a valid module is refused
// with an Invalid error naming the module, the line and the reason; the unmutated module loads.
#include <gtest/gtest.h>

#include <string>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

// A valid module; each case replaces one piece of it.
std::string module(const std::string& version = ".version 8.0", const std::string& target = ".target sm_90",
                   const std::string& address = ".address_size 64", const std::string& directives = "",
                   const std::string& params = ".param .u64 p", const std::string& decls = ".reg .b32 %r<4>;") {
    return version + "\n" + target + "\n" + address + "\n.visible .entry k(" + params + ")" + directives + "\n{\n  " +
           decls + "\n  mov.u32 %r1, 1;\n  ret;\n}\n";
}

std::string refused(const std::string& text) {
    auto m = Module::load(text, "test.ptx");
    if (m.ok()) return "loaded";
    EXPECT_EQ(m.error().code(), ErrorCode::Invalid) << m.error().text();
    return m.error().text();
}

TEST(PtxsimValidate, TheUnmutatedModuleLoads) {
    EXPECT_TRUE(load_ok(module()));
    EXPECT_TRUE(load_ok(module(".version 9.0", ".target sm_90a")));
    EXPECT_TRUE(load_ok(module(".version 8.5", ".target sm_89, debug")));
    EXPECT_TRUE(load_ok(module(".version 8.0", ".target sm_90", ".address_size 64", "\n.maxntid 256, 1, 1")));
    // Shadowing in an inner scope is allowed; only the same scope clashes.
    EXPECT_TRUE(load_ok(module(".version 8.0", ".target sm_90", ".address_size 64", "", ".param .u64 p",
                               ".reg .b32 %r<4>;\n  { .reg .b32 %r<2>; .reg .b32 %r3; }")));
    // 4096 bytes of parameters classically; 32764 from PTX ISA 8.1 on sm_70+.
    EXPECT_TRUE(
        load_ok(module(".version 8.0", ".target sm_90", ".address_size 64", "", ".param .align 4 .b8 p[4096]")));
    EXPECT_TRUE(
        load_ok(module(".version 8.1", ".target sm_70", ".address_size 64", "", ".param .align 4 .b8 p[32764]")));
}

TEST(PtxsimValidate, WhatPtxasRefusesIsRefusedWithLineAndReason) {
    struct Case {
        std::string text;
        const char* expect;
    };
    const Case cases[] = {
        {module(".version 99.9"), "test.ptx:1: .version 99.9: PTX ISA newer than the 9.x"},
        {module(".version 10.0"), "test.ptx:1: .version 10.0"},
        {module(".version 8.0", ".target sm_100"), "test.ptx:2: .target sm_100: newer than the sm_90"},
        {module(".version 8.0", ".target compute_120"), "test.ptx:2: .target compute_120"},
        {module(".version 8.0", ".target sm_90", ".address_size 32"),
         "test.ptx:3: .address_size 32: sm_90 code is 64-bit only"},
        {module(".version 8.0", ".target sm_90", ".address_size 64", "\n.maxntid 0, 1, 1"),
         "test.ptx:4: .maxntid 0, 1, 1 of 'k': every dimension must be at least 1"},
        {module(".version 8.0", ".target sm_90", ".address_size 64", "\n.reqntid 32, 0"), ".reqntid 32, 0, 1 of 'k'"},
        {module(".version 8.0", ".target sm_90", ".address_size 64", "", ".param .u64 p",
                ".reg .b32 %r<4>;\n  .reg .b32 %r<4>;"),
         "test.ptx:7: '%r<4>' in 'k' is already declared in this scope (line 6)"},
        {module(".version 8.0", ".target sm_90", ".address_size 64", "", ".param .u64 p",
                ".reg .b32 %r<4>;\n  .reg .f32 %r2;"),
         "test.ptx:7: '%r2' in 'k' is already declared in this scope (line 6)"},
        {module(".version 8.0", ".target sm_90", ".address_size 64", "", ".param .u64 p",
                ".reg .b32 %r<4>;\n  .reg .b32 %x;\n  .reg .b32 %x;"),
         "test.ptx:8: '%x' in 'k' is already declared"},
        {module(".version 8.0", ".target sm_90", ".address_size 64", "", ".param .u64 p, .param .u32 p"),
         "parameter 'p' of 'k' is already declared"},
        {module(".version 8.0", ".target sm_90", ".address_size 64", "", ".param .align 4 .b8 p[4100]"),
         "test.ptx:4: entry 'k' uses 4100 bytes of parameter space, over the 4096-byte limit"},
        {module(".version 8.1", ".target sm_60", ".address_size 64", "", ".param .align 4 .b8 p[8192]"),
         "over the 4096-byte limit (before PTX ISA 8.1 or sm_70)"},
        {module(".version 8.1", ".target sm_90", ".address_size 64", "", ".param .align 4 .b8 p[32768]"),
         "uses 32768 bytes of parameter space, over the 32764-byte limit (PTX ISA 8.1+ on sm_70+)"},
    };
    for (const Case& c : cases) {
        std::string error = refused(c.text);
        EXPECT_NE(error.find(c.expect), std::string::npos) << "expected: " << c.expect << "\ngot: " << error;
    }
}

} // namespace
} // namespace d4r::ptxsim::test

namespace d4r::ptxsim::test {
namespace {

// ld/st of 64 bits through a 32-bit register: NVIDIA's driver refuses the whole module with
// CUDA_ERROR_INVALID_PTX (H200, driver 580: tests/device/hostile.sh, ptx_ld_size_mismatch); a wider
// destination than the type, and cvt into a wider register, are accepted there and here.
TEST(PtxsimValidate, SixtyFourBitLoadsAndStoresNeedSixtyFourBitRegisters) {
    const std::string head = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                             "  .reg .b32 %r<3>;\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [p];\n";
    auto with = [&](const std::string& body) { return head + body + "  ret;\n}\n"; };
    for (const char* bad : {"  ld.global.u64 %r1, [%rd1];\n", "  st.global.b64 [%rd1], %r1;\n"}) {
        auto m = Module::load(with(bad), "test.ptx");
        ASSERT_FALSE(m.ok()) << bad;
        EXPECT_NE(m.error().text().find("test.ptx:9"), std::string::npos) << m.error().text();
        EXPECT_NE(m.error().text().find("narrower than"), std::string::npos) << m.error().text();
    }
    EXPECT_TRUE(load_ok(with("  ld.global.u32 %rd2, [%rd1];\n")));
    EXPECT_TRUE(load_ok(with("  ld.global.u32 %r1, [%rd1];\n  cvt.rn.f32.s32 %rd2, %r1;\n")));
}

} // namespace
} // namespace d4r::ptxsim::test
