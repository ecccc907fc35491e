// The round trip through LLVM's NVPTX back end (issue 29 step 4; jit/nvptx/nvptx_module.h), checked without a GPU:
// every corpus case's module is read by d4r's front end, lowered to LLVM IR for NVPTX and printed back as PTX by
// LLVM; that PTX is then loaded by ptxsim (d4r's parser again) and the case run on it must give the H200's golden
// bytes (.approx outputs: within the ISA bound), as the original PTX does. tests/device/nvptx-round-trip.sh runs the
// same PTX on the H200 itself.
//
// nvptx-status.md lists the cases whose module the lowering refuses, one line each with the reason: a listed case is
// skipped only while the round trip is refused with that reason (a listed case that round-trips fails the test:
// remove its line), and a refused case that is not listed fails.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include <fmt/format.h>

#include "case_lists.h"
#include "core/files.h"
#include "corpus.h"
#include "golden_compare.h"
#include "jit/llvm_library.h"
#include "jit/nvptx/nvptx_module.h"
#include "ptxsim_launcher.h"

namespace d4r::corpus {
namespace {

const std::string kCorpusDir = D4R_CORPUS_DIR;

const std::map<std::string, std::string>& refused_list() {
    static const std::map<std::string, std::string> list = read_case_list(kCorpusDir + "/nvptx-status.md");
    return list;
}

Expected<std::string> round_trip(const std::string& module) {
    auto text = read_text_file(kCorpusDir + "/ptx/" + module + ".ptx", 16 << 20);
    if (!text) return std::move(text).error();
    auto llvm = jit::load_llvm_library(jit::default_llvm_candidates());
    if (!llvm) return std::move(llvm).error();
    return jit::round_trip_ptx(**llvm, *text, module + ".ptx");
}

class NvptxRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(NvptxRoundTrip, MatchesH200GoldenOnPtxsim) {
    const Case* c = find_case(GetParam());
    ASSERT_NE(c, nullptr);
    auto ptx = round_trip(c->module);
    const auto listed = refused_list().find(c->name);
    if (!ptx) {
        const std::string why = ptx.error().text();
        ASSERT_NE(listed, refused_list().end())
            << c->name << ": the NVPTX lowering refuses its module and nvptx-status.md does not list it: " << why;
        ASSERT_EQ(ptx.error().code(), ErrorCode::Unsupported) << why;
        ASSERT_NE(why.find(listed->second), std::string::npos)
            << c->name << " is listed as refused for '" << listed->second << "' but is refused otherwise: " << why;
        GTEST_SKIP() << "refused: " << why;
    }
    ASSERT_EQ(listed, refused_list().end())
        << c->name << " round-trips but nvptx-status.md lists it (" << listed->second << "): remove its line";
    auto golden = read_golden(kCorpusDir + "/golden/" + c->name + ".out.zst", c->output_bytes());
    ASSERT_TRUE(golden.ok()) << golden.error().text();
    PtxsimLauncher launcher;
    CaseResult result;
    const std::string failure = run_case(*c, *ptx, launcher, &result);
    ASSERT_EQ(failure, "") << c->name << ": the round-tripped PTX does not run on ptxsim ("
                           << failure_stage_name(launcher.failure_stage()) << ")";
    const CompareReport report = compare_with_golden(*c, result, *golden);
    std::string more;
    for (const std::string& m : report.more_mismatches) more += "\n    also " + m;
    EXPECT_TRUE(report.ok) << c->name << ": " << report.mismatched_elements
                           << " mismatching elements; first: " << report.first_mismatch << more;
    for (const ApproxStats& s : report.approx) EXPECT_EQ(s.out_of_bound, 0u) << s.first_violation;
}

INSTANTIATE_TEST_SUITE_P(Corpus, NvptxRoundTrip, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(NvptxRoundTripList, ListsOnlyExistingCasesWithReasons) {
    auto text = read_text_file(kCorpusDir + "/nvptx-status.md", 1 << 20);
    ASSERT_TRUE(text.ok()) << text.error().text();
    for (const auto& [name, reason] : parse_case_list(*text)) {
        EXPECT_NE(find_case(name), nullptr) << "nvptx-status.md lists unknown case '" << name << "'";
        EXPECT_FALSE(reason.empty()) << "nvptx-status.md: case '" << name << "' has no reason";
    }
}

// The output is PTX the front end reads back, with the entry's name and a parameter block of the same layout.
TEST(NvptxRoundTripModule, KeepsEntryAndParameters) {
    const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    add.s32 %r3, %r2, %r1;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r3;
    ret;
}
)";
    auto llvm = jit::load_llvm_library(jit::default_llvm_candidates());
    ASSERT_TRUE(llvm.ok()) << llvm.error().text();
    auto out = jit::round_trip_ptx(**llvm, ptx, "k.ptx");
    ASSERT_TRUE(out.ok()) << out.error().text();
    EXPECT_NE(out->find(".visible .entry k("), std::string::npos) << *out;
    EXPECT_NE(out->find(".param .u64 k_param_0"), std::string::npos) << *out;
    EXPECT_NE(out->find(".param .u32 k_param_1"), std::string::npos) << *out;
    EXPECT_NE(out->find("%tid.x"), std::string::npos) << *out;
    EXPECT_NE(out->find("st.global.u32"), std::string::npos) << *out;
}

// The output says the input's PTX ISA version where LLVM's is lower (an FP8 mma with f16 accumulators passed through
// needs 8.7; ptxas refused the first round trip's 8.0 on an H100), and LLVM's where the input's is lower.
TEST(NvptxRoundTripModule, SaysTheInputsPtxIsaVersionWhereItIsHigher) {
    auto llvm = jit::load_llvm_library(jit::default_llvm_candidates());
    ASSERT_TRUE(llvm.ok()) << llvm.error().text();
    const std::string body = R"(
.target sm_90
.address_size 64
.visible .entry k()
{
    ret;
}
)";
    auto high = jit::round_trip_ptx(**llvm, ".version 9.0" + body, "k.ptx");
    ASSERT_TRUE(high.ok()) << high.error().text();
    EXPECT_NE(high->find("\n.version 9.0\n"), std::string::npos) << *high;
    auto low = jit::round_trip_ptx(**llvm, ".version 7.8" + body, "k.ptx");
    ASSERT_TRUE(low.ok()) << low.error().text();
    EXPECT_NE(low->find("\n.version 8.0\n"), std::string::npos) << *low;
}

