// The refine kernels' PTX on ptxsim (build/lib/libcuda.so.1, cpu backend, native kernels off) computes the C++
// reference's bytes: launch by launch over a whole forward pass (so a difference names its layer), and the
// RefinePipeline end to end, for refine-v1 and refine-v1-fp8 test models. Images whose token grids end in partial
// windows.
#include <gtest/gtest.h>

#include <algorithm>

#include "cuda_env.h"
#include "harness.h"
#include "network/host_kernels.h"
#include "network/plan.h"
#include "network/reference.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"

using namespace d4r;
using namespace d4r::network;
using d4r::upscaler::CudaFunctions;

namespace {

// One allocation: weights | scratch | image, the same offsets on the device and the host.
struct Buffers {
    uint64_t weights = 0, scratch = 0, image = 0, total = 0;
};
Buffers buffers_for(const Geometry& g, uint64_t weight_bytes, uint64_t image_bytes) {
    Buffers b;
    b.scratch = weight_bytes;
    b.image = b.scratch + scratch_layout(g).total;
    b.total = b.image + image_bytes;
    return b;
}

#define CU(call) ASSERT_EQ((call), d4r::abi::CUDA_SUCCESS) << #call

// Every launch of a forward pass of random_model(seed, fp8) over a w x h image on ptxsim and on the host.
void check_every_launch(uint32_t w, uint32_t h, uint64_t seed, bool fp8) {
    std::string why;
    const CudaFunctions* cuda = upscaler::test::cpu_backend_cuda(&why);
    ASSERT_NE(cuda, nullptr) << why;
    ASSERT_TRUE(upscaler::test::open_context(*cuda));
    const Geometry g = geometry_for(w, h);
    const Model model = nettest::random_model(seed, fp8);
    const std::vector<uint8_t> weights = pack_weights(model);
    const std::vector<uint16_t> image = nettest::test_image(w, h, 3);
    const Buffers b = buffers_for(g, weights.size(), image.size() * 2);

    std::vector<uint64_t> host_words(b.total / 8 + 1, 0);
    uint8_t* host = reinterpret_cast<uint8_t*>(host_words.data());
    std::memcpy(host + b.weights, weights.data(), weights.size());
    std::memcpy(host + b.image, image.data(), image.size() * 2);
    d4r::abi::CUdeviceptr dev = 0;
    CU(cuda->cuMemAlloc_v2(&dev, b.total));
    CU(cuda->cuMemcpyHtoD_v2(dev, host, b.total));
    // The modules of the plan's kernels (kernel_ptx): refine.ptx, and refine_fp8.ptx for the fp8 model.
    d4r::abi::CUmodule module = nullptr, fp8_module = nullptr;
    CU(cuda->cuModuleLoadData(&module, refine_ptx().data()));
    if (fp8) {
        CU(cuda->cuModuleLoadData(&fp8_module, refine_fp8_ptx().data()));
    }
    std::array<d4r::abi::CUfunction, kAllKernels.size()> fn{};
    for (Kernel k : plan_kernels(model.arch))
        CU(cuda->cuModuleGetFunction(&fn[size_t(k)], kernel_ptx(k) == refine_ptx() ? module : fp8_module,
                                     kernel_name(k)));

    const uint32_t pitch = w * 8;
    const auto base = reinterpret_cast<uint64_t>(host);
    std::vector<Launch> on_host =
        plan_forward(g, base + b.image, pitch, base + b.weights, base + b.scratch, model.arch);
    std::vector<Launch> on_dev = plan_forward(g, dev + b.image, pitch, dev + b.weights, dev + b.scratch, model.arch);
    ASSERT_EQ(on_host.size(), on_dev.size());
    EXPECT_EQ(on_host.size(), 2 + 3 * 7 + 2 + 2 + 2); // patchify+embed, 3 blocks, merge, expand, head+unpatchify
    const auto fp8_launches =
        std::count_if(on_dev.begin(), on_dev.end(), [](const Launch& l) { return l.kernel == Kernel::LinearFp8; });
    EXPECT_EQ(fp8_launches, fp8 ? 4 : 0); // enc2's qkv, proj, fc1, fc2
    std::vector<uint8_t> back(b.total);
    for (size_t i = 0; i < on_dev.size(); ++i) {
        const Launch& l = on_dev[i];
        void* args[] = {const_cast<uint8_t*>(l.params.data())};
        CU(cuda->cuLaunchKernel(fn[size_t(l.kernel)], l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                l.block[2], 0, nullptr, args, nullptr));
        CU(cuda->cuCtxSynchronize());
        run_launch(on_host[i], 2);
        CU(cuda->cuMemcpyDtoH_v2(back.data(), dev, b.total));
        size_t at = b.scratch;
        while (at < b.total && back[at] == host[at]) ++at;
        ASSERT_EQ(at, b.total) << "launch " << i << " (" << l.what << ", " << kernel_name(l.kernel)
                               << "): the PTX and the reference first differ at byte " << at - b.scratch
                               << " of the work buffers and image";
    }
    // The pass did something: the image changed, and not into NaN.
    std::vector<uint16_t> out(image.size());
    std::memcpy(out.data(), host + b.image, image.size() * 2);
    size_t changed = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        changed += out[i] != image[i];
        ASSERT_FALSE((out[i] & 0x7c00u) == 0x7c00u && (out[i] & 0x3ffu)) << "NaN at element " << i;
    }
    EXPECT_GT(changed, out.size() / 2);
    cuda->cuModuleUnload(module);
    if (fp8_module) cuda->cuModuleUnload(fp8_module);
    cuda->cuMemFree_v2(dev);
}

} // namespace

