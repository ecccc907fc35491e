// Fused plans (network/plan.h, PlanOptions::fuse_blocks): each transformer block with f16 weights is one
// d4r_nn_block launch. Its PTX (refine_block.ptx), run on ptxsim, and the host kernels write the unfused plan's
// bytes (the block's output equals the unfused block's last launch, fc2, and the image equals); the fast sm_90
// kernel (cuda/fast_block.cu compiled to PTX) stays within 60 dB of the PTX path. refine-v2's fused pass after the
// core is in refine_v2_test.cpp; the pipeline's choice between the layouts in refine_native_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "block_traces.h"
#include "cuda_env.h"
#include "fast_sm90_ptx.h"
#include "harness.h"
#include "kernels/refine/ptx/pixel_inputs.h"
#include "network/host_kernels.h"
#include "network/layer_trace.h"
#include "network/plan.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"

using namespace d4r;
using namespace d4r::network;

namespace {

size_t count(const std::vector<Launch>& plan, Kernel k) {
    return static_cast<size_t>(std::count_if(plan.begin(), plan.end(), [k](const Launch& l) { return l.kernel == k; }));
}

} // namespace

TEST(RefineBlockPlan, FusedPlansLaunchOneBlockForEachF16Block) {
    const Geometry g = geometry_for(72, 40);
    const PlanOptions kFused{.fuse_blocks = true}; // blocks alone (FusedPixelPlans...: the other fusion)
    for (const char* arch : {kArchRefineV1, kArchRefineV2}) {
        const std::vector<Launch> unfused = plan_forward(g, 0x1000, 72 * 8, 0x100000, 0x800000, arch);
        const std::vector<Launch> fused = plan_forward(g, 0x1000, 72 * 8, 0x100000, 0x800000, arch, nullptr, kFused);
        EXPECT_EQ(count(unfused, Kernel::Block), 0u) << arch;
        EXPECT_EQ(count(fused, Kernel::Block), 3u) << arch;
        EXPECT_EQ(count(fused, Kernel::LayerNorm) + count(fused, Kernel::Attention), 0u) << arch;
        EXPECT_EQ(unfused.size() - fused.size(), 3u * 6u) << arch;
        for (const Launch& l : fused)
            if (l.kernel == Kernel::Block) {
                const auto b = l.as<refine::math::BlockParams>();
                EXPECT_EQ(l.grid[0], refine::math::div_up(b.grid_w, 8) * refine::math::div_up(b.grid_h, 8)) << l.what;
                EXPECT_EQ(l.block[0], refine::math::kBlockWarps * 32) << l.what;
                EXPECT_EQ(b.heads * refine::math::kHeadDim, b.channels) << l.what;
            }
    }
    // The FP8 variants' enc2 has e4m3 weights: it stays seven launches.
    for (const char* arch : {kArchRefineV1Fp8, kArchRefineV2Fp8}) {
        const std::vector<Launch> fused = plan_forward(g, 0x1000, 72 * 8, 0x100000, 0x800000, arch, nullptr, kFused);
        EXPECT_EQ(count(fused, Kernel::Block), 2u) << arch;
        EXPECT_EQ(count(fused, Kernel::LinearFp8), arch == std::string(kArchRefineV1Fp8) ? 4u : 3u) << arch;
        for (const Launch& l : fused) EXPECT_NE(l.what, "enc2") << arch;
    }
    EXPECT_EQ(plan_kernels(kArchRefineV1, kFused).size(), 6u); // patchify, linear, block, merge, expand, unpatchify
}

