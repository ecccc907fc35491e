// cpu backend: destroying a context releases what it owned, so a program that creates and destroys
// contexts does not grow (the API fuzzer, which destroys every context after each input, grew by the
// texels of every 1D/2D array left to its context's destruction: ptxsim kept them).
#include "cpu_test_util.h"

#include "ptxsim/ptxsim_texture.h"
#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu_test {
namespace {

TEST(CpuContextRelease, ArraysLeftToTheContextAreFreed) {
    ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    ASSERT_EQ(api().cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    CUDA_ARRAY_DESCRIPTOR d{256, 256, CU_AD_FORMAT_FLOAT, 4};
    CUarray kept = nullptr, destroyed = nullptr;
    ASSERT_EQ(api().cuArrayCreate_v2(&kept, &d), CUDA_SUCCESS);
    ASSERT_EQ(api().cuArrayCreate_v2(&destroyed, &d), CUDA_SUCCESS);
    // The texels live in ptxsim (1D and 2D arrays): its handle of each.
    const uint64_t kept_sim = reinterpret_cast<cpu::Array*>(kept)->sim;
    const uint64_t destroyed_sim = reinterpret_cast<cpu::Array*>(destroyed)->sim;
    ASSERT_NE(kept_sim, 0u);
    ptxsim::Device& device = cpu::state().device;
    EXPECT_TRUE(ptxsim::array_desc(device, kept_sim).ok());
    ASSERT_EQ(api().cuArrayDestroy(destroyed), CUDA_SUCCESS);
    EXPECT_FALSE(ptxsim::array_desc(device, destroyed_sim).ok());
    ASSERT_EQ(api().cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
    EXPECT_FALSE(ptxsim::array_desc(device, kept_sim).ok()); // gone with its context
    EXPECT_EQ(api().cuArrayDestroy(kept), CUDA_ERROR_INVALID_HANDLE);
}

} // namespace
} // namespace d4r::runtime::cpu_test
