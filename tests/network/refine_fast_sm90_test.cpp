// The fast sm_90 kernels (src/kernels/refine/cuda), compiled to PTX by the build's nvcc, on ptxsim (cpu backend)
// over whole forward passes against the PTX path's trace on the same backend:
//  * with the element-wise and layernorm kernels fast and the matrix kernels the PTX's, every launch gives the
//    PTX path's bytes (those fast kernels only move memory differently);
//  * with every kernel fast, every layer stays within 60 dB of the PTX path (f32 accumulators), and the image does
//    as displayed (tone-mapped). (Here the linear
//    runs with the plan's grid, one tile per block; on the H200 with its code object's persistent grid.)
// The cubins of the same sources run on the H200 in tests/device/refine-sm90.sh.
#include <gtest/gtest.h>

#include "cuda_env.h"
#include "harness.h"
#include "network/layer_trace.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::network;

namespace {

struct FastPtx {
    std::string elementwise, unpatchify, regroup, linear, attention; // NUL-terminated texts
};

const FastPtx* fast_ptx(std::string* why) {
#ifdef D4R_TEST_FAST_SM90_PTX_DIR
    static FastPtx p = [] {
        auto read = [](const char* name) {
            std::string text = d4r::test::read_file_text(std::string(D4R_TEST_FAST_SM90_PTX_DIR) + "/" + name);
            text.push_back('\0');
            return text;
        };
        return FastPtx{read("fast_elementwise.ptx"), read("fast_unpatchify.ptx"), read("fast_regroup.ptx"),
                       read("fast_linear.ptx"), read("fast_attention.ptx")};
    }();
    return &p;
#else
    *why = "NVIDIA's nvcc was not found when the build was configured: the fast sm_90 kernels were not compiled";
    return nullptr;
#endif
}

std::string_view pick(const FastPtx& f, Kernel k, bool matrix_too) {
    if (k == Kernel::Linear) return matrix_too ? std::string_view(f.linear) : refine_ptx();
    if (k == Kernel::Attention) return matrix_too ? std::string_view(f.attention) : refine_ptx();
    if (k == Kernel::Merge || k == Kernel::Expand) return f.regroup;
    if (k == Kernel::Unpatchify) return f.unpatchify;
    return f.elementwise;
}

} // namespace

class RefineFastSm90 : public ::testing::TestWithParam<std::pair<uint32_t, uint32_t>> {};

TEST_P(RefineFastSm90, ElementwiseKernelsAreExactAndMatrixKernelsWithin60Db) {
    std::string why;
    const FastPtx* fast = fast_ptx(&why);
    if (!fast) GTEST_SKIP() << why;
    const upscaler::CudaFunctions* cuda = upscaler::test::cpu_backend_cuda(&why);
    ASSERT_NE(cuda, nullptr) << why;
    ASSERT_TRUE(upscaler::test::open_context(*cuda));
    const auto [w, h] = GetParam();
    const Model model = nettest::random_model(7);
    const std::vector<uint16_t> image = nettest::test_image(w, h, 3);
    auto reference = trace_forward(*cuda, model, image, w, h);
    ASSERT_TRUE(reference) << reference.error().text();

    auto elementwise = trace_forward(*cuda, model, image, w, h, [&](Kernel k) { return pick(*fast, k, false); });
    ASSERT_TRUE(elementwise) << elementwise.error().text();
    auto same = compare_traces(*reference, *elementwise);
    ASSERT_TRUE(same) << same.error().text();
    for (const LayerComparison& c : *same) EXPECT_EQ(c.differ, 0u) << c.layer << " (" << c.kernel << ")";

    auto all = trace_forward(*cuda, model, image, w, h, [&](Kernel k) { return pick(*fast, k, true); });
    ASSERT_TRUE(all) << all.error().text();
    auto close = compare_traces(*reference, *all);
    ASSERT_TRUE(close) << close.error().text();
    uint64_t differ = 0;
    for (const LayerComparison& c : *close) {
        differ += c.differ;
        if (c.kernel != "d4r_nn_unpatchify") {
            EXPECT_GE(c.psnr_db, 60.0) << c.layer << " (" << c.kernel << ")";
        }
    }
    // The image is HDR: it is compared as displayed (layer_trace.h: displayed_psnr).
    EXPECT_GE(displayed_psnr(reference->back().bytes, all->back().bytes), 60.0);
    EXPECT_GT(differ, 0u) << "f32 accumulators gave the f16 chain's bytes everywhere: not the fast kernels?";
}

INSTANTIATE_TEST_SUITE_P(PartialWindows, RefineFastSm90,
                         ::testing::Values(std::pair<uint32_t, uint32_t>{72, 40},
                                           std::pair<uint32_t, uint32_t>{44, 20}));
