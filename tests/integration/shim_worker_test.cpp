// The shim's CUDA worker (src/shim/cuda_worker.h), on Linux: a task that outlives its wait is given up
// (Timeout) and counts as stuck until it ends; tasks queued behind it wait for it; `post` does not wait;
// `wait_below` is bounded; the worker's destructor does not wait forever for a stuck task.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>

#include "shim/cuda_worker.h"

using namespace d4r;
using namespace d4r::shim;

namespace {

auto now() { return std::chrono::steady_clock::now(); }
long long ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now() - t).count();
}

} // namespace

TEST(ShimWorker, RunsTasksInOrderAndReturnsTheirResult) {
    CudaWorker worker;
    int order = 0;
    EXPECT_TRUE(
        worker.run("first", [&] { return order++ == 0 ? Status{} : make_error(ErrorCode::Internal, "order"); }));
    Status s = worker.run("second", [&]() -> Status { return make_error(ErrorCode::Invalid, "refused {}", order); });
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code(), ErrorCode::Invalid);
    EXPECT_FALSE(is_timeout(s.error()));
    EXPECT_FALSE(worker.stuck());
    EXPECT_EQ(worker.pending(), 0u);
}

TEST(ShimWorker, AStuckTaskIsGivenUpAndNothingWaitsForItForever) {
    auto release = std::make_shared<std::promise<void>>();
    std::shared_future<void> released = release->get_future().share();
    auto posted_ran = std::make_shared<std::atomic<bool>>(false);
    {
        CudaWorker worker;
        auto t = now();
        Status s = worker.run(
            "the stuck task",
            [released]() -> Status {
                released.wait();
                return {};
            },
            100);
        ASSERT_FALSE(s);
        EXPECT_TRUE(is_timeout(s.error()));
        EXPECT_GE(ms_since(t), 90);
        EXPECT_TRUE(worker.stuck());
        EXPECT_EQ(worker.pending(), 1u);

        // Queued behind it: a posted task is not waited for (post returns while the stuck task still runs: it is
        // released only further down, so a post that waited would never return), and the in-flight wait is
        // bounded.
        worker.post("posted", [posted_ran]() -> Status {
            *posted_ran = true;
            return {};
        });
        EXPECT_FALSE(*posted_ran);
        EXPECT_EQ(worker.pending(), 2u);
        t = now();
        EXPECT_FALSE(worker.wait_below(2, 100));
        EXPECT_GE(ms_since(t), 90);
        EXPECT_FALSE(*posted_ran);

        // Once the stuck task ends, everything behind it runs and the worker is no longer stuck.
        release->set_value();
        EXPECT_TRUE(worker.wait_below(1, 5000));
        EXPECT_TRUE(*posted_ran);
        EXPECT_FALSE(worker.stuck());
        EXPECT_TRUE(worker.run("after", [] { return Status{}; }));
    }
}

TEST(ShimWorker, DestroyingAWorkerStuckForGoodReturns) {
    // The task blocks until the test ends; the destructor gives up after kJoinTimeoutMs and detaches.
    static std::promise<void> never;
    static std::shared_future<void> blocked = never.get_future().share();
    auto t = now();
    {
        CudaWorker worker;
        Status s = worker.run(
            "blocked",
            []() -> Status {
                blocked.wait();
                return {};
            },
            50);
        EXPECT_TRUE(!s && is_timeout(s.error()));
    }
    EXPECT_LT(ms_since(t), kJoinTimeoutMs + 2000);
    never.set_value(); // lets the detached thread end
}
