// The refine kernels' committed PTX: embedded byte for byte, defines every kernel of the plan, made from the
// committed sources (refine.ptx.sources), and, with the nvcc that made it, regenerated identically.
#include <gtest/gtest.h>

#include <filesystem>
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

TEST(RefinePtxRecord, EmbeddedPtxIsTheCommittedFileAndDefinesEveryKernel) {
    std::string committed = test::read_file_text(ptx_dir() / "refine.ptx");
    ASSERT_FALSE(committed.empty());
    EXPECT_EQ(std::string(refine_ptx()), committed);
    EXPECT_EQ(refine_ptx().data()[refine_ptx().size()], '\0');
    for (Kernel k : kAllKernels)
        EXPECT_NE(committed.find(std::string(".visible .entry ") + kernel_name(k) + "("), std::string::npos)
            << kernel_name(k);
    // The f16-accumulator tensor-core instruction the numerics are defined by.
    EXPECT_NE(committed.find("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"), std::string::npos);
}

TEST(RefinePtxRecord, CommittedPtxIsFromTheCommittedSources) {
    const std::string record = test::read_file_text(ptx_dir() / "refine.ptx.sources");
    size_t checked = 0;
    std::istringstream lines(record);
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("nvcc:")) continue;
        const size_t gap = line.find("  ");
        ASSERT_NE(gap, std::string::npos) << "refine.ptx.sources: '" << line << "'";
        const std::string file = line.substr(gap + 2);
        auto now = sha256_file_hex(ptx_dir() / file);
        ASSERT_TRUE(now) << now.error().text();
        EXPECT_EQ(*now, line.substr(0, gap)) << "src/kernels/refine/ptx/" << file
                                             << " changed since refine.ptx was made: run "
                                                "src/kernels/refine/ptx/make-ptx.sh (needs nvcc)";
        ++checked;
    }
    EXPECT_EQ(checked, 5u) << record; // refine.cu, refine_math.h, f16.h, make-ptx.sh, refine.ptx
}

TEST(RefinePtxRecord, TheSourcesCompileAndTheSameNvccGivesTheCommittedPtx) {
    if (!fs::exists(kNvcc)) GTEST_SKIP() << kNvcc << " is absent (NVIDIA's toolkit): the PTX is not regenerated";
    test::TempDir dir;
    auto r =
        test::run_command({"/bin/sh", (ptx_dir() / "make-ptx.sh").string(), dir.path().string()}, {{"NVCC", kNvcc}});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::string fresh = test::read_file_text(dir.path() / "refine.ptx");
    std::string committed = test::read_file_text(ptx_dir() / "refine.ptx");
    if (first_line_with(fresh, "Cuda compilation tools") != first_line_with(committed, "Cuda compilation tools"))
        return; // compiled; the byte comparison needs the same nvcc (the record test covers staleness)
    EXPECT_EQ(fresh, committed) << "src/kernels/refine/ptx/refine.ptx is stale: run its make-ptx.sh";
}
