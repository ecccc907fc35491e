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
    bool exited = m_state->cv.wait_for(lock, std::chrono::milliseconds(kJoinTimeoutMs), [&] { return m_state->exited; });
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
        {
            std::lock_guard job_lock(job->mutex);
            job->result = std::move(result);
            job->done = true;
        }
        job->done_cv.notify_all();
        lock.lock();
    }
    state->exited = true;
    state->cv.notify_all();
}

Status CudaWorker::run(const std::string& name, std::function<Status()> task, unsigned timeout_ms) {
    auto job = std::make_shared<Job>();
    job->name = name;
    job->task = std::move(task);
    {
        std::lock_guard lock(m_state->mutex);
        if (m_state->stop) return make_error(ErrorCode::Internal, "{}: the CUDA worker is shutting down", name);
        if (!m_thread) m_thread = std::make_unique<std::thread>(&CudaWorker::loop, m_state);
        m_state->jobs.push_back(job);
    }
    m_state->cv.notify_all();

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
        log::error("shim: {} did not finish within {} ms: given up (it finishes in the background)", name,
                   timeout_ms);
        return make_error(ErrorCode::Io, "{}{}{} ms", name, kTimedOut, timeout_ms);
    }
    return std::move(job->result);
}

size_t CudaWorker::pending() const {
    std::lock_guard lock(m_state->mutex);
    return m_state->jobs.size() + m_state->running;
}

} // namespace d4r::shim
