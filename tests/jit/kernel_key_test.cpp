// The compile cache's keys (jit/kernel_key.h) and its kernel records (jit/kernel_record.h): each part of a key changes
// its digest; the kernel's part follows its PTX, its entry and the layout ptxsim gave it, but not where this process
// put the module's variables; a record comes back whole, and a damaged one is refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../ptxsim/ptxsim_test_util.h"
#include "jit/kernel_key.h"
#include "jit/kernel_record.h"

namespace d4r::jit {
namespace {

using ptxsim::test::kernel_of;
using ptxsim::test::load_ok;
using ptxsim::test::ptx;

KeyParts base_parts() {
    return {jit_version(),    "19.1.7",           "x86_64-pc-linux-gnu",   "sapphirerapids",
            "+avx2,+avx512f", "warp default<O2>", "module 00\nentry k 0\n"};
}

TEST(KernelKey, EveryPartChangesTheDigest) {
    const CacheKey base = make_key(base_parts());
    EXPECT_EQ(base.digest.size(), 64u);
    EXPECT_EQ(make_key(base_parts()).digest, base.digest); // the same parts, the same key
    std::vector<std::pair<const char*, std::string KeyParts::*>> parts = {
        {"jit", &KeyParts::jit},      {"llvm", &KeyParts::llvm},         {"triple", &KeyParts::triple},
        {"cpu", &KeyParts::cpu},      {"features", &KeyParts::features}, {"code", &KeyParts::code},
        {"kernel", &KeyParts::kernel}};
    for (const auto& [name, member] : parts) {
        SCOPED_TRACE(name);
        KeyParts p = base_parts();
        p.*member += "x";
        const CacheKey changed = make_key(p);
        EXPECT_NE(changed.digest, base.digest);
        EXPECT_NE(changed.text.find(p.*member), std::string::npos) << changed.text; // each part is in the text
    }
    // The JIT's version names the entry format and the digest of its sources.
    EXPECT_EQ(jit_version().rfind("format ", 0), 0u);
    EXPECT_NE(jit_version().find(" sources "), std::string::npos);
    EXPECT_EQ(jit_version().size(), std::string("format 1 sources ").size() + 64);
}

std::string module_text(const std::string& extra = "") {
    return ptx(R"(
.global .align 4 .u32 g_add = 5;
.const .align 4 .u32 c_mul[2] = {3, 7};
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 sm[64];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    ld.global.u32 %r2, [g_add];
    ld.const.u32 %r3, [c_mul+4];
    mad.lo.u32 %r4, %r1, %r3, %r2;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    ret;
}
.visible .entry other(.param .u64 out)
{
    ret;
}
)" + extra);
}

TEST(KernelKey, TheKernelsPartFollowsItsTextAndEntryButNotWhereItsVariablesAre) {
    auto a = load_ok(module_text(), "a.ptx");
    auto again = load_ok(module_text(), "again.ptx"); // the same text: its variables elsewhere in memory
    auto changed = load_ok(module_text("// one more line\n"), "a.ptx");
    ASSERT_TRUE(a && again && changed);
    ASSERT_NE((*a->global("g_add")).address, (*again->global("g_add")).address);
    const std::string k = kernel_text(ptxsim::kernel_source(kernel_of(*a, "k")));
    ASSERT_FALSE(k.empty());
    EXPECT_EQ(kernel_text(ptxsim::kernel_source(kernel_of(*again, "k"))), k);
    EXPECT_NE(kernel_text(ptxsim::kernel_source(kernel_of(*changed, "k"))), k);
    EXPECT_NE(kernel_text(ptxsim::kernel_source(kernel_of(*a, "other"))), k);
    // Where the host address would be, the text says "host"; shared memory's offset is the module's own.
    EXPECT_NE(k.find("variable g_add 1 host 4"), std::string::npos) << k;
    EXPECT_NE(k.find("variable c_mul 4 host 8"), std::string::npos) << k;
    // A kernel whose text is unknown is not cached.
    ptxsim::KernelSource unknown = ptxsim::kernel_source(kernel_of(*a, "k"));
    unknown.module_text = {};
    EXPECT_EQ(kernel_text(unknown), "");
}

KernelRecord sample_record() {
    KernelRecord r;
    r.symbol = "d4r_0123";
    r.object = {0x7f, 'E', 'L', 'F', 1, 2, 3};
    r.kernel.warp = false;
    r.kernel.whole_warps_in_x = true;
    r.kernel.why_not_warp = "line 9: 'shfl.sync ...': collectives";
    r.kernel.sites = {{7, "ld.global.u32 %r2, [g_add];"}, {12, "st.global.u32 [%rd3], %r4;"}};
    r.kernel.state_bytes = 176;
    ptxsim::CollectiveSite c;
    c.kind = ptxsim::CollectiveSite::Kind::Mma;
    c.mode = 16;
    c.acc16 = true;
    c.format_a = 2;
    c.format_b = 3;
    c.transpose = true;
    c.shared = true;
    c.fault_site = 1;
    c.wide = true;
    c.is_signed = true;
    c.order = 42;
    c.source_offset = 120;
    r.kernel.collectives = {c, ptxsim::CollectiveSite{}};
    r.variables = {"g_add", "c_mul"};
    return r;
}

TEST(KernelRecord, ARecordComesBackWhole) {
    const KernelRecord r = sample_record();
    auto back = parse_kernel_record(serialize_kernel_record(r));
    ASSERT_TRUE(back) << back.error().text();
    EXPECT_EQ(back->symbol, r.symbol);
    EXPECT_EQ(back->object, r.object);
    EXPECT_EQ(back->kernel.warp, r.kernel.warp);
    EXPECT_TRUE(back->kernel.whole_warps_in_x);
    EXPECT_EQ(back->kernel.why_not_warp, r.kernel.why_not_warp);
    ASSERT_EQ(back->kernel.sites.size(), 2u);
    EXPECT_EQ(back->kernel.sites[1].line, 12u);
    EXPECT_EQ(back->kernel.sites[1].text, r.kernel.sites[1].text);
    EXPECT_EQ(back->kernel.state_bytes, 176u);
    ASSERT_EQ(back->kernel.collectives.size(), 2u);
    const ptxsim::CollectiveSite& c = back->kernel.collectives[0];
    EXPECT_EQ(c.kind, ptxsim::CollectiveSite::Kind::Mma);
    EXPECT_EQ(c.mode, 16);
    EXPECT_TRUE(c.acc16 && c.transpose && c.shared && c.wide && c.is_signed);
    EXPECT_EQ(c.format_a, 2);
    EXPECT_EQ(c.format_b, 3);
    EXPECT_EQ(c.fault_site, 1u);
    EXPECT_EQ(c.order, 42u);
    EXPECT_EQ(c.source_offset, 120u);
    EXPECT_EQ(back->kernel.collectives[1].kind, ptxsim::CollectiveSite::Kind::Shuffle);
    EXPECT_EQ(back->variables, r.variables);
}

TEST(KernelRecord, ARecordThatIsNotWholeIsRefused) {
    const std::vector<uint8_t> bytes = serialize_kernel_record(sample_record());
    for (size_t cut : {size_t(0), size_t(3), bytes.size() / 2, bytes.size() - 1}) {
        auto r = parse_kernel_record(std::span(bytes.data(), cut));
        ASSERT_FALSE(r) << cut;
        EXPECT_EQ(r.error().code(), ErrorCode::Invalid);
    }
    std::vector<uint8_t> longer = bytes;
    longer.push_back(0);
    auto r = parse_kernel_record(longer);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("object of 7 bytes where 8 are left"), std::string::npos) << r.error().message();
    // A count past what is left is refused before anything is allocated for it.
    const KernelRecord sample = sample_record();
    const size_t sites_count = 4 + sample.symbol.size() + 1 + 1 + 4 + sample.kernel.why_not_warp.size() + 4;
    std::vector<uint8_t> huge = bytes;
    for (size_t i = 0; i < 4; ++i) huge[sites_count + i] = 0xff;
    r = parse_kernel_record(huge);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("4294967295 sites for"), std::string::npos) << r.error().message();
}

} // namespace
} // namespace d4r::jit
