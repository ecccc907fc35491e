// cuGetExportTable: the ids, the integrity hash (MD2 and HMAC-MD2 against RFC 1319's vectors), and
// d4r's own tables on the cpu backend through the runtime's dispatch table, as cudart calls them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/files.h"
#include "core/log.h"
#include "runtime/export_tables/export_table_ids.h"
#include "runtime/export_tables/integrity_hash.h"
#include "runtime/runtime.h"
#include "runtime_fixture.h"
#include "test_support.h"

using namespace d4r::runtime;

namespace {

std::string hex(const Digest16& d) {
    std::string out;
    for (uint8_t b : d) out += fmt::format("{:02x}", b);
    return out;
}

Digest16 md2_of(std::string_view text) { return md2({reinterpret_cast<const uint8_t*>(text.data()), text.size()}); }

// The runtime on the cpu backend (each test runs in its own process under ctest).
const ApiTable& cpu_runtime() {
    setenv("D4R_CUDA_BACKEND", "cpu", 1);
    return dispatch();
}

template <typename F>
F slot(const void* table, size_t index) {
    return reinterpret_cast<F>(const_cast<void*>(static_cast<const void* const*>(table)[index]));
}

const void* table_for(const ApiTable& api, ExportTableId id) {
    CUuuid u = export_table_uuid(id);
    const void* t = nullptr;
    EXPECT_EQ(api.cuGetExportTable(&t, &u), CUDA_SUCCESS) << export_table_name(id);
    return t;
}

} // namespace

TEST(ExportTableIds, RoundTripAndFormat) {
    for (int i = 0; i < static_cast<int>(ExportTableId::Unknown); ++i) {
        auto id = static_cast<ExportTableId>(i);
        EXPECT_EQ(export_table_id(export_table_uuid(id)), id) << export_table_name(id);
    }
    EXPECT_EQ(format_uuid(export_table_uuid(ExportTableId::CudartInterface)), "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9");
    EXPECT_EQ(format_uuid(export_table_uuid(ExportTableId::CudartEarlyProbe)), "f8cff951-2146-8b4e-b9e2-fb469e7c0dd9");
    EXPECT_EQ(format_uuid(export_table_uuid(ExportTableId::NvrtcProbe)), "da9151d3-3ae6-cc41-a5c0-4f26d533e328");
    CUuuid other{};
    std::memcpy(other.bytes, "not a table id!", 16);
    EXPECT_EQ(export_table_id(other), ExportTableId::Unknown);
}

