// Kernel profiles and replay dumps end to end (SPEC §7): a CUDA program runs on build/lib/libcuda.so.1 with
// D4R_CUDA_KERNEL_PROFILE / D4R_CUDA_REPLAY_DUMP_DIR, then `d4r kprof` and `d4r replay` + `d4r compare`
// run on what it wrote. Results are checked against values computed here from the dumped inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <regex>

#include "test_support.h"

namespace fs = std::filesystem;
using d4r::test::read_file_text;
using d4r::test::run_command;
using d4r::test::run_d4r;
using d4r::test::TempDir;

namespace {

fs::path vector_add() { return fs::path(D4R_TEST_BIN_DIR) / "prog_d4r_vector_add"; }
std::string kernels_ptx() { return (d4r::test::source_dir() / "tests/runtime/programs/kernels/vector_ops.ptx").string(); }

std::vector<float> floats(const fs::path& p) {
    std::string s = read_file_text(p);
    std::vector<float> v(s.size() / 4);
    std::memcpy(v.data(), s.data(), v.size() * 4);
    return v;
}

std::map<std::string, std::string> env(std::map<std::string, std::string> extra) {
    extra["LD_LIBRARY_PATH"] = D4R_TEST_LIB_DIR;
    extra["D4R_CUDA_BACKEND"] = "cpu";
    return extra;
}

} // namespace

TEST(KernelProfile, OneLinePerLaunchInTheSpecFormatAndKprofSummarises) {
    TempDir dir;
    fs::path log = dir.path() / "profile.log";
    auto r = run_command({vector_add().string(), kernels_ptx()},
                         env({{"D4R_CUDA_KERNEL_PROFILE", "1"}, {"D4R_LOG_FILE", log.string()}}));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::string text = read_file_text(log);
    std::regex line(R"(KERNEL_PROFILE launch=(\d+) eligible=([01]) gpu_ms=([0-9.]+) name=(\w+))");
    std::vector<std::string> names;
    uint64_t last = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator(); ++it) {
        uint64_t n = std::stoull((*it)[1]);
        EXPECT_GT(n, last) << "launch numbers increase";
        last = n;
        EXPECT_EQ((*it)[2], "0") << "no native kernel set: nothing is eligible";
        EXPECT_GT(std::stod((*it)[3]), 0.0);
        names.push_back((*it)[4]);
    }
    // vector_add.c launches vector_add, saxpy, then shape_probe twice.
    ASSERT_EQ(names, (std::vector<std::string>{"vector_add", "saxpy", "shape_probe", "shape_probe"})) << text;

    auto k = run_d4r({"kprof", log.string()});
    ASSERT_EQ(k.exit_code, 0) << k.err;
    EXPECT_NE(k.out.find("total: 4 launches"), std::string::npos) << k.out;
    EXPECT_TRUE(std::regex_search(k.out, std::regex(R"(shape_probe\s+2\s+0\s)"))) << k.out;
    EXPECT_NE(k.out.find("frames: 1 (each starts at vector_add)"), std::string::npos) << k.out;
}

TEST(KernelProfile, SkipLimitAndFilterSelectLaunches) {
    TempDir dir;
    fs::path log = dir.path() / "profile.log";
    auto r = run_command({vector_add().string(), kernels_ptx()},
                         env({{"D4R_CUDA_KERNEL_PROFILE", "1"},
                              {"D4R_CUDA_KERNEL_PROFILE_FILTER", "shape"},
                              {"D4R_CUDA_KERNEL_PROFILE_SKIP", "1"},
                              {"D4R_CUDA_KERNEL_PROFILE_LIMIT", "5"},
                              {"D4R_LOG_FILE", log.string()}}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string text = read_file_text(log);
    EXPECT_EQ(text.find("name=vector_add"), std::string::npos) << text;
    EXPECT_NE(text.find("KERNEL_PROFILE launch=4 eligible=0"), std::string::npos) << text;
    EXPECT_EQ(text.find("KERNEL_PROFILE launch=3 "), std::string::npos) << "skipped: the first shape_probe\n" << text;
}

TEST(ReplayDump, DumpReplayAndCompareGiveTheOriginalOutputs) {
    TempDir dir;
    fs::path dumps = dir.path() / "dumps";
    fs::create_directories(dumps);
    // Dump the launch of saxpy (launched through `extra`, on a stream).
    auto r = run_command({vector_add().string(), kernels_ptx()},
                         env({{"D4R_CUDA_REPLAY_DUMP_DIR", dumps.string()}, {"D4R_CUDA_REPLAY_DUMP_FILTER", "saxpy"}}));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    fs::path dump = dumps / "replay-2-saxpy";
    ASSERT_TRUE(fs::is_directory(dump)) << r.err;
    EXPECT_EQ(std::distance(fs::directory_iterator(dumps), fs::directory_iterator()), 1) << "limit 1, no leftovers";
    std::string manifest = read_file_text(dump / "manifest.txt");
    EXPECT_NE(manifest.find("kernel saxpy\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("launch 16 1 1 64 1 1 0\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("args 32\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("pointer 16 0 0\n"), std::string::npos) << manifest;
    EXPECT_NE(manifest.find("pointer 24 1 0\n"), std::string::npos) << manifest;

    fs::path out = dir.path() / "out";
    auto rep = run_d4r({"replay", dump.string(), "--backend", "cpu", "--out", out.string()});
    ASSERT_EQ(rep.exit_code, 0) << rep.out << rep.err;
    auto cmp = run_d4r({"compare", (dump / "after").string(), out.string()});
    EXPECT_EQ(cmp.exit_code, 0) << cmp.out;

    // y = a * x + y, from the dumped inputs and the scalar a at offset 8 of the parameter block.
    std::string args = read_file_text(dump / "args.bin");
    float a = 0;
    std::memcpy(&a, args.data() + 8, 4);
    auto x = floats(dump / "alloc-0.bin"), y = floats(dump / "alloc-1.bin"), y2 = floats(out / "alloc-1.bin");
    ASSERT_EQ(x.size(), 1000u);
    ASSERT_EQ(y2.size(), 1000u);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y2[i], a * x[i] + y[i]) << i;
    EXPECT_NE(floats(dump / "alloc-1.bin"), y2) << "the launch changed y";
}

TEST(ReplayDump, BadDumpsAreRejectedWithTheFileNamed) {
    TempDir dir;
    auto missing = run_d4r({"replay", (dir.path() / "nope").string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("not a dump folder"), std::string::npos) << missing.err;
    dir.write("d/manifest.txt", "kernel k\nlaunch 1 1 1 32 1 1 0\nargs 8\nalloc 0 0x1000 16\npointer 0 1 0\n");
    auto bad = run_d4r({"replay", (dir.path() / "d").string(), "--backend", "cpu"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("manifest.txt:5: pointer names alloc 1"), std::string::npos) << bad.err;
    dir.write("e/manifest.txt", "kernel k\nlaunch 1 1 1 32 1 1 0\nargs 8\n");
    dir.write("e/args.bin", "1234");
    auto short_args = run_d4r({"replay", (dir.path() / "e").string(), "--backend", "cpu"});
    EXPECT_EQ(short_args.exit_code, 2);
    EXPECT_NE(short_args.err.find("args.bin: 4 bytes, but the manifest says 8"), std::string::npos) << short_args.err;
    dir.write("log.txt", "nothing here\n");
    auto none = run_d4r({"kprof", (dir.path() / "log.txt").string()});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("no KERNEL_PROFILE lines"), std::string::npos) << none.err;
}
