// The device heap (device_heap.h): first fit over a free list kept sorted and coalesced. Blocks are whole
// multiples of 16 bytes; an aligned request leaves the gap before its block on the free list.
#include "ptxsim/device_heap.h"

#include <iterator>

namespace d4r::ptxsim {

namespace {

constexpr uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

} // namespace

DeviceHeap::DeviceHeap(uint64_t base, uint64_t bytes) : m_base(base), m_size(bytes & ~(kMinAlignment - 1)) {
    if (m_size) m_free.emplace(0, m_size);
}

uint64_t DeviceHeap::allocate(uint64_t bytes, uint64_t alignment) {
    if (alignment < kMinAlignment) alignment = kMinAlignment;
    if (alignment & (alignment - 1)) return 0;
    if (bytes > m_size) return 0;
    const uint64_t want = bytes == 0 ? kMinAlignment : round_up(bytes, kMinAlignment);
    std::lock_guard lock(m_mutex);
    for (auto it = m_free.begin(); it != m_free.end(); ++it) {
        const uint64_t start = it->first, end = it->first + it->second;
        // Alignment of the device address, not of the offset (the base is only 16-byte aligned).
        const uint64_t at = round_up(m_base + start, alignment) - m_base;
        if (at > end || end - at < want) continue;
        m_free.erase(it);
        if (at > start) m_free.emplace(start, at - start);
        if (end > at + want) m_free.emplace(at + want, end - at - want);
        m_live.emplace(at, want);
        m_used += want;
        return m_base + at;
    }
    return 0;
}

bool DeviceHeap::release(uint64_t address) {
    if (address < m_base) return false;
    std::lock_guard lock(m_mutex);
    auto live = m_live.find(address - m_base);
    if (live == m_live.end()) return false;
    uint64_t start = live->first, bytes = live->second;
    m_live.erase(live);
    m_used -= bytes;
    auto next = m_free.lower_bound(start);
    if (next != m_free.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == start) {
            start = prev->first;
            bytes += prev->second;
            m_free.erase(prev);
        }
    }
    if (next != m_free.end() && start + bytes == next->first) {
        bytes += next->second;
        m_free.erase(next);
    }
    m_free.emplace(start, bytes);
    return true;
}

uint64_t DeviceHeap::used_bytes() const {
    std::lock_guard lock(m_mutex);
    return m_used;
}

size_t DeviceHeap::live_blocks() const {
    std::lock_guard lock(m_mutex);
    return m_live.size();
}

} // namespace d4r::ptxsim
