// Device memory (a bounds-checked allocation table over aligned host memory) and the worker pool.
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "ptxsim/device_impl.h"

namespace d4r::ptxsim {

namespace {

constexpr uint64_t kAlign = 256;
// Bytes after every allocation that belong to no allocation, so that an access just past the end of
// one allocation is never inside the next one.
constexpr uint64_t kGuard = 256;
constexpr uint64_t kMaxAllocation = 1ull << 40;

} // namespace

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (std::thread& t : m_threads) t.join();
}

void WorkerPool::loop(unsigned index) {
    uint64_t seen = 0;
    for (;;) {
        const std::function<void(unsigned)>* job = nullptr;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop) return;
            seen = m_generation;
            if (index >= m_wanted) continue;
            job = m_job;
        }
        (*job)(index);
        {
            std::lock_guard lock(m_mutex);
            if (--m_remaining == 0) m_done.notify_all();
        }
    }
}

void WorkerPool::run(unsigned n, const std::function<void(unsigned)>& job) {
    if (n == 0) return;
    std::unique_lock lock(m_mutex);
    while (m_threads.size() < n) {
        unsigned index = static_cast<unsigned>(m_threads.size());
        m_threads.emplace_back([this, index] { loop(index); });
    }
    m_job = &job;
    m_wanted = n;
    m_remaining = n;
    ++m_generation;
    m_wake.notify_all();
    m_done.wait(lock, [&] { return m_remaining == 0; });
    m_job = nullptr;
}

std::vector<MemRange> Device::Impl::snapshot() const {
    std::shared_lock lock(mutex);
    std::vector<MemRange> out;
    out.reserve(allocations.size());
    for (auto& [base, size] : allocations) out.push_back({base, size});
    return out;
}

Expected<MemRange> Device::Impl::find(uint64_t address, uint64_t bytes, const char* what) const {
    std::shared_lock lock(mutex);
    auto it = allocations.upper_bound(address);
    if (it != allocations.begin()) {
        --it;
        uint64_t off = address - it->first;
        if (off <= it->second && bytes <= it->second - off) return MemRange{it->first, it->second};
    }
    return make_error(ErrorCode::Invalid, "{}: [0x{:x}, +{}) is not inside a live device allocation", what, address,
                      bytes);
}

Device::Device() : m_impl(std::make_unique<Impl>()) {}

Device::~Device() {
    for (auto& [base, size] : m_impl->allocations) std::free(reinterpret_cast<void*>(base));
}

Expected<DevicePtr> Device::alloc(uint64_t bytes) {
    if (bytes > kMaxAllocation) return make_error(ErrorCode::Invalid, "allocation of {} bytes is too large", bytes);
    uint64_t total = (bytes + kGuard + kAlign - 1) / kAlign * kAlign;
    void* p = std::aligned_alloc(kAlign, total);
    if (!p) return make_error(ErrorCode::Io, "out of host memory allocating {} bytes of device memory", bytes);
    std::memset(p, 0, total);
    std::unique_lock lock(m_impl->mutex);
    m_impl->allocations[reinterpret_cast<uint64_t>(p)] = bytes;
    m_impl->bytes += bytes;
    return reinterpret_cast<uint64_t>(p);
}

Status Device::free(DevicePtr ptr) {
    std::unique_lock lock(m_impl->mutex);
    auto it = m_impl->allocations.find(ptr);
    if (it == m_impl->allocations.end())
        return make_error(ErrorCode::Invalid, "free: 0x{:x} is not the start of a live device allocation", ptr);
    m_impl->bytes -= it->second;
    m_impl->allocations.erase(it);
    lock.unlock();
    std::free(reinterpret_cast<void*>(ptr));
    return ok_status();
}

Status Device::copy_to_device(DevicePtr dst, const void* src, uint64_t bytes) {
    D4R_TRY(m_impl->find(dst, bytes, "copy to device"));
    if (bytes) std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
    return ok_status();
}

Status Device::copy_to_host(void* dst, DevicePtr src, uint64_t bytes) const {
    D4R_TRY(m_impl->find(src, bytes, "copy to host"));
    if (bytes) std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
    return ok_status();
}

Status Device::copy_device(DevicePtr dst, DevicePtr src, uint64_t bytes) {
    D4R_TRY(m_impl->find(dst, bytes, "copy destination"));
    D4R_TRY(m_impl->find(src, bytes, "copy source"));
    if (bytes) std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
    return ok_status();
}

Status Device::memset(DevicePtr dst, uint8_t value, uint64_t bytes) {
    D4R_TRY(m_impl->find(dst, bytes, "memset"));
    if (bytes) std::memset(reinterpret_cast<void*>(dst), value, bytes);
    return ok_status();
}

uint64_t Device::allocated_bytes() const {
    std::shared_lock lock(m_impl->mutex);
    return m_impl->bytes;
}

size_t Device::allocation_count() const {
    std::shared_lock lock(m_impl->mutex);
    return m_impl->allocations.size();
}

} // namespace d4r::ptxsim
