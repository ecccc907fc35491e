// d4r ptx list|extract|show, end to end through build/bin/d4r. Hashes are computed here with a separate
// FNV-1a loop over the file text, never taken from d4r's output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace d4r::test {
namespace {

// FNV-1a 64 (docs/runtime.md, "Native-kernel overrides"), written out independently of src/core/fnv1a.h, over TEXT
// minus trailing NULs.
std::string reference_hash(std::string text) {
    while (!text.empty() && text.back() == '\0') text.pop_back();
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
    return buffer;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

const std::string kTwoEntries = R"(//
// two kernels, hand-written
//
.version 8.5
.target sm_89
.address_size 64

.visible .entry first(
    .param .u8 flag,
    .param .u64 .ptr .global .align 16 data,
    .param .align 8 .b8 state[24],
    .param .f32 scale
)
.maxntid 256, 1, 1
{
    ret;
}

.visible .entry second()
{
    ret;
}
)";

const std::string kOtherModule =
    ".version 8.0\n.target sm_80\n.address_size 64\n.entry third(.param .u32 n) { ret; }\n";

fs::path ptx_fixtures() { return fixture_dir() / "ptx"; }

// The fixtures are committed: a missing one is a failure, not a reason to skip.
#define REQUIRE_PTX_FIXTURES()                                       \
    ASSERT_TRUE(fs::exists(ptx_fixtures() / "kernels.multi.fatbin")) \
        << (ptx_fixtures() / "kernels.multi.fatbin").string() << " is missing: the fixture is committed"

TEST(PtxCli, ListText) {
    TempDir dir;
    fs::path file = dir.write("two.ptx", kTwoEntries);
    RunResult r = run_d4r({"ptx", "list", file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string hash = reference_hash(kTwoEntries);
    EXPECT_EQ(r.out, hash + " sm_89 first\n" + hash + " sm_89 second\n");
    EXPECT_EQ(r.err, "");
}

TEST(PtxCli, ListIgnoresTrailingNulsInTheHash) {
    TempDir dir;
    fs::path file = dir.write("padded.ptx", kTwoEntries + std::string(5, '\0'));
    RunResult r = run_d4r({"ptx", "list", file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_of(r.out).at(0), reference_hash(kTwoEntries) + " sm_89 first");
}

TEST(PtxCli, ListSeveralFilesPrefixesEachLine) {
    TempDir dir;
    fs::path a = dir.write("a.ptx", kTwoEntries);
    fs::path b = dir.write("b.ptx", kOtherModule);
    RunResult r = run_d4r({"ptx", "list", a.string(), b.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_of(r.out), (std::vector<std::string>{
                                   a.string() + ": " + reference_hash(kTwoEntries) + " sm_89 first",
                                   a.string() + ": " + reference_hash(kTwoEntries) + " sm_89 second",
                                   b.string() + ": " + reference_hash(kOtherModule) + " sm_80 third",
                               }));
    // -H asks for the prefix with one file too.
    RunResult one = run_d4r({"ptx", "list", "-H", b.string()});
    EXPECT_EQ(one.out, b.string() + ": " + reference_hash(kOtherModule) + " sm_80 third\n");
}

TEST(PtxCli, ListModules) {
    TempDir dir;
    fs::path a = dir.write("a.ptx", kTwoEntries);
    RunResult r = run_d4r({"ptx", "list", "--modules", a.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, reference_hash(kTwoEntries) + " sm_89 0 2 PTX text\n");
}

TEST(PtxCli, ListJson) {
    TempDir dir;
    fs::path a = dir.write("a.ptx", kTwoEntries);
    fs::path none = dir.write("notes.txt", "hello\n");
    RunResult r = run_d4r({"ptx", "list", "--json", a.string(), none.string()});
    EXPECT_EQ(r.exit_code, 1); // notes.txt holds no PTX
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["files"].size(), 2u);
    const auto& f = j["files"][0];
    EXPECT_EQ(f["path"], a.string());
    EXPECT_EQ(f["container"], "PTX text");
    ASSERT_EQ(f["modules"].size(), 1u);
    const auto& m = f["modules"][0];
    EXPECT_EQ(m["hash"], reference_hash(kTwoEntries));
    EXPECT_EQ(m["sm"], "sm_89");
    EXPECT_EQ(m["index"], 0);
    EXPECT_EQ(m["version"], "8.5");
    EXPECT_EQ(m["address_size"], 64);
    EXPECT_EQ(m["bytes"], kTwoEntries.size());
    ASSERT_EQ(m["entries"].size(), 2u);
    EXPECT_EQ(m["entries"][0]["name"], "first");
    EXPECT_EQ(m["entries"][0]["params"], 4);
    // flag 0..1, data 8..16, state 16..40, scale 40..44
    EXPECT_EQ(m["entries"][0]["param_size"], 44);
    EXPECT_EQ(m["entries"][1]["param_size"], 0);
    EXPECT_TRUE(j["files"][1]["modules"].empty());
    EXPECT_NE(r.err.find(none.string() + ": no PTX found"), std::string::npos) << r.err;
}

TEST(PtxCli, FileWithoutPtxExitsOne) {
    TempDir dir;
    fs::path none = dir.write("notes.txt", "just text\n");
    fs::path good = dir.write("good.ptx", kOtherModule);
    RunResult r = run_d4r({"ptx", "list", none.string(), good.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "d4r: " + none.string() + ": no PTX found (not PTX text, a fatbin, an ELF or a PE file)\n");
    EXPECT_EQ(r.out, good.string() + ": " + reference_hash(kOtherModule) + " sm_80 third\n"); // the rest still listed
}

TEST(PtxCli, MissingFileExitsTwo) {
    TempDir dir;
    RunResult r = run_d4r({"ptx", "list", (dir.path() / "nope.ptx").string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("nope.ptx"), std::string::npos) << r.err;
    RunResult folder = run_d4r({"ptx", "list", dir.path().string()});
    EXPECT_EQ(folder.exit_code, 2);
    EXPECT_EQ(folder.err, "d4r: error: " + dir.path().string() + ": is a folder, not a file\n");
}

TEST(PtxCli, MalformedPtxExitsTwoNamingFileAndLine) {
    TempDir dir;
    fs::path bad = dir.write("bad.ptx", ".version 8.5\n.target sm_89\n.entry k(.param .u32 a\n{\n}\n");
    for (const char* verb : {"list", "extract", "show"}) {
        SCOPED_TRACE(verb);
        std::vector<std::string> args{"ptx", verb, bad.string()};
        if (std::string(verb) == "extract") args.push_back((dir.path() / "out").string());
        if (std::string(verb) == "show") args.push_back("k");
        RunResult r = run_d4r(args);
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(r.err, "d4r: error: " + bad.string() +
                             ": module 0 (PTX text): line 4: expected ')' after parameter list, got '{'\n");
        EXPECT_EQ(r.out, "");
    }
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

TEST(PtxCli, ExtractWritesIdempotentlyAndRefusesDifferingFiles) {
    TempDir dir;
    fs::path file = dir.write("two.ptx", kTwoEntries + std::string(3, '\0'));
    fs::path out = dir.path() / "out" / "nested";
    const std::string name = "0-sm_89-" + reference_hash(kTwoEntries) + ".ptx";

    RunResult r = run_d4r({"ptx", "extract", file.string(), out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "wrote " + (out / name).string() + " (" + std::to_string(kTwoEntries.size()) + " bytes)\n");
    EXPECT_EQ(read_file_text(out / name), kTwoEntries); // trailing NULs removed: the file hashes to its name
    EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);

    RunResult again = run_d4r({"ptx", "extract", file.string(), out.string()});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, "unchanged " + (out / name).string() + "\n");

    std::ofstream(out / name) << "something else";
    RunResult refused = run_d4r({"ptx", "extract", file.string(), out.string()});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find((out / name).string() + ": exists and differs"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("--force"), std::string::npos);
    EXPECT_EQ(read_file_text(out / name), "something else");

    RunResult forced = run_d4r({"ptx", "extract", "--force", file.string(), out.string()});
    ASSERT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_EQ(forced.out.rfind("replaced " + (out / name).string(), 0), 0u) << forced.out;
    EXPECT_EQ(read_file_text(out / name), kTwoEntries);
    // Written atomically: no temporary files left beside the output.
    EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
}

TEST(PtxCli, ExtractRefusalWritesNothing) {
    REQUIRE_PTX_FIXTURES();
    TempDir dir;
    fs::path multi = ptx_fixtures() / "kernels.multi.fatbin";
    fs::path out = dir.path() / "out";
    RunResult r = run_d4r({"ptx", "extract", multi.string(), out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(out)) files.push_back(e.path());
    ASSERT_EQ(files.size(), 2u);
    std::sort(files.begin(), files.end());
    // The fatbin stores fatbinary's normalised PTX; tests/fixtures/ptx/expected holds it, made without d4r.
    std::string sm75 = read_file_text(ptx_fixtures() / "expected" / "kernels.sm_75.ptx");
    std::string sm89 = read_file_text(ptx_fixtures() / "expected" / "kernels.sm_89.ptx");
    EXPECT_EQ(files[0].filename(), "0-sm_75-" + reference_hash(sm75) + ".ptx");
    EXPECT_EQ(files[1].filename(), "1-sm_89-" + reference_hash(sm89) + ".ptx");
    EXPECT_EQ(read_file_text(files[0]), sm75);
    EXPECT_EQ(read_file_text(files[1]), sm89);

    // One differing file: the run stops before writing anything, so the removed one stays removed.
    std::ofstream(files[1]) << "changed";
    fs::remove(files[0]);
    RunResult refused = run_d4r({"ptx", "extract", multi.string(), out.string()});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_FALSE(fs::exists(files[0]));
    EXPECT_EQ(read_file_text(files[1]), "changed");
}

TEST(PtxCli, ListFixtureContainers) {
    REQUIRE_PTX_FIXTURES();
    std::string sm89 = reference_hash(read_file_text(ptx_fixtures() / "expected" / "kernels.sm_89.ptx"));
    std::string sm75 = reference_hash(read_file_text(ptx_fixtures() / "expected" / "kernels.sm_75.ptx"));
    // kernels.cu defines d4r_saxpy, d4r_count and d4r_fill, in that order.
    auto listing = [](const std::string& hash, const std::string& sm) {
        return std::vector<std::string>{hash + " " + sm + " d4r_saxpy", hash + " " + sm + " d4r_count",
                                        hash + " " + sm + " d4r_fill"};
    };
    for (const char* name : {"kernels.plain.fatbin", "kernels.zstd.fatbin", "kernels.lz4.fatbin"}) {
        SCOPED_TRACE(name);
        RunResult r = run_d4r({"ptx", "list", (ptx_fixtures() / name).string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(lines_of(r.out), listing(sm89, "sm_89"));
    }
    for (const char* name : {"kernels.multi.fatbin", "kernels.dll"}) {
        SCOPED_TRACE(name);
        RunResult r = run_d4r({"ptx", "list", (ptx_fixtures() / name).string()});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        std::vector<std::string> want = listing(sm75, "sm_75");
        for (const std::string& line : listing(sm89, "sm_89")) want.push_back(line);
        EXPECT_EQ(lines_of(r.out), want);
    }
    RunResult so = run_d4r({"ptx", "list", (ptx_fixtures() / "libkernels.so").string()});
    ASSERT_EQ(so.exit_code, 0) << so.err;
    std::vector<std::string> lines = lines_of(so.out);
    ASSERT_GE(lines.size(), 4u);
    EXPECT_EQ(std::vector<std::string>(lines.begin(), lines.begin() + 3), listing(sm89, "sm_89"));
    std::string extra = reference_hash(read_file_text(ptx_fixtures() / "expected" / "extra.sm_89.ptx"));
    for (size_t i = 3; i < lines.size(); ++i) EXPECT_EQ(lines[i].rfind(extra + " sm_89 ", 0), 0u) << lines[i];
}

TEST(PtxCli, MalformedContainersExitTwoNamingTheFile) {
    REQUIRE_PTX_FIXTURES();
    size_t checked = 0;
    for (const auto& e : fs::directory_iterator(ptx_fixtures() / "malformed")) {
        if (e.path().filename() == "fatbin-wrong-magic.fatbin") continue; // not a fatbin at all: no PTX, exit 1
        SCOPED_TRACE(e.path().string());
        RunResult r = run_d4r({"ptx", "list", e.path().string()});
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(r.err.rfind("d4r: error: " + e.path().string() + ": ", 0), 0u) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        ++checked;
    }
    EXPECT_GT(checked, 0u);
}

TEST(PtxCli, ShowParameters) {
    TempDir dir;
    fs::path file = dir.write("two.ptx", kTwoEntries);
    RunResult r = run_d4r({"ptx", "show", file.string(), "first"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 9u) << r.out;
    EXPECT_EQ(lines[0], "entry first in " + file.string());
    EXPECT_EQ(lines[1], "module 0 (sm_89, hash " + reference_hash(kTwoEntries) + ", PTX text), line 8, .visible");
    EXPECT_EQ(lines[2], "  .maxntid 256, 1, 1");
    EXPECT_EQ(lines[3], "  4 parameters, 44 bytes, alignment 8");
    // Columns: offset, size, align, declaration, name. flag 0; data 8 (a .u64: the .align 16 is the pointee's);
    // state (.align 8) 16; scale 40.
    auto columns = [](const std::string& line) {
        std::vector<std::string> words;
        std::istringstream in(line);
        for (std::string w; in >> w;) words.push_back(w);
        return words;
    };
    EXPECT_EQ(columns(lines[5]), (std::vector<std::string>{"0", "1", "1", ".u8", "flag"}));
    EXPECT_EQ(columns(lines[6]),
              (std::vector<std::string>{"8", "8", "8", ".u64", ".ptr", ".global", ".align", "16", "data"}));
    EXPECT_EQ(columns(lines[7]), (std::vector<std::string>{"16", "24", "8", ".align", "8", ".b8", "[24]", "state"}));
    EXPECT_EQ(columns(lines[8]), (std::vector<std::string>{"40", "4", "4", ".f32", "scale"}));

    RunResult none = run_d4r({"ptx", "show", file.string(), "second"});
    ASSERT_EQ(none.exit_code, 0) << none.err;
    EXPECT_NE(none.out.find("no parameters (0 bytes)"), std::string::npos) << none.out;
}

TEST(PtxCli, ShowJson) {
    TempDir dir;
    fs::path file = dir.write("two.ptx", kTwoEntries);
    RunResult r = run_d4r({"ptx", "show", "--json", file.string(), "first"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["definitions"].size(), 1u);
    const auto& d = j["definitions"][0];
    EXPECT_EQ(d["module"]["hash"], reference_hash(kTwoEntries));
    EXPECT_EQ(d["param_size"], 44);
    EXPECT_EQ(d["directives"]["maxntid"], (std::vector<int>{256, 1, 1}));
    ASSERT_EQ(d["params"].size(), 4u);
    EXPECT_EQ(d["params"][1]["name"], "data");
    EXPECT_EQ(d["params"][1]["offset"], 8);
    EXPECT_EQ(d["params"][1]["pointer"]["space"], ".global");
    EXPECT_EQ(d["params"][1]["pointer"]["align"], 16);
    EXPECT_EQ(d["params"][2]["dims"], std::vector<int>{24});
    EXPECT_EQ(d["params"][3]["offset"], 40);
}

TEST(PtxCli, ShowMissingEntrySuggestsNames) {
    TempDir dir;
    fs::path file = dir.write("two.ptx", kTwoEntries);
    RunResult r = run_d4r({"ptx", "show", file.string(), "frist"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "d4r: error: " + file.string() + ": no entry 'frist'; did you mean 'first'?\n");
    RunResult far = run_d4r({"ptx", "show", file.string(), "completely_different"});
    EXPECT_EQ(far.exit_code, 2);
    EXPECT_NE(far.err.find("no entry 'completely_different' (2 entries; 'd4r ptx list"), std::string::npos) << far.err;
}

TEST(PtxCli, ShowEntryDefinedBySeveralModules) {
    REQUIRE_PTX_FIXTURES();
    RunResult r = run_d4r({"ptx", "show", (ptx_fixtures() / "kernels.multi.fatbin").string(), "d4r_saxpy"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("(defined by 2 modules)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("module 0 (sm_75"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("module 1 (sm_89"), std::string::npos) << r.out;
    // d4r_saxpy(float* out, const float* x, const float* y, float alpha, int n): pointers at 0, 8, 16,
    // alpha at 24, n at 28: 32 bytes, in both modules.
    size_t first = r.out.find("5 parameters, 32 bytes, alignment 8");
    ASSERT_NE(first, std::string::npos) << r.out;
    EXPECT_NE(r.out.find("5 parameters, 32 bytes, alignment 8", first + 1), std::string::npos) << r.out;
    RunResult suggest = run_d4r({"ptx", "show", (ptx_fixtures() / "kernels.multi.fatbin").string(), "saxpy"});
    EXPECT_EQ(suggest.exit_code, 2);
    EXPECT_NE(suggest.err.find("did you mean 'd4r_saxpy'?"), std::string::npos) << suggest.err;
}

TEST(PtxCli, EveryVerbHasHelp) {
    const std::vector<std::vector<std::string>> helps = {
        {"ptx", "--help"},
        {"ptx", "list", "--help"},
        {"ptx", "extract", "--help"},
        {"ptx", "show", "--help"},
    };
    for (const auto& args : helps) {
        RunResult r = run_d4r(args);
        SCOPED_TRACE(args[args.size() - 2]);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.out.find("Exit status"), std::string::npos) << r.out;
    }
    EXPECT_NE(run_d4r({"ptx", "list", "--help"}).out.find("--json"), std::string::npos);
    EXPECT_NE(run_d4r({"ptx", "extract", "--help"}).out.find("--force"), std::string::npos);
    EXPECT_NE(run_d4r({"ptx", "show", "--help"}).out.find("ENTRY"), std::string::npos);
    // Missing arguments are usage errors.
    EXPECT_EQ(run_d4r({"ptx", "list"}).exit_code, 2);
    EXPECT_EQ(run_d4r({"ptx", "show", "x.ptx"}).exit_code, 2);
}

} // namespace
} // namespace d4r::test
