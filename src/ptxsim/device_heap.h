// ptxsim: the device heap behind malloc/free in kernels (and C++ new/delete, which nvcc compiles to calls of
// malloc and free). An allocator over one range of device memory the caller owns and keeps alive while
// kernels may use it (the cpu backend: one Device allocation per context, sized by CU_LIMIT_MALLOC_HEAP_SIZE).
// Kernels' accesses are bounds-checked against that whole range, as they are against any allocation.
//
// Promise, as CUDA's in-kernel malloc: blocks are 16-byte aligned (or the alignment asked for), distinct while
// live, and stay valid across launches until freed; a request that does not fit answers 0 (NULL). Thread-safe:
// every worker of a launch may allocate and free at once.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

namespace d4r::ptxsim {

class DeviceHeap {
public:
    // Manages [BASE, BASE + BYTES); BASE must be 16-byte aligned.
    DeviceHeap(uint64_t base, uint64_t bytes);
    DeviceHeap(const DeviceHeap&) = delete;
    DeviceHeap& operator=(const DeviceHeap&) = delete;

    // A block of at least BYTES (a request of 0 gets the smallest block) aligned to ALIGNMENT (a power of two;
    // 16 at least); 0 when no free range can hold it or ALIGNMENT is not a power of two.
    uint64_t allocate(uint64_t bytes, uint64_t alignment = kMinAlignment);
    // Frees the block at ADDRESS; false (nothing changes) when ADDRESS is not a live block's address.
    bool release(uint64_t address);

    uint64_t base() const { return m_base; }
    uint64_t size() const { return m_size; }
    uint64_t used_bytes() const;
    size_t live_blocks() const;

    static constexpr uint64_t kMinAlignment = 16;

private:
    uint64_t m_base, m_size;
    mutable std::mutex m_mutex;
    std::map<uint64_t, uint64_t> m_free;           // offset -> bytes, coalesced
    std::unordered_map<uint64_t, uint64_t> m_live; // offset -> bytes
    uint64_t m_used = 0;
};

} // namespace d4r::ptxsim
