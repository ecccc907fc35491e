// cudaGraphSetConditional in kernels: each active lane's call reaches LaunchConfig::set_conditional in lane order,
// and a launch without one (or a handle it refuses) stops naming the handle.
#include <mutex>
#include <vector>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim {
namespace {

const char* kSetConditional = R"(
.extern .func cudaGraphSetConditional(.param .b64 h, .param .b32 v);
.visible .entry setc(.param .u64 handle)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [handle];
    mov.u32 %r1, %tid.x;
    {
    .param .b64 p0;
    st.param.b64 [p0], %rd1;
    .param .b32 p1;
    st.param.b32 [p1], %r1;
    call.uni cudaGraphSetConditional, (p0, p1);
    }
    ret;
}
)";

TEST(PtxsimConditional, EachLaneSetsTheValueInLaneOrder) {
    Device dev;
    auto m = test::load_ok(test::ptx(kSetConditional));
    ASSERT_TRUE(m);
    const Kernel& k = test::kernel_of(*m, "setc");
    test::Params p(k);
    p.set(0, uint64_t(0xabc));
    LaunchConfig c = test::config({1, 1, 1}, {4, 1, 1});
    std::vector<std::pair<uint64_t, uint32_t>> calls;
    std::mutex mutex;
    c.set_conditional = [&](uint64_t h, uint32_t v) {
        std::lock_guard lock(mutex);
        calls.emplace_back(h, v);
        return true;
    };
    ASSERT_TRUE(launch(dev, k, c, p.bytes()).ok());
    ASSERT_EQ(calls.size(), 4u);
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(calls[i], std::make_pair(uint64_t(0xabc), i));
}

TEST(PtxsimConditional, AnUnknownHandleStopsTheLaunch) {
    Device dev;
    auto m = test::load_ok(test::ptx(kSetConditional));
    ASSERT_TRUE(m);
    const Kernel& k = test::kernel_of(*m, "setc");
    test::Params p(k);
    p.set(0, uint64_t(0xdead));
    LaunchFault fault;
    LaunchConfig c = test::config({1, 1, 1}, {1, 1, 1});
    EXPECT_FALSE(launch(dev, k, c, p.bytes(), &fault).ok()); // no callback at all
    EXPECT_EQ(fault.kind, FaultKind::IllegalInstruction);
    EXPECT_NE(fault.message.find("0xdead is not a conditional handle"), std::string::npos) << fault.message;
    c.set_conditional = [](uint64_t, uint32_t) { return false; };
    EXPECT_FALSE(launch(dev, k, c, p.bytes(), &fault).ok());
    EXPECT_NE(fault.message.find("0xdead"), std::string::npos) << fault.message;
}

} // namespace
} // namespace d4r::ptxsim