// The coarse level fused: merge (the regroup and its linear), enc2 and expand (its linear, the regroup and the skip) as
// one d4r_nn_coarse_block launch per coarse window, with the unfused launches' weights and buffers, writing dec1's
// stream as the unfused expand does; not for the FP8 variants (enc2's linears in e4m3).
TEST(RefineBlockPlan, FusedCoarsePlansLaunchOneCoarseBlockForMergeEnc2AndExpand) {
    const Geometry g = geometry_for(72, 40);
    for (const char* arch : {kArchRefineV1, kArchRefineV2}) {
        const std::vector<Launch> blocks =
            plan_forward(g, 0x1000, 72 * 8, 0x100000, 0x800000, arch, nullptr, {.fuse_blocks = true});
        const std::vector<Launch> fused = plan_forward(g, 0x1000, 72 * 8, 0x100000, 0x800000, arch, nullptr,
                                                       {.fuse_blocks = true, .fuse_coarse = true});
        EXPECT_EQ(count(fused, Kernel::CoarseBlock), 1u) << arch;
        EXPECT_EQ(count(fused, Kernel::Block), 2u) << arch;
        EXPECT_EQ(count(fused, Kernel::Merge) + count(fused, Kernel::Expand), 0u) << arch;
        ASSERT_EQ(blocks.size() - fused.size(), 4u) << arch << ": merge, its linear, enc2, expand's linear, expand";
        auto at = [&](const std::string& what) {
            return *std::find_if(blocks.begin(), blocks.end(), [&](const Launch& l) { return l.what == what; });
        };
        const Launch& coarse =
            *std::find_if(fused.begin(), fused.end(), [](const Launch& l) { return l.kernel == Kernel::CoarseBlock; });
        const auto cp = coarse.as<refine::math::CoarseBlockParams>();
        const auto enc2 = at("enc2").as<refine::math::BlockParams>();
        EXPECT_EQ(std::memcmp(&cp.block, &enc2, sizeof enc2), 0) << arch;
        // "merge" and "expand" name both the regroup and the linear of each.
        auto kind = [&](Kernel k) {
            return *std::find_if(blocks.begin(), blocks.end(), [&](const Launch& l) { return l.kernel == k; });
        };
        const auto merge = kind(Kernel::Merge).as<refine::math::RegroupParams>();
        const auto expand = kind(Kernel::Expand).as<refine::math::RegroupParams>();
        std::vector<refine::math::LinearParams> linears; // the merge linear, then expand's
        for (const Launch& l : blocks)
            if ((l.what == "merge" || l.what == "expand") && l.kernel != Kernel::Merge && l.kernel != Kernel::Expand)
                linears.push_back(l.as<refine::math::LinearParams>());
        ASSERT_EQ(linears.size(), 2u) << arch;
        EXPECT_EQ(cp.merge_w, linears[0].weight);
        EXPECT_EQ(cp.merge_b, linears[0].bias);
        EXPECT_EQ(cp.expand_w, linears[1].weight);
        EXPECT_EQ(cp.expand_b, linears[1].bias);
        EXPECT_EQ(cp.fine, merge.in);
        EXPECT_EQ(cp.fine, expand.skip);
        EXPECT_EQ(cp.out, expand.out);
        EXPECT_EQ(2 * cp.fine_channels, cp.block.channels);
        EXPECT_EQ(cp.fine_channels, merge.channels);
        EXPECT_EQ(coarse.what, "enc2");
        EXPECT_EQ(coarse.out, kind(Kernel::Expand).out);
        EXPECT_EQ(coarse.out_bytes, kind(Kernel::Expand).out_bytes);
        EXPECT_EQ(coarse.grid[0], refine::math::div_up(g.grid_w / 2, 8) * refine::math::div_up(g.grid_h / 2, 8));
        EXPECT_EQ(coarse.block[0], refine::math::kBlockWarps * 32);
    }
    for (const char* arch : {kArchRefineV1Fp8, kArchRefineV2Fp8}) {
        const std::vector<Launch> fused =
            plan_forward(g, 0x1000, 72 * 8, 0x100000, 0x800000, arch, nullptr, {.fuse_coarse = true});
        EXPECT_EQ(count(fused, Kernel::CoarseBlock), 0u) << arch;
        EXPECT_EQ(count(fused, Kernel::Merge), 1u) << arch;
    }
}

