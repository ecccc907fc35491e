// The AMD kernel sets the build writes (cmake/D4rKernels.cmake, d4r_amd_kernels): for every target, the fast set
// <arch>/ and the accuracy set accuracy/<arch>/ hold exactly the refine family's NAME.hsaco, each an AMDGPU code
// object for that target, and a manifest listing every kernel under the hash of the committed PTX module that defines
// it; the gfx12 targets also have <arch>-fp8 and accuracy/<arch>-fp8 (the -fp8 sets); the accuracy
// set is marked; the fast linear carries the prep kernel and globals; the test-only sets stay out of the root.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "ptx/manifest.h"
#include "ptx/module_hash.h"
#include "test_support.h"

namespace d4r::kernels {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> kKernels{"d4r_nn_patchify",    "d4r_nn_unpatchify", "d4r_nn_layernorm",
                                     "d4r_nn_merge",       "d4r_nn_expand",     "d4r_nn_linear",
                                     "d4r_nn_attention",   "d4r_nn_linear_fp8", "d4r_nn_pixel_features",
                                     "d4r_nn_pixel_blend", "d4r_nn_linear_wide"};
// The gfx12 targets, which also get the -fp8 sets (native FP8 WMMA).
const std::set<std::string> kFp8Archs{"gfx1200", "gfx1201"};

// The hash of the committed PTX module that defines `.entry kernel` (one of the family's ptx/*.ptx).
uint64_t hash_of_module_defining(const std::string& kernel) {
    uint64_t hash = 0;
    int modules = 0;
    for (const auto& e : fs::directory_iterator(test::source_dir() / "src/kernels/refine/ptx")) {
        if (e.path().extension() != ".ptx") continue;
        const std::string text = test::read_file_text(e.path());
        if (text.find(".entry " + kernel + "(") == std::string::npos) continue;
        hash = ptx::module_hash(text);
        ++modules;
    }
    EXPECT_EQ(modules, 1) << kernel << ": PTX modules defining it";
    return hash;
}
// ELF e_flags EF_AMDGPU_MACH of each target (LLVM's ELF.h).
const std::map<std::string, uint32_t> kMach{{"gfx1100", 0x41}, {"gfx1101", 0x46}, {"gfx1102", 0x47},
                                            {"gfx1103", 0x44}, {"gfx1200", 0x48}, {"gfx1201", 0x4e}};

std::set<std::string> files_of(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
    return names;
}

void check_set(const fs::path& dir, const std::string& arch, bool accuracy) {
    SCOPED_TRACE(dir.string());
    ASSERT_TRUE(fs::is_directory(dir));
    std::set<std::string> want{std::string(ptx::kManifestFileName)};
    if (accuracy) want.insert("d4r-accuracy.txt");
    for (const std::string& k : kKernels) want.insert(k + ".hsaco");
    EXPECT_EQ(files_of(dir), want);
    if (accuracy) {
        EXPECT_EQ(test::read_file_text(dir / "d4r-accuracy.txt"), "1\n");
    }
    auto manifest = ptx::Manifest::load(dir / ptx::kManifestFileName);
    ASSERT_TRUE(manifest) << manifest.error().text();
    const std::vector<std::string> names = manifest->names();
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), kKernels);
    for (const std::string& k : kKernels) {
        EXPECT_EQ(manifest->hashes_for(k), std::vector<uint64_t>{hash_of_module_defining(k)}) << k;
        const std::string elf = test::read_file_text(dir / (k + ".hsaco"));
        ASSERT_GT(elf.size(), 64u) << k;
        EXPECT_EQ(elf.substr(0, 4), "\x7f"
                                    "ELF");
        EXPECT_EQ(static_cast<uint8_t>(elf[18]), 224u) << k << ": e_machine EM_AMDGPU";
        const uint32_t flags = static_cast<uint8_t>(elf[48]) | (static_cast<uint8_t>(elf[49]) << 8);
        EXPECT_EQ(flags & 0xffu, kMach.at(arch)) << k << ": e_flags mach";
        EXPECT_NE(elf.find(k + ".kd"), std::string::npos) << k << ": its kernel descriptor";
        for (const std::string& other : kKernels) {
            if (other != k) {
                EXPECT_EQ(elf.find(other + ".kd"), std::string::npos) << k << " also holds " << other;
            }
        }
    }
    const std::string linear = test::read_file_text(dir / "d4r_nn_linear.hsaco");
    for (const char* symbol :
         {"d4r_nn_linear_prep.kd", "d4r_prep_key_offset", "d4r_prep_key_slots", "d4r_prep_slot", "d4r_prep_blocks"})
        EXPECT_EQ(linear.find(symbol) != std::string::npos, !accuracy) << symbol;
}

TEST(AmdKernelSets, EveryTargetHasItsFastAndMarkedAccuracySetWithExactlyTheRefineKernels) {
    const fs::path root = D4R_TEST_NATIVE_ROOT;
    for (const auto& [arch, mach] : kMach) {
        check_set(root / arch, arch, false);
        check_set(root / "accuracy" / arch, arch, true);
    }
    // The root holds the AMD sets, and the cpu (and, with nvcc, sm_90) sets; never a test-only set.
    const std::set<std::string> present = files_of(root);
    for (const auto& [arch, mach] : kMach) EXPECT_EQ(present.count(arch), 1u) << arch;
    for (const char* test_only : {"gfx1100-gfx12shim", "gfx1100-wmmaf16"})
        EXPECT_EQ(present.count(test_only), 0u) << test_only << ": the test-only sets must not be in the kernel root";
}

TEST(AmdKernelSets, Gfx12TargetsHaveFp8SetsWithTheAccuracyCodeAndTheirOwnFastFp8Linear) {
    const fs::path root = D4R_TEST_NATIVE_ROOT;
    const std::set<std::string> present = files_of(root), accuracy_present = files_of(root / "accuracy");
    for (const auto& [arch, mach] : kMach) {
        const std::string fp8 = arch + "-fp8";
        if (!kFp8Archs.count(arch)) {
            EXPECT_EQ(present.count(fp8), 0u) << fp8 << ": no native FP8 WMMA before gfx12";
            EXPECT_EQ(accuracy_present.count(fp8), 0u) << fp8;
            continue;
        }
        check_set(root / fp8, arch, false);
        check_set(root / "accuracy" / fp8, arch, true);
        for (const std::string& k : kKernels) {
            SCOPED_TRACE(fp8 + "/" + k);
            const std::string name = k + ".hsaco";
            // The accuracy -fp8 set is the accuracy set's exact code.
            EXPECT_EQ(test::read_file_text(root / "accuracy" / fp8 / name),
                      test::read_file_text(root / "accuracy" / arch / name));
        }
        // The fast -fp8 set's d4r_nn_linear_fp8 is its own code (v_wmma_f32_16x16x16_fp8_fp8), not the fast set's.
        EXPECT_NE(test::read_file_text(root / fp8 / "d4r_nn_linear_fp8.hsaco"),
                  test::read_file_text(root / arch / "d4r_nn_linear_fp8.hsaco"));
    }
}

TEST(AmdKernelSets, TheTestOnlySetsAreBuiltBesideTheRoot) {
    const fs::path root = D4R_TEST_NATIVE_TEST_ROOT;
    check_set(root / "gfx1100-gfx12shim", "gfx1100", false);
    EXPECT_TRUE(fs::exists(root / "gfx1100-wmmaf16" / "d4r_nn_linear.hsaco"));
    EXPECT_TRUE(fs::exists(root / "gfx1100-wmmaf16" / ptx::kManifestFileName));
}

} // namespace
} // namespace d4r::kernels
