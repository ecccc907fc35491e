// d4r's own export tables (own_tables.h). Slot meanings and signatures are facts learned from public
// reimplementations and from NVIDIA's driver on the H200; the code is d4r's.
#include "runtime/export_tables/own_tables.h"

#include <array>
#include <atomic>
#include <ctime>
#include <map>
#include <mutex>
#include <pthread.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/log.h"
#include "ptx/image_extent.h"
#include "runtime/export_tables/integrity_hash.h"
#include "runtime/runtime.h"

namespace d4r::runtime {

namespace {

// ---- Slots d4r does not implement: logged once by table and index, never a crash ----------------------

template <ExportTableId Table, size_t Slot>
CUresult unimplemented_slot() {
    if (log::once(fmt::format("export-table.{}.{}", export_table_name(Table), Slot)))
        log::warn("libd4rcuda: export table {} slot {} was called; d4r does not implement it "
                  "(CUDA_ERROR_NOT_SUPPORTED)",
                  export_table_name(Table), Slot);
    return CUDA_ERROR_NOT_SUPPORTED;
}

template <ExportTableId Table, size_t N, size_t... I>
constexpr std::array<const void*, N> unimplemented_slots(std::index_sequence<I...>) {
    return {reinterpret_cast<const void*>(&unimplemented_slot<Table, I>)...};
}

// A table of N slots, every one unimplemented until set. Slot 0 of most tables is the table's size in
// bytes (SIZED).
template <ExportTableId Table, size_t N>
std::array<const void*, N> make_table(bool sized) {
    auto t = unimplemented_slots<Table, N>(std::make_index_sequence<N>());
    if (sized) t[0] = reinterpret_cast<const void*>(N * sizeof(void*));
    return t;
}

template <typename F>
const void* fn(F* f) {
    return reinterpret_cast<const void*>(f);
}

// ---- cudart-interface ---------------------------------------------------------------------------------

// nvcc's fatbin wrapper: {magic 0x466243b1, version, fatbin pointer, filename or prelinked fatbins}.
struct FatbinWrapper {
    uint32_t magic;
    uint32_t version;
    const void* data;
    const void* filename_or_fatbins;
};

CUresult module_from_wrapper(CUmodule* module, const FatbinWrapper* wrapper) {
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    *module = nullptr;
    if (!wrapper) return CUDA_ERROR_INVALID_VALUE;
    // cuModuleLoadData takes the wrapper itself (ptx/image_extent.h follows it to the fatbin).
    return dispatch().cuModuleLoadData(module, wrapper);
}

// The extended forms carry link inputs (relocatable device code) d4r does not take yet.
bool refuse_link_inputs(const char* slot, const void* a, const void* b, unsigned c) {
    if (!a && !b && !c) return false;
    if (log::once(fmt::format("export-table.cudart-interface.{}.link", slot)))
        log::warn("libd4rcuda: cudart asked to load a module with link inputs ({}): not supported, "
                  "CUDA_ERROR_NOT_SUPPORTED",
                  slot);
    return true;
}

CUresult module_from_wrapper_ext(CUmodule* module, const FatbinWrapper* wrapper, void* a, void* b, unsigned c) {
    if (module) *module = nullptr;
    if (refuse_link_inputs("slot 6", a, b, c)) return CUDA_ERROR_NOT_SUPPORTED;
    return module_from_wrapper(module, wrapper);
}

CUresult module_from_fatbin_ext(const void* fatbin, CUmodule* module, void* a, void* b, unsigned c) {
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    *module = nullptr;
    if (refuse_link_inputs("slot 8", a, b, c)) return CUDA_ERROR_NOT_SUPPORTED;
    if (!fatbin) return CUDA_ERROR_INVALID_VALUE;
    return dispatch().cuModuleLoadData(module, fatbin);
}

// The primary contexts cudart was handed, one retained reference each (see primary_context()).
struct PrimaryRefs {
    std::mutex mutex;
    std::map<CUdevice, CUcontext> held;
};
PrimaryRefs* primary_refs(); // the installed runtime's (null without one)

// cudart asks for the device's primary context through this slot before it retains it itself. NVIDIA's
// driver hands out the context without activating it; d4r's backends destroy an inactive primary
// context, so d4r keeps one reference for cudart until the context is reset, which keeps the handle
// cudart holds valid.
CUresult primary_context(CUcontext* pctx, CUdevice dev) {
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    *pctx = nullptr;
    const ApiTable& api = dispatch(); // installs the process runtime when none is
    PrimaryRefs* p = primary_refs();
    if (!p) return CUDA_ERROR_NOT_INITIALIZED;
    std::lock_guard lock(p->mutex);
    if (auto it = p->held.find(dev); it != p->held.end()) {
        *pctx = it->second;
        return CUDA_SUCCESS;
    }
    CUcontext ctx = nullptr;
    if (CUresult r = api.cuDevicePrimaryCtxRetain(&ctx, dev)) return r;
    p->held[dev] = ctx;
    *pctx = ctx;
    return CUDA_SUCCESS;
}

void cudart_fn7(size_t) {}

// The driver loads its PTX compiler and libNVVM here; d4r's compiler is built in.
CUresult load_compilers() { return CUDA_SUCCESS; }

// ---- tools tables ---------------------------------------------------------------------------------------

// Buffers cudart shares with profiling tools; nothing reads them in d4r. Sizes as the driver reports
// them, with generous storage behind them.
uint64_t g_tools_buffer1[1024];
uint64_t g_tools_buffer2[16];

void tools_buffer1(void** ptr, size_t* size) {
    if (ptr) *ptr = g_tools_buffer1;
    if (size) *size = 1024;
}

void tools_buffer2(void** ptr, size_t* size) {
    if (ptr) *ptr = g_tools_buffer2;
    if (size) *size = 14;
}

// ---- context-local-storage ---------------------------------------------------------------------------

using ClsDestructor = void (*)(CUcontext, void*, void*);

struct ClsEntry {
    void* value = nullptr;
    ClsDestructor destructor = nullptr;
};

struct ContextStorage {
    std::mutex mutex;
    std::map<std::pair<CUcontext, void*>, ClsEntry> entries;
};
// The state of d4r's own tables, in the runtime that installed them (layer_state.h).
struct OwnTablesState final : LayerState {
    static constexpr LayerSlot kSlot = LayerSlot::OwnTables;
    ApiTable below; // the layer's table before wrap_for_own_tables
    PrimaryRefs primary;
    ContextStorage storage;
    std::atomic<const void*> handed_out_cudart{nullptr};
};

OwnTablesState* own_state() { return installed_layer<OwnTablesState>(); }

PrimaryRefs* primary_refs() {
    OwnTablesState* S = own_state();
    return S ? &S->primary : nullptr;
}

ContextStorage* storage() {
    OwnTablesState* S = own_state();
    return S ? &S->storage : nullptr;
}

// CTX, or the current context when CTX is null; the handle must be a live context.
CUresult resolve_context(CUcontext& ctx) {
    if (!ctx) {
        if (CUresult r = dispatch().cuCtxGetCurrent(&ctx)) return r;
        if (!ctx) return CUDA_ERROR_INVALID_CONTEXT;
    }
    unsigned version = 0;
    return dispatch().cuCtxGetApiVersion(ctx, &version);
}

CUresult cls_put(CUcontext ctx, void* key, void* value, ClsDestructor destructor) {
    if (CUresult r = resolve_context(ctx)) return r;
    ContextStorage* s = storage();
    if (!s) return CUDA_ERROR_NOT_INITIALIZED;
    std::lock_guard lock(s->mutex);
    s->entries[{ctx, key}] = ClsEntry{value, destructor};
    return CUDA_SUCCESS;
}

CUresult cls_delete(CUcontext ctx, void* key) {
    if (CUresult r = resolve_context(ctx)) return r;
    ContextStorage* s = storage();
    if (!s) return CUDA_ERROR_NOT_INITIALIZED;
    std::lock_guard lock(s->mutex);
    s->entries.erase({ctx, key});
    return CUDA_SUCCESS;
}

CUresult cls_get(void** value, CUcontext ctx, void* key) {
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    *value = nullptr;
    if (CUresult r = resolve_context(ctx)) return r;
    ContextStorage* s = storage();
    if (!s) return CUDA_ERROR_NOT_INITIALIZED;
    std::lock_guard lock(s->mutex);
    auto it = s->entries.find({ctx, key});
    if (it == s->entries.end()) return CUDA_ERROR_INVALID_HANDLE;
    *value = it->second.value;
    return CUDA_SUCCESS;
}

// Runs and forgets the destructors of CTX's entries (outside the lock: they may call back into CUDA).
void destroy_context_storage(CUcontext ctx) {
    std::vector<std::pair<void*, ClsEntry>> dying;
    if (ContextStorage* s = storage()) {
        std::lock_guard lock(s->mutex);
        for (auto it = s->entries.lower_bound({ctx, nullptr}); it != s->entries.end() && it->first.first == ctx;) {
            dying.emplace_back(it->first.second, it->second);
            it = s->entries.erase(it);
        }
    }
    for (auto& [key, entry] : dying)
        if (entry.destructor) entry.destructor(ctx, key, entry.value);
}

// ---- ctx-create-bypass, device-extended-rt, context-checks --------------------------------------------

CUresult ctx_create_bypass(CUcontext* pctx, unsigned flags, CUdevice dev) {
    return dispatch().cuCtxCreate_v2(pctx, flags, dev);
}

// A byte NVIDIA's driver reports as 0 on the devices observed.
CUresult device_flag_byte(unsigned char* result, CUdevice dev) {
    if (!result) return CUDA_ERROR_INVALID_VALUE;
    *result = 0;
    int count = 0;
    if (CUresult r = dispatch().cuDeviceGetCount(&count)) return r;
    return dev >= 0 && dev < count ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult context_check(CUcontext, uint32_t* result, const void** detail) {
    if (result) *result = 0;
    if (detail) *detail = nullptr;
    return CUDA_SUCCESS;
}

uint32_t context_check_bits() { return 0; }

// ---- integrity-check ------------------------------------------------------------------------------------

const void* own_table_start(ExportTableId id);

CUresult integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t* result) {
    if (!result) return CUDA_ERROR_INVALID_VALUE;
    result[0] = result[1] = 0;
    IntegrityInputs in;
    int driver_version = 0;
    if (CUresult r = dispatch().cuDriverGetVersion(&driver_version)) return r;
    in.driver_version = static_cast<uint32_t>(driver_version);
    in.version = version;
    in.process = static_cast<uint32_t>(getpid());
    in.thread = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(reinterpret_cast<void*>(pthread_self())));
    OwnTablesState* S = own_state();
    const void* cudart = S ? S->handed_out_cudart.load() : nullptr;
    in.cudart_table = cudart ? cudart : own_table_start(ExportTableId::CudartInterface);
    in.integrity_table = own_table_start(ExportTableId::IntegrityCheck);
    in.function = fn(&integrity_check);
    in.unix_seconds = unix_seconds;
    int count = 0;
    if (CUresult r = dispatch().cuDeviceGetCount(&count)) return r;
    for (int dev = 0; dev < count; ++dev) {
        IntegrityDevice d;
        if (CUresult r = dispatch().cuDeviceGetUuid_v2(&d.uuid, dev)) return r;
        if (CUresult r = dispatch().cuDeviceGetAttribute(&d.pci_domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev))
            return r;
        if (CUresult r = dispatch().cuDeviceGetAttribute(&d.pci_bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev)) return r;
        if (CUresult r = dispatch().cuDeviceGetAttribute(&d.pci_device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev))
            return r;
        in.devices.push_back(d);
    }
    auto words = integrity_hash(in);
    result[0] = words[0];
    result[1] = words[1];
    return CUDA_SUCCESS;
}

// ---- The tables -----------------------------------------------------------------------------------------

using Id = ExportTableId;

struct OwnTables {
    std::array<const void*, 13> cudart = make_table<Id::CudartInterface, 13>(true);
    // Slot counts as NVIDIA's driver states them in slot 0 (measured on the H200, driver 580).
    std::array<const void*, 3> tools_tls = make_table<Id::ToolsTls, 3>(true);
    std::array<const void*, 7> tools_hooks = make_table<Id::ToolsRuntimeHooks, 7>(true);
    std::array<const void*, 4> cls = make_table<Id::ContextLocalStorage, 4>(false);
    std::array<const void*, 2> bypass = make_table<Id::CtxCreateBypass, 2>(true);
    std::array<const void*, 31> device_rt = make_table<Id::DeviceExtendedRt, 31>(true);
    std::array<const void*, 3> integrity = make_table<Id::IntegrityCheck, 3>(true);
    std::array<const void*, 15> checks = make_table<Id::ContextChecks, 15>(true);