// A construct without an NVPTX lowering is refused, naming the line and the instruction: tanh.approx without inline
// PTX (LLVM 19 has no intrinsic for it).
TEST(NvptxRoundTripModule, RefusesNamingTheInstruction) {
    const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .f32 %f<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.global.f32 %f1, [%rd1];
    tanh.approx.f32 %f2, %f1;
    st.global.f32 [%rd1], %f2;
    ret;
}
)";
    auto llvm = jit::load_llvm_library(jit::default_llvm_candidates());
    ASSERT_TRUE(llvm.ok()) << llvm.error().text();
    jit::NvptxOptions strict;
    strict.inline_ptx = false;
    auto out = jit::round_trip_ptx(**llvm, ptx, "k.ptx", strict);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.error().code(), ErrorCode::Unsupported);
    EXPECT_NE(out.error().text().find("kernel 'k': line 10: 'tanh.approx.f32 %f2, %f1'"), std::string::npos)
        << out.error().text();
    // With inline PTX (the default), the instruction itself, rebuilt from its typed form.
    auto passed = jit::round_trip_ptx(**llvm, ptx, "k.ptx");
    ASSERT_TRUE(passed.ok()) << passed.error().text();
    EXPECT_NE(passed->find("tanh.approx.f32"), std::string::npos) << *passed;
}

} // namespace
} // namespace d4r::corpus
