// cpu backend: the memory budget (issue 14, item 9). Allocations beyond what the process can hold are
// CUDA_ERROR_OUT_OF_MEMORY instead of an OOM kill while they are zero-filled, and cuMemGetInfo tells the
// truth. Tested with the D4R_CPU_MEMORY_LIMIT cap, not with real memory pressure.
#include <unistd.h>

#include <string>

#include "core/env.h"
#include "cpu_test_util.h"
#include "runtime/backends/cpu/cpu_memory_budget.h"

namespace d4r::runtime::cpu_test {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

// Sets D4R_CPU_MEMORY_LIMIT for one test.
class CpuMemoryBudgetTest : public CpuBackendTest {
protected:
    void SetUp() override {
        set_env("D4R_CPU_MEMORY_LIMIT", "64M");
        CpuBackendTest::SetUp();
    }
    void TearDown() override {
        CpuBackendTest::TearDown();
        unset_env("D4R_CPU_MEMORY_LIMIT");
    }
    static void info(size_t& free_bytes, size_t& total) {
        ASSERT_EQ(api().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
    }
};

TEST(CpuMemoryBudgetSyntax, SizesWithSuffixes) {
    using cpu::parse_memory_size;
    EXPECT_EQ(parse_memory_size("6442450944"), 6442450944ull);
    EXPECT_EQ(parse_memory_size("6G"), 6ull << 30);
    EXPECT_EQ(parse_memory_size("512m"), 512ull << 20);
    EXPECT_EQ(parse_memory_size("4096K"), 4096ull << 10);
    EXPECT_EQ(parse_memory_size("2GiB"), 2ull << 30);
    EXPECT_EQ(parse_memory_size("1T"), 1ull << 40);
    EXPECT_EQ(parse_memory_size("0"), std::nullopt);
    EXPECT_EQ(parse_memory_size("lots"), std::nullopt);
    EXPECT_EQ(parse_memory_size("12Q"), std::nullopt);
    EXPECT_EQ(parse_memory_size("-5G"), std::nullopt);
    EXPECT_EQ(parse_memory_size("99999999999999999999"), std::nullopt);
    EXPECT_EQ(parse_memory_size("17179869184T"), std::nullopt); // 2^64 bytes
}

TEST_F(CpuMemoryBudgetTest, AllocationsBeyondTheBudgetAreOutOfMemory) {
    size_t free0 = 0, total = 0;
    info(free0, total);
    EXPECT_EQ(total, 64 * kMiB);
    EXPECT_LE(free0, total);
    EXPECT_GT(free0, 32 * kMiB); // the other tests leave (almost) nothing allocated

    CUdeviceptr big = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&big, 6ull << 30), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(api().cuMemAlloc_v2(&big, 65 * kMiB), CUDA_ERROR_OUT_OF_MEMORY);

    CUdeviceptr a = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&a, 16 * kMiB), CUDA_SUCCESS);
    size_t free1 = 0;
    info(free1, total);
    EXPECT_EQ(free1, free0 - 16 * kMiB); // free is the budget less what d4r holds
    // Up to the budget, and not a byte more: every allocating entry point.
    CUdeviceptr b = 0;
    ASSERT_EQ(api().cuMemAlloc_v2(&b, free1 - kMiB), CUDA_SUCCESS);
    CUdeviceptr c = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&c, 2 * kMiB), CUDA_ERROR_OUT_OF_MEMORY);
    void* host = nullptr;
    EXPECT_EQ(api().cuMemAllocHost_v2(&host, 2 * kMiB), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(api().cuMemHostAlloc(&host, 2 * kMiB, 0), CUDA_ERROR_OUT_OF_MEMORY);
    size_t pitch = 0;
    EXPECT_EQ(api().cuMemAllocPitch_v2(&c, &pitch, 1024, 2048, 4), CUDA_ERROR_OUT_OF_MEMORY);
    CUDA_ARRAY_DESCRIPTOR ad{1024, 1024, CU_AD_FORMAT_FLOAT, 4}; // 16 MiB of texels
    CUarray arr = nullptr;
    EXPECT_EQ(api().cuArrayCreate_v2(&arr, &ad), CUDA_ERROR_OUT_OF_MEMORY);
    CUDA_ARRAY3D_DESCRIPTOR ad3{256, 256, 16, CU_AD_FORMAT_FLOAT, 1, 0}; // 4 MiB
    EXPECT_EQ(api().cuArray3DCreate_v2(&arr, &ad3), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(api().cuMemAllocManaged(&c, 2 * kMiB, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(api().cuMemAllocAsync(&c, 2 * kMiB, nullptr), CUDA_ERROR_OUT_OF_MEMORY);
    // What fits still fits.
    EXPECT_EQ(api().cuMemAlloc_v2(&c, 256 * 1024), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(c), CUDA_SUCCESS);

    EXPECT_EQ(api().cuMemFree_v2(b), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemFree_v2(a), CUDA_SUCCESS);
    size_t free2 = 0;
    info(free2, total);
    EXPECT_EQ(free2, free0);
    EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS); // nothing became sticky
}

TEST_F(CpuMemoryBudgetTest, ModuleVariablesCountAndAModuleTooLargeDoesNotLoad) {
    const std::string header = ".version 8.0\n.target sm_90\n.address_size 64\n";
    const std::string huge = header + ".global .align 8 .b8 huge[100000000];\n"; // 95 MiB
    CUmodule m = nullptr;
    EXPECT_EQ(api().cuModuleLoadData(&m, huge.c_str()), CUDA_ERROR_OUT_OF_MEMORY);
    char log[512] = {};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log))};
    EXPECT_EQ(api().cuModuleLoadDataEx(&m, huge.c_str(), 2, opts, values), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(log).find("memory budget"), std::string::npos) << log;

    size_t free0 = 0, total = 0;
    info(free0, total);
    const std::string small = header + ".global .align 8 .b8 table[8388608];\n"; // 8 MiB
    ASSERT_EQ(api().cuModuleLoadData(&m, small.c_str()), CUDA_SUCCESS);
    size_t free1 = 0;
    info(free1, total);
    EXPECT_EQ(free1, free0 - 8 * kMiB);
    EXPECT_EQ(api().cuModuleUnload(m), CUDA_SUCCESS);
    size_t free2 = 0;
    info(free2, total);
    EXPECT_EQ(free2, free0);
}

TEST_F(CpuMemoryBudgetTest, AMalformedCapIsIgnored) {
    set_env("D4R_CPU_MEMORY_LIMIT", "lots");
    size_t free_bytes = 0, total = 0;
    info(free_bytes, total);
    const uint64_t physical = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
    EXPECT_GT(total, 64 * kMiB);
    EXPECT_LE(total, physical);
    EXPECT_LE(free_bytes, total);
}

} // namespace
} // namespace d4r::runtime::cpu_test
