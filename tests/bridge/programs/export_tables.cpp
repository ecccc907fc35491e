/* cudart's private export tables, called the way a program linked with cudart calls them: each table d4r
 * serves (its size slot), the context-local storage with a destructor that must run at cuCtxDestroy, the
 * cudart-interface slots (a module from a fatbin wrapper, the primary context), the tools, device and
 * context-check slots, the integrity check, and the refusals. Built for Linux against libd4rcuda and for
 * Windows against nvcuda.dll (the Wine bridge, whose tables hold Windows entry points): the two runs must
 * print the same. Usage: export_tables RESOURCES.fatbin */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include "program_util.h"
#include "runtime/export_tables/export_table_ids.h"
#include "runtime/export_tables/integrity_hash.h"

#ifdef _WIN32
#include <windows.h>
static uint32_t process_id() { return GetCurrentProcessId(); }
static uint32_t thread_id() { return GetCurrentThreadId(); }
#else
#include <pthread.h>
#include <unistd.h>
static uint32_t process_id() { return (uint32_t)getpid(); }
static uint32_t thread_id() { return (uint32_t)(uintptr_t)pthread_self(); }
#endif

using d4r::runtime::ExportTableId;

/* The slots' types: the platform's own calling convention (Windows x64 under mingw, System V on Linux). */
typedef void (*ClsDestructor)(CUcontext ctx, void* key, void* value);
typedef CUresult (*ClsPut)(CUcontext ctx, void* key, void* value, ClsDestructor destructor);
typedef CUresult (*ClsDelete)(CUcontext ctx, void* key);
typedef CUresult (*ClsGet)(void** value, CUcontext ctx, void* key);
typedef CUresult (*ModuleFromWrapper)(CUmodule* module, const void* wrapper);
typedef CUresult (*PrimaryContext)(CUcontext* pctx, CUdevice dev);
typedef CUresult (*NoArguments)(void);
typedef void (*ToolsBuffer)(void** ptr, size_t* size);
typedef CUresult (*CtxCreateBypass)(CUcontext* pctx, unsigned flags, CUdevice dev);
typedef CUresult (*DeviceFlagByte)(unsigned char* result, CUdevice dev);
typedef CUresult (*ContextCheck)(CUcontext ctx, uint32_t* result, const void** detail);
typedef uint32_t (*ContextCheckBits)(void);
typedef CUresult (*IntegrityCheck)(uint32_t version, uint64_t unix_seconds, uint64_t* result);

template <typename F>
static F slot(const void* table, int index) {
    return reinterpret_cast<F>(const_cast<void*>(static_cast<const void* const*>(table)[index]));
}

static const char* name_of(CUresult r) {
    const char* name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "?";
}

static const void* get_table(ExportTableId id) {
    CUuuid uuid = d4r::runtime::export_table_uuid(id);
    const void* table = NULL;
    CHECK(cuGetExportTable(&table, &uuid));
    EXPECT(table != NULL);
    return table;
}

/* Destructor calls, checked after cuCtxDestroy. */
struct DestructorCall {
    CUcontext ctx;
    void* key;
    void* value;
    uint32_t thread;
};
static DestructorCall g_calls[8];
static int g_call_count = 0;
static void destructor(CUcontext ctx, void* key, void* value) {
    if (g_call_count < 8) g_calls[g_call_count] = DestructorCall{ctx, key, value, thread_id()};
    ++g_call_count;
}
static int g_replaced_calls = 0;
static void replaced_destructor(CUcontext, void*, void*) { ++g_replaced_calls; }

