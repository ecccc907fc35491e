// ContainerLimits: sizes and counts are refused before anything of that size is allocated.
//
// This file replaces the global operator new/delete (malloc/free underneath) so a test can see the
// largest single allocation made while it runs; the recording is off except inside those tests.
#include <atomic>
#include <cstdlib>
#include <new>

#include <gtest/gtest.h>

#include "container_test_support.h"
#include "ptx/container.h"
#include "ptx/decompress.h"

// GCC sees free() after inlining the delete below and takes it for a mismatch; both sides are malloc/free.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
std::atomic<bool> g_recording{false};
std::atomic<size_t> g_largest{0};
} // namespace

namespace {
void* counted_malloc(size_t size) noexcept {
    if (g_recording.load(std::memory_order_relaxed)) {
        size_t seen = g_largest.load(std::memory_order_relaxed);
        while (size > seen && !g_largest.compare_exchange_weak(seen, size)) {
        }
    }
    return std::malloc(size == 0 ? 1 : size);
}
} // namespace

// Every non-aligned form is replaced, so that no allocation from a sanitizer's or the library's own
// operator new meets our free() (the aligned forms keep their default pairing).
void* operator new(size_t size) {
    if (void* p = counted_malloc(size)) return p;
    throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept { return counted_malloc(size); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return counted_malloc(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace d4r::ptx {
namespace {

using test::fixture_bytes;

// Records the largest allocation made by FN.
template <typename Fn>
size_t largest_allocation(Fn&& fn) {
    g_largest = 0;
    g_recording = true;
    fn();
    g_recording = false;
    return g_largest;
}

TEST(ContainerLimitsTest, HugeUncompressedSizeIsRefusedWithoutAllocatingIt) {
    // The zstd entry's uncompressed size was set to 2^64 - 1 by make-malformed.py.
    const std::vector<uint8_t> bytes = fixture_bytes("malformed/fatbin-huge-uncompressed.fatbin");
    ContainerLimits limits;
    limits.max_module_bytes = 1 << 20;
    std::string text;
    size_t largest = largest_allocation([&] {
        auto modules = find_ptx_modules(bytes, limits);
        text = modules.ok() ? "ok" : modules.error().text();
    });
    EXPECT_NE(text.find("exceeds the limit of 1048576 bytes per module"), std::string::npos) << text;
    EXPECT_LT(largest, 64u << 10) << "only messages and bookkeeping may be allocated";
}

TEST(ContainerLimitsTest, ModuleLargerThanTheLimitIsRefusedBeforeDecompression) {
    // The zstd fixture decompresses to ~2.6 KB; a 1000-byte limit must refuse it before the 2.6 KB buffer.
    const std::vector<uint8_t> bytes = fixture_bytes("kernels.zstd.fatbin");
    ContainerLimits limits;
    limits.max_module_bytes = 1000;
    std::string text;
    size_t largest = largest_allocation([&] {
        auto modules = find_ptx_modules(bytes, limits);
        text = modules.ok() ? "ok" : modules.error().text();
    });
    EXPECT_NE(text.find("exceeds the limit of 1000 bytes per module"), std::string::npos) << text;
    EXPECT_LT(largest, 1000u);
}

TEST(ContainerLimitsTest, PlainPayloadLargerThanTheLimitIsRefused) {
    ContainerLimits limits;
    limits.max_module_bytes = 2000; // the plain payload is 2648 bytes
    auto modules = find_ptx_modules(fixture_bytes("kernels.plain.fatbin"), limits);
    ASSERT_FALSE(modules.ok());
    EXPECT_EQ(modules.error().code(), ErrorCode::Invalid);
    EXPECT_NE(modules.error().text().find("fatbin 0 @0x0: entry 0 @0x10: PTX module of"), std::string::npos)
        << modules.error().text();
}

TEST(ContainerLimitsTest, PtxTextLargerThanTheLimitIsRefused) {
    ContainerLimits limits;
    limits.max_module_bytes = 100;
    auto modules = find_ptx_modules(fixture_bytes("kernels.ptx"), limits);
    ASSERT_FALSE(modules.ok());
    EXPECT_NE(modules.error().text().find("exceeds the limit of 100 bytes"), std::string::npos)
        << modules.error().text();
}

TEST(ContainerLimitsTest, TotalBytesAreBoundedAcrossModules) {
    // concat.fatbin has four PTX modules of the same size N (N + 1 bytes each, with the NUL): a limit
    // of 2.5 modules admits two and refuses the third.
    const std::vector<uint8_t> bytes = fixture_bytes("synthetic/concat.fatbin");
    auto all = find_ptx_modules(bytes);
    ASSERT_TRUE(all.ok()) << all.error().text();
    ASSERT_EQ(all->size(), 4u);
    ContainerLimits limits;
    limits.max_total_bytes = (*all)[0].text.size() * 5 / 2;
    auto modules = find_ptx_modules(bytes, limits);
    ASSERT_FALSE(modules.ok());
    EXPECT_NE(modules.error().text().find("fatbin 2 @"), std::string::npos) << modules.error().text();
    EXPECT_NE(modules.error().text().find("per file"), std::string::npos) << modules.error().text();
}

TEST(ContainerLimitsTest, ModuleCountIsBounded) {
    ContainerLimits limits;
    limits.max_modules = 3;
    auto modules = find_ptx_modules(fixture_bytes("synthetic/concat.fatbin"), limits);
    ASSERT_FALSE(modules.ok());
    EXPECT_NE(modules.error().text().find("more than 3 PTX modules"), std::string::npos) << modules.error().text();
    limits.max_modules = 4;
    EXPECT_TRUE(find_ptx_modules(fixture_bytes("synthetic/concat.fatbin"), limits).ok());
}

TEST(ContainerLimitsTest, DecompressorsNeverWriteMoreThanExpected) {
    // nvcc's LZ4 payload, decoded into exactly the size fatbinary recorded, then into less: must fail.
    const std::vector<uint8_t> lz4 = fixture_bytes("kernels.lz4.fatbin");
    // Entry payload at 0x60; compressed size u32 at 0x20; uncompressed size u64 at 0x48 (docs/ptx-containers.md).
    const uint32_t csize = lz4[0x20] | (lz4[0x21] << 8) | (lz4[0x22] << 16) | (uint32_t(lz4[0x23]) << 24);
    std::span<const uint8_t> packed(lz4.data() + 0x60, csize);
    auto full = decompress_lz4_block(packed, fixture_bytes("expected/kernels.sm_89.ptx").size() + 1);
    ASSERT_TRUE(full.ok()) << full.error().text();
    auto short_out = decompress_lz4_block(packed, 100);
    ASSERT_FALSE(short_out.ok());
    EXPECT_EQ(short_out.error().code(), ErrorCode::Invalid);
}

} // namespace
} // namespace d4r::ptx
