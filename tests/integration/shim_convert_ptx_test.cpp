// The shim's committed conversion PTX (src/shim/ptx/convert.ptx): embedded byte for byte, made from the committed
// sources (its record, on every machine), and the same nvcc makes it again (where NVIDIA's toolkit is installed).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "core/sha256.h"
#include "shim/gpu_convert.h"
#include "test_support.h"

using namespace d4r;
namespace fs = std::filesystem;

namespace {
const char* kNvcc = "/usr/local/cuda/bin/nvcc";
fs::path ptx_dir() { return test::source_dir() / "src/shim/ptx"; }

std::string nvcc_line(const std::string& ptx) {
    const size_t at = ptx.find("Cuda compilation tools");
    return at == std::string::npos ? std::string() : ptx.substr(at, ptx.find('\n', at) - at);
}
} // namespace

TEST(ShimConvertPtx, EmbeddedPtxIsTheCommittedFile) {
    const std::string committed = test::read_file_text(ptx_dir() / "convert.ptx");
    ASSERT_FALSE(committed.empty());
    EXPECT_EQ(std::string(shim::convert_ptx()), committed);
    EXPECT_NE(committed.find(".entry d4r_shim_to_canonical("), std::string::npos);
    EXPECT_NE(committed.find(".entry d4r_shim_from_canonical("), std::string::npos);
}

// A source edited without running make-ptx.sh (or a PTX edited by hand) fails here, with or without nvcc.
TEST(ShimConvertPtx, CommittedPtxIsFromTheCommittedSources) {
    std::vector<std::string> named;
    EXPECT_EQ(test::stale_ptx_sources(ptx_dir() / "convert.ptx.sources", &named), std::vector<std::string>{})
        << "changed since convert.ptx was made: run src/shim/ptx/make-ptx.sh (needs nvcc)";
    EXPECT_EQ(named.size(), 6u); // convert.cu, texels.h, formats.h, f16.h, make-ptx.sh, convert.ptx
}

TEST(ShimConvertPtx, TheSourcesCompileAndTheSameNvccGivesTheCommittedPtx) {
    if (!fs::exists(kNvcc)) GTEST_SKIP() << kNvcc << " is absent (NVIDIA's toolkit): the PTX is not regenerated";
    test::TempDir dir;
    auto r = test::run_command({"/bin/sh", (ptx_dir() / "make-ptx.sh").string(), (dir.path() / "ptx").string()},
                               {{"NVCC", kNvcc}});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const std::string fresh = test::read_file_text(dir.path() / "ptx/convert.ptx");
    const std::string committed = test::read_file_text(ptx_dir() / "convert.ptx");
    if (nvcc_line(fresh) != nvcc_line(committed)) return; // compiled; bytes need the same nvcc
    EXPECT_EQ(fresh, committed) << "src/shim/ptx/convert.ptx is stale: run src/shim/ptx/make-ptx.sh";
    EXPECT_EQ(test::read_file_text(dir.path() / "ptx/convert.ptx.sources"),
              test::read_file_text(ptx_dir() / "convert.ptx.sources"));
}
