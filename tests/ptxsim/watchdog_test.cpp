// The launch watchdog (LaunchConfig::watchdog_ms): a kernel that never ends is stopped after the given
// wall time as BudgetExceeded, on one worker or several, alone or with an instruction budget; a kernel
// that ends in time is not disturbed.
#include <gtest/gtest.h>

#include <chrono>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

const char* kSpin = R"(
.visible .entry spin()
{
  .reg .b32 %r<2>;
LOOP:
  add.s32 %r1, %r1, 1;
  bra.uni LOOP;
}
)";

TEST(PtxsimWatchdog, StopsAnEndlessKernelAfterItsTime) {
    auto m = load_ok(ptx(kSpin));
    ASSERT_TRUE(m);
    Device dev;
    for (unsigned workers : {1u, 2u}) {
        auto cfg = config({8}, {64}, workers);
        cfg.watchdog_ms = 200;
        LaunchFault fault;
        auto start = std::chrono::steady_clock::now();
        auto r = launch(dev, kernel_of(*m, "spin"), cfg, {}, &fault);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(fault.kind, FaultKind::BudgetExceeded);
        EXPECT_NE(r.error().text().find("stopped by the watchdog after 200 ms"), std::string::npos) << r.error().text();
        EXPECT_GE(seconds, 0.19);
        EXPECT_LT(seconds, 30.0); // stopped, not run forever (generous: CI machines are loaded)
    }
    // With an instruction budget too, whichever comes first stops it: here the budget.
    auto cfg = config({1}, {32}, 1);
    cfg.watchdog_ms = 60000;
    cfg.instruction_budget = 1000;
    LaunchFault fault;
    auto r = launch(dev, kernel_of(*m, "spin"), cfg, {}, &fault);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().text().find("budget of 1000"), std::string::npos) << r.error().text();
}

TEST(PtxsimWatchdog, KernelsThatEndInTimeAreNotDisturbed) {
    auto m = load_ok(ptx(".visible .entry small(.param .u64 p)\n{\n  .reg .b64 %rd<2>;\n  .reg .b32 %r<2>;\n"
                         "  ld.param.u64 %rd1, [p];\n  mov.u32 %r1, 7;\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n"));
    ASSERT_TRUE(m);
    Device dev;
    auto out = upload(dev, std::vector<uint32_t>{0});
    auto cfg = config({1}, {32}, 1);
    cfg.watchdog_ms = 5000;
    uint64_t arg = out;
    auto start = std::chrono::steady_clock::now();
    auto r = launch(dev, kernel_of(*m, "small"), cfg, std::span<const uint8_t>(reinterpret_cast<uint8_t*>(&arg), 8));
    ASSERT_TRUE(r.ok()) << r.error().text();
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 4.0); // no wait
    EXPECT_EQ(download<uint32_t>(dev, out, 1)[0], 7u);
}

} // namespace
} // namespace d4r::ptxsim::test
