// The init gate (runtime/init_gate.h): over a backend d4r initialised itself, calls made before the
// application's cuInit answer CUDA_ERROR_NOT_INITIALIZED, as NVIDIA's driver does without d4r (seen on the
// H200: api_groups under a native kernel folder got a device count before its cuInit); the calls the driver
// answers before cuInit pass through, and after a successful cuInit everything does.
#include <gtest/gtest.h>

#include "cpu_test_util.h"
#include "runtime/init_gate.h"
#include "runtime/refusal.h"
#include "runtime_fixture.h"
#include "test_support.h"

namespace d4r::runtime::cpu_test {
namespace {

TEST(InitGate, CallsBeforeTheApplicationsCuInitAreNotInitialized) {
    auto runtime = rt_test::install_fresh_runtime();
    ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS); // the backend itself is initialised, as d4r's probe leaves it
    ApiTable gated = make_init_gate_table(*runtime, api());

    int count = -1;
    clear_refusal();
    EXPECT_EQ(gated.cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(take_refusal(), "cuDeviceGetCount: cuInit has not been called");
    CUcontext ctx = nullptr;
    EXPECT_EQ(gated.cuCtxGetCurrent(&ctx), CUDA_ERROR_NOT_INITIALIZED);

    int version = 0;
    EXPECT_EQ(gated.cuDriverGetVersion(&version), CUDA_SUCCESS);
    EXPECT_GT(version, 0);
    const char* text = nullptr;
    EXPECT_EQ(gated.cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &text), CUDA_SUCCESS);
    EXPECT_STREQ(text, "CUDA_ERROR_INVALID_VALUE");
    EXPECT_EQ(gated.cuGetProcAddress, api().cuGetProcAddress);
    EXPECT_EQ(gated.cuGetExportTable, api().cuGetExportTable);

    EXPECT_NE(gated.cuInit(7), CUDA_SUCCESS); // a refused cuInit leaves the gate closed
    EXPECT_EQ(gated.cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(gated.cuInit(0), CUDA_SUCCESS);
    EXPECT_EQ(gated.cuDeviceGetCount(&count), CUDA_SUCCESS);
    EXPECT_GE(count, 1);
}

// Over the cpu backend d4r never calls cuInit itself (its native target needs no device query): no gate.
TEST(InitGate, NotBuiltWhereD4rDidNotInitialiseTheBackend) {
    d4r::test::TempDir empty_set;
    auto runtime = rt_test::install_fresh_runtime(MapEnvironment{{"D4R_NATIVE_KERNEL_DIR", empty_set.path().string()}});
    ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS);
    int count = -1;
    EXPECT_EQ(runtime->table().cuDeviceGetCount(&count), CUDA_SUCCESS);
}

} // namespace
} // namespace d4r::runtime::cpu_test
