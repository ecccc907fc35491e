// The PTX JIT's compile cache on disk (jit/kernel_cache.h): entries stored and loaded by key, damaged, short,
// foreign-format and foreign-key entries refused (said in the log, removed), the folder kept within its bound by
// evicting the least recently used entries, an unwritable folder said once, and the settings the environment gives.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/log.h"
#include "core/sha256.h"
#include "jit/kernel_cache.h"
#include "test_support.h"

namespace d4r::jit {
namespace {

namespace fs = std::filesystem;

struct LogCapture {
    test::TempDir dir;
    fs::path file = dir.path() / "log.txt";
    LogCapture() { EXPECT_TRUE(log::set_file(file.string()).ok()); }
    ~LogCapture() { log::set_stderr(); }
    std::string text() const { return test::read_file_text(file); }
};

CacheKey key_of(const std::string& kernel) {
    KeyParts parts{jit_version(), "19.1.7", "x86_64-pc-linux-gnu", "znver4", "+avx2,+fma", "warp default<O2>", kernel};
    return make_key(parts);
}

std::vector<uint8_t> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

std::vector<uint8_t> read_all(const fs::path& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void write_all(const fs::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The entry's checksum (its last 32 bytes) made right again after a change before it.
void reseal(std::vector<uint8_t>& entry) {
    const size_t body = entry.size() - 32;
    Sha256 sha;
    sha.update(std::span(entry.data(), body));
    const auto digest = sha.finish();
    std::memcpy(entry.data() + body, digest.data(), 32);
}

TEST(KernelCache, AStoredEntryLoadsBackUnderItsKeyOnly) {
    test::TempDir dir;
    KernelCache cache({dir.path() / "ptx-jit", 1 << 20});
    const CacheKey a = key_of("kernel a\n"), b = key_of("kernel b\n");
    EXPECT_FALSE(cache.load(a)); // nothing yet
    cache.store(a, bytes_of("object of a"));
    EXPECT_TRUE(fs::is_regular_file(cache.entry_path(a)));
    EXPECT_EQ(cache.entry_path(a).filename().string(), a.digest + ".jit");
    auto loaded = cache.load(a);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(*loaded, bytes_of("object of a"));
    EXPECT_FALSE(cache.load(b));
    // A second cache on the same folder (another process) finds it too; a store replaces the entry.
    KernelCache other({dir.path() / "ptx-jit", 1 << 20});
    other.store(a, bytes_of("object of a, again"));
    EXPECT_EQ(*cache.load(a), bytes_of("object of a, again"));
    const KernelCache::Counters c = cache.counters();
    EXPECT_EQ(c.stored, 1u);
    EXPECT_EQ(c.hits, 2u);
    EXPECT_EQ(c.misses, 2u);
    EXPECT_EQ(c.refused, 0u);
    // Nothing but the entry: the temporary file it was written to was renamed.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path() / "ptx-jit"), fs::directory_iterator()), 1);
}

TEST(KernelCache, DamagedShortForeignFormatAndForeignKeyEntriesAreRefusedRemovedAndSaid) {
    test::TempDir dir;
    KernelCache cache({dir.path(), 1 << 20});
    const CacheKey key = key_of("kernel\n");
    struct Case {
        const char* name;
        void (*spoil)(std::vector<uint8_t>&);
        const char* said;
    };
    const Case cases[] = {
        {"a flipped bit", [](std::vector<uint8_t>& e) { e[e.size() / 2] ^= 0x10; }, "checksum mismatch"},
        {"cut short", [](std::vector<uint8_t>& e) { e.resize(e.size() - 7); }, "where the header says"},
        {"empty", [](std::vector<uint8_t>& e) { e.clear(); }, "shorter than a header"},
        {"not an entry", [](std::vector<uint8_t>& e) { e[0] = 'X'; }, "magic"},
        {"another entry format",
         [](std::vector<uint8_t>& e) {
             e[8] = 99;
             reseal(e);
         },
         "entry format 99, this d4r reads 1"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        cache.store(key, bytes_of("payload"));
        std::vector<uint8_t> entry = read_all(cache.entry_path(key));
        c.spoil(entry);
        write_all(cache.entry_path(key), entry);
        LogCapture log;
        EXPECT_FALSE(cache.load(key));
        const std::string text = log.text();
        EXPECT_NE(text.find("PTX JIT cache: refused '" + cache.entry_path(key).string() + "': "), std::string::npos)
            << text;
        EXPECT_NE(text.find(c.said), std::string::npos) << text;
        EXPECT_FALSE(fs::exists(cache.entry_path(key))); // removed: the next compile stores it anew
    }
    // An entry of another key under this key's name (a digest names the file, the key's text proves it).
    const CacheKey other = key_of("another kernel\n");
    cache.store(other, bytes_of("payload"));
    fs::rename(cache.entry_path(other), cache.entry_path(key));
    LogCapture log;
    EXPECT_FALSE(cache.load(key));
    EXPECT_NE(log.text().find("written for another key"), std::string::npos) << log.text();
    EXPECT_EQ(cache.counters().refused, std::size(cases) + 1);
    // And one the caller could not use.
    cache.store(key, bytes_of("payload"));
    cache.refuse(key, "LLVM did not link it");
    EXPECT_NE(log.text().find("LLVM did not link it; the kernel is compiled again"), std::string::npos);
    EXPECT_FALSE(fs::exists(cache.entry_path(key)));
}

TEST(KernelCache, TheFolderKeepsWithinItsBoundTheLeastRecentlyUsedGoingFirst) {
    test::TempDir dir;
    const std::vector<uint8_t> payload(1000, 0xab);
    std::vector<CacheKey> keys;
    for (int i = 0; i < 5; ++i) keys.push_back(key_of("kernel " + std::to_string(i) + "\n"));
    // Room for three entries, not four.
    KernelCache probe({dir.path() / "probe", 1 << 20});
    probe.store(keys[0], payload);
    const uint64_t entry = fs::file_size(probe.entry_path(keys[0]));
    KernelCache cache({dir.path() / "cache", 3 * entry + entry / 2});
    const auto t0 = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (int i = 0; i < 3; ++i) {
        cache.store(keys[i], payload);
        fs::last_write_time(cache.entry_path(keys[i]), t0 + std::chrono::minutes(i)); // stored in this order
    }
    // Entry 0 is used now: entry 1 is the least recently used.
    ASSERT_TRUE(cache.load(keys[0]));
    cache.store(keys[3], payload);
    EXPECT_TRUE(fs::exists(cache.entry_path(keys[0])));
    EXPECT_FALSE(fs::exists(cache.entry_path(keys[1])));
    EXPECT_TRUE(fs::exists(cache.entry_path(keys[2])));
    EXPECT_TRUE(fs::exists(cache.entry_path(keys[3])));
    EXPECT_EQ(cache.counters().evicted, 1u);
    uint64_t total = 0;
    for (const auto& e : fs::directory_iterator(dir.path() / "cache")) total += e.file_size();
    EXPECT_LE(total, cache.settings().max_bytes);
    // An entry larger than the whole bound is not kept at all.
    KernelCache tiny({dir.path() / "tiny", entry / 2});
    tiny.store(keys[4], payload);
    EXPECT_FALSE(fs::exists(tiny.entry_path(keys[4])));
    // A temporary file left by a process that died while writing is removed once it is old.
    const fs::path stale = dir.path() / "cache" / ".dead.jit.tmp-abcdef";
    write_all(stale, payload);
    fs::last_write_time(stale, t0);
    cache.store(keys[4], payload);
    EXPECT_FALSE(fs::exists(stale));
}

TEST(KernelCache, AFolderThatCannotBeWrittenIsSaidOnceAndNothingFails) {
    test::TempDir dir;
    const fs::path file = dir.write("not-a-folder", "x");
    KernelCache cache({file / "ptx-jit", 1 << 20});
    const CacheKey key = key_of("kernel\n");
    LogCapture log;
    cache.store(key, bytes_of("payload"));
    cache.store(key_of("another\n"), bytes_of("payload"));
    EXPECT_FALSE(cache.load(key));
    EXPECT_FALSE(cache.counters().writable);
    EXPECT_EQ(cache.counters().stored, 0u);
    const std::string text = log.text();
    const std::string said = "PTX JIT cache: cannot write to '" + (file / "ptx-jit").string() + "'";
    const size_t first = text.find(said);
    EXPECT_NE(first, std::string::npos) << text;
    EXPECT_EQ(text.find(said, first + 1), std::string::npos) << "said more than once: " << text;
}

TEST(KernelCache, CachesSharingAFolderNeverSeeHalfAnEntry) {
    // Four writers and readers on one folder (as the processes of a test run are), the bound small enough that
    // entries are evicted under them: every load answers nothing or a whole payload, never a refusal.
    d4r::test::TempDir dir;
    std::vector<CacheKey> keys;
    for (int i = 0; i < 8; ++i) keys.push_back(key_of("kernel " + std::to_string(i) + "\n"));
    auto payload_of = [](size_t k) { return std::vector<uint8_t>(20000 + k * 1000, static_cast<uint8_t>(k)); };
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    std::vector<std::unique_ptr<KernelCache>> caches;
    for (int t = 0; t < 4; ++t) caches.push_back(std::make_unique<KernelCache>(CacheSettings{dir.path(), 120000}));
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 40; ++round) {
                const size_t k = static_cast<size_t>(round * 5 + t) % keys.size();
                if (round % 3 == 0) {
                    caches[size_t(t)]->store(keys[k], payload_of(k));
                } else if (auto loaded = caches[size_t(t)]->load(keys[k]); loaded && *loaded != payload_of(k)) {
                    ++wrong;
                }
            }
        });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
    uint64_t evicted = 0, hits = 0;
    for (const auto& cache : caches) {
        EXPECT_EQ(cache->counters().refused, 0u);
        EXPECT_TRUE(cache->counters().writable);
        evicted += cache->counters().evicted;
        hits += cache->counters().hits;
    }
    EXPECT_GT(evicted, 0u); // the bound was in play
    EXPECT_GT(hits, 0u);    // and loads found entries
    uint64_t total = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        EXPECT_TRUE(e.path().extension() == ".jit") << e.path(); // no temporary file left behind
        total += e.file_size();
    }
    EXPECT_LE(total, 120000u); // each store evicts after its rename, so the last eviction saw every entry
}

TEST(KernelCache, SettingsComeFromTheEnvironment) {
    auto settings = [](std::map<std::string, std::string> vars) { return cache_settings(MapEnvironment(vars)); };
    // The folder: the cache base's d4r/ptx-jit (D4R_ZLUDA_CACHE_HOME, else XDG_CACHE_HOME, else HOME/.cache, else
    // /tmp), or D4R_CPU_JIT_CACHE_DIR itself.
    EXPECT_EQ(settings({{"HOME", "/home/u"}})->dir, "/home/u/.cache/d4r/ptx-jit");
    EXPECT_EQ(settings({{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "/xdg"}})->dir, "/xdg/d4r/ptx-jit");
    EXPECT_EQ(settings({{"XDG_CACHE_HOME", "/xdg"}, {"D4R_ZLUDA_CACHE_HOME", "/games/cache"}})->dir,
              "/games/cache/d4r/ptx-jit");
    EXPECT_EQ(settings({})->dir, "/tmp/d4r/ptx-jit");
    EXPECT_EQ(settings({{"D4R_ZLUDA_CACHE_HOME", "/c"}, {"D4R_CPU_JIT_CACHE_DIR", "/fast/jit"}})->dir, "/fast/jit");
    // The bound: 256 MiB unless set; 0 turns the cache off.
    EXPECT_EQ(settings({})->max_bytes, 256ull << 20);
    EXPECT_TRUE(settings({})->enabled());
    EXPECT_EQ(settings({{"D4R_CPU_JIT_CACHE_SIZE", "64M"}})->max_bytes, 64ull << 20);
    EXPECT_FALSE(settings({{"D4R_CPU_JIT_CACHE_SIZE", "0"}})->enabled());
    {
        LogCapture log;
        EXPECT_EQ(settings({{"D4R_CPU_JIT_CACHE_SIZE", "lots"}})->max_bytes, 256ull << 20);
        EXPECT_NE(log.text().find("D4R_CPU_JIT_CACHE_SIZE='lots' is not a size in bytes"), std::string::npos)
            << log.text();
    }
    // A relative folder is refused, naming where it came from.
    auto relative = settings({{"D4R_CPU_JIT_CACHE_DIR", "cache/jit"}});
    ASSERT_FALSE(relative);
    EXPECT_NE(relative.error().message().find("D4R_CPU_JIT_CACHE_DIR 'cache/jit' is not an absolute path"),
              std::string::npos);
    auto relative_base = settings({{"D4R_ZLUDA_CACHE_HOME", "rel"}});
    ASSERT_FALSE(relative_base);
    EXPECT_NE(relative_base.error().message().find("D4R_ZLUDA_CACHE_HOME"), std::string::npos);
}

} // namespace
} // namespace d4r::jit
