// End to end: `d4r doctor` on machines made up in a temp folder (KFD topology, kernel root, ZLUDA,
// Proton, a fake `wine64` and stand-in NVIDIA drivers).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <regex>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "test_support.h"

namespace d4r::test {
namespace {

const std::string kFakeCuda = D4R_TEST_FAKE_CUDA_DIR;

// The report line of CHECK with STATUS whose text contains NEEDLE, or "" when there is none.
bool has_line(const std::string& report, const std::string& status, const std::string& check,
              const std::string& needle) {
    std::string prefix = fmt::format("{:<5} {:<8} ", status, check);
    size_t pos = 0;
    while ((pos = report.find(prefix, pos)) != std::string::npos) {
        size_t end = report.find('\n', pos);
        std::string line = report.substr(pos, end - pos);
        if (line.find(needle) != std::string::npos) return true;
        pos = end;
    }
    return false;
}

void make_fake_wine(const TempDir& t) {
    fs::path wine = t.write("bin/wine64", "#!/bin/sh\necho wine-8.0 \"(Debian 8.0~repack-4)\"\n");
    ::chmod(wine.c_str(), 0755);
}

std::map<std::string, std::string> env_with_path(const TempDir& t, const std::string& cuda_variant) {
    return {{"PATH", (t.path() / "bin").string() + ":/usr/bin:/bin"},
            {"LD_LIBRARY_PATH", kFakeCuda + "/fake-cuda-" + cuda_variant}};
}

TEST(DoctorCli, WellSetUpMachine) {
    TempDir t;
    make_fake_wine(t);
    t.write("kfd/nodes/1/properties", "simd_count 4\ngfx_target_version 110003\n");
    t.write("kfd/nodes/2/properties", "simd_count 60\ngfx_target_version 110001\n");
    t.write("kernels/gfx1101/conv.hsaco", "x");
    t.write("kernels/gfx1101/d4r-kernels.txt", "conv 0123456789abcdef\n");
    // A real ELF library stands in for ZLUDA's: doctor reads its GLIBC needs.
    fs::create_directories(t.path() / "zluda");
    fs::copy_file(kFakeCuda + "/fake-cuda-ok/libcuda.so.1", t.path() / "zluda/libcuda.so");
    t.write("proton/proton", "#!/bin/sh\n");
    t.mkdir("compat/pfx");
    fs::path ini =
        t.write("d4r.ini", fmt::format("[Kernels]\nNativeKernels = on\n[Paths]\nNativeKernelDir = {0}/kernels\n"
                                       "ZludaDir = {0}/zluda\n[Launch]\nProtonDir = {0}/proton\n"
                                       "CompatDataDir = {0}/compat\n",
                                       t.path().string()));
    RunResult r = run_d4r({"doctor", "--config", ini.string(), "--kfd-root", (t.path() / "kfd").string()},
                          env_with_path(t, "ok"));
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "ok", "config", "valid")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "gpu", "using gfx1101 (from KFD node 2)")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "kernels", "hash-checked set " + (t.path() / "kernels/gfx1101").string()))
        << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "nvidia", "1 device(s): d4r fake GPU")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "nvidia", "CUDA 13.0")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "zluda", (t.path() / "zluda/libcuda.so").string())) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "wine", "wine-8.0")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "proton", "Proton " + (t.path() / "proton").string())) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "proton", "prefix")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "datapath", "D3D12 games: the mapped path")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "datapath", "Windows Vulkan games under Proton: d4r_nvngx.dll's NGX Vulkan"))
        << r.out;
    // The Linux Vulkan front end beside d4r (build/lib), when this build has it (Vulkan's headers were installed).
    const bool front_end = fs::exists(d4r_binary().parent_path().parent_path() / "lib" / "libd4r_nvngx.so");
    EXPECT_TRUE(front_end ? has_line(r.out, "ok", "datapath", "native Linux Vulkan games: the VRAM path of")
                          : has_line(r.out, "warn", "datapath", "native Linux Vulkan games: the Vulkan front end"))
        << r.out;
    EXPECT_NE(r.out.find("0 fail"), std::string::npos);
}

