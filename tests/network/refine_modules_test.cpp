// The refine kernels' two PTX modules (docs/network.md, "The FP8 layers"): refine.ptx targets sm_80 and holds no
// FP8, d4r_nn_linear_fp8 is alone in refine_fp8.ptx (sm_89), kernel_ptx() names the module of each kernel, and a
// RefinePipeline loads only the modules its model's plan needs: an f16 model never loads refine_fp8.ptx, so it
// still runs where FP8 mma does not compile (sm_80/sm_86, a backend without it).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cuda_env.h"
#include "harness.h"
#include "network/plan.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"

using namespace d4r;
using namespace d4r::network;

namespace {

std::vector<std::string> entries(std::string_view ptx) {
    std::vector<std::string> names;
    const std::string_view mark = ".visible .entry ";
    for (size_t at = ptx.find(mark); at != std::string_view::npos; at = ptx.find(mark, at + 1)) {
        const size_t begin = at + mark.size();
        names.emplace_back(ptx.substr(begin, ptx.find('(', begin) - begin));
    }
    return names;
}

// What cuModuleLoadData was given, through the cpu backend's table: the embedded modules by name.
std::vector<std::string> g_loaded;
d4r::abi::PFN_cuModuleLoadData g_load = nullptr;
d4r::abi::CUresult recording_load(d4r::abi::CUmodule* module, const void* image) {
    const char* text = static_cast<const char*>(image);
    g_loaded.emplace_back(text == refine_ptx().data()         ? "refine.ptx"
                          : text == refine_fp8_ptx().data()   ? "refine_fp8.ptx"
                          : text == refine_v2_ptx().data()    ? "refine_v2.ptx"
                          : text == refine_block_ptx().data() ? "refine_block.ptx"
                                                              : "another module");
    return g_load(module, image);
}

// The cpu backend's functions (its context current) with cuModuleLoadData replaced by LOAD, which passes on to
// g_load; nothing, with a failure recorded, when the backend does not open.
std::optional<upscaler::CudaFunctions> cpu_loading_with(d4r::abi::PFN_cuModuleLoadData load) {
    std::string why;
    const upscaler::CudaFunctions* cpu = upscaler::test::cpu_backend_cuda(&why);
    EXPECT_NE(cpu, nullptr) << why;
    if (!cpu || !upscaler::test::open_context(*cpu)) return std::nullopt;
    upscaler::CudaFunctions cuda = *cpu;
    g_load = cpu->cuModuleLoadData;
    cuda.cuModuleLoadData = load;
    g_loaded.clear();
    return cuda;
}

std::vector<std::string> modules_loaded_by_a_pipeline(std::string_view arch) {
    const std::optional<upscaler::CudaFunctions> cuda = cpu_loading_with(recording_load);
    if (!cuda) return {};
    auto pipeline = RefinePipeline::create(*cuda, nettest::random_model_of(7, arch), 16, 16);
    EXPECT_TRUE(pipeline) << pipeline.error().text();
    return g_loaded;
}

} // namespace

TEST(RefineModules, RefinePtxIsSm80WithoutFp8AndTheFp8EntryIsAloneInItsSm89Module) {
    const std::string_view f16 = refine_ptx(), fp8 = refine_fp8_ptx();
    EXPECT_NE(f16.find("\n.target sm_80\n"), std::string_view::npos);
    EXPECT_EQ(f16.find("e4m3"), std::string_view::npos);
    EXPECT_EQ(f16.find("d4r_nn_linear_fp8"), std::string_view::npos);
    EXPECT_NE(fp8.find("\n.target sm_89\n"), std::string_view::npos);
    EXPECT_NE(fp8.find("e4m3"), std::string_view::npos);
    EXPECT_EQ(entries(fp8), std::vector<std::string>{"d4r_nn_linear_fp8"});
    const std::string_view v2 = refine_v2_ptx();
    EXPECT_NE(v2.find("\n.target sm_80\n"), std::string_view::npos);
    EXPECT_EQ(entries(v2),
              (std::vector<std::string>{"d4r_nn_pixel_features", "d4r_nn_linear_wide", "d4r_nn_pixel_blend"}));
    const std::string_view block = refine_block_ptx();
    EXPECT_NE(block.find("\n.target sm_80\n"), std::string_view::npos);
    EXPECT_EQ(entries(block), (std::vector<std::string>{"d4r_nn_block", "d4r_nn_coarse_block", "d4r_nn_pixel_embed",
                                                        "d4r_nn_pixel_head"}));
    std::vector<std::string> rest;
    for (Kernel k : kAllKernels) {
        const bool pixel = k == Kernel::PixelFeatures || k == Kernel::PixelBlend || k == Kernel::LinearWide;
        const bool fused =
            k == Kernel::Block || k == Kernel::CoarseBlock || k == Kernel::PixelEmbed || k == Kernel::PixelHead;
        EXPECT_EQ(kernel_ptx(k).data(), k == Kernel::LinearFp8 ? fp8.data()
                                        : pixel                ? v2.data()
                                        : fused                ? block.data()
                                                               : f16.data())
            << kernel_name(k);
        if (k != Kernel::LinearFp8 && !fused && !pixel) rest.emplace_back(kernel_name(k));
    }
    std::vector<std::string> defined = entries(f16);
    std::sort(defined.begin(), defined.end());
    std::sort(rest.begin(), rest.end());
    EXPECT_EQ(defined, rest);
}

