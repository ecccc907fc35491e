// d4r package on a synthetic build folder and synthetic third-party inputs: the layout, missing inputs
// named (and --dev warnings), two runs giving identical bytes, the GLIBC check, the libraries the ELF
// files need (base system, bundled, the system's ROCm), the nonvidia guard,
// SOURCES.txt and BUILD_INFO.txt, and d4r install accepting the packaged folder.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/files.h"
#include "core/sha256.h"
#include "elf_builder.h"
#include "package_fixtures.h"
#include "release_test_util.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::run_command;
using test::run_d4r;
using test::RunResult;
using test::TempDir;
namespace fs = std::filesystem;
using test_release::elf_needing;

const std::map<std::string, std::string> kEpoch = {{"SOURCE_DATE_EPOCH", "1700000000"}};

struct Fixture {
    TempDir t;
    fs::path out = t.path() / "out";
    Fixture() {
        t.write("build/bin/d4r", elf_needing("2.34"));
        t.write("build/lib/libd4rcuda.so", elf_needing("2.34"));
        t.write("build/lib/nvcuda.dll.so", elf_needing("2.17"));
        t.write("build/win/d4r_nvngx.dll", "MZ shim");
        t.write("build/win/d4r_ngx.dll", "MZ core");
        for (const char* f : {"packaging/d4r.ini", "packaging/README.txt", "packaging/check.sh",
                              "packaging/OptiScaler-d4r.ini", "LICENSE", "NOTICE", "models/refine-v2.d4rnet"})
            t.write(fs::path("src") / f, read_file_text(test::source_dir() / f));
        t.write("optiscaler/OptiScaler.dll", "MZ optiscaler");
        t.write("optiscaler/OptiScaler.ini", "[Upscalers]\n");
        t.write("optiscaler/LICENSE", "optiscaler licence");
        t.write("vkd3d/x64/d3d12.dll", "MZ d3d12");
        t.write("vkd3d/x64/d3d12core.dll", "MZ d3d12core");
        t.write("zluda/libcuda.so", elf_needing("2.28"));
        t.write("rocm/libamdhip64.so.6", elf_needing("2.31"));
        t.write("rocm/README", "not a library");
        t.write("kernels/gfx1101/d4r-kernels.txt", "k 0123456789abcdef\n");
        t.write("kernels/gfx1101/k.hsaco", "code");
    }
    std::vector<std::string> args(const fs::path& to, std::vector<std::string> extra = {}) const {
        std::vector<std::string> a = {
            "package", to.string(), "--build", (t.path() / "build").string(), "--source", (t.path() / "src").string()};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
    std::vector<std::string> inputs() const {
        return {"--optiscaler", (t.path() / "optiscaler").string(), "--vkd3d", (t.path() / "vkd3d").string(),
                "--zluda",      (t.path() / "zluda").string(),      "--rocm",  (t.path() / "rocm").string(),
                "--kernels",    (t.path() / "kernels").string()};
    }
    RunResult package(const fs::path& to, std::vector<std::string> extra, bool with_inputs = true) const {
        std::vector<std::string> a = args(to, extra);
        if (with_inputs)
            for (const std::string& s : inputs()) a.push_back(s);
        return run_d4r(a, kEpoch);
    }
};

// The one entry of DIR whose name ends with SUFFIX.
fs::path entry_ending(const fs::path& dir, const std::string& suffix) {
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string n = e.path().filename().string();
        if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
            return e.path();
    }
    return {};
}

