// d4r NGX shim: the one thread that makes every CUDA call (and every call into the NGX core).
//
// Promise: tasks run one at a time, in submission order, on a single thread that lives from the first
// submit until the worker is destroyed; a CUDA context made current there stays current for every later
// task. `run` waits for its task at most TIMEOUT: a task that takes longer is reported as stalled (after
// kStallLogMs, one log line naming it) and then abandoned (the caller gets Timeout and the task still
// finishes on the worker later; whatever it touches must outlive it, so tasks own their data through
// shared pointers). Nothing here throws to the caller: an exception inside a task is its Error.
// `stuck` says whether a task given up on is still queued or running (then everything queued behind it
// waits too); `post` queues a task without waiting for it (what a release does on a stuck worker);
// `wait_below` lets a caller wait, bounded, until fewer than N tasks are outstanding (the in-flight limit).
// Destroying the worker waits for the thread at most kJoinTimeoutMs and otherwise leaves it running,
// detached, so that releasing the feature or unloading the shim never waits forever.
#pragma once

#include <atomic>
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

inline constexpr unsigned kStallLogMs = 200;     // a task this slow is said in the log
inline constexpr unsigned kGiveUpMs = 5000;      // and given up after this long
inline constexpr unsigned kJoinTimeoutMs = 2000; // the longest shutdown waits for the thread
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
    // Queues TASK and returns at once; its result is logged if it fails.
    void post(const std::string& name, std::function<Status()> task);
    // Tasks queued or running (an abandoned task counts until it ends).
    size_t pending() const;
    // True while a task that `run` gave up on has not ended.
    bool stuck() const;
    // Waits up to TIMEOUT_MS until fewer than LIMIT tasks are queued or running; false if that did not happen.
    bool wait_below(size_t limit, unsigned timeout_ms);

private:
    struct Job {
        std::string name;
        std::function<Status()> task;
        std::mutex mutex;
        std::condition_variable done_cv;
        bool done = false;
        bool abandoned = false; // `run` stopped waiting for it
        bool posted = false;    // nobody waits for it: its error is logged
        Status result;
    };
    // Shared with the thread, so that a thread left running at destruction never meets freed memory.
    struct State {
        std::mutex mutex;
        std::condition_variable cv;
        std::deque<std::shared_ptr<Job>> jobs;
        size_t running = 0;
        std::atomic<size_t> abandoned{0};
        bool stop = false;
        bool exited = false;
    };
    static void loop(std::shared_ptr<State> state);
    std::shared_ptr<Job> enqueue(const std::string& name, std::function<Status()> task, bool posted);

    std::shared_ptr<State> m_state = std::make_shared<State>();
    std::unique_ptr<std::thread> m_thread;
};

} // namespace d4r::shim
