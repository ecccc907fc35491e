// Refusal reasons (runtime/refusal.h): recorded per thread, taken once, and printed by the trace beside
// the refused call's result.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/log.h"
#include "runtime/refusal.h"
#include "runtime/runtime.h"
#include "runtime_fixture.h"

namespace d4r::runtime {
namespace {

using namespace d4r::abi;

CUresult refusing_init(unsigned flags) {
    D4R_CU_INVALID_IF(flags != 0, CUDA_ERROR_INVALID_VALUE, "cuInit: flags {} are not 0", flags);
    return CUDA_SUCCESS;
}

TEST(Refusal, TheReasonIsTakenOncePerThread) {
    clear_refusal();
    EXPECT_EQ(refusing_init(0), CUDA_SUCCESS);
    EXPECT_EQ(take_refusal(), "");
    EXPECT_EQ(refusing_init(3), CUDA_ERROR_INVALID_VALUE);
    std::string other = "unset";
    std::thread([&] { other = take_refusal(); }).join();
    EXPECT_EQ(other, ""); // another thread's refusal is not this one's
    EXPECT_EQ(take_refusal(), "cuInit: flags 3 are not 0");
    EXPECT_EQ(take_refusal(), "");
}

// The reason lives in a fixed per-thread buffer (usable while the process exits): a longer one is cut and
// says so; a shorter one after it is whole again.
TEST(Refusal, ALongReasonIsCutAndMarked) {
    clear_refusal();
    const std::string lng(2000, 'x');
    EXPECT_EQ(refuse_text(CUDA_ERROR_INVALID_VALUE, lng), CUDA_ERROR_INVALID_VALUE);
    const std::string got = take_refusal();
    ASSERT_EQ(got.size(), 511u);
    EXPECT_EQ(got.substr(0, 508), lng.substr(0, 508));
    EXPECT_EQ(got.substr(508), "...");
    EXPECT_EQ(refuse_text(CUDA_ERROR_INVALID_HANDLE, std::string(511, 'y')), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(take_refusal(), std::string(511, 'y'));
    refuse_text(CUDA_ERROR_INVALID_VALUE, "short");
    clear_refusal();
    EXPECT_EQ(take_refusal(), "");
}

TEST(Refusal, TheTracePrintsItBesideTheResult) {
    ApiTable inner{};
    inner.cuInit = &refusing_init;
    auto runtime = rt_test::install_fresh_runtime();
    ApiTable traced = make_trace_table(*runtime, inner);
    const std::string path = ::testing::TempDir() + "d4r_refusal_trace.log";
    std::remove(path.c_str());
    ASSERT_TRUE(log::set_file(path));
    log::Level before = log::level();
    log::set_level(log::Level::Info);
    EXPECT_EQ(traced.cuInit(5), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(traced.cuInit(0), CUDA_SUCCESS);
    log::set_level(before);
    log::set_stderr();
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("CUDA_TRACE cuInit(Flags=5) = CUDA_ERROR_INVALID_VALUE (cuInit: flags 5 are not 0)"),
              std::string::npos)
        << text.str();
    EXPECT_NE(text.str().find("CUDA_TRACE cuInit(Flags=0) = CUDA_SUCCESS\n"), std::string::npos) << text.str();
}

} // namespace
} // namespace d4r::runtime