// Each pipeline also loads refine_block.ptx, last, to ask libd4rcuda whether d4r_nn_block is native (plan.h's fused
// layout; docs/network.md "Fused blocks").
TEST(RefineModules, AnF16ModelsPipelineLoadsRefinePtx) {
    EXPECT_EQ(modules_loaded_by_a_pipeline(kArchRefineV1),
              (std::vector<std::string>{"refine.ptx", "refine_block.ptx"}));
}

TEST(RefineModules, AnFp8ModelsPipelineLoadsBothModules) {
    EXPECT_EQ(modules_loaded_by_a_pipeline(kArchRefineV1Fp8),
              (std::vector<std::string>{"refine.ptx", "refine_fp8.ptx", "refine_block.ptx"}));
}

TEST(RefineModules, ARefineV2ModelsPipelineLoadsRefinePtxAndItsPixelModule) {
    EXPECT_EQ(modules_loaded_by_a_pipeline(kArchRefineV2),
              (std::vector<std::string>{"refine.ptx", "refine_v2.ptx", "refine_block.ptx"}));
}

TEST(RefineModules, ARefineV2Fp8ModelsPipelineLoadsAllThreeModules) {
    EXPECT_EQ(modules_loaded_by_a_pipeline(kArchRefineV2Fp8),
              (std::vector<std::string>{"refine.ptx", "refine_fp8.ptx", "refine_v2.ptx", "refine_block.ptx"}));
}

// A block module that does not load (a backend that cannot compile it) leaves the unfused plan: the pipeline is
// made and refines.
bool g_block_refused = false;
d4r::abi::CUresult refusing_block_load(d4r::abi::CUmodule* module, const void* image) {
    if (static_cast<const char*>(image) != refine_block_ptx().data()) return g_load(module, image);
    g_block_refused = true;
    return d4r::abi::CUDA_ERROR_INVALID_PTX;
}

TEST(RefineModules, ABlockModuleThatDoesNotLoadLeavesTheUnfusedPlan) {
    const std::optional<upscaler::CudaFunctions> cuda = cpu_loading_with(refusing_block_load);
    ASSERT_TRUE(cuda);
    g_block_refused = false;
    auto pipeline = RefinePipeline::create(*cuda, nettest::random_model_of(7, kArchRefineV1), 16, 16);
    ASSERT_TRUE(pipeline) << pipeline.error().text();
    EXPECT_TRUE(g_block_refused) << "the pipeline never asked for the block module";
    d4r::abi::CUdeviceptr image = 0;
    ASSERT_EQ(cuda->cuMemAlloc_v2(&image, 16 * 16 * 8), d4r::abi::CUDA_SUCCESS);
    ASSERT_EQ(cuda->cuMemsetD8_v2(image, 0, 16 * 16 * 8), d4r::abi::CUDA_SUCCESS);
    Status s = (*pipeline)->refine(image, 0, 16, 16, nullptr);
    EXPECT_TRUE(s) << s.error().text();
    EXPECT_EQ(cuda->cuCtxSynchronize(), d4r::abi::CUDA_SUCCESS);
    cuda->cuMemFree_v2(image);
}

// Over a CUDA library without d4rFuncIsNative (NVIDIA's), there is nothing to ask: the block module is not loaded.
TEST(RefineModules, WithoutD4rFuncIsNativeTheBlockModuleIsNotLoaded) {
    std::optional<upscaler::CudaFunctions> cuda = cpu_loading_with(recording_load);
    ASSERT_TRUE(cuda);
    cuda->d4rFuncIsNative = nullptr;
    auto pipeline = RefinePipeline::create(*cuda, nettest::random_model_of(7, kArchRefineV1), 16, 16);
    ASSERT_TRUE(pipeline) << pipeline.error().text();
    EXPECT_EQ(g_loaded, std::vector<std::string>{"refine.ptx"});
}
