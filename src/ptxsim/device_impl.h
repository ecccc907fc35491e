// ptxsim internals: the Device's allocation table, its texture/surface object registry and its pool of
// worker threads.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "ptxsim/exec.h"
#include "ptxsim/ptxsim.h"
#include "ptxsim/texture.h"

namespace d4r::ptxsim {

// Persistent worker threads: run(n, job) calls job(0..n-1) on n threads and waits for all of them.
class WorkerPool {
public:
    ~WorkerPool();
    void run(unsigned n, const std::function<void(unsigned)>& job);

private:
    void loop(unsigned index);

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::vector<std::thread> m_threads;
    const std::function<void(unsigned)>* m_job = nullptr;
    unsigned m_wanted = 0;
    unsigned m_remaining = 0;
    uint64_t m_generation = 0;
    bool m_stop = false;
};

struct Device::Impl {
    mutable std::shared_mutex mutex;
    std::map<uint64_t, uint64_t> allocations; // base -> size: owned allocations and foreign ranges
    std::set<uint64_t> foreign;               // bases in `allocations` the device does not own
    uint64_t bytes = 0;
    // Freed allocations whose addresses stay reserved (PROT_NONE, no memory behind them), oldest first:
    // base -> mapped bytes. See Device::free.
    std::deque<std::pair<uint64_t, uint64_t>> quarantine;
    uint64_t quarantine_bytes = 0;
    std::mutex launch_mutex; // one launch at a time per device
    WorkerPool pool;
    ImageRegistry images; // arrays, texture and surface objects (texture.h)

    // The live allocations, sorted by base.
    std::vector<MemRange> snapshot() const;
    // The allocation holding [address, address + bytes), or an error naming the address.
    Expected<MemRange> find(uint64_t address, uint64_t bytes, const char* what) const;
};

} // namespace d4r::ptxsim