// The D3D12 data path line: the mapped path where frames allow it (VramInterop on, its default), the host path for
// every frame when VramInterop is off.
TEST(DoctorCli, DataPathSaysWhichD3d12PathFramesTake) {
    TempDir t;
    t.mkdir("bin");
    fs::path ini = t.write("d4r.ini", "[Interop]\nVramInterop = true\n");
    RunResult r = run_d4r({"doctor", "--config", ini.string(), "--kfd-root", (t.path() / "no-kfd").string()},
                          env_with_path(t, "ok"));
    EXPECT_TRUE(has_line(r.out, "ok", "datapath", "D3D12 games: the mapped path")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "datapath", "a VRAM path through vkd3d-proton is not built yet")) << r.out;
    ini = t.write("d4r.ini", "[Interop]\nVramInterop = false\n");
    r = run_d4r({"doctor", "--config", ini.string(), "--kfd-root", (t.path() / "no-kfd").string()},
                env_with_path(t, "ok"));
    EXPECT_TRUE(has_line(r.out, "ok", "datapath", "D3D12 games: the host path")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "datapath", "as [Interop] VramInterop = false asks")) << r.out;
    EXPECT_EQ(r.out.find("the mapped path"), std::string::npos) << r.out;
}

TEST(DoctorCli, BareMachineWarnsButDoesNotFail) {
    TempDir t;
    t.mkdir("bin");
    RunResult r = run_d4r({"doctor", "--kfd-root", (t.path() / "no-kfd").string()},
                          {{"PATH", (t.path() / "bin").string()}, {"D4R_NO_CONFIG", "1"}}, t.path());
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "ok", "config", "built-in defaults")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "gpu", "no AMD GPU found")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "nvidia", "not found")) << r.out;
    // Without Wine in PATH, doctor still finds Debian's /usr/lib/wine/wine64 where it is installed.
    if (fs::exists("/usr/lib/wine/wine64"))
        EXPECT_TRUE(has_line(r.out, "ok", "wine", "/usr/lib/wine/wine64") ||
                    has_line(r.out, "warn", "wine", "/usr/lib/wine/wine64 does not run"))
            << r.out;
    else
        EXPECT_TRUE(has_line(r.out, "warn", "wine", "not found")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "kernels", "native kernels off")) << r.out;
    // Every line but the closing count carries a status (ok, warn or fail) and a check name.
    std::istringstream lines(r.out);
    std::string line, last;
    size_t checks = 0;
    while (std::getline(lines, line)) {
        if (line.rfind("doctor: ", 0) == 0) {
            last = line;
            continue;
        }
        EXPECT_TRUE(std::regex_search(line, std::regex("^(ok   |warn |fail ) [a-z0-9_-]+ +\\S"))) << "line: " << line;
        ++checks;
    }
    EXPECT_GE(checks, 5u) << r.out;
    EXPECT_TRUE(std::regex_search(last, std::regex("^doctor: [0-9]+ ok, [0-9]+ warn, 0 fail$"))) << r.out;
}

TEST(DoctorCli, CrashingDriverIsAWarningNotACrash) {
    TempDir t;
    t.mkdir("bin");
    RunResult r = run_d4r({"doctor", "--kfd-root", (t.path() / "no-kfd").string()},
                          {{"PATH", (t.path() / "bin").string()},
                           {"D4R_NO_CONFIG", "1"},
                           {"LD_LIBRARY_PATH", kFakeCuda + "/fake-cuda-crash"}});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "warn", "nvidia", "probe crashed")) << r.out;
}

TEST(DoctorCli, InvalidConfigAndMissingPathsFail) {
    TempDir t;
    t.mkdir("bin");
    fs::path ini = t.write("d4r.ini", "[Kernels]\nPreferAccuracy = perhaps\n");
    RunResult r = run_d4r({"doctor", "--config", ini.string(), "--kfd-root", (t.path() / "no-kfd").string()},
                          {{"PATH", (t.path() / "bin").string()}});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "fail", "config", "[Kernels] PreferAccuracy must be true or false")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "config", "not 'perhaps'")) << r.out;

    fs::path ini2 =
        t.write("other.ini", fmt::format("[Kernels]\nNativeKernels = on\n[Paths]\nNativeKernelDir = {0}/nope\n"
                                         "ZludaDir = {0}/nozluda\n[Launch]\nProtonDir = {0}/noproton\n",
                                         t.path().string()));
    r = run_d4r({"doctor", "--config", ini2.string(), "--kfd-root", (t.path() / "no-kfd").string()},
                {{"PATH", (t.path() / "bin").string()}});
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "kernels", "does not exist")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "zluda", "no libcuda.so")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "proton", "does not exist")) << r.out;
}

