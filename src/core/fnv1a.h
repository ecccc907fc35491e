// d4r core: FNV-1a 64, the hash that names PTX modules in kernel manifests (docs/runtime.md, "Native-kernel
// overrides").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace d4r {

inline constexpr uint64_t kFnv1a64OffsetBasis = 0xcbf29ce484222325ull;
inline constexpr uint64_t kFnv1a64Prime = 0x100000001b3ull;

// Incremental form: feed(bytes) any number of times, value() at the end.
class Fnv1a64 {
public:
    constexpr void feed(std::span<const uint8_t> bytes) {
        for (uint8_t b : bytes) {
            m_hash ^= b;
            m_hash *= kFnv1a64Prime;
        }
    }
    constexpr void feed(std::string_view text) {
        for (char c : text) {
            m_hash ^= static_cast<uint8_t>(c);
            m_hash *= kFnv1a64Prime;
        }
    }
    constexpr uint64_t value() const { return m_hash; }

private:
    uint64_t m_hash = kFnv1a64OffsetBasis;
};

constexpr uint64_t fnv1a64(std::string_view text) {
    Fnv1a64 h;
    h.feed(text);
    return h.value();
}

constexpr uint64_t fnv1a64(std::span<const uint8_t> bytes) {
    Fnv1a64 h;
    h.feed(bytes);
    return h.value();
}

} // namespace d4r