// refine-v2's fused plans: the pixel features and the embed as one d4r_nn_pixel_embed launch writing the embed's
// tensor, the head and the blend as one d4r_nn_pixel_head launch writing the image (tokens of 16 a block of 256
// threads); refine-v1's plans have nothing of them.
TEST(RefineBlockPlan, FusedPixelPlansEmbedTheFeaturesAndBlendTheHeadInOneLaunchEach) {
    const Geometry g = geometry_for(72, 40);
    for (const char* arch : {kArchRefineV2, kArchRefineV2Fp8}) {
        const std::vector<Launch> unfused = plan_forward(g, 0x1000, 72 * 8, 0x100000, 0x800000, arch);
        const std::vector<Launch> fused =
            plan_forward(g, 0x1000, 72 * 8, 0x100000, 0x800000, arch, nullptr, {.fuse_pixels = true});
        ASSERT_EQ(fused.size() + 2, unfused.size()) << arch;
        EXPECT_EQ(count(fused, Kernel::PixelFeatures), 0u) << arch;
        EXPECT_EQ(count(unfused, Kernel::PixelEmbed), 0u) << arch;
        ASSERT_EQ(fused.front().kernel, Kernel::PixelEmbed) << arch;
        const auto p = fused.front().as<refine::pixel::PixelEmbedParams>();
        const auto embed = unfused[1].as<refine::math::LinearParams>();
        EXPECT_EQ(unfused[1].what, "embed");
        EXPECT_EQ(fused.front().what, "embed");
        EXPECT_EQ(p.weight, embed.weight);
        EXPECT_EQ(p.bias, embed.bias);
        EXPECT_EQ(p.out, embed.out);
        EXPECT_EQ(p.out_ch, embed.out_ch);
        EXPECT_EQ(fused.front().out, unfused[1].out);
        EXPECT_EQ(fused.front().out_bytes, unfused[1].out_bytes);
        EXPECT_EQ(fused.front().block[0], refine::pixel::kEmbedThreads);
        EXPECT_EQ(uint64_t(fused.front().grid[0]) * refine::pixel::kEmbedTokens, g.fine_tokens() + 12)
            << "every token once: 18 x 10 tokens, 12 of the last block absent";
        // The head and the blend: the head's weights over dec1's output, the blend's pixel parameters, the image.
        const Launch& last = fused.back();
        ASSERT_EQ(last.kernel, Kernel::PixelHead) << arch;
        const auto h = last.as<refine::pixel::PixelHeadParams>();
        const Launch& head = unfused[unfused.size() - 2];
        ASSERT_EQ(head.what, "head");
        const auto hl = head.as<refine::math::LinearParams>();
        EXPECT_EQ(h.weight, hl.weight);
        EXPECT_EQ(h.bias, hl.bias);
        EXPECT_EQ(h.in, hl.in);
        EXPECT_EQ(h.in_ch, hl.in_ch);
        EXPECT_EQ(hl.out_ch, refine::pixel::kHeadOutputs);
        const auto blend = unfused.back().as<refine::pixel::PixelParams>();
        EXPECT_EQ(std::memcmp(&h.pixels, &blend, sizeof blend), 0) << arch;
        EXPECT_EQ(last.what, unfused.back().what);
        EXPECT_EQ(last.out, unfused.back().out);
        EXPECT_EQ(last.out_bytes, unfused.back().out_bytes);
        EXPECT_EQ(last.block[0], refine::pixel::kEmbedThreads);
        EXPECT_EQ(last.grid[0], fused.front().grid[0]);
        // The rest of the plan is the same launches.
        for (size_t i = 1; i + 1 < fused.size(); ++i) EXPECT_EQ(fused[i].what, unfused[i + 1].what) << arch;
    }
    const std::vector<Launch> v1 =
        plan_forward(g, 0x1000, 72 * 8, 0x100000, 0x800000, kArchRefineV1, nullptr, {.fuse_pixels = true});
    EXPECT_EQ(count(v1, Kernel::PixelEmbed), 0u);
    EXPECT_EQ(count(v1, Kernel::PixelHead), 0u);
    EXPECT_EQ(v1.front().kernel, Kernel::Patchify);
}

class RefineBlock : public ::testing::TestWithParam<std::pair<uint32_t, uint32_t>> {};

// The PTX on ptxsim: the fused plan writes the unfused plan's bytes (windows cut by the grid's edge included).
TEST_P(RefineBlock, ThePtxBlockWritesTheUnfusedBytes) {
    std::string why;
    const upscaler::CudaFunctions* cuda = upscaler::test::cpu_backend_cuda(&why);
    ASSERT_NE(cuda, nullptr) << why;
    ASSERT_TRUE(upscaler::test::open_context(*cuda));
    const auto [w, h] = GetParam();
    const Model model = nettest::random_model(5);
    const std::vector<uint16_t> image = nettest::test_image(w, h, 4);
    auto unfused = trace_forward(*cuda, model, image, w, h);
    ASSERT_TRUE(unfused) << unfused.error().text();
    auto fused = trace_forward(*cuda, model, image, w, h, kernel_ptx, kFused);
    ASSERT_TRUE(fused) << fused.error().text();
    expect_blocks_match(*unfused, *fused, 0);
}