static void tables_and_sizes() {
    struct Case {
        ExportTableId id;
        bool sized;
    } cases[] = {
        {ExportTableId::CudartInterface, true},   {ExportTableId::ToolsTls, true},
        {ExportTableId::ToolsRuntimeHooks, true}, {ExportTableId::ContextLocalStorage, false},
        {ExportTableId::CtxCreateBypass, true},   {ExportTableId::DeviceExtendedRt, true},
        {ExportTableId::IntegrityCheck, true},    {ExportTableId::ContextChecks, true},
        {ExportTableId::HeapAccess, false},       {ExportTableId::HybridCudart, false},
        {ExportTableId::CudartEarlyProbe, false}, {ExportTableId::NvrtcProbe, false},
    };
    for (const Case& c : cases) {
        CUuuid uuid = d4r::runtime::export_table_uuid(c.id);
        const void* table = (const void*)1;
        CUresult r = cuGetExportTable(&table, &uuid);
        printf("table %s: %s", d4r::runtime::export_table_name(c.id), name_of(r));
        if (r != CUDA_SUCCESS) {
            EXPECT(table == NULL);
        } else {
            const void* again = NULL;
            CHECK(cuGetExportTable(&again, &uuid));
            EXPECT(again == table); /* built once */
            if (c.sized)
                printf(", slot 0 says %zu bytes", (size_t)(uintptr_t)static_cast<const void* const*>(table)[0]);
        }
        printf("\n");
    }
    CUuuid unknown = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
    const void* table = (const void*)1;
    CUresult r = cuGetExportTable(&table, &unknown);
    EXPECT(table == NULL);
    printf("table 01020304-...: %s\n", name_of(r));
    EXPECT_RESULT(cuGetExportTable(NULL, &unknown), CUDA_ERROR_INVALID_VALUE);
    table = (const void*)1;
    EXPECT_RESULT(cuGetExportTable(&table, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(table == NULL);
}

static void context_local_storage(CUdevice dev) {
    const void* cls = get_table(ExportTableId::ContextLocalStorage);
    ClsPut put = slot<ClsPut>(cls, 0);
    ClsDelete remove = slot<ClsDelete>(cls, 1);
    ClsGet get = slot<ClsGet>(cls, 2);
    static int key1, key2, key3, key4, value1, value2, value3, value4a, value4b;
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    CHECK(put(ctx, &key1, &value1, destructor));
    CHECK(put(NULL, &key2, &value2, destructor)); /* the current context */
    CHECK(put(ctx, &key3, &value3, NULL));
    CHECK(put(ctx, &key4, &value4a, replaced_destructor));
    CHECK(put(ctx, &key4, &value4b, destructor)); /* replaces value and destructor */
    void* v = NULL;
    CHECK(get(&v, ctx, &key1));
    EXPECT(v == &value1);
    CHECK(get(&v, NULL, &key2));
    EXPECT(v == &value2);
    CHECK(get(&v, ctx, &key4));
    EXPECT(v == &value4b);
    CHECK(remove(ctx, &key2)); /* removed: its destructor must not run */
    CUresult r = get(&v, ctx, &key2);
    EXPECT(v == NULL);
    printf("context-local storage: get after remove: %s\n", name_of(r));
    static int other_key;
    r = put(NULL, &other_key, &value1, destructor);
    printf("context-local storage: put on a context that does not exist: %s\n",
           name_of(put((CUcontext)(uintptr_t)0x10, &other_key, &value1, destructor)));
    EXPECT(r == CUDA_SUCCESS);
    CHECK(remove(NULL, &other_key));
    EXPECT(g_call_count == 0);
    CHECK(cuCtxDestroy(ctx));
    printf("context-local storage: destructors run at cuCtxDestroy: %d, replaced destructor run: %d\n", g_call_count,
           g_replaced_calls);
    EXPECT(g_call_count == 2 && g_replaced_calls == 0);
    bool saw1 = false, saw4 = false;
    for (int i = 0; i < 2; ++i) {
        EXPECT(g_calls[i].ctx == ctx);
        EXPECT(g_calls[i].thread == thread_id()); /* on the thread that destroyed the context */
        if (g_calls[i].key == &key1 && g_calls[i].value == &value1) saw1 = true;
        if (g_calls[i].key == &key4 && g_calls[i].value == &value4b) saw4 = true;
    }
    EXPECT(saw1 && saw4);
    printf("context-local storage: each with its context, key and value, on the destroying thread\n");
}

static void cudart_interface(CUdevice dev, const char* fatbin_path) {
    const void* cudart = get_table(ExportTableId::CudartInterface);
    /* The primary context, without activating it; the same handle cuDevicePrimaryCtxRetain gives. */
    CUcontext primary = NULL, retained = NULL;
    CHECK(slot<PrimaryContext>(cudart, 2)(&primary, dev));
    CHECK(cuDevicePrimaryCtxRetain(&retained, dev));
    printf("cudart-interface: primary context: %s\n", primary && primary == retained ? "the retained one" : "another");
    EXPECT(primary == retained);
    printf("cudart-interface: primary context of device 99: %s\n",
           name_of(slot<PrimaryContext>(cudart, 2)(&primary, 99)));
    CHECK(cuCtxSetCurrent(retained));
    /* A module from nvcc's fatbin wrapper. */
    FILE* f = fopen(fatbin_path, "rb");
    EXPECT(f != NULL);
    static unsigned char fatbin[1 << 20];
    size_t n = fread(fatbin, 1, sizeof fatbin, f);
    fclose(f);
    EXPECT(n > 0 && n < sizeof fatbin);
    struct {
        uint32_t magic, version;
        const void* data;
        const void* filename;
    } wrapper = {0x466243b1u, 1, fatbin, NULL};
    CUmodule module = NULL;
    CHECK(slot<ModuleFromWrapper>(cudart, 1)(&module, &wrapper));
    CUdeviceptr coeffs;
    size_t bytes = 0;
    CHECK(cuModuleGetGlobal(&coeffs, &bytes, module, "coeffs"));
    printf("cudart-interface: module from a fatbin wrapper: coeffs is %zu bytes\n", bytes);
    CHECK(cuModuleUnload(module));
    printf("cudart-interface: module from no wrapper: %s\n",
           name_of(slot<ModuleFromWrapper>(cudart, 1)(&module, NULL)));
    CHECK(slot<NoArguments>(cudart, 12)());
    printf("cudart-interface: slot 3 (not implemented): %s\n", name_of(slot<NoArguments>(cudart, 3)()));
    CHECK(cuDevicePrimaryCtxRelease(dev));
}

static void other_tables(CUdevice dev) {
    const void* hooks = get_table(ExportTableId::ToolsRuntimeHooks);
    void* ptr = NULL;
    size_t size = 0;
    slot<ToolsBuffer>(hooks, 2)(&ptr, &size);
    EXPECT(ptr != NULL);
    printf("tools-runtime-hooks: buffers of %zu", size);
    slot<ToolsBuffer>(hooks, 6)(&ptr, &size);
    EXPECT(ptr != NULL);
    printf(" and %zu\n", size);

    const void* bypass = get_table(ExportTableId::CtxCreateBypass);
    CUcontext ctx = NULL;
    CHECK(slot<CtxCreateBypass>(bypass, 1)(&ctx, 0, dev));
    unsigned version = 0;
    CHECK(cuCtxGetApiVersion(ctx, &version));
    printf("ctx-create-bypass: a context (api version %u)\n", version);

    const void* checks = get_table(ExportTableId::ContextChecks);
    uint32_t result = 7;
    const void* detail = &result;
    CHECK(slot<ContextCheck>(checks, 2)(ctx, &result, &detail));
    printf("context-checks: result %u, detail %s, bits %u\n", result, detail ? "set" : "null",
           slot<ContextCheckBits>(checks, 3)());
    CHECK(cuCtxDestroy(ctx));

    const void* rt = get_table(ExportTableId::DeviceExtendedRt);
    unsigned char byte = 9;
    CUresult r = slot<DeviceFlagByte>(rt, 13)(&byte, dev);
    printf("device-extended-rt: slot 13 on device 0: %s, %u; on device 99: %s\n", name_of(r), byte,
           name_of(slot<DeviceFlagByte>(rt, 13)(&byte, 99)));
}

static void integrity(void) {
    const void* cudart = get_table(ExportTableId::CudartInterface);
    const void* table = get_table(ExportTableId::IntegrityCheck);
    IntegrityCheck check = slot<IntegrityCheck>(table, 1);
    uint64_t words[2] = {1, 1};
    CHECK(check(12000, 1700000000, words));
    printf("integrity-check: version 12000: %016llx %016llx\n", (unsigned long long)words[0],
           (unsigned long long)words[1]);
    EXPECT_RESULT(check(12030, 1700000000, NULL), CUDA_ERROR_INVALID_VALUE);
    /* A version that is hashed: the record of this process, this thread, the tables this program was
     * handed and the entry point it called must give the slot's answer. */
    const uint64_t seconds = 1700000123;
    CHECK(check(12034, seconds, words));
    d4r::runtime::IntegrityInputs in;
    int driver = 0;
    CHECK(cuDriverGetVersion(&driver));
    in.driver_version = (uint32_t)driver;
    in.version = 12034;
    in.process = process_id();
    in.thread = thread_id();
    in.cudart_table = cudart;
    in.integrity_table = table;
    in.function = reinterpret_cast<const void*>(check);
    in.unix_seconds = seconds;
    int count = 0;
    CHECK(cuDeviceGetCount(&count));
    for (int dev = 0; dev < count; ++dev) {
        d4r::runtime::IntegrityDevice d;
        CHECK(cuDeviceGetUuid(&d.uuid, dev));
        CHECK(cuDeviceGetAttribute(&d.pci_domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev));
        CHECK(cuDeviceGetAttribute(&d.pci_bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev));
        CHECK(cuDeviceGetAttribute(&d.pci_device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev));
        in.devices.push_back(d);
    }
    std::array<uint64_t, 2> expected = d4r::runtime::integrity_hash(in);
    const bool same = expected[0] == words[0] && expected[1] == words[1];
    printf("integrity-check: version 12034 over this process and the tables it was handed: %s\n",
           same ? "the slot's answer" : "differs");
    if (!same)
        fprintf(stderr, "slot %016llx %016llx, computed %016llx %016llx\n", (unsigned long long)words[0],
                (unsigned long long)words[1], (unsigned long long)expected[0], (unsigned long long)expected[1]);
    EXPECT(same);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: export_tables RESOURCES.fatbin\n");
        return 2;
    }
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    tables_and_sizes();
    context_local_storage(dev);
    cudart_interface(dev, argv[1]);
    other_tables(dev);
    integrity();
    printf("done\n");
    return 0;
}