TEST(IntegrityHash, Md2MatchesRfc1319) {
    EXPECT_EQ(hex(md2_of("")), "8350e5a3e24c153df2275c9f80692773");
    EXPECT_EQ(hex(md2_of("a")), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
    EXPECT_EQ(hex(md2_of("abc")), "da853b0d3f88d99b30283a69e6ded6bb");
    EXPECT_EQ(hex(md2_of("message digest")), "ab4f496bfb2a530b219ff33031fe06b0");
    EXPECT_EQ(hex(md2_of("abcdefghijklmnopqrstuvwxyz")), "4e8ddff3650292ab5a4108c3aa47940b");
    EXPECT_EQ(hex(md2_of("12345678901234567890123456789012345678901234567890123456789012345678901234567890")),
              "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST(IntegrityHash, HmacIsTheRfc2104Construction) {
    uint8_t key[16];
    for (int i = 0; i < 16; ++i) key[i] = static_cast<uint8_t>(i * 17 + 3);
    std::string message = "d4r integrity record";
    std::string inner(16, '\0'), outer(16, '\0');
    for (int i = 0; i < 16; ++i) {
        inner[i] = static_cast<char>(key[i] ^ 0x36);
        outer[i] = static_cast<char>(key[i] ^ 0x5c);
    }
    Digest16 inner_digest = md2_of(inner + message);
    Digest16 expected = md2_of(outer + std::string(inner_digest.begin(), inner_digest.end()));
    Digest16 got =
        hmac_md2(std::span<const uint8_t, 16>(key), {reinterpret_cast<const uint8_t*>(message.data()), message.size()});
    EXPECT_EQ(hex(got), hex(expected));
}

TEST(IntegrityHash, VersionsEndingInZeroOrOneHaveFixedAnswers) {
    IntegrityInputs in;
    in.version = 13000;
    EXPECT_EQ(integrity_hash(in)[0], 0x3341181C03CB675Cull);
    in.version = 12081;
    EXPECT_EQ(integrity_hash(in)[0], 0x1841181C03CB675Cull);
    // Otherwise every input matters.
    in.version = 13002;
    auto a = integrity_hash(in);
    in.unix_seconds = 1;
    auto b = integrity_hash(in);
    in.devices.push_back({});
    auto c = integrity_hash(in);
    EXPECT_NE(a, b);
    EXPECT_NE(b, c);
}

TEST(ExportTables, UnknownIdsAreRefusedAndOutputsNulled) {
    const ApiTable& api = cpu_runtime();
    CUuuid unknown{};
    std::memcpy(unknown.bytes, "d4r-no-such-tbl", 16);
    const void* t = reinterpret_cast<const void*>(1);
    EXPECT_EQ(api.cuGetExportTable(&t, &unknown), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(t, nullptr);
    CUuuid probe = export_table_uuid(ExportTableId::CudartEarlyProbe);
    EXPECT_EQ(api.cuGetExportTable(&t, &probe), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(api.cuGetExportTable(nullptr, &probe), CUDA_ERROR_INVALID_VALUE);
    t = reinterpret_cast<const void*>(1);
    EXPECT_EQ(api.cuGetExportTable(&t, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(t, nullptr);
}

TEST(ExportTables, CudartInterfaceLoadsModulesAndHandsOutThePrimaryContext) {
    const ApiTable& api = cpu_runtime();
    ASSERT_EQ(api.cuInit(0), CUDA_SUCCESS);
    const void* t = table_for(api, ExportTableId::CudartInterface);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(static_cast<const void* const*>(t)[0]), 13 * sizeof(void*));

    // Slot 2: the primary context, the same handle as cuDevicePrimaryCtxRetain gives, and usable.
    auto primary = slot<CUresult (*)(CUcontext*, CUdevice)>(t, 2);
    CUcontext ctx = nullptr, again = nullptr, retained = nullptr;
    ASSERT_EQ(primary(&ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(primary(&again, 0), CUDA_SUCCESS);
    EXPECT_EQ(ctx, again);
    ASSERT_EQ(api.cuDevicePrimaryCtxRetain(&retained, 0), CUDA_SUCCESS);
    EXPECT_EQ(retained, ctx);
    EXPECT_EQ(primary(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(api.cuCtxSetCurrent(ctx), CUDA_SUCCESS);

    // Slot 1: a module from nvcc's fatbin wrapper around PTX; slot 8: from the fatbin itself.
    const char* ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry noop() { ret; }\n";
    struct {
        uint32_t magic = 0xba55ed50;
        uint16_t version = 1, header_size = 16;
        uint64_t size;
    } header;
    struct Entry {
        uint16_t kind = 1, version = 0x101;
        uint32_t header_size = 64, payload_size;
        uint32_t unknown0 = 0, compressed = 0, unknown1 = 0, unknown2 = 0;
        uint32_t sm = 80, bits = 64, unknown3 = 0;
        uint64_t flags = 0x11, unknown5 = 0, uncompressed = 0;
    } entry;
    static_assert(sizeof(Entry) == 64);
    size_t text = std::strlen(ptx) + 1;
    entry.payload_size = static_cast<uint32_t>((text + 7) & ~size_t(7));
    header.size = sizeof entry + entry.payload_size;
    std::vector<uint8_t> fatbin(sizeof header + header.size, 0);
    std::memcpy(fatbin.data(), &header, sizeof header);
    std::memcpy(fatbin.data() + sizeof header, &entry, sizeof entry);
    std::memcpy(fatbin.data() + sizeof header + sizeof entry, ptx, text);
    struct {
        uint32_t magic = 0x466243b1, version = 1;
        const void* data;
        const void* unused = nullptr;
    } wrapper{.data = fatbin.data()};

    auto from_wrapper = slot<CUresult (*)(CUmodule*, const void*)>(t, 1);
    CUmodule module = nullptr;
    ASSERT_EQ(from_wrapper(&module, &wrapper), CUDA_SUCCESS);
    CUfunction f = nullptr;
    EXPECT_EQ(api.cuModuleGetFunction(&f, module, "noop"), CUDA_SUCCESS);
    EXPECT_EQ(api.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(api.cuCtxSynchronize(), CUDA_SUCCESS);
    auto from_fatbin = slot<CUresult (*)(const void*, CUmodule*, void*, void*, unsigned)>(t, 8);
    CUmodule second = nullptr;
    ASSERT_EQ(from_fatbin(fatbin.data(), &second, nullptr, nullptr, 0), CUDA_SUCCESS);
    EXPECT_NE(second, module);
    // Link inputs are refused, not ignored; a missing wrapper is an error, not a crash.
    int dummy = 0;
    EXPECT_EQ(from_fatbin(fatbin.data(), &second, &dummy, nullptr, 0), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(second, nullptr);
    EXPECT_EQ(from_wrapper(&module, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(module, nullptr);

    // Slots d4r does not implement answer NOT_SUPPORTED instead of crashing.
    EXPECT_EQ(slot<CUresult (*)()>(t, 4)(), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(slot<CUresult (*)()>(t, 12)(), CUDA_SUCCESS); // compilers: built in
}

namespace {
int g_destroyed = 0;
void* g_destroyed_value = nullptr;
void count_destruction(CUcontext, void*, void* value) {
    ++g_destroyed;
    g_destroyed_value = value;
}
} // namespace

TEST(ExportTables, ContextLocalStorageLivesAndDiesWithItsContext) {
    const ApiTable& api = cpu_runtime();
    ASSERT_EQ(api.cuInit(0), CUDA_SUCCESS);
    const void* t = table_for(api, ExportTableId::ContextLocalStorage);
    ASSERT_NE(t, nullptr);
    using Destructor = void (*)(CUcontext, void*, void*);
    auto put = slot<CUresult (*)(CUcontext, void*, void*, Destructor)>(t, 0);
    auto remove = slot<CUresult (*)(CUcontext, void*)>(t, 1);
    auto get = slot<CUresult (*)(void**, CUcontext, void*)>(t, 2);

    CUcontext ctx = nullptr;
    ASSERT_EQ(api.cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS); // current now
    int key1 = 0, key2 = 0, value = 0;
    ASSERT_EQ(put(nullptr, &key1, &value, &count_destruction), CUDA_SUCCESS); // null: the current context
    ASSERT_EQ(put(ctx, &key2, &key2, nullptr), CUDA_SUCCESS);
    void* got = nullptr;
    ASSERT_EQ(get(&got, ctx, &key1), CUDA_SUCCESS);
    EXPECT_EQ(got, &value);
    ASSERT_EQ(remove(ctx, &key2), CUDA_SUCCESS);
    got = &key1;
    EXPECT_EQ(get(&got, ctx, &key2), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(got, nullptr);
    EXPECT_EQ(get(nullptr, ctx, &key1), CUDA_ERROR_INVALID_VALUE);

    ASSERT_EQ(api.cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
    EXPECT_EQ(g_destroyed, 1);
    EXPECT_EQ(g_destroyed_value, &value);
    // A destroyed context is no longer a key.
    EXPECT_NE(put(ctx, &key1, &value, nullptr), CUDA_SUCCESS);
}

TEST(ExportTables, IntegrityCheckAnswersWithTheHashOfItsInputs) {
    const ApiTable& api = cpu_runtime();
    ASSERT_EQ(api.cuInit(0), CUDA_SUCCESS);
    const void* t = table_for(api, ExportTableId::IntegrityCheck);
    auto check = slot<CUresult (*)(uint32_t, uint64_t, uint64_t*)>(t, 1);
    uint64_t fixed[2] = {1, 1};
    ASSERT_EQ(check(13000, 12345, fixed), CUDA_SUCCESS);
    EXPECT_EQ(fixed[0], 0x3341181C03CB675Cull);
    EXPECT_EQ(fixed[1], 0x8ED383AA1F4CD1E8ull);
    uint64_t a[2], b[2], c[2];
    ASSERT_EQ(check(13002, 100, a), CUDA_SUCCESS);
    ASSERT_EQ(check(13002, 100, b), CUDA_SUCCESS);
    ASSERT_EQ(check(13002, 101, c), CUDA_SUCCESS);
    EXPECT_TRUE(a[0] == b[0] && a[1] == b[1]);
    EXPECT_FALSE(a[0] == c[0] && a[1] == c[1]);
    EXPECT_EQ(check(13002, 100, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST(ExportTables, TraceNamesTheIdByItsBytes) {
    ApiTable inner{};
    inner.cuGetExportTable = [](const void** t, const CUuuid*) {
        *t = nullptr;
        return CUDA_ERROR_INVALID_VALUE;
    };
    auto runtime = rt_test::install_fresh_runtime();
    ApiTable traced = make_trace_table(*runtime, inner);
    d4r::test::TempDir dir;
    std::string log_path = (dir.path() / "trace.log").string();
    ASSERT_TRUE(d4r::log::set_file(log_path));
    d4r::log::set_level(d4r::log::Level::Info);
    const void* t = nullptr;
    CUuuid u = export_table_uuid(ExportTableId::CudartInterface);
    EXPECT_EQ(traced.cuGetExportTable(&t, &u), CUDA_ERROR_INVALID_VALUE);
    d4r::log::set_stderr();
    auto text = d4r::read_text_file(log_path);
    ASSERT_TRUE(text);
    EXPECT_NE(text->find("pExportTableId=6bd5fb6c-5bf4-e74a-8987-d93912fd9df9) = CUDA_ERROR_INVALID_VALUE"),
              std::string::npos)
        << *text;
}
