// The refine kernels' committed PTX, three modules (refine.ptx and refine_v2.ptx for sm_80, refine_fp8.ptx for
// sm_89): embedded byte for byte, together defining every kernel of the plans, made from the committed sources
// (refine.ptx.sources: every source of the folder, the headers they take from elsewhere and the modules), and, with
// the nvcc that made them, regenerated identically.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "core/sha256.h"
#include "network/plan.h"
#include "network/refine_pipeline.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::network;
namespace fs = std::filesystem;

namespace {
const char* kNvcc = "/usr/local/cuda/bin/nvcc";
fs::path ptx_dir() { return test::source_dir() / "src/kernels/refine/ptx"; }

std::string first_line_with(const std::string& text, const std::string& what) {
    size_t at = text.find(what);
    if (at == std::string::npos) return {};
    return text.substr(at, text.find('\n', at) - at);
}
} // namespace

TEST(RefinePtxRecord, EmbeddedPtxIsTheCommittedFilesAndDefinesEveryKernel) {
    const std::string committed = test::read_file_text(ptx_dir() / "refine.ptx");
    const std::string fp8 = test::read_file_text(ptx_dir() / "refine_fp8.ptx");
    ASSERT_FALSE(committed.empty());
    ASSERT_FALSE(fp8.empty());
    EXPECT_EQ(std::string(refine_ptx()), committed);
    EXPECT_EQ(refine_ptx().data()[refine_ptx().size()], '\0');
    EXPECT_EQ(std::string(refine_fp8_ptx()), fp8);
    EXPECT_EQ(refine_fp8_ptx().data()[refine_fp8_ptx().size()], '\0');
    EXPECT_EQ(std::string(refine_v2_ptx()), test::read_file_text(ptx_dir() / "refine_v2.ptx"));
    EXPECT_EQ(refine_v2_ptx().data()[refine_v2_ptx().size()], '\0');
    for (Kernel k : kAllKernels)
        EXPECT_NE(std::string(kernel_ptx(k)).find(std::string(".visible .entry ") + kernel_name(k) + "("),
                  std::string::npos)
            << kernel_name(k);
    // The tensor-core instructions the numerics are defined by.
    EXPECT_NE(committed.find("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"), std::string::npos);
    EXPECT_NE(fp8.find("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16"), std::string::npos);
}

TEST(RefinePtxRecord, CommittedPtxIsFromTheCommittedSources) {
    std::vector<std::string> named;
    EXPECT_EQ(test::stale_ptx_sources(ptx_dir() / "refine.ptx.sources", &named), std::vector<std::string>{})
        << "changed since the PTX was made: run src/kernels/refine/ptx/make-ptx.sh (needs nvcc)";
    const std::set<std::string> checked(named.begin(), named.end());
    // Every source of the folder (a new .cu or .h must be added to make-ptx.sh's list), f16.h, the upscaler's math
    // (refine_v2.cu computes the core's terms), and the three modules.
    std::set<std::string> want{"../../common/f16.h", "../../upscaler/ptx/upscaler_math.h"};
    for (const fs::directory_entry& e : fs::directory_iterator(ptx_dir())) {
        const std::string name = e.path().filename().string();
        if (name.ends_with(".cu") || name.ends_with(".h") || name.ends_with(".cuh") || name.ends_with(".sh") ||
            name.ends_with(".ptx"))
            want.insert(name);
    }
    EXPECT_EQ(checked, want);
    EXPECT_TRUE(want.count("refine.ptx") && want.count("refine_fp8.ptx") && want.count("refine_fp8.cu") &&
                want.count("refine_v2.ptx") && want.count("refine_v2.cu"));
}

TEST(RefinePtxRecord, TheSourcesCompileAndTheSameNvccGivesTheCommittedPtx) {
    if (!fs::exists(kNvcc)) GTEST_SKIP() << kNvcc << " is absent (NVIDIA's toolkit): the PTX is not regenerated";
    test::TempDir dir;
    auto r =
        test::run_command({"/bin/sh", (ptx_dir() / "make-ptx.sh").string(), dir.path().string()}, {{"NVCC", kNvcc}});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const char* name : {"refine.ptx", "refine_fp8.ptx", "refine_v2.ptx"}) {
        std::string fresh = test::read_file_text(dir.path() / name);
        std::string committed = test::read_file_text(ptx_dir() / name);
        ASSERT_FALSE(fresh.empty()) << name;
        if (first_line_with(fresh, "Cuda compilation tools") != first_line_with(committed, "Cuda compilation tools"))
            continue; // compiled; the byte comparison needs the same nvcc (the record test covers staleness)
        EXPECT_EQ(fresh, committed) << "src/kernels/refine/ptx/" << name << " is stale: run its make-ptx.sh";
    }
    // The record written beside them names the same files as the committed one.
    const std::string record = test::read_file_text(dir.path() / "refine.ptx.sources");
    EXPECT_NE(record.find("  refine_fp8.ptx\n"), std::string::npos) << record;
    EXPECT_NE(record.find("  refine_fp8.cu\n"), std::string::npos) << record;
}

// make-ptx.sh --record-only (no nvcc) on a copy of the folder rewrites the committed record byte for byte.
TEST(RefinePtxRecord, RecordOnlyRewritesTheCommittedRecord) {
    test::TempDir dir;
    const fs::path copy = dir.mkdir("src/kernels/refine/ptx");
    for (const char* file : {"src/kernels/common/f16.h", "src/kernels/upscaler/ptx/upscaler_math.h"})
        dir.write(file, test::read_file_text(test::source_dir() / file));
    for (const fs::directory_entry& e : fs::directory_iterator(ptx_dir())) {
        if (e.path().filename() == "refine.ptx.sources") continue;
        fs::copy_file(e.path(), copy / e.path().filename());
    }
    auto r = test::run_command({"/bin/sh", (copy / "make-ptx.sh").string(), "--record-only"}, {});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(test::read_file_text(copy / "refine.ptx.sources"),
              test::read_file_text(ptx_dir() / "refine.ptx.sources"));
}
