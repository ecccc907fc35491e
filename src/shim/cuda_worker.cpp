// The shim's CUDA thread (cuda_worker.h).
#include "shim/cuda_worker.h"

#include <exception>

#include "core/log.h"

namespace d4r::shim {

namespace {
constexpr const char* kTimedOut = ": timed out after ";
}

bool is_timeout(const Error& error) { return error.message().find(kTimedOut) != std::string::npos; }

CudaWorker::~CudaWorker() {
    if (!m_thread) return;
    std::unique_lock lock(m_state->mutex);
    m_state->stop = true;
    m_state->cv.notify_all();
    bool exited =
        m_state->cv.wait_for(lock, std::chrono::milliseconds(kJoinTimeoutMs), [&] { return m_state->exited; });
    lock.unlock();
    if (exited) {
        m_thread->join();
    } else {
        log::warn("shim: the CUDA worker is still busy after {} ms at shutdown; left running", kJoinTimeoutMs);
        m_thread->detach();
    }
}

void CudaWorker::loop(std::shared_ptr<State> state) {
    std::unique_lock lock(state->mutex);
    for (;;) {
        state->cv.wait(lock, [&] { return state->stop || !state->jobs.empty(); });
        if (state->jobs.empty()) break; // stop, with nothing left to do
        std::shared_ptr<Job> job = std::move(state->jobs.front());
        state->jobs.pop_front();
        ++state->running;
        lock.unlock();
        Status result;
        try {
            result = job->task();
        } catch (const std::exception& e) {
            result = make_error(ErrorCode::Internal, "{}: exception: {}", job->name, e.what());
        } catch (...) {
            result = make_error(ErrorCode::Internal, "{}: unknown exception", job->name);
        }
        job->task = nullptr; // drops what the task holds, on this thread
        lock.lock();
        --state->running; // before the waiter wakes: it may ask pending() right away
        lock.unlock();
        bool abandoned = false;
        {
            std::lock_guard job_lock(job->mutex);
            if (job->posted && !result) log::warn("shim: {}", result.error().text());
            job->result = std::move(result);
            job->done = true;
            abandoned = job->abandoned;
        }
        job->done_cv.notify_all();
        if (abandoned) {
            --state->abandoned;
            log::info("shim: {} finished after all (it had been given up on)", job->name);
        }
        lock.lock();
        state->cv.notify_all(); // wait_below
    }
    state->exited = true;
    state->cv.notify_all();
}

std::shared_ptr<CudaWorker::Job> CudaWorker::enqueue(const std::string& name, std::function<Status()> task,
                                                     bool posted) {
    auto job = std::make_shared<Job>();
    job->name = name;
    job->task = std::move(task);
    job->posted = posted;
    {
        std::lock_guard lock(m_state->mutex);
        if (m_state->stop) return nullptr;
        if (!m_thread) m_thread = std::make_unique<std::thread>(&CudaWorker::loop, m_state);
        m_state->jobs.push_back(job);
    }
    m_state->cv.notify_all();
    return job;
}

void CudaWorker::post(const std::string& name, std::function<Status()> task) {
    if (!enqueue(name, std::move(task), true)) log::warn("shim: {}: the CUDA worker is shutting down; not run", name);
}

Status CudaWorker::run(const std::string& name, std::function<Status()> task, unsigned timeout_ms) {
    std::shared_ptr<Job> job = enqueue(name, std::move(task), false);
    if (!job) return make_error(ErrorCode::Internal, "{}: the CUDA worker is shutting down", name);

    const auto start = std::chrono::steady_clock::now();
    std::unique_lock job_lock(job->mutex);
    const unsigned first_wait = timeout_ms < kStallLogMs ? timeout_ms : kStallLogMs;
    if (!job->done_cv.wait_for(job_lock, std::chrono::milliseconds(first_wait), [&] { return job->done; })) {
        if (first_wait < timeout_ms) {
            log::warn("shim: {} has not finished after {} ms; waiting up to {} ms", name, kStallLogMs, timeout_ms);
            job->done_cv.wait_until(job_lock, start + std::chrono::milliseconds(timeout_ms), [&] { return job->done; });
        }
    }
    if (!job->done) {
        // Counted before the job's lock is let go, so the worker's decrement always comes after.
        job->abandoned = true;
        ++m_state->abandoned;
        log::error("shim: {} did not finish within {} ms: given up (it finishes in the background)", name, timeout_ms);
        return make_error(ErrorCode::Io, "{}{}{} ms", name, kTimedOut, timeout_ms);
    }
    return std::move(job->result);
}

size_t CudaWorker::pending() const {
    std::lock_guard lock(m_state->mutex);
    return m_state->jobs.size() + m_state->running;
}

bool CudaWorker::stuck() const { return m_state->abandoned.load() != 0; }

bool CudaWorker::wait_below(size_t limit, unsigned timeout_ms) {
    std::unique_lock lock(m_state->mutex);
    return m_state->cv.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                                [&] { return m_state->jobs.size() + m_state->running < limit; });
}

} // namespace d4r::shim
