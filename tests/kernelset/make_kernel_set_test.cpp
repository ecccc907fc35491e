// d4r_make_kernel_set (src/kernels/make_kernel_set.cpp), the build step that writes the kernel set of d4r's
// kernel families (docs/kernel-sets.md, "Where kernels live"): one manifest for every family, NAME.cpu per
// kernel, stale code objects removed, and a kernel its PTX does not define or two families name refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ptx/manifest.h"
#include "ptx/module_hash.h"
#include "test_support.h"

namespace d4r::kernels {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// A second family's PTX: one module with one kernel.
const char* const kOtherPtx = ".version 8.0\n.target sm_80\n.address_size 64\n\n"
                              ".visible .entry d4r_other_k()\n{\n\tret;\n}\n";

fs::path upscaler_ptx_path() { return test::source_dir() / "src/kernels/upscaler/ptx/upscaler.ptx"; }

test::RunResult make_set(const std::vector<std::string>& args) {
    std::vector<std::string> argv{D4R_TEST_MAKE_KERNEL_SET};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_command(argv);
}

TEST(KernelFamilies, OneManifestListsEveryFamilysKernelsUnderItsPtxHash) {
    TempDir t;
    fs::path other = t.write("other.ptx", kOtherPtx);
    fs::path set = t.path() / "native/cpu";
    auto r = make_set({"cpu", set.string(), "--family", "upscaler", upscaler_ptx_path().string(), "d4r_up_prepare",
                       "d4r_up_sharpen", "--family", "other", other.string(), "d4r_other_k"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto manifest = ptx::Manifest::load(set / ptx::kManifestFileName);
    ASSERT_TRUE(manifest) << manifest.error().text();
    const uint64_t upscaler = ptx::module_hash(test::read_file_text(upscaler_ptx_path()));
    EXPECT_EQ(manifest->names(), (std::vector<std::string>{"d4r_other_k", "d4r_up_prepare", "d4r_up_sharpen"}));
    EXPECT_EQ(manifest->hashes_for("d4r_up_prepare"), std::vector<uint64_t>{upscaler});
    EXPECT_EQ(manifest->hashes_for("d4r_up_sharpen"), std::vector<uint64_t>{upscaler});
    EXPECT_EQ(manifest->hashes_for("d4r_other_k"), std::vector<uint64_t>{ptx::module_hash(kOtherPtx)});
    for (const char* k : {"d4r_up_prepare", "d4r_up_sharpen", "d4r_other_k"})
        EXPECT_EQ(test::read_file_text(set / (std::string(k) + ".cpu")), "1\n") << k;
}

// A family of two PTX files (as refine: refine.ptx and refine_fp8.ptx): each kernel under the hash of the module
// that defines it; a kernel neither defines is refused, naming both files.
TEST(KernelFamilies, AFamilyOfTwoPtxFilesListsEachKernelUnderItsOwnModulesHash) {
    TempDir t;
    fs::path other = t.write("other.ptx", kOtherPtx);
    fs::path set = t.path() / "native/cpu";
    auto r = make_set({"cpu", set.string(), "--family", "two", upscaler_ptx_path().string(), other.string(),
                       "d4r_up_prepare", "d4r_other_k:fast"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto manifest = ptx::Manifest::load(set / ptx::kManifestFileName);
    ASSERT_TRUE(manifest) << manifest.error().text();
    EXPECT_EQ(manifest->names(), (std::vector<std::string>{"d4r_other_k", "d4r_up_prepare"}));
    EXPECT_EQ(manifest->hashes_for("d4r_up_prepare"),
              std::vector<uint64_t>{ptx::module_hash(test::read_file_text(upscaler_ptx_path()))});
    EXPECT_EQ(manifest->hashes_for("d4r_other_k"), std::vector<uint64_t>{ptx::module_hash(kOtherPtx)});
    EXPECT_EQ(test::read_file_text(set / "d4r_other_k.cpu"), "1 fast\n");

    auto refused = make_set({"cpu", (t.path() / "refused").string(), "--family", "two", upscaler_ptx_path().string(),
                             other.string(), "d4r_nowhere"});
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    EXPECT_NE(refused.err.find("other.ptx defines no '.entry d4r_nowhere'"), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(t.path() / "refused"));
}

TEST(KernelFamilies, ACodeObjectOfAKernelNoLongerListedIsRemovedOtherFilesStay) {
    TempDir t;
    t.write("cpu/d4r_gone.cpu", "1\n");
    t.write("cpu/notes.txt", "kept");
    auto r = make_set(
        {"cpu", (t.path() / "cpu").string(), "--family", "upscaler", upscaler_ptx_path().string(), "d4r_up_exposure"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(fs::exists(t.path() / "cpu/d4r_gone.cpu"));
    EXPECT_TRUE(fs::exists(t.path() / "cpu/notes.txt"));
    EXPECT_TRUE(fs::exists(t.path() / "cpu/d4r_up_exposure.cpu"));
}

TEST(KernelFamilies, AKernelThePtxDoesNotDefineIsRefusedAndNothingIsWritten) {
    TempDir t;
    auto r = make_set({"cpu", (t.path() / "cpu").string(), "--family", "upscaler", upscaler_ptx_path().string(),
                       "d4r_up_prepare", "d4r_up_missing"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no '.entry d4r_up_missing'"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(t.path() / "cpu"));
}

TEST(KernelFamilies, AKernelNamedByTwoFamiliesIsRefused) {
    TempDir t;
    const std::string ptx = upscaler_ptx_path().string();
    auto r = make_set({"cpu", (t.path() / "cpu").string(), "--family", "a", ptx, "d4r_up_prepare", "--family", "b", ptx,
                       "d4r_up_prepare"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("named by family a and by family b"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(t.path() / "cpu"));
}

TEST(KernelFamilies, BadUsageIsExit2) {
    TempDir t;
    const std::string dir = (t.path() / "cpu").string();
    const std::string ptx = upscaler_ptx_path().string();
    for (const auto& args : std::vector<std::vector<std::string>>{{},
                                                                  {"cpu", dir},
                                                                  {"hip", dir, "--family", "a", ptx, "k"},
                                                                  {"cpu", dir, "--family", "a", ptx},
                                                                  {"cpu", dir, "a", ptx, "d4r_up_prepare"}})
        EXPECT_EQ(make_set(args).exit_code, 2) << args.size();
}

} // namespace
TEST(KernelFamilies, VariantsGoToTheFastSetAndTheMarkedAccuracySetServesTheExactKernels) {
    TempDir t;
    const fs::path fast = t.path() / "native/cpu", exact = t.path() / "native/accuracy/cpu";
    auto r = make_set({"cpu", fast.string(), "--accuracy", exact.string(), "--family", "upscaler",
                       upscaler_ptx_path().string(), "d4r_up_prepare:fast", "d4r_up_sharpen"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::read_file_text(fast / "d4r_up_prepare.cpu"), "1 fast\n");
    EXPECT_EQ(test::read_file_text(fast / "d4r_up_sharpen.cpu"), "1\n");
    EXPECT_EQ(test::read_file_text(exact / "d4r_up_prepare.cpu"), "1\n");
    EXPECT_EQ(test::read_file_text(exact / "d4r-accuracy.txt"), "1\n");
    EXPECT_EQ(test::read_file_text(exact / ptx::kManifestFileName),
              test::read_file_text(fast / ptx::kManifestFileName));
    auto bad =
        make_set({"cpu", fast.string(), "--family", "upscaler", upscaler_ptx_path().string(), "d4r_up_prepare:"});
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

} // namespace d4r::kernels