TEST(DoctorCli, AccuracyModeWithoutAccuracySetWarns) {
    TempDir t;
    t.mkdir("bin");
    t.write("kernels/gfx1101/conv.hsaco", "x");
    t.write("kernels/gfx1101/d4r-kernels.txt", "conv 0123456789abcdef\n");
    fs::path ini = t.write("d4r.ini", fmt::format("[Kernels]\nNativeKernels = on\nPreferAccuracy = true\n"
                                                  "[Paths]\nNativeKernelDir = {0}/kernels\nCacheDir = {0}/cache\n",
                                                  t.path().string()));
    RunResult r = run_d4r({"doctor", "--config", ini.string(), "--kfd-root", (t.path() / "no-kfd").string()},
                          {{"PATH", (t.path() / "bin").string()}, {"D4R_GPU_ARCH", "gfx1101"}});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "kernels", "accuracy mode")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "gpu", "using gfx1101 from D4R_GPU_ARCH")) << r.out;
}

// ---- The Windows side: the bridge, D4R_RUNTIME_DIR, the shim and core DLLs, libd4rcuda as the bridge loads it

// The start of an x86-64 ELF shared library made by winegcc: the header fields doctor reads and the
// marker symbol's name.
std::string fake_wine_builtin() {
    std::string b(64, '\0');
    b.replace(0, 4,
              "\x7f"
              "ELF");
    b[4] = 2;   // 64-bit
    b[5] = 1;   // little-endian
    b[16] = 3;  // ET_DYN
    b[18] = 62; // x86-64
    return b + std::string("\0__wine_spec_nt_header\0", 23);
}

// A PE header: MZ, e_lfanew = 0x40, "PE\0\0", MACHINE, CHARACTERISTICS.
std::string fake_pe(uint16_t machine, uint16_t characteristics) {
    std::string b(0x40 + 24, '\0');
    b[0] = 'M';
    b[1] = 'Z';
    b[0x3c] = 0x40;
    b.replace(0x40, 4, std::string("PE\0\0", 4));
    b[0x44] = char(machine & 0xff);
    b[0x45] = char(machine >> 8);
    b[0x40 + 22] = char(characteristics & 0xff);
    b[0x40 + 23] = char(characteristics >> 8);
    return b;
}
const std::string kPeDll = fake_pe(0x8664, 0x2022);

// A libd4rcuda stand-in with cuInit: the fake NVIDIA driver.
void copy_fake_runtime(const TempDir& t, const std::string& relative) {
    fs::path to = t.path() / relative;
    fs::create_directories(to.parent_path());
    fs::copy_file(kFakeCuda + "/fake-cuda-ok/libcuda.so.1", to, fs::copy_options::overwrite_existing);
}

RunResult doctor_with(const TempDir& t, std::map<std::string, std::string> env,
                      const std::vector<std::string>& extra = {}) {
    env.emplace("PATH", (t.path() / "bin").string() + ":/usr/bin:/bin");
    env.emplace("D4R_NO_CONFIG", "1");
    std::vector<std::string> args = {"doctor", "--kfd-root", (t.path() / "no-kfd").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_d4r(args, env, t.path());
}

TEST(DoctorCli, WindowsSideOfABuild) {
    TempDir t;
    make_fake_wine(t);
    copy_fake_runtime(t, "build/lib/libd4rcuda.so");
    t.write("build/lib/nvcuda.dll.so", fake_wine_builtin());
    t.write("build/win/d4r_nvngx.dll", kPeDll);
    t.write("build/win/d4r_ngx.dll", kPeDll);
    std::string lib = (t.path() / "build/lib").string();
    RunResult r = doctor_with(t, {{"D4R_RUNTIME_DIR", lib}});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    // D4R_RUNTIME_DIR is also [Paths] RuntimeDir, where a release keeps ZLUDA: a build has none, which
    // is a warning, not a failure.
    EXPECT_TRUE(has_line(r.out, "warn", "zluda", "no libcuda.so in " + lib + "/zluda (from [Paths] RuntimeDir/zluda)"))
        << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "wine", "wine-8.0")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "bridge", lib + "/nvcuda.dll.so: a Wine builtin")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "runtime", "D4R_RUNTIME_DIR=" + lib + " holds libd4rcuda.so")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "shim", "build/win/d4r_nvngx.dll: PE x64 DLL")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "ngxcore", "build/win/d4r_ngx.dll: PE x64 DLL")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "d4rcuda", "the bridge would load " + lib + "/libd4rcuda.so (cuInit found)"))
        << r.out;

    // The same as JSON: one object per check with its status, message and hint.
    r = doctor_with(t, {{"D4R_RUNTIME_DIR", lib}}, {"--json"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("\"check\": \"bridge\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"check\": \"d4rcuda\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"fail\": 0"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("ok    bridge"), std::string::npos) << "no text lines with --json: " << r.out;
}

TEST(DoctorCli, WindowsSideOfAReleaseFolder) {
    // A release's d4r/ folder: nvcuda.dll (the builtin, renamed), nvngx.dll (the shim, renamed), the
    // core, and a libd4rcuda.so that is not a library.
    TempDir t;
    t.write("game/d4r/nvcuda.dll", fake_wine_builtin());
    t.write("game/d4r/nvngx.dll", kPeDll);
    t.write("game/d4r/d4r_ngx.dll", kPeDll);
    t.write("game/d4r/libd4rcuda.so", "not a library\n");
    std::string dir = (t.path() / "game/d4r").string();
    RunResult r = doctor_with(t, {{"D4R_RUNTIME_DIR", dir}, {"LD_LIBRARY_PATH", ""}});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "ok", "bridge", dir + "/nvcuda.dll: a Wine builtin")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "shim", dir + "/nvngx.dll: PE x64 DLL")) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok", "ngxcore", dir + "/d4r_ngx.dll")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "d4rcuda", "the bridge could not load libd4rcuda.so")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "d4rcuda", "hint: set D4R_RUNTIME_DIR")) << r.out;
}

