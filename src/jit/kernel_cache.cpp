// The PTX JIT's compile cache on disk (see kernel_cache.h).
//
// An entry, little-endian:
//   0   8 bytes   magic "d4r-jit\n"
//   8   u32       the entry format (kFormat)
//   12  u32       K: the key text's bytes
//   16  u64       P: the payload's bytes
//   24  K bytes   the key's text (compared with the key asked for: a digest names a file, the text proves it)
//   .   P bytes   the payload (kernel_record.h)
//   .   32 bytes  SHA-256 of everything above
#include "jit/kernel_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/cache_dir.h"
#include "core/env_vars.h"
#include "core/files.h"
#include "core/log.h"
#include "core/sha256.h"
#include "core/strings.h"

namespace d4r::jit {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'d', '4', 'r', '-', 'j', 'i', 't', '\n'};
constexpr uint32_t kFormat = 1;
constexpr size_t kHeaderBytes = 24, kChecksumBytes = 32;
// A temporary file this old was left by a process that died while writing it.
constexpr auto kStaleTemporary = std::chrono::minutes(10);

template <class T>
void put(std::vector<uint8_t>& out, T v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), p, p + sizeof v);
}

template <class T>
T get(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Why BYTES is not the entry of KEY ("" when it is).
std::string check_entry(std::span<const uint8_t> bytes, const CacheKey& key) {
    if (bytes.size() < kHeaderBytes + kChecksumBytes)
        return fmt::format("{} bytes: shorter than a header", bytes.size());
    if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return "not a d4r PTX JIT cache entry (magic)";
    if (const auto format = get<uint32_t>(bytes.data() + 8); format != kFormat)
        return fmt::format("entry format {}, this d4r reads {}", format, kFormat);
    const uint64_t key_bytes = get<uint32_t>(bytes.data() + 12), payload = get<uint64_t>(bytes.data() + 16);
    const uint64_t room = bytes.size() - kHeaderBytes - kChecksumBytes;
    if (key_bytes > room || payload != room - key_bytes)
        return fmt::format("{} bytes where the header says {}", bytes.size(),
                           kHeaderBytes + kChecksumBytes + key_bytes + payload);
    const size_t body = bytes.size() - kChecksumBytes;
    Sha256 sha;
    sha.update(bytes.first(body));
    if (sha.finish() != get<std::array<uint8_t, 32>>(bytes.data() + body)) return "checksum mismatch (damaged)";
    if (std::string_view(reinterpret_cast<const char*>(bytes.data() + kHeaderBytes), key_bytes) != key.text)
        return "written for another key";
    return {};
}

} // namespace

Expected<CacheSettings> cache_settings(const Environment& env) {
    CacheSettings s;
    const EnvVarInfo& size_var = env_var_info(EnvVar::CpuJitCacheSize);
    std::string size_text = env_text(env, EnvVar::CpuJitCacheSize).value_or(std::string(size_var.default_value));
    if (auto bytes = parse_byte_size(trim(size_text))) {
        s.max_bytes = *bytes;
    } else {
        if (log::once("jit:cache-size"))
            log::warn("PTX JIT: {}='{}' is not {}: the default {} applies", size_var.name, size_text,
                      size_var.accepted_text(), size_var.default_value);
        s.max_bytes = kDefaultCacheBytes;
    }
    if (auto dir = env_text(env, EnvVar::CpuJitCacheDir)) {
        s.dir = *dir;
        if (s.dir.is_relative())
            return make_error(ErrorCode::Invalid, "{} '{}' is not an absolute path", env_name(EnvVar::CpuJitCacheDir),
                              *dir);
        return s;
    }
    const CacheBase base = D4R_TRY(cache_base_dir(env));
    s.dir = base.dir / kCacheFolder;
    return s;
}

KernelCache::KernelCache(CacheSettings settings) : m_settings(std::move(settings)) {}

fs::path KernelCache::entry_path(const CacheKey& key) const { return m_settings.dir / (key.digest + kCacheSuffix); }

KernelCache::Counters KernelCache::counters() const {
    std::lock_guard lock(m_mutex);
    return m_counters;
}

