// The golden conformance corpus on ptxsim: every case of the corpus (corpus_cases.cpp) runs on ptxsim
// and its outputs must equal the H200's golden bytes (.approx outputs: within the PTX ISA bound, with
// the ulp distance to the hardware printed).
//
// status.md lists the cases ptxsim cannot run yet, one line each with the reason. A listed case is
// skipped only while it still fails for that kind of reason; a listed case that passes fails the test
// (remove its line: the list only shrinks), and so does any unlisted case that fails.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "case_lists.h"
#include "core/files.h"
#include "corpus.h"
#include "golden_compare.h"
#include "ptxsim_launcher.h"

namespace d4r::corpus {
namespace {

const std::string kCorpusDir = D4R_CORPUS_DIR;
// Built twice (tests/ptxsim/corpus/CMakeLists.txt): interpreted, and with the PTX JIT (D4R_CORPUS_JIT).
#ifdef D4R_CORPUS_JIT
constexpr bool kJit = true;
#define D4R_CORPUS_PREFIX CorpusJit
#else
constexpr bool kJit = false;
#define D4R_CORPUS_PREFIX Corpus
#endif

const std::map<std::string, std::string>& status_list() {
    static const std::map<std::string, std::string> list = read_case_list(kCorpusDir + "/status.md");
    return list;
}

struct Outcome {
    std::string failure; // "" = the case matches its golden
    FailureStage stage = FailureStage::none;
    std::vector<ApproxStats> approx;
    double seconds = 0;
    uint64_t warp_instructions = 0;
    bool compiled = false;   // kJit: the JIT compiled the kernel
    std::string jit_refusal; // kJit: why it did not
    bool warp = false;       // kJit: compiled to warp code
    std::string why_not_warp;
};

Outcome run_on_ptxsim(const Case& c) {
    Outcome o;
    auto ptx = read_text_file(kCorpusDir + "/ptx/" + c.module + ".ptx", 16 << 20);
    if (!ptx) {
        o.failure = ptx.error().text();
        return o;
    }
    auto golden = read_golden(kCorpusDir + "/golden/" + c.name + ".out.zst", c.output_bytes());
    if (!golden) {
        o.failure = golden.error().text();
        return o;
    }
    PtxsimLauncher launcher(PtxsimLauncher::kDefaultBudget, 0, kJit);
    CaseResult result;
    const auto start = std::chrono::steady_clock::now();
    // run_case poisons every output buffer and the kGuardBytes after it, and fails when a byte past
    // the outputs changed (the sentinel check); unwritten outputs stay poisoned and differ below.
    o.failure = run_case(c, *ptx, launcher, &result);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    o.stage = launcher.failure_stage();
    o.warp_instructions = launcher.last_launch().warp_instructions;
    o.compiled = launcher.ran_compiled();
    o.jit_refusal = launcher.jit_refusal();
    o.warp = launcher.ran_warp_code();
    o.why_not_warp = launcher.why_not_warp();
    if (!o.failure.empty()) return o;
    CompareReport report = compare_with_golden(c, result, *golden);
    o.approx = report.approx;
    if (!report.ok)
        o.failure = report.mismatched_elements ? fmt::format("{} mismatching elements; first: {}",
                                                             report.mismatched_elements, report.first_mismatch)
                                               : report.first_mismatch;
    for (const std::string& m : report.more_mismatches) o.failure += "\n    also " + m;
    return o;
}

// "unsupported: <instruction> (line N)" from a ptxsim load error "module.ptx:N: unsupported ...".
std::string unsupported_summary(const Outcome& o) {
    if (o.stage == FailureStage::image) return "unsupported: textures";
    const size_t u = o.failure.find("unsupported");
    if (o.stage != FailureStage::load || u == std::string::npos) return o.failure;
    std::string line;
    const size_t ptx = o.failure.find(".ptx:");
    if (ptx != std::string::npos) {
        const size_t end = o.failure.find(':', ptx + 5);
        if (end != std::string::npos) line = o.failure.substr(ptx + 5, end - ptx - 5);
    }
    return fmt::format("unsupported: {}{}", o.failure.substr(u + 11 + (o.failure[u + 11] == ' ' ? 1 : 0)),
                       line.empty() ? "" : " (line " + line + ")");
}

class CorpusOnPtxsim : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusOnPtxsim, MatchesH200Golden) {
    const Case* c = find_case(GetParam());
    ASSERT_NE(c, nullptr);
    const Outcome o = run_on_ptxsim(*c);

