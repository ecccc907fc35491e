// The cpu backend's launch watchdog: D4R_CPU_WATCHDOG_MS stops a kernel that never ends with
// CUDA_ERROR_LAUNCH_TIMEOUT (what a display GPU's watchdog gives); the context then answers that error as
// a sticky fault. The variable is read once per process, so the case runs in a fresh process (a death
// test in "threadsafe" style re-runs the test binary).
#include <cstdlib>

#include "cpu_test_util.h"

namespace d4r::runtime::cpu_test {
namespace {

const char* kSpin = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry spin()\n{\n"
                    "  .reg .b32 %r<2>;\nLOOP:\n  add.s32 %r1, %r1, 1;\n  bra.uni LOOP;\n}\n";

int endless_kernel_answer() {
    setenv("D4R_CPU_WATCHDOG_MS", "300", 1);
    CUfunction f = fresh_process_kernel(kSpin, "spin");
    if (!f) return 100;
    if (api().cuLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr)) return 101;
    CUresult sync = api().cuCtxSynchronize();
    CUdeviceptr p = 0;
    CUresult after = api().cuMemAlloc_v2(&p, 16); // sticky, as after any fault
    return sync == CUDA_ERROR_LAUNCH_TIMEOUT && after == CUDA_ERROR_LAUNCH_TIMEOUT ? 0 : 1;
}

TEST(CpuWatchdog, AnEndlessKernelTimesOutWhenTheWatchdogIsOn) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(std::_Exit(endless_kernel_answer()), ::testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace d4r::runtime::cpu_test
