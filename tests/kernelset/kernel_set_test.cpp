// docs/kernel-sets.md kernel-set selection, rule by rule.
#include <gtest/gtest.h>

#include "kernelset/kernel_set.h"
#include "test_support.h"

namespace d4r::kernels {
namespace {

using test::TempDir;

// Helpers that build kernel folders the way the kernel toolchain lays them out.
void make_release_set(const TempDir& t, const fs::path& rel) {
    t.write(rel / "conv0.hsaco", "code");
    t.write(rel / kManifestFileName, "conv0 0123456789abcdef\n");
}
void make_developer_set(const TempDir& t, const fs::path& rel) { t.write(rel / "conv0.hsaco", "code"); }
void mark_accuracy(const TempDir& t, const fs::path& rel, const std::string& content = "1\n") {
    t.write(rel / kAccuracyMarkerFileName, content);
}

Selection select(const fs::path& root, const std::string& arch, bool accuracy, bool fp8 = false) {
    return select_kernel_set({root, arch, accuracy, fp8});
}

const char* const kArchs[] = {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1200", "gfx1201"};

// A full release root: fast and accuracy sets for every GPU, fp8 folders for RDNA4.
void make_full_release_root(const TempDir& t) {
    for (const char* arch : kArchs) {
        std::string a = arch;
        make_release_set(t, a);
        make_release_set(t, fs::path("accuracy") / a);
        mark_accuracy(t, fs::path("accuracy") / a);
        if (a.starts_with("gfx12")) {
            make_release_set(t, a + "-fp8");
            make_release_set(t, fs::path("accuracy") / (a + "-fp8"));
            mark_accuracy(t, fs::path("accuracy") / (a + "-fp8"));
        }
    }
}

TEST(KernelSetSelection, EveryGpuFastModePicksItsOwnReleaseSet) {
    TempDir t;
    make_full_release_root(t);
    for (const char* arch : kArchs) {
        Selection s = select(t.path(), arch, false);
        EXPECT_EQ(s.kind, KernelSetKind::HashChecked) << arch;
        EXPECT_EQ(s.path, t.path() / arch) << arch;
    }
}

TEST(KernelSetSelection, EveryGpuAccuracyModePicksItsMarkedAccuracySet) {
    TempDir t;
    make_full_release_root(t);
    for (const char* arch : kArchs) {
        Selection s = select(t.path(), arch, true);
        EXPECT_EQ(s.kind, KernelSetKind::HashChecked) << arch;
        EXPECT_EQ(s.path, t.path() / "accuracy" / arch) << arch;
    }
}

TEST(KernelSetSelection, Fp8FoldersOnlyForGfx12) {
    TempDir t;
    make_full_release_root(t);
    make_release_set(t, "gfx1101-fp8"); // must be ignored: RDNA3 has no FP8 WMMA
    EXPECT_EQ(select(t.path(), "gfx1201", false, true).path, t.path() / "gfx1201-fp8");
    EXPECT_EQ(select(t.path(), "gfx1200", false, true).path, t.path() / "gfx1200-fp8");
    EXPECT_EQ(select(t.path(), "gfx1101", false, true).path, t.path() / "gfx1101");
    EXPECT_EQ(select(t.path(), "gfx1201", true, true).path, t.path() / "accuracy" / "gfx1201-fp8");
    // fp8 off: the plain folder even when an fp8 one exists.
    EXPECT_EQ(select(t.path(), "gfx1201", false, false).path, t.path() / "gfx1201");
}

TEST(KernelSetSelection, Fp8WidensToThePlainFolderWhenNoFp8Set) {
    TempDir t;
    make_release_set(t, "gfx1200");
    Selection s = select(t.path(), "gfx1200", false, true);
    EXPECT_EQ(s.kind, KernelSetKind::HashChecked);
    EXPECT_EQ(s.path, t.path() / "gfx1200");
    ASSERT_GE(s.notes.size(), 2u);
    EXPECT_NE(s.notes[0].find("gfx1200-fp8: no such folder"), std::string::npos) << s.notes[0];
}

TEST(KernelSetSelection, MissingAccuracySetNeverFallsBackToFastOrAnotherGpu) {
    TempDir t;
    make_release_set(t, "gfx1100");                        // fast set for this GPU
    make_release_set(t, fs::path("accuracy") / "gfx1101"); // accuracy set for another GPU
    mark_accuracy(t, fs::path("accuracy") / "gfx1101");
    Selection s = select(t.path(), "gfx1100", true);
    EXPECT_EQ(s.kind, KernelSetKind::None);
    EXPECT_TRUE(s.path.empty());
    EXPECT_NE(s.notes.back().find("never used in accuracy mode"), std::string::npos);

    // Even a marked accuracy base is not handed out whole while it holds another GPU's folder.
    mark_accuracy(t, "accuracy");
    s = select(t.path(), "gfx1100", true);
    EXPECT_EQ(s.kind, KernelSetKind::None);
}

TEST(KernelSetSelection, UnmarkedOrBadlyMarkedAccuracyBinariesAreRejected) {
    for (const std::string& bad : {std::string(""), std::string("1"), std::string("1\r\n"), std::string("0\n"),
                                   std::string("1\n\n"), std::string(" 1\n"), std::string("true\n")}) {
        TempDir t;
        make_release_set(t, fs::path("accuracy") / "gfx1101");
        mark_accuracy(t, fs::path("accuracy") / "gfx1101", bad);
        Selection s = select(t.path(), "gfx1101", true);
        EXPECT_EQ(s.kind, KernelSetKind::None) << "marker '" << bad << "'";
    }
    TempDir t;
    make_developer_set(t, fs::path("accuracy") / "gfx1101"); // no marker file at all
    EXPECT_EQ(select(t.path(), "gfx1101", true).kind, KernelSetKind::None);
    mark_accuracy(t, fs::path("accuracy") / "gfx1101");
    Selection s = select(t.path(), "gfx1101", true);
    EXPECT_EQ(s.kind, KernelSetKind::Developer); // marked, no manifest: accuracy developer set
    EXPECT_EQ(s.path, t.path() / "accuracy" / "gfx1101");
}

TEST(KernelSetSelection, FlatDeveloperFolder) {
    TempDir t;
    make_developer_set(t, "");
    // Fast mode: a flat folder of code objects is a developer set for any (or no) arch.
    EXPECT_EQ(select(t.path(), "gfx1101", false).kind, KernelSetKind::Developer);
    EXPECT_EQ(select(t.path(), "gfx1101", false).path, t.path());
    EXPECT_EQ(select(t.path(), "", false).kind, KernelSetKind::Developer);
    // Accuracy mode, no marker: the flat folder is not an accuracy set.
    EXPECT_EQ(select(t.path(), "gfx1101", true).kind, KernelSetKind::None);
    // An invalid marker does not make it one either.
    mark_accuracy(t, "", "yes\n");
    EXPECT_EQ(select(t.path(), "gfx1101", true).kind, KernelSetKind::None);
    // A valid marker on the flat folder itself: an accuracy developer set.
    mark_accuracy(t, "");
    Selection s = select(t.path(), "gfx1101", true);
    EXPECT_EQ(s.kind, KernelSetKind::Developer);
    EXPECT_EQ(s.path, t.path());
}

TEST(KernelSetSelection, FlatReleaseSetWithManifest) {
    TempDir t;
    make_release_set(t, "");
    Selection s = select(t.path(), "gfx1102", false);
    EXPECT_EQ(s.kind, KernelSetKind::HashChecked);
    EXPECT_EQ(s.path, t.path());
}

TEST(KernelSetSelection, ReleaseRootIsNeverHandedOutWhole) {
    TempDir t;
    make_release_set(t, "gfx1100");
    make_developer_set(t, ""); // even with code objects at the top
    EXPECT_EQ(select(t.path(), "gfx1201", false).kind, KernelSetKind::None);
    EXPECT_EQ(select(t.path(), "", false).kind, KernelSetKind::None);
    EXPECT_EQ(select(t.path(), "gfx1100", false).kind, KernelSetKind::HashChecked);
}

TEST(KernelSetSelection, PerGpuFolderWithoutManifestIsNotAFastSet) {
    // docs/kernel-sets.md rule 3: outside accuracy mode a candidate qualifies only with a manifest; only the base
    // itself may be a developer set (rule 4), and this base holds gfx* folders.
    TempDir t;
    make_developer_set(t, "gfx1101");
    Selection s = select(t.path(), "gfx1101", false);
    EXPECT_EQ(s.kind, KernelSetKind::None);
}

TEST(KernelSetSelection, MissingOrEmptyRoot) {
    EXPECT_EQ(select("", "gfx1101", false).kind, KernelSetKind::None);
    EXPECT_EQ(select("/nonexistent/d4r/kernels", "gfx1101", false).kind, KernelSetKind::None);
    EXPECT_EQ(select("/nonexistent/d4r/kernels", "gfx1101", true).kind, KernelSetKind::None);
}

TEST(KernelSetSelection, NotesExplainEveryCandidate) {
    TempDir t;
    make_release_set(t, "gfx1201");
    Selection s = select(t.path(), "gfx1201", false, true);
    ASSERT_EQ(s.notes.size(), 2u);
    EXPECT_NE(s.notes[0].find("gfx1201-fp8"), std::string::npos);
    EXPECT_NE(s.notes[1].find("has a manifest"), std::string::npos);
}

TEST(AccuracyBuildGuard, RefusesFoldersWithCodeObjectsButNoValidMarker) {
    TempDir t;
    EXPECT_TRUE(check_accuracy_build_output(t.path() / "missing").ok());
    EXPECT_TRUE(check_accuracy_build_output(t.mkdir("empty")).ok());
    t.write("docs/README.txt", "not a code object");
    EXPECT_TRUE(check_accuracy_build_output(t.path() / "docs").ok());

    make_developer_set(t, "fast");
    Status s = check_accuracy_build_output(t.path() / "fast");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code(), ErrorCode::Invalid);
    EXPECT_NE(s.error().text().find("accuracy kernels need an empty output directory or an existing accuracy set"),
              std::string::npos);
    mark_accuracy(t, "fast", "1");
    EXPECT_FALSE(check_accuracy_build_output(t.path() / "fast").ok());

    ASSERT_TRUE(write_accuracy_marker(t.path() / "fast").ok());
    EXPECT_EQ(test::read_file_text(t.path() / "fast" / kAccuracyMarkerFileName), "1\n");
    EXPECT_TRUE(has_valid_accuracy_marker(t.path() / "fast"));
    EXPECT_TRUE(check_accuracy_build_output(t.path() / "fast").ok());

    t.write("file", "x");
    EXPECT_FALSE(check_accuracy_build_output(t.path() / "file").ok());
}

} // namespace
} // namespace d4r::kernels
