// d4r's PTX JIT: the compile cache on disk (docs/ptx-front-end.md, "The compile cache"), so that a program's second
// start loads the code its first start compiled instead of compiling again.
//
// Promise: one file per key (kernel_key.h) in one folder, named by the key's digest. A file holds a magic, the entry
// format, the key's whole text, the payload and a SHA-256 of all that; load() answers the payload only when every
// part checks out and the key's text is the one asked for, and refuses anything else (short, damaged, another format,
// another key) with a warning naming the file and what is wrong, removing it, so that the caller compiles and stores it
// anew. Files are written whole or not at all (a temporary file renamed over the entry), so processes sharing the
// folder never read half a file. The folder holds at most max_bytes of entries: a store that goes past it removes
// the least recently used entries (a load marks its entry used). A folder that cannot be made or written is said
// once in the log and the cache then only reads; the JIT works without it. Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/status.h"
#include "jit/kernel_key.h"

namespace d4r::jit {

inline constexpr uint64_t kDefaultCacheBytes = 256ull << 20;
inline constexpr const char* kCacheFolder = "d4r/ptx-jit"; // under the cache base (core/cache_dir.h)
inline constexpr const char* kCacheSuffix = ".jit";

struct CacheSettings {
    std::filesystem::path dir; // empty: no cache
    uint64_t max_bytes = kDefaultCacheBytes;
    bool enabled() const { return !dir.empty() && max_bytes > 0; }
};

// From the environment: D4R_CPU_JIT_CACHE_DIR, else the cache base's d4r/ptx-jit folder; D4R_CPU_JIT_CACHE_SIZE
// bytes (0: no cache). A base that cannot be used (a relative path) is an error naming where it came from.
Expected<CacheSettings> cache_settings(const Environment& env);

class KernelCache {
public:
    explicit KernelCache(CacheSettings settings);

    // The payload stored under KEY; nullopt when there is none or it was refused (then removed).
    std::optional<std::vector<uint8_t>> load(const CacheKey& key);
    // Stores PAYLOAD under KEY, replacing what was there, then keeps the folder within its bound.
    void store(const CacheKey& key, std::span<const uint8_t> payload);
    // An entry whose payload loaded but could not be used (the caller says WHY): warned about and removed.
    void refuse(const CacheKey& key, std::string_view why);

    std::filesystem::path entry_path(const CacheKey& key) const;
    const CacheSettings& settings() const { return m_settings; }

    struct Counters {
        uint64_t hits = 0, misses = 0, refused = 0, stored = 0, evicted = 0;
        bool writable = true; // false once a write failed (logged once)
    };
    Counters counters() const;

private:
    void refuse_locked(const std::filesystem::path& path, std::string_view why);
    void write_failed(const std::string& why);
    void evict();

    CacheSettings m_settings;
    mutable std::mutex m_mutex;
    Counters m_counters;
    bool m_dir_made = false;
};

} // namespace d4r::jit
