// The fast sm_90 kernels (src/kernels/refine/cuda) compiled to PTX by the build's nvcc, for running them on ptxsim
// (tests/network: refine_fast_sm90_test.cpp, refine_v2_test.cpp).
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <regex>
#include <string>
#include <string_view>

#include "cuda_env.h"
#include "harness.h"
#include "network/plan.h"
#include "network/refine_pipeline.h"
#include "test_support.h"

namespace d4r::network {

// NUL-terminated texts, one a module (pixel_fused: the fused embed's, cuda/fast_pixel_fused.cu; pixel_head: the fused
// head's, cuda/fast_pixel_head.cu).
struct FastPtx {
    std::string elementwise, unpatchify, regroup, linear, attention, pixel, block, pixel_fused, pixel_head;
};

inline const FastPtx* fast_ptx(std::string* why) {
#ifdef D4R_TEST_FAST_SM90_PTX_DIR
    static FastPtx p = [] {
        auto read = [](const char* name) {
            std::string text = d4r::test::read_file_text(std::string(D4R_TEST_FAST_SM90_PTX_DIR) + "/" + name);
            text.push_back('\0');
            return text;
        };
        return FastPtx{read("fast_elementwise.ptx"), read("fast_unpatchify.ptx"),  read("fast_regroup.ptx"),
                       read("fast_linear.ptx"),      read("fast_attention.ptx"),   read("fast_pixel.ptx"),
                       read("fast_block.ptx"),       read("fast_pixel_fused.ptx"), read("fast_pixel_head.ptx")};
    }();
    return &p;
#else
    *why = "NVIDIA's nvcc was not found when the build was configured: the fast sm_90 kernels were not compiled";
    return nullptr;
#endif
}

// A fixture (over BASE: ::testing::Test or a TestWithParam) for tests that run the fast kernels on ptxsim: FAST (the
// test is skipped, naming why, where nvcc did not compile them) and the cpu backend's CUDA with a context open.
template <typename Base = ::testing::Test>
class FastSm90On : public Base {
protected:
    void SetUp() override {
        std::string why;
        fast = fast_ptx(&why);
        if (!fast) GTEST_SKIP() << why;
        cuda = upscaler::test::cpu_backend_cuda(&why);
        ASSERT_NE(cuda, nullptr) << why;
        ASSERT_TRUE(upscaler::test::open_context(*cuda));
    }
    const FastPtx* fast = nullptr;
    const upscaler::CudaFunctions* cuda = nullptr;
};

// PTX, a persistent module's text (fast_block.ptx, fast_pixel_fused.ptx, ...), with its grid (d4r_grid_x) made BLOCKS
// blocks, so that each block walks more of the work than on the grid the module asks for; empty when it has no grid.
inline std::string with_grid_x(const std::string& ptx, uint32_t blocks) {
    const std::regex grid_x(R"(\.u32 d4r_grid_x = [0-9]+;)");
    if (!std::regex_search(ptx, grid_x)) return {};
    return std::regex_replace(ptx, grid_x, fmt::format(".u32 d4r_grid_x = {};", blocks));
}

// The fast kernel of K. INEXACT_TOO: also those that do not give the PTX path's bytes (the linears' and attention's
// f32 accumulators, refine-v2's pixel kernels' powers, the fused block); otherwise those from the embedded PTX. The
// embedded PTX for every kernel the fast set has none of.
inline std::string_view pick(const FastPtx& f, Kernel k, bool inexact_too) {
    auto inexact = [&](const std::string& fast) { return inexact_too ? std::string_view(fast) : kernel_ptx(k); };
    if (k == Kernel::Linear || k == Kernel::LinearFp8 || k == Kernel::LinearWide) return inexact(f.linear);
    if (k == Kernel::Attention) return inexact(f.attention);
    if (k == Kernel::Block || k == Kernel::CoarseBlock) return inexact(f.block);
    if (k == Kernel::PixelFeatures || k == Kernel::PixelBlend) return inexact(f.pixel);
    if (k == Kernel::PixelEmbed) return inexact(f.pixel_fused);
    if (k == Kernel::PixelHead) return inexact(f.pixel_head);
    if (k == Kernel::Merge || k == Kernel::Expand) return f.regroup;
    if (k == Kernel::Unpatchify) return f.unpatchify;
    if (k == Kernel::Patchify || k == Kernel::LayerNorm) return f.elementwise;
    return kernel_ptx(k);
}

} // namespace d4r::network