TEST(DoctorCli, WrongWindowsFilesFail) {
    TempDir t;
    t.write("bin/wine64", "#!/bin/sh\nexit 3\n"); // a Wine that does not run (first in PATH)
    ::chmod((t.path() / "bin/wine64").c_str(), 0755);
    copy_fake_runtime(t, "rt/lib/libd4rcuda.so");
    t.write("rt/lib/nvcuda.dll.so", "#!/bin/sh\n"); // not an ELF file
    t.write("rt/win/d4r_nvngx.dll", "just text, long enough to be read as a header..........................\n");
    t.write("rt/win/d4r_ngx.dll", fake_pe(0x14c, 0x2102)); // a 32-bit DLL
    std::string lib = (t.path() / "rt/lib").string();
    RunResult r = doctor_with(t, {{"D4R_RUNTIME_DIR", lib}}, {});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "warn", "wine", "bin/wine64 does not run: exit status 3")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "bridge", "nvcuda.dll.so: not an ELF file")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "shim", "d4r_nvngx.dll: not a PE file (no MZ header)")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "ngxcore", "a PE file for machine 0x014c, not x86-64")) << r.out;
    // libd4rcuda itself loads: the bridge file is what is wrong.
    EXPECT_TRUE(has_line(r.out, "ok", "d4rcuda", "cuInit found")) << r.out;

    // A PE program where the shim should be, and an ELF library that is not a Wine builtin.
    t.write("rt/win/d4r_nvngx.dll", fake_pe(0x8664, 0x0022));
    fs::copy_file(kFakeCuda + "/fake-cuda-ok/libcuda.so.1", t.path() / "rt/lib/nvcuda.dll.so",
                  fs::copy_options::overwrite_existing);
    r = doctor_with(t, {{"D4R_RUNTIME_DIR", lib}});
    EXPECT_TRUE(has_line(r.out, "fail", "shim", "a PE x64 program, not a DLL")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "bridge", "not a Wine builtin (no __wine_spec_nt_header)")) << r.out;
}

TEST(DoctorCli, MissingWindowsFilesWarnAndABadRuntimeDirFails) {
    TempDir t;
    make_fake_wine(t);
    t.mkdir("empty/lib");
    std::string dir = (t.path() / "empty/lib").string();
    RunResult r = doctor_with(t, {{"D4R_RUNTIME_DIR", dir}, {"LD_LIBRARY_PATH", ""}});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "warn", "bridge", "nvcuda.dll (the Wine bridge) not found")) << r.out;
    EXPECT_TRUE(has_line(r.out, "fail", "runtime", "D4R_RUNTIME_DIR=" + dir + " holds no libd4rcuda.so")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "shim", "d4r_nvngx.dll (the NGX shim) not found")) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn", "ngxcore", "not found")) << r.out;
    // No bridge: that libd4rcuda cannot be found is a warning, not a failure.
    EXPECT_TRUE(has_line(r.out, "warn", "d4rcuda", "could not load libd4rcuda.so")) << r.out;

    r = doctor_with(t, {{"D4R_RUNTIME_DIR", (t.path() / "nowhere").string()}});
    EXPECT_TRUE(has_line(r.out, "fail", "runtime", "nowhere is not a folder")) << r.out;
}

TEST(DoctorCli, Help) {
    RunResult r = run_d4r({"doctor", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("--config"), std::string::npos);
}

} // namespace
} // namespace d4r::test
