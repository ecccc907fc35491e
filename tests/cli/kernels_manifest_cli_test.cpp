// d4r kernels manifest DIR FILE..., end to end through build/bin/d4r: the written d4r-kernels.txt is
// checked against hashes computed here independently from the PTX text (FNV-1a 64, docs/runtime.md, "Native-kernel
// overrides").
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace d4r::test {
namespace {

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

// The manifest's NAME HASH lines (comments and blank lines left out).
std::vector<std::string> manifest_lines(const fs::path& path) {
    std::vector<std::string> lines;
    std::istringstream in(read_file_text(path));
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') lines.push_back(line);
    return lines;
}

std::vector<std::string> folder_names(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Two versions of a "library": conv changed between them, gemm did not exist in v1, blur is in both.
const std::string kLibV1 = ".version 8.0\n.target sm_89\n.address_size 64\n"
                           ".visible .entry conv(.param .u64 p) { ret; }\n"
                           ".visible .entry blur() { ret; }\n";
const std::string kLibV2 = ".version 8.5\n.target sm_89\n.address_size 64\n"
                           ".visible .entry conv(.param .u64 p, .param .u32 n) { ret; }\n"
                           ".visible .entry gemm(.param .u64 a) { ret; }\n";

TEST(KernelsManifestCli, WritesEveryHashOfEveryDefiningModule) {
    TempDir t;
    fs::path dir = t.mkdir("gfx1101");
    t.write("gfx1101/conv.hsaco", "code");
    t.write("gfx1101/conv.cubin", "code"); // same kernel for another target: one name
    t.write("gfx1101/gemm.cpu", "1\n");
    t.write("gfx1101/README.txt", "not a code object");
    fs::path v1 = t.write("lib-v1.ptx", kLibV1);
    fs::path v2 = t.write("lib-v2.ptx", kLibV2);

    RunResult r = run_d4r({"kernels", "manifest", dir.string(), v1.string(), v2.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string h1 = reference_hash(kLibV1), h2 = reference_hash(kLibV2);
    std::vector<std::string> want{"conv " + std::min(h1, h2), "conv " + std::max(h1, h2), "gemm " + h2};
    EXPECT_EQ(manifest_lines(dir / "d4r-kernels.txt"), want);
    // blur is defined by the libraries but has no code object: not listed.
    std::string text = read_file_text(dir / "d4r-kernels.txt");
    EXPECT_EQ(text.rfind("# ", 0), 0u);
    EXPECT_NE(text.find("d4r kernels manifest"), std::string::npos);
    EXPECT_NE(r.out.find("wrote " + (dir / "d4r-kernels.txt").string() +
                         ": 2 kernels, 3 hashes (from 2 files, 2 PTX modules)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("conv: 2 hashes (2 modules)"), std::string::npos) << r.out;
    // Atomic write: no temporary file is left behind.
    EXPECT_EQ(folder_names(dir),
              (std::vector<std::string>{"README.txt", "conv.cubin", "conv.hsaco", "d4r-kernels.txt", "gemm.cpu"}));

    // Running again replaces the manifest with the same content.
    std::string before = read_file_text(dir / "d4r-kernels.txt");
    RunResult again = run_d4r({"kernels", "manifest", dir.string(), v1.string(), v2.string()});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(read_file_text(dir / "d4r-kernels.txt"), before);
}

TEST(KernelsManifestCli, RefusesAKernelNoFileDefinesAndWritesNothing) {
    TempDir t;
    fs::path dir = t.mkdir("set");
    t.write("set/conv.hsaco", "code");
    t.write("set/mystery.hsaco", "code");
    t.write("set/d4r-kernels.txt", "# an older manifest\nconv 0000000000000001\n");
    fs::path v1 = t.write("lib-v1.ptx", kLibV1);
    fs::path v2 = t.write("lib-v2.ptx", kLibV2);

    RunResult r = run_d4r({"kernels", "manifest", dir.string(), v1.string(), v2.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("kernel 'mystery' (" + (dir / "mystery.hsaco").string() +
                         ") is defined by no given file (searched: " + v1.string() + ", " + v2.string() + ")"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("nothing written"), std::string::npos) << r.err;
    // The existing manifest is untouched and no temporary file appeared.
    EXPECT_EQ(read_file_text(dir / "d4r-kernels.txt"), "# an older manifest\nconv 0000000000000001\n");
    EXPECT_EQ(folder_names(dir), (std::vector<std::string>{"conv.hsaco", "d4r-kernels.txt", "mystery.hsaco"}));
}

TEST(KernelsManifestCli, MalformedFileWritesNothing) {
    TempDir t;
    fs::path dir = t.mkdir("set");
    t.write("set/conv.hsaco", "code");
    fs::path good = t.write("good.ptx", kLibV1);
    fs::path bad = t.write("bad.ptx", ".version 8.5\n.entry conv(.param .u64 p\n");
    RunResult r = run_d4r({"kernels", "manifest", dir.string(), good.string(), bad.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("d4r: error: " + bad.string() +
                         ": module 0 (PTX text): line 3: expected ')' after parameter "
                         "list, got end of input"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir / "d4r-kernels.txt"));
}

TEST(KernelsManifestCli, BadFoldersAndNames) {
    TempDir t;
    fs::path lib = t.write("lib.ptx", kLibV1);
    fs::path empty = t.mkdir("empty");
    t.write("empty/notes.txt", "x");
    RunResult r = run_d4r({"kernels", "manifest", empty.string(), lib.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(empty.string() + ": no code objects (*.hsaco, *.cubin, *.cpu)"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(empty / "d4r-kernels.txt"));

    RunResult missing = run_d4r({"kernels", "manifest", (t.path() / "absent").string(), lib.string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("absent: not a folder"), std::string::npos) << missing.err;

    fs::path odd = t.mkdir("odd");
    t.write("odd/conv.v2.hsaco", "code");
    RunResult bad_name = run_d4r({"kernels", "manifest", odd.string(), lib.string()});
    EXPECT_EQ(bad_name.exit_code, 2);
    EXPECT_NE(bad_name.err.find("'conv.v2' cannot be a kernel name"), std::string::npos) << bad_name.err;
    EXPECT_FALSE(fs::exists(odd / "d4r-kernels.txt"));
}

TEST(KernelsManifestCli, DryRunPrintsWithoutWriting) {
    TempDir t;
    fs::path dir = t.mkdir("set");
    t.write("set/blur.hsaco", "code");
    fs::path lib = t.write("lib.ptx", kLibV1);
    RunResult r = run_d4r({"kernels", "manifest", "--dry-run", dir.string(), lib.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\nblur " + reference_hash(kLibV1) + "\n"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "d4r-kernels.txt"));
}

TEST(KernelsManifestCli, FromFixtureLibraries) {
    fs::path fixtures = fixture_dir() / "ptx";
    ASSERT_TRUE(fs::exists(fixtures / "libkernels.so"))
        << (fixtures / "libkernels.so").string() << " is missing: the fixture is committed (tests/fixtures/ptx)";
    TempDir t;
    fs::path dir = t.mkdir("gfx1201");
    t.write("gfx1201/d4r_saxpy.hsaco", "code");
    t.write("gfx1201/d4r_fill.cpu", "1\n");
    RunResult r = run_d4r({"kernels", "manifest", dir.string(), (fixtures / "libkernels.so").string(),
                           (fixtures / "kernels.multi.fatbin").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // libkernels.so and the multi fatbin carry the same sm_89 module; the multi fatbin adds sm_75.
    std::string sm89 = reference_hash(read_file_text(fixtures / "expected" / "kernels.sm_89.ptx"));
    std::string sm75 = reference_hash(read_file_text(fixtures / "expected" / "kernels.sm_75.ptx"));
    std::vector<std::string> want;
    for (const char* name : {"d4r_fill", "d4r_saxpy"}) {
        want.push_back(std::string(name) + " " + std::min(sm75, sm89));
        want.push_back(std::string(name) + " " + std::max(sm75, sm89));
    }
    EXPECT_EQ(manifest_lines(dir / "d4r-kernels.txt"), want);
}

TEST(KernelsManifestCli, Help) {
    RunResult r = run_d4r({"kernels", "manifest", "--help"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("d4r-kernels.txt"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Exit status"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--dry-run"), std::string::npos) << r.out;
    EXPECT_EQ(run_d4r({"kernels", "manifest"}).exit_code, 2);
    EXPECT_EQ(run_d4r({"kernels", "manifest", "dir-only"}).exit_code, 2);
}

} // namespace
} // namespace d4r::test