// Fine grid 18 x 10: windows 3 x 2, the last column and row partial.
TEST(RefinePtx, EveryLaunchOfAForwardPassGivesTheReferenceBytes) { check_every_launch(72, 40, 7, false); }
// The refine-v1-fp8 test model: enc2's linears through d4r_nn_linear_fp8 (m16n8k32 e4m3) on ptxsim.
TEST(RefinePtx, EveryLaunchOfAnFp8ForwardPassGivesTheReferenceBytes) { check_every_launch(72, 40, 7, true); }
// Fine grid 12 x 6 (coarse 6 x 3): every window partial.
TEST(RefinePtx, EveryLaunchOfAnFp8ForwardPassGivesTheReferenceBytes44x20) { check_every_launch(44, 20, 11, true); }

namespace {

// The pipeline on random_model(seed, fp8), against the reference.
void check_pipeline(uint64_t seed, bool fp8) {
    std::string why;
    const CudaFunctions* cuda = upscaler::test::cpu_backend_cuda(&why);
    ASSERT_NE(cuda, nullptr) << why;
    ASSERT_TRUE(upscaler::test::open_context(*cuda));
    const uint32_t w = 44, h = 20, pad = 3; // fine grid 12 x 6; rows with a pitch of 47 pixels
    const Model model = nettest::random_model(seed, fp8);
    const std::vector<uint16_t> packed = nettest::test_image(w + pad, h, 5);
    auto pipeline = RefinePipeline::create(*cuda, model, 64, 64);
    ASSERT_TRUE(pipeline) << pipeline.error().text();
    d4r::abi::CUdeviceptr dev = 0;
    CU(cuda->cuMemAlloc_v2(&dev, packed.size() * 2));
    CU(cuda->cuMemcpyHtoD_v2(dev, packed.data(), packed.size() * 2));
    const size_t pitch = size_t(w + pad) * 8;
    Status s = (*pipeline)->refine(dev, pitch, w, h, nullptr);
    ASSERT_TRUE(s) << s.error().text();
    std::vector<uint16_t> got(packed.size());
    CU(cuda->cuCtxSynchronize());
    CU(cuda->cuMemcpyDtoH_v2(got.data(), dev, got.size() * 2));
    std::vector<uint16_t> want = packed;
    ASSERT_TRUE(refine_reference(model, want.data(), w, h, pitch));
    EXPECT_EQ(got, want);
    // The padding pixels of each row are not touched.
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = w; x < w + pad; ++x)
            for (int c = 0; c < 4; ++c) {
                size_t i = (size_t(y) * (w + pad) + x) * 4 + c;
                ASSERT_EQ(got[i], packed[i]) << "pixel " << x << "," << y;
            }
    EXPECT_FALSE((*pipeline)->refine(dev, pitch, 65, 10, nullptr)); // larger than created for
    cuda->cuMemFree_v2(dev);
}

} // namespace

TEST(RefinePtx, ThePipelineRefinesInPlaceAsTheReferenceDoes) { check_pipeline(11, false); }
TEST(RefinePtx, ThePipelineRunsAnFp8ModelAsTheReferenceDoes) { check_pipeline(11, true); }

TEST(RefineReference, AHeadOfZerosIsTheIdentity) {
    Model model = nettest::random_model(5);
    for (Tensor& t : model.tensors)
        if (t.name.starts_with("head.")) std::fill(t.data.begin(), t.data.end(), 0);
    const std::vector<uint16_t> image = nettest::test_image(24, 16, 9);
    std::vector<uint16_t> out = image;
    ASSERT_TRUE(refine_reference(model, out.data(), 24, 16));
    EXPECT_EQ(out, image);
}

TEST(RefineReference, TheResultDoesNotDependOnTheThreadCount) {
    const Model model = nettest::random_model(6);
    std::vector<uint16_t> one = nettest::test_image(40, 24, 1), two = one;
    ASSERT_TRUE(refine_reference(model, one.data(), 40, 24, 0, 1));
    ASSERT_TRUE(refine_reference(model, two.data(), 40, 24, 0, 3));
    EXPECT_EQ(one, two);
}
