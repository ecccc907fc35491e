// cuMemHostRegister takes only real memory: what is not mapped, a no-access page, or read-only memory
// without CU_MEMHOSTREGISTER_READ_ONLY is refused (issue 14: the API fuzzer found that such a registration
// crashed the next cuMemsetD8 of the range).
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

using CpuHostRegisterTest = CpuBackendTest;

TEST_F(CpuHostRegisterTest, OnlyRealMemoryIsRegistered) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    EXPECT_EQ(api().cuMemHostRegister_v2(reinterpret_cast<void*>(0x10), 64, 0), CUDA_ERROR_INVALID_VALUE);
    void* none = mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void* ro = mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(none, MAP_FAILED);
    ASSERT_NE(ro, MAP_FAILED);
    EXPECT_EQ(api().cuMemHostRegister_v2(none, page, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api().cuMemHostRegister_v2(ro, page, 0), CUDA_ERROR_INVALID_VALUE);
    // Read-only memory registered as such is fine.
    EXPECT_EQ(api().cuMemHostRegister_v2(ro, page, CU_MEMHOSTREGISTER_READ_ONLY), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemHostUnregister(ro), CUDA_SUCCESS);
    // Writable memory is registered and a memset of it works; a range that runs into a no-access page is not.
    void* two = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(two, MAP_FAILED);
    ASSERT_EQ(mprotect(static_cast<char*>(two) + page, page, PROT_NONE), 0);
    EXPECT_EQ(api().cuMemHostRegister_v2(two, 2 * page, 0), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api().cuMemHostRegister_v2(two, page, 0), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD8_v2(reinterpret_cast<CUdeviceptr>(two), 0x5a, page), CUDA_SUCCESS);
    EXPECT_EQ(static_cast<unsigned char*>(two)[page - 1], 0x5a);
    EXPECT_EQ(api().cuMemHostUnregister(two), CUDA_SUCCESS);
    munmap(two, 2 * page);
    munmap(ro, page);
    munmap(none, page);
}

} // namespace
} // namespace d4r::runtime::cpu_test
