// d4r NGX shim: the one thread that makes every CUDA call (and every call into the NGX core).
//
// Promise: tasks run one at a time, in submission order, on a single thread that lives from the first
// submit until the worker is destroyed; a CUDA context made current there stays current for every later
// task. `run` waits for its task at most TIMEOUT: a task that takes longer is reported as stalled (after
// kStallLogMs, one log line naming it) and then abandoned (the caller gets Timeout and the task still
// finishes on the worker later; whatever it touches must outlive it, so tasks own their data through
// shared pointers). Nothing here throws to the caller: an exception inside a task is its Error.
// Destroying the worker waits for the thread at most kJoinTimeoutMs and otherwise leaves it running,
// detached, so that releasing the feature or unloading the shim never waits forever.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/status.h"

namespace d4r::shim {

inline constexpr unsigned kStallLogMs = 200;      // a task this slow is said in the log
inline constexpr unsigned kGiveUpMs = 5000;       // and given up after this long
inline constexpr unsigned kJoinTimeoutMs = 2000;  // the longest shutdown waits for the thread
// Init and CreateFeature load and compile the core's kernels, which takes long on the cpu backend.
inline constexpr unsigned kSetupTimeoutMs = 120000;

// True for the error `run` gives when it stopped waiting (the task may still be running).
bool is_timeout(const Error& error);

class CudaWorker {
public:
    CudaWorker() = default;
    ~CudaWorker();
    CudaWorker(const CudaWorker&) = delete;
    CudaWorker& operator=(const CudaWorker&) = delete;

    // Runs TASK on the worker and waits for it (up to TIMEOUT_MS). NAME says what it is in log lines.
    Status run(const std::string& name, std::function<Status()> task, unsigned timeout_ms = kGiveUpMs);
    // Tasks queued or running (an abandoned task counts until it ends).
    size_t pending() const;

private:
    struct Job {
        std::string name;
        std::function<Status()> task;
        std::mutex mutex;
        std::condition_variable done_cv;
        bool done = false;
        Status result;
    };
    // Shared with the thread, so that a thread left running at destruction never meets freed memory.
    struct State {
        std::mutex mutex;
        std::condition_variable cv;
        std::deque<std::shared_ptr<Job>> jobs;
        size_t running = 0;
        bool stop = false;
        bool exited = false;
    };
    static void loop(std::shared_ptr<State> state);

    std::shared_ptr<State> m_state = std::make_shared<State>();
    std::unique_ptr<std::thread> m_thread;
};

} // namespace d4r::shim