size_t entries_in(const fs::path& dir) {
    if (!fs::exists(dir)) return 0;
    return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(PackageCli, FullLayoutTwoRunsIdenticalBytes) {
    Fixture f;
    RunResult a = f.package(f.out / "a", {});
    ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
    RunResult b = f.package(f.out / "b", {});
    ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
    const fs::path zip_a = entry_ending(f.out / "a", "-full.zip"), zip_b = entry_ending(f.out / "b", "-full.zip");
    ASSERT_FALSE(zip_a.empty());
    ASSERT_EQ(zip_a.filename(), zip_b.filename());
    EXPECT_EQ(read_file_text(zip_a), read_file_text(zip_b));
    EXPECT_EQ(read_file_text(zip_a.string() + ".sha256"), read_file_text(zip_b.string() + ".sha256"));
    EXPECT_EQ(read_file_text(zip_a.string() + ".sha256"),
              *sha256_file_hex(zip_a) + "  " + zip_a.filename().string() + "\n");
    EXPECT_EQ(entries_in(f.out / "a"), 3u); // folder, zip, sha256: no temporary left
    if (run_command({"/bin/sh", "-c", "command -v sha256sum"}).exit_code == 0) {
        RunResult c =
            run_command({"/bin/sh", "-c", "sha256sum -c " + zip_a.filename().string() + ".sha256"}, {}, f.out / "a");
        EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
    }

    const fs::path rel = entry_ending(f.out / "a", "-full");
    for (const char* p : {"dxgi.dll",
                          "OptiScaler.ini",
                          "d3d12.dll",
                          "d3d12core.dll",
                          "d4r/d4r",
                          "d4r/libd4rcuda.so",
                          "d4r/nvcuda.dll",
                          "d4r/nvngx.dll",
                          "d4r/d4r_ngx.dll",
                          "d4r/d4r.ini",
                          "d4r/README.txt",
                          "d4r/check.sh",
                          "d4r/refine-v2.d4rnet",
                          "d4r/zluda/libcuda.so",
                          "d4r/rocm/libamdhip64.so.6",
                          "d4r/kernels/gfx1101/d4r-kernels.txt",
                          "d4r/kernels/gfx1101/k.hsaco",
                          "d4r/licenses/d4r/LICENSE",
                          "d4r/licenses/d4r/NOTICE",
                          "d4r/licenses/OptiScaler/LICENSE",
                          "d4r/licenses/fmt/copyright",
                          "d4r/licenses/CLI11/copyright",
                          "d4r/licenses/nlohmann-json/copyright",
                          "d4r/licenses/lz4/copyright",
                          "d4r/licenses/zstd/copyright",
                          "d4r/licenses/libpng/copyright",
                          "d4r/source/SOURCES.txt",
                          "d4r/BUILD_INFO.txt"})
        EXPECT_TRUE(is_file(rel / p)) << p;
    EXPECT_FALSE(path_exists(rel / "d4r/rocm/README"));
    EXPECT_EQ(read_file_text(rel / "dxgi.dll"), "MZ optiscaler");
    EXPECT_EQ(read_file_text(rel / "d4r/d4r.ini"), read_file_text(test::source_dir() / "packaging/d4r.ini"));
    // OptiScaler's own ini, with d4r's routing keys (packaging/OptiScaler-d4r.ini) written into it.
    const std::string opti = read_file_text(rel / "OptiScaler.ini");
    EXPECT_TRUE(opti.starts_with("[Upscalers]\nDx12Upscaler=dlss\n")) << opti;
    EXPECT_NE(opti.find("[Libraries]\nNvngxPath=d4r\\nvngx.dll\n"), std::string::npos) << opti;
    EXPECT_EQ(fs::status(rel / "d4r/check.sh").permissions(), fs::perms(0755));
    EXPECT_EQ(fs::status(rel / "d4r/d4r").permissions(), fs::perms(0755));
    EXPECT_EQ(fs::status(rel / "dxgi.dll").permissions(), fs::perms(0644));

    const std::string sources = read_file_text(rel / "d4r/source/SOURCES.txt");
    const std::string dll_sha = sha256_hex(std::string_view("MZ optiscaler"));
    EXPECT_NE(sources.find("dxgi.dll\t--optiscaler\t" + (f.t.path() / "optiscaler/OptiScaler.dll").string() +
                           "\tunknown\t" + dll_sha + "\n"),
              std::string::npos)
        << sources;
    EXPECT_NE(sources.find("d4r/rocm/libamdhip64.so.6\t--rocm\t"), std::string::npos) << sources;
    EXPECT_EQ(sources.find("d4r/d4r\t"), std::string::npos) << "d4r's own files are not third-party";

    const std::string info = read_file_text(rel / "d4r/BUILD_INFO.txt");
    for (const char* line : {"variant: full\n", "git commit: unknown (the source folder is not a git checkout)\n",
                             "date: 2023-11-14T22:13:20Z (SOURCE_DATE_EPOCH=1700000000)\n", "glibc target: 2.41\n",
                             "d4r version: ", "c++ compiler (g++): ", "mingw g++ (x86_64-w64-mingw32-g++-posix): ",
                             "winegcc (winegcc): ", "cmake (cmake): ", "clang: not used\n", "libstdc++ needed: none\n"})
        EXPECT_NE(info.find(line), std::string::npos) << line << "\n" << info;

    // d4r install takes the packaged folder as it is.
    f.t.write("Game/MyGame/Binaries/Win64/MyGame-Win64-Shipping.exe", "game");
    RunResult inst = run_d4r({"install", (f.t.path() / "Game").string(), "--release", rel.string()});
    ASSERT_EQ(inst.exit_code, 0) << inst.out << inst.err;
    const fs::path exe_dir = f.t.path() / "Game/MyGame/Binaries/Win64";
    EXPECT_EQ(read_file_text(exe_dir / "dxgi.dll"), "MZ optiscaler");
    EXPECT_TRUE(is_file(exe_dir / "d4r/d4r"));
    EXPECT_TRUE(is_file(exe_dir / "d4r/nvngx.dll"));
}

TEST(PackageCli, MissingInputsAreNamedAndNothingIsWritten) {
    Fixture f;
    RunResult r = f.package(f.out, {}, false);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    for (const char* opt : {"--optiscaler DIR not given", "--vkd3d DIR not given", "--zluda DIR not given",
                            "--rocm DIR not given", "--kernels DIR not given"})
        EXPECT_NE(r.err.find(opt), std::string::npos) << opt << "\n" << r.err;
    EXPECT_EQ(entries_in(f.out), 0u);

    fs::remove(f.t.path() / "vkd3d/x64/d3d12core.dll");
    fs::remove(f.t.path() / "build/win/d4r_ngx.dll");
    r = f.package(f.out, {});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--vkd3d " + (f.t.path() / "vkd3d").string() + ": must hold d3d12.dll and d3d12core.dll"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("has no win/d4r_ngx.dll"), std::string::npos) << r.err;
    EXPECT_EQ(entries_in(f.out), 0u);

    r = f.package(f.out, {"--dev"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: --dev: --vkd3d"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("warning: --dev: --build"), std::string::npos) << r.err;
    const fs::path rel = entry_ending(f.out, "-full");
    EXPECT_FALSE(path_exists(rel / "d3d12.dll"));
    EXPECT_FALSE(path_exists(rel / "d4r/d4r_ngx.dll"));
    EXPECT_TRUE(is_file(rel / "dxgi.dll"));
}

TEST(PackageCli, GlibcAboveTheTargetFailsNamingFileAndVersion) {
    Fixture f;
    f.t.write("rocm/libamdhip64.so.6", elf_needing("2.42"));
    RunResult r = f.package(f.out, {});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("d4r/rocm/libamdhip64.so.6 (from " + (f.t.path() / "rocm/libamdhip64.so.6").string() +
                         ") needs GLIBC 2.42 (of libc.so.6)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("above the target 2.41"), std::string::npos) << r.err;
    EXPECT_EQ(entries_in(f.out), 0u);
    r = f.package(f.out, {"--glibc-max", "2.42"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

std::string elf_with(const std::vector<test_elf::Library>& versions, const std::vector<std::string>& needed) {
    const auto b = test_elf::make_elf(versions, needed);
    return std::string(b.begin(), b.end());
}

TEST(PackageCli, LibrariesOutsideTheBaseSystemFailNamingFileLibraryAndFix) {
    Fixture f;
    const std::vector<test_elf::Library> cxx = {{"libstdc++.so.6", {"GLIBCXX_3.4.30", "CXXABI_1.3.9"}},
                                                {"libc.so.6", {"GLIBC_2.34"}}};
    f.t.write("build/bin/d4r", elf_with(cxx, {"libfmt.so.9", "libstdc++.so.6", "libc.so.6"}));
    f.t.write("zluda/libcuda.so", elf_with({}, {"libamdhip64.so.6", "libc.so.6"}));
    f.t.write("rocm/libamdhip64.so.6", elf_with({}, {"libhsa-runtime64.so.1", "libbundled.so.1", "libz.so.1"}));
    f.t.write("rocm/libbundled.so.1", elf_with({}, {"libm.so.6"}));
    RunResult r = f.package(f.out, {});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("d4r/d4r (from " + (f.t.path() / "build/bin/d4r").string() + ") needs libfmt.so.9"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("link libfmt.so.9 statically"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1 library needed by the release's ELF files would be missing"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("libbundled"), std::string::npos) << "bundled beside the file that needs it: " << r.err;
    EXPECT_EQ(entries_in(f.out), 0u);

    f.t.write("build/bin/d4r", elf_with(cxx, {"libstdc++.so.6", "libc.so.6"}));
    r = f.package(f.out, {});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.err.find("note: d4r/zluda/libcuda.so (from " + (f.t.path() / "zluda/libcuda.so").string() +
                         ") needs libamdhip64.so.6 from the system's ROCm"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("note: d4r/rocm/libamdhip64.so.6 (from " + (f.t.path() / "rocm/libamdhip64.so.6").string() +
                         ") needs libhsa-runtime64.so.1 from the system's ROCm"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("libstdc++: the release needs GLIBCXX_3.4.30 (d4r/d4r), CXXABI_1.3.9 (d4r/d4r)\n"),
              std::string::npos)
        << r.err;
    const std::string info = read_file_text(entry_ending(f.out, "-full") / "d4r/BUILD_INFO.txt");
    EXPECT_NE(info.find("libstdc++ needed: GLIBCXX_3.4.30 (d4r/d4r), CXXABI_1.3.9 (d4r/d4r)\n"), std::string::npos)
        << info;
}

TEST(PackageCli, NonvidiaGuardCatchesContentFullAllowsIt) {
    Fixture f;
    const auto nv = test_pe::version_dll({{"CompanyName", "NVIDIA Corporation"}});
    f.t.write("kernels/extra/harmless.dll", std::string(nv.begin(), nv.end()));
    f.t.write("kernels/readme.txt", test_pe::kPtxText);
    RunResult r = f.package(f.out, {"--variant", "nonvidia"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    for (const char* p : {"d4r/kernels/extra/harmless.dll (from ", "version resource: CompanyName 'NVIDIA Corporation'",
                          "d4r/kernels/readme.txt (from ", "carries 1 PTX module",
                          "d4r/kernels/gfx1101/d4r-kernels.txt", "d4r/kernels/gfx1101/k.hsaco"})
        EXPECT_NE(r.err.find(p), std::string::npos) << p << "\n" << r.err;
    EXPECT_EQ(entries_in(f.out), 0u);

    r = f.package(f.out, {"--variant", "full"});
    EXPECT_EQ(r.exit_code, 0) << r.err;

    // Clean inputs: no kernel set (optional for nonvidia), nothing NVIDIA.
    std::vector<std::string> a = f.args(f.t.path() / "clean", {"--variant", "nonvidia"});
    auto in = f.inputs();
    a.insert(a.end(), in.begin(), in.end() - 2); // all but --kernels
    r = run_d4r(a, kEpoch);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(entry_ending(f.t.path() / "clean", "-nonvidia.zip")));

    a.push_back("--nvidia");
    a.push_back(f.t.path().string());
    r = run_d4r(a, kEpoch);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("the nonvidia variant holds no NVIDIA file"), std::string::npos) << r.err;
}

TEST(PackageCli, BadValuesAreNamed) {
    Fixture f;
    RunResult r = f.package(f.out, {"--variant", "lite"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--variant 'lite': accepted values are full and nonvidia"), std::string::npos) << r.err;
    std::vector<std::string> a = f.args(f.out);
    for (const std::string& s : f.inputs()) a.push_back(s);
    r = run_d4r(a, {{"SOURCE_DATE_EPOCH", "yesterday"}});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("SOURCE_DATE_EPOCH 'yesterday'"), std::string::npos) << r.err;
    EXPECT_EQ(entries_in(f.out), 0u);
}

} // namespace
} // namespace d4r::release