// The host kernels (the C++ reference and the CPU accuracy set) run the fused plan to the same bytes.
TEST_P(RefineBlock, TheHostKernelsRunTheFusedPlanToTheSameBytes) {
    const auto [w, h] = GetParam();
    const Model model = nettest::random_model(6);
    const Geometry g = geometry_for(w, h);
    const std::vector<uint8_t> weights = pack_weights(model);
    auto pass = [&](PlanOptions options) {
        std::vector<uint16_t> image = nettest::test_image(w, h, 2);
        std::vector<uint64_t> scratch(scratch_layout(g).total / 8 + 1, 0);
        for (const Launch& l : plan_forward(g, reinterpret_cast<uint64_t>(image.data()), w * 8,
                                            reinterpret_cast<uint64_t>(weights.data()),
                                            reinterpret_cast<uint64_t>(scratch.data()), model.arch, nullptr, options))
            run_launch(l, 2);
        return image;
    };
    const std::vector<uint16_t> unfused = pass({}), fused = pass(kFused);
    EXPECT_TRUE(unfused == fused);
    EXPECT_FALSE(unfused == nettest::test_image(w, h, 2)) << "the network should change the image";
}

// The fast sm_90 kernel (its PTX on ptxsim, on its persistent grid as on a GPU) within 60 dB.
TEST_P(RefineBlock, TheFastSm90BlockStaysWithin60DbOfThePtxPath) {
    std::string why;
    const FastPtx* fast = fast_ptx(&why);
    if (!fast) GTEST_SKIP() << why;
    const upscaler::CudaFunctions* cuda = upscaler::test::cpu_backend_cuda(&why);
    ASSERT_NE(cuda, nullptr) << why;
    ASSERT_TRUE(upscaler::test::open_context(*cuda));
    const auto [w, h] = GetParam();
    const Model model = nettest::random_model(8);
    const std::vector<uint16_t> image = nettest::test_image(w, h, 5);
    auto unfused = trace_forward(*cuda, model, image, w, h);
    ASSERT_TRUE(unfused) << unfused.error().text();
    auto fused = trace_forward(
        *cuda, model, image, w, h,
        [&](Kernel k) {
            return k == Kernel::Block || k == Kernel::CoarseBlock ? std::string_view(fast->block) : kernel_ptx(k);
        },
        kFused);
    ASSERT_TRUE(fused) << fused.error().text();
    expect_blocks_match(*unfused, *fused, 60.0);
    EXPECT_FALSE(unfused->back().bytes == fused->back().bytes) << "f32 accumulators gave the f16 chain's bytes";
}

// The fast block on a persistent grid of 3 blocks (each block walking several windows, each window's stream rows
// fetched during the window before) writes the bytes of the grid it asks for (a window a block at this size). refine-v1
// at 72x40: 6 windows of its fine blocks, 2 of its coarse level of 64 channels (whose fine rows are fetched when the
// window starts: they do not fit over its layernorm rows).
class RefineBlockGrid : public FastSm90On<> {};

TEST_F(RefineBlockGrid, TheFastSm90BlockGivesTheSameBytesOnAnyPersistentGrid) {
    const Model model = nettest::random_model(9);
    const std::vector<uint16_t> image = nettest::test_image(72, 40, 6);
    auto run = [&](const std::string& block) {
        return trace_forward(
            *cuda, model, image, 72, 40,
            [&](Kernel k) {
                return k == Kernel::Block || k == Kernel::CoarseBlock ? std::string_view(block) : kernel_ptx(k);
            },
            kFused);
    };
    auto asked = run(fast->block);
    ASSERT_TRUE(asked) << asked.error().text();
    for (uint32_t blocks : {3u}) {
        const std::string narrow = with_grid_x(fast->block, blocks);
        ASSERT_FALSE(narrow.empty());
        auto walked = run(narrow);
        ASSERT_TRUE(walked) << walked.error().text();
        ASSERT_EQ(asked->size(), walked->size());
        for (size_t i = 0; i < asked->size(); ++i)
            EXPECT_TRUE((*asked)[i].bytes == (*walked)[i].bytes) << blocks << " blocks: " << (*asked)[i].layer;
    }
}

// 72x40: a grid of 18 x 10 tokens (windows cut on both sides); 40x24: 10 x 6.
INSTANTIATE_TEST_SUITE_P(Sizes, RefineBlock, ::testing::Values(std::pair{72u, 40u}, std::pair{40u, 24u}),
                         [](const auto& info) { return fmt::format("{}x{}", info.param.first, info.param.second); });