    for (const ApproxStats& s : o.approx) {
        std::string hist;
        for (size_t b = 0; b < kUlpBuckets; ++b)
            if (s.histogram[b]) hist += fmt::format(" {}:{}", ulp_bucket_name(b), s.histogram[b]);
        const std::string line = fmt::format("{} '{}' {}: {} values, max {} ulp from the H200; histogram{}{}", c->name,
                                             s.param, s.instruction, s.values, s.max_ulp, hist,
                                             s.out_of_bound ? fmt::format("; {} OUT OF BOUND", s.out_of_bound) : "");
        std::printf("[ ulp      ] %s\n", line.c_str());
        RecordProperty("ulp_" + s.param, line);
    }
    if (kJit) {
        const std::string how = !o.compiled ? "interpreted: " + o.jit_refusal
                                : o.warp    ? std::string("compiled to warp code")
                                            : "compiled per thread: " + o.why_not_warp;
        std::printf("[ jit      ] %s: %s\n", c->name.c_str(), how.c_str());
        RecordProperty("jit", how);
    }
    if (o.seconds > 2.0)
        std::printf("[ slow     ] %s took %.2f s on ptxsim (%llu warp instructions)\n", c->name.c_str(), o.seconds,
                    (unsigned long long)o.warp_instructions);

    const auto& listed = status_list();
    const auto it = listed.find(c->name);
    if (it == listed.end()) {
        EXPECT_EQ(o.failure, "") << c->name << " (" << c->summary << ") fails on ptxsim and is not in status.md";
        return;
    }
    if (o.failure.empty()) {
        FAIL() << c->name << " passes on ptxsim but status.md lists it (" << it->second
               << "): remove its line from tests/ptxsim/corpus/status.md";
    }
    // A case listed as unsupported must still fail for that reason, not for a wrong answer.
    const bool listed_unsupported = it->second.rfind("unsupported", 0) == 0;
    const bool is_unsupported = o.stage == FailureStage::load || o.stage == FailureStage::image ||
                                o.failure.find("unsupported") != std::string::npos;
    if (listed_unsupported && !is_unsupported)
        FAIL() << c->name << " is listed as '" << it->second << "' but now fails differently: " << o.failure;
    GTEST_SKIP() << (is_unsupported ? unsupported_summary(o) : o.failure) << " [status.md: " << it->second << "]";
}

INSTANTIATE_TEST_SUITE_P(D4R_CORPUS_PREFIX, CorpusOnPtxsim, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(CorpusStatus, ListsOnlyExistingCases) {
    auto text = read_text_file(kCorpusDir + "/status.md", 1 << 20);
    ASSERT_TRUE(text.ok()) << text.error().text();
    for (const auto& [name, reason] : parse_case_list(*text)) {
        EXPECT_NE(find_case(name), nullptr) << "status.md lists unknown case '" << name << "'";
        EXPECT_FALSE(reason.empty()) << "status.md: case '" << name << "' has no reason";
    }
}

TEST(CorpusStatus, ParsesListLines) {
    const auto m = parse_case_list("# title\nprose - `x`\n- `tex_a`: unsupported: textures\n- `b`:wrong\n");
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m.at("tex_a"), "unsupported: textures");
    EXPECT_EQ(m.at("b"), "wrong");
}

} // namespace
} // namespace d4r::corpus