    OwnTables() {
        cudart[1] = fn(&module_from_wrapper);
        cudart[2] = fn(&primary_context);
        cudart[6] = fn(&module_from_wrapper_ext);
        cudart[7] = fn(&cudart_fn7);
        cudart[8] = fn(&module_from_fatbin_ext);
        cudart[12] = fn(&load_compilers);
        tools_hooks[2] = fn(&tools_buffer1);
        tools_hooks[6] = fn(&tools_buffer2);
        cls[0] = fn(&cls_put);
        cls[1] = fn(&cls_delete);
        cls[2] = fn(&cls_get);
        bypass[1] = fn(&ctx_create_bypass);
        device_rt[13] = fn(&device_flag_byte);
        integrity[1] = fn(&integrity_check);
        checks[2] = fn(&context_check);
        checks[3] = fn(&context_check_bits);
    }
};

OwnTables& tables() {
    static OwnTables* t = new OwnTables();
    return *t;
}

const void* own_table_start(ExportTableId id) {
    OwnTables& t = tables();
    switch (id) {
    case Id::CudartInterface:
        return t.cudart.data();
    case Id::ToolsTls:
        return t.tools_tls.data();
    case Id::ToolsRuntimeHooks:
        return t.tools_hooks.data();
    case Id::ContextLocalStorage:
        return t.cls.data();
    case Id::CtxCreateBypass:
        return t.bypass.data();
    case Id::DeviceExtendedRt:
        return t.device_rt.data();
    case Id::IntegrityCheck:
        return t.integrity.data();
    case Id::ContextChecks:
        return t.checks.data();
    default:
        return nullptr;
    }
}

// ---- Entry points the tables follow ---------------------------------------------------------------------

// The layer's entry points run only while the runtime that built them is installed.
const ApiTable& below() { return own_state()->below; }

CUresult own_cuCtxDestroy_v2(CUcontext ctx) {
    if (ctx) destroy_context_storage(ctx);
    return below().cuCtxDestroy_v2(ctx);
}

CUresult own_cuCtxDestroy(CUcontext ctx) { // the pre-4.0 name (dlsym'd by old programs): same contract
    if (ctx) destroy_context_storage(ctx);
    return below().cuCtxDestroy(ctx);
}

// Reset destroys the primary context: its storage goes, and so does the reference kept for cudart.
void forget_primary(CUdevice dev) {
    CUcontext held = nullptr;
    if (PrimaryRefs* p = primary_refs()) {
        std::lock_guard lock(p->mutex);
        if (auto it = p->held.find(dev); it != p->held.end()) {
            held = it->second;
            p->held.erase(it);
        }
    }
    if (held) destroy_context_storage(held);
}

CUresult own_cuDevicePrimaryCtxReset_v2(CUdevice dev) {
    forget_primary(dev);
    return below().cuDevicePrimaryCtxReset_v2(dev);
}

CUresult own_cuDevicePrimaryCtxReset(CUdevice dev) {
    forget_primary(dev);
    return below().cuDevicePrimaryCtxReset(dev);
}

} // namespace

const void* own_export_table(ExportTableId id) { return own_table_start(id); }

void set_handed_out_cudart_table(const void* table) {
    if (OwnTablesState* S = own_state()) S->handed_out_cudart.store(table);
}

void wrap_for_own_tables(Runtime& runtime, ApiTable& layer) {
    runtime.emplace_layer<OwnTablesState>().below = layer;
    layer.cuCtxDestroy_v2 = &own_cuCtxDestroy_v2;
    layer.cuCtxDestroy = &own_cuCtxDestroy;
    layer.cuDevicePrimaryCtxReset_v2 = &own_cuDevicePrimaryCtxReset_v2;
    layer.cuDevicePrimaryCtxReset = &own_cuDevicePrimaryCtxReset;
}

} // namespace d4r::runtime