std::optional<std::vector<uint8_t>> KernelCache::load(const CacheKey& key) {
    std::lock_guard lock(m_mutex);
    const fs::path path = entry_path(key);
    if (!m_settings.enabled() || !is_file(path)) {
        ++m_counters.misses;
        return std::nullopt;
    }
    auto bytes = read_file(path, m_settings.max_bytes);
    if (!bytes && !is_file(path)) { // evicted by another process in between: a miss
        ++m_counters.misses;
        return std::nullopt;
    }
    if (!bytes) {
        refuse_locked(path, bytes.error().message());
        return std::nullopt;
    }
    if (std::string why = check_entry(*bytes, key); !why.empty()) {
        refuse_locked(path, why);
        return std::nullopt;
    }
    ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0); // used now: the last to be evicted
    ++m_counters.hits;
    const size_t key_bytes = key.text.size();
    return std::vector<uint8_t>(bytes->begin() + static_cast<ptrdiff_t>(kHeaderBytes + key_bytes),
                                bytes->end() - static_cast<ptrdiff_t>(kChecksumBytes));
}

void KernelCache::refuse(const CacheKey& key, std::string_view why) {
    std::lock_guard lock(m_mutex);
    refuse_locked(entry_path(key), why);
}

void KernelCache::refuse_locked(const fs::path& path, std::string_view why) {
    ++m_counters.refused;
    log::warn("PTX JIT cache: refused '{}': {}; the kernel is compiled again", path.string(), why);
    std::error_code ec;
    fs::remove(path, ec);
}

void KernelCache::write_failed(const std::string& why) {
    if (m_counters.writable)
        log::warn("PTX JIT cache: cannot write to '{}': {}; compiled kernels are not kept for the next start",
                  m_settings.dir.string(), why);
    m_counters.writable = false;
}

void KernelCache::store(const CacheKey& key, std::span<const uint8_t> payload) {
    std::lock_guard lock(m_mutex);
    if (!m_settings.enabled() || !m_counters.writable) return;
    const uint64_t size = kHeaderBytes + key.text.size() + payload.size() + kChecksumBytes;
    if (size > m_settings.max_bytes) {
        log::debug("PTX JIT cache: an entry of {} bytes does not fit the bound of {}", size, m_settings.max_bytes);
        return;
    }
    if (!m_dir_made) {
        std::error_code ec;
        fs::create_directories(m_settings.dir, ec);
        if (ec || !is_dir(m_settings.dir)) {
            write_failed(ec ? ec.message() : "not a folder");
            return;
        }
        m_dir_made = true;
    }
    std::vector<uint8_t> bytes;
    bytes.reserve(size);
    bytes.insert(bytes.end(), kMagic, kMagic + sizeof kMagic);
    put<uint32_t>(bytes, kFormat);
    put<uint32_t>(bytes, static_cast<uint32_t>(key.text.size()));
    put<uint64_t>(bytes, payload.size());
    bytes.insert(bytes.end(), key.text.begin(), key.text.end());
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    Sha256 sha;
    sha.update(bytes);
    const std::array<uint8_t, 32> digest = sha.finish();
    bytes.insert(bytes.end(), digest.begin(), digest.end());
    if (Status written = write_file_atomic(entry_path(key), bytes); !written) {
        write_failed(written.error().message());
        return;
    }
    ++m_counters.stored;
    evict();
}

// Keeps the entries within max_bytes, the least recently used (oldest modification time: a load touches its
// entry) removed first. Other processes may evict at the same time: a file already gone is skipped.
void KernelCache::evict() {
    struct Entry {
        fs::path path;
        uint64_t bytes = 0;
        fs::file_time_type used;
    };
    std::vector<Entry> entries;
    uint64_t total = 0;
    std::error_code ec;
    const auto now = fs::file_time_type::clock::now();
    for (fs::directory_iterator it(m_settings.dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e;
        const fs::path& path = it->path();
        const std::string name = path.filename().string();
        const auto used = fs::last_write_time(path, e);
        if (e || !it->is_regular_file(e)) continue;
        if (name.starts_with(".") && name.find(".tmp-") != std::string::npos) {
            if (now - used > kStaleTemporary) fs::remove(path, e);
            continue;
        }
        if (!name.ends_with(kCacheSuffix)) continue;
        const uint64_t bytes = it->file_size(e);
        if (e) continue;
        entries.push_back({path, bytes, used});
        total += bytes;
    }
    if (total <= m_settings.max_bytes) return;
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
    for (const Entry& entry : entries) {
        if (total <= m_settings.max_bytes) break;
        std::error_code e;
        if (fs::remove(entry.path, e)) ++m_counters.evicted;
        total -= entry.bytes;
    }
}

} // namespace d4r::jit
