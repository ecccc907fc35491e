// The dependency audit of release files (release/elf_dependencies.h): the base-system list, bundled
// libraries, ROCm's libraries for ZLUDA and ROCm only, the highest libstdc++ versions; and the files
// this build makes for a release (d4r, libd4rcuda.so, the Wine bridge) need nothing outside the base
// system.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/files.h"
#include "elf_builder.h"
#include "release/elf_dependencies.h"
#include "test_support.h"

namespace d4r::release {
namespace {

using test_elf::make_elf;

GlibcNeeds needs_of(const std::vector<std::string>& needed, const std::vector<test_elf::Library>& versions = {}) {
    auto n = read_glibc_needs(make_elf(versions, needed));
    EXPECT_TRUE(n) << n.error().text();
    return n ? *n : GlibcNeeds{};
}

TEST(BaseSystem, ListHoldsGlibcGccRuntimeAndZlibOnly) {
    for (const char* lib : {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
                            "ld-linux-x86-64.so.2", "libgcc_s.so.1", "libstdc++.so.6", "libz.so.1"})
        EXPECT_TRUE(is_base_system_library(lib)) << lib;
    for (const char* lib : {"libfmt.so.9", "liblz4.so.1", "libzstd.so.1", "libpng16.so.16", "libc.so", "libz.so"})
        EXPECT_FALSE(is_base_system_library(lib)) << lib;
    EXPECT_EQ(base_system_libraries().size(), 9u);
}

TEST(DependencyAudit, D4rsOwnFileNeedingLibfmtIsNamedWithTheFix) {
    const std::vector<ReleaseElf> elfs = {
        {"d4r/d4r", "", "/b/bin/d4r", needs_of({"libfmt.so.9", "libstdc++.so.6", "libc.so.6"})},
        {"d4r/libd4rcuda.so", "", "/b/lib/libd4rcuda.so", needs_of({"libz.so.1", "libm.so.6"})},
    };
    const DependencyAudit a = audit_elf_dependencies(elfs, {"d4r/d4r", "d4r/libd4rcuda.so"});
    ASSERT_EQ(a.outside.size(), 1u);
    EXPECT_EQ(a.outside[0].path, "d4r/d4r");
    EXPECT_EQ(a.outside[0].library, "libfmt.so.9");
    EXPECT_NE(a.outside[0].message.find("d4r/d4r (from /b/bin/d4r) needs libfmt.so.9"), std::string::npos)
        << a.outside[0].message;
    EXPECT_NE(a.outside[0].message.find("link libfmt.so.9 statically"), std::string::npos) << a.outside[0].message;
    EXPECT_TRUE(a.from_rocm.empty());
}

TEST(DependencyAudit, BundledBesideTheFileIsAllowedElsewhereIsNot) {
    const std::vector<ReleaseElf> elfs = {
        {"d4r/zluda/libcuda.so", "--zluda", "/z/libcuda.so", needs_of({"libzluda_extra.so.1", "libother.so.2"})},
    };
    const std::set<std::string> files = {"d4r/zluda/libcuda.so", "d4r/zluda/libzluda_extra.so.1",
                                         "d4r/rocm/libother.so.2"};
    const DependencyAudit a = audit_elf_dependencies(elfs, files);
    ASSERT_EQ(a.outside.size(), 1u); // libother.so.2 is bundled, but not where the loader looks
    EXPECT_EQ(a.outside[0].library, "libother.so.2");
    EXPECT_NE(a.outside[0].message.find("put libother.so.2 into the --zluda folder"), std::string::npos)
        << a.outside[0].message;
}

TEST(DependencyAudit, RocmLibrariesComeFromTheSystemForZludaAndRocmOnly) {
    const std::vector<ReleaseElf> elfs = {
        {"d4r/zluda/libcuda.so", "--zluda", "/z/libcuda.so", needs_of({"libamdhip64.so.6", "libc.so.6"})},
        {"d4r/rocm/libamdhip64.so.6", "--rocm", "/r/libamdhip64.so.6",
         needs_of({"libhsa-runtime64.so.1", "libamd_comgr.so.2", "libnuma.so.1", "libdrm_amdgpu.so.1"})},
        {"d4r/libd4rcuda.so", "", "/b/lib/libd4rcuda.so", needs_of({"libamdhip64.so.6"})},
    };
    const std::set<std::string> files = {"d4r/zluda/libcuda.so", "d4r/rocm/libamdhip64.so.6",
                                         "d4r/rocm/libamd_comgr.so.2", "d4r/libd4rcuda.so"};
    const DependencyAudit a = audit_elf_dependencies(elfs, files);
    // d4r's own file may not rely on ROCm: it loads HIP at run time, never through DT_NEEDED.
    ASSERT_EQ(a.outside.size(), 1u);
    EXPECT_EQ(a.outside[0].path, "d4r/libd4rcuda.so");
    // libamd_comgr.so.2 is bundled beside libamdhip64; the other four come from the system's ROCm.
    std::vector<std::string> from_rocm;
    for (const DependencyFinding& f : a.from_rocm) from_rocm.push_back(f.path + " " + f.library);
    EXPECT_EQ(from_rocm, (std::vector<std::string>{"d4r/zluda/libcuda.so libamdhip64.so.6",
                                                   "d4r/rocm/libamdhip64.so.6 libhsa-runtime64.so.1",
                                                   "d4r/rocm/libamdhip64.so.6 libnuma.so.1",
                                                   "d4r/rocm/libamdhip64.so.6 libdrm_amdgpu.so.1"}));
    EXPECT_NE(a.from_rocm[0].message.find("from the system's ROCm"), std::string::npos) << a.from_rocm[0].message;
    // A ROCm input needing a non-ROCm library is still an error.
    const DependencyAudit b = audit_elf_dependencies(
        {{"d4r/rocm/libamdhip64.so.6", "--rocm", "/r/libamdhip64.so.6", needs_of({"libfmt.so.9"})}}, files);
    EXPECT_EQ(b.outside.size(), 1u);
}

TEST(DependencyAudit, HighestLibstdcxxVersionsAcrossFilesWithTheFile) {
    const std::vector<ReleaseElf> elfs = {
        {"d4r/d4r", "", "", needs_of({}, {{"libstdc++.so.6", {"GLIBCXX_3.4.29", "CXXABI_1.3.13"}}})},
        {"d4r/libd4rcuda.so", "", "", needs_of({}, {{"libstdc++.so.6", {"GLIBCXX_3.4.30", "CXXABI_1.3.9"}}})},
        {"d4r/zluda/libcuda.so", "--zluda", "", needs_of({}, {{"libc.so.6", {"GLIBC_2.34"}}})},
    };
    const DependencyAudit a = audit_elf_dependencies(elfs, {});
    ASSERT_TRUE(a.glibcxx && a.cxxabi);
    EXPECT_EQ(a.glibcxx->highest.name, "GLIBCXX_3.4.30");
    EXPECT_EQ(a.glibcxx->path, "d4r/libd4rcuda.so");
    EXPECT_EQ(a.cxxabi->highest.name, "CXXABI_1.3.13");
    EXPECT_EQ(a.cxxabi->path, "d4r/d4r");
    EXPECT_FALSE(audit_elf_dependencies({elfs[2]}, {}).glibcxx);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define D4R_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define D4R_TEST_SANITIZED 1
#endif

// A sanitizer build (the asan preset) links the sanitizers' runtimes; releases are never built so. GCC links
// them as libraries; clang links them into the executable, and they need glibc's libresolv.
bool sanitizer_runtime(const std::string& library) {
#ifdef D4R_TEST_SANITIZED
    return library.starts_with("libasan.so") || library.starts_with("libubsan.so") ||
           library.starts_with("libresolv.so");
#else
    (void)library;
    return false;
#endif
}

// The release files this build makes: every DT_NEEDED library is on the base-system list (no libfmt,
// liblz4, libzstd or libpng of the build machine). The Wine bridge is checked when this build has it.
TEST(ReleaseFilesOfThisBuild, NeedOnlyTheBaseSystem) {
    const fs::path build = d4r::test::d4r_binary().parent_path().parent_path();
    std::vector<fs::path> files = {build / "bin/d4r", build / "lib/libd4rcuda.so"};
    if (is_file(build / "lib/nvcuda.dll.so")) files.push_back(build / "lib/nvcuda.dll.so");
    for (const fs::path& file : files) {
        auto bytes = read_file(file);
        ASSERT_TRUE(bytes) << bytes.error().text();
        auto needs = read_glibc_needs(*bytes);
        ASSERT_TRUE(needs) << file << ": " << needs.error().text();
        EXPECT_FALSE(needs->needed.empty()) << file << ": a dynamically linked file needs libc at least";
        size_t checked = 0;
        for (const std::string& library : needs->needed) {
            if (sanitizer_runtime(library)) continue;
            ++checked;
            EXPECT_TRUE(is_base_system_library(library))
                << file.string() << " needs " << library << ", which is not in the base system (docs/packaging.md)";
        }
        EXPECT_GT(checked, 0u) << file;
    }
}

} // namespace
} // namespace d4r::release
