// The Wine bridge (nvcuda.dll): cudart's private export tables as tables of Windows entry points
// (export_tables.h).
//
// Why one generic entry point per slot is correct. Every function slot d4r serves (own_tables.cpp) and
// every slot of these tables a public reimplementation lists takes only integers and pointers (at most
// ten of them) and returns a CUresult, an integer or nothing; none takes a float or a structure by
// value, none returns one. For such functions the two conventions differ only in where the arguments
// are: Windows x64 passes the first four in rcx, rdx, r8, r9 and the rest on the stack above 32 bytes of
// shadow space, System V the first six in rdi, rsi, rdx, rcx, r8, r9 and the rest on the stack; both
// return in rax. slot_thunk<K> is declared ms_abi with twelve 64-bit integer parameters and calls the
// Linux slot as a System V function of the same twelve, so the compiler moves each argument to where
// System V expects it, and saves the registers Windows code expects kept (rsi, rdi, xmm6-15) that
// System V code may change. A caller that passes fewer arguments leaves the extra parameters holding
// whatever its registers and its own stack frame hold above the shadow space (mapped memory: the
// caller's frame and those above it); the Linux function never reads parameters it does not declare.
// A narrower argument (a 32-bit CUdevice, an unsigned version) travels in the low bits of its 64-bit
// register or stack slot, where both conventions put it, and the callee reads only those bits.
//
// Which slots are functions: slot 0 of a sized table is its size in bytes (data, copied); any other slot
// is a function exactly when it points into an executable segment of a loaded ELF object (libd4rcuda,
// a backend's driver). Anything else (a null slot, a pointer to data) is copied as it is.
//
// Function pointers that cross the border inside a slot's arguments: the context-local-storage put
// (slot 0) takes a destructor, which bridge code wraps (below). No slot d4r serves hands a function
// pointer back (the tools buffers and the context check's detail are data), so nothing else needs one.
#include "bridge/export_tables.h"

#include <link.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "bridge/callback_thread.h"
#include "bridge/linux_api.h"
#include "bridge/wine_thread.h"
#include "runtime/export_tables/export_table_ids.h"
#include "runtime/export_tables/integrity_hash.h"

namespace d4r::bridge {

namespace {

using runtime::ExportTableId;

#define D4R_WIN __attribute__((ms_abi))

// ---- What the bridge knows of each table --------------------------------------------------------------

constexpr size_t kMaxSlots = 64;

struct Layout {
    ExportTableId id;
    bool sized;         // slot 0 holds the table's size in bytes
    size_t fixed_slots; // the slot count of a table without a size
};

// The tables libd4rcuda serves (own_tables.h), as own_tables.cpp lays them out.
constexpr Layout kLayouts[] = {
    {ExportTableId::CudartInterface, true, 0},   {ExportTableId::ToolsTls, true, 0},
    {ExportTableId::ToolsRuntimeHooks, true, 0}, {ExportTableId::ContextLocalStorage, false, 4},
    {ExportTableId::CtxCreateBypass, true, 0},   {ExportTableId::DeviceExtendedRt, true, 0},
    {ExportTableId::IntegrityCheck, true, 0},    {ExportTableId::ContextChecks, true, 0},
};
constexpr size_t kTables = std::size(kLayouts);

constexpr size_t layout_index(ExportTableId id) {
    for (size_t i = 0; i < kTables; ++i)
        if (kLayouts[i].id == id) return i;
    return kTables;
}
constexpr size_t kCls = layout_index(ExportTableId::ContextLocalStorage);
constexpr size_t kCudart = layout_index(ExportTableId::CudartInterface);
constexpr size_t kIntegrity = layout_index(ExportTableId::IntegrityCheck);
static_assert(kCls < kTables && kCudart < kTables && kIntegrity < kTables);

// ---- The tables handed out --------------------------------------------------------------------------

// Written once per table, under the mutex, before the table is handed out; read-only afterwards.
struct Tables {
    std::mutex mutex;
    bool built[kTables] = {};
    const void* linux_slots[kTables][kMaxSlots] = {};
    const void* windows[kTables][kMaxSlots] = {};
};
Tables& tables() {
    static Tables* t = new Tables(); // lives for the process: a table handed out is never taken back
    return *t;
}

using Word = uint64_t;
using SysvSlot = Word (*)(Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word);

template <size_t K>
D4R_WIN Word slot_thunk(Word a0, Word a1, Word a2, Word a3, Word a4, Word a5, Word a6, Word a7, Word a8, Word a9,
                        Word a10, Word a11) {
    note_wine_thread();
    auto fn = reinterpret_cast<SysvSlot>(const_cast<void*>(tables().linux_slots[K / kMaxSlots][K % kMaxSlots]));
    return fn(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
}

template <size_t... K>
std::array<const void*, sizeof...(K)> make_thunks(std::index_sequence<K...>) {
    return {reinterpret_cast<const void*>(&slot_thunk<K>)...};
}
const void* thunk_for(size_t table, size_t slot) {
    static const auto thunks = make_thunks(std::make_index_sequence<kTables * kMaxSlots>());
    return thunks[table * kMaxSlots + slot];
}

template <typename F>
F linux_slot(size_t table, size_t slot) {
    return reinterpret_cast<F>(const_cast<void*>(tables().linux_slots[table][slot]));
}

// True when P lies in an executable segment of a loaded ELF object.
bool points_to_code(const void* p) {
    struct Query {
        uintptr_t address;
        bool found;
    } query{reinterpret_cast<uintptr_t>(p), false};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
            auto* q = static_cast<Query*>(data);
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
                uintptr_t start = info->dlpi_addr + ph.p_vaddr;
                if (q->address >= start && q->address < start + ph.p_memsz) {
                    q->found = true;
                    return 1;
                }
            }
            return 0;
        },
        &query);
    return query.found;
}

// ---- context-local-storage: destructors from Windows code --------------------------------------------

using WinClsDestructor = void(D4R_WIN*)(CUcontext ctx, void* key, void* value);
using LinuxClsDestructor = void (*)(CUcontext ctx, void* key, void* value);
using LinuxClsPut = CUresult (*)(CUcontext ctx, void* key, void* value, LinuxClsDestructor destructor);
using LinuxClsDelete = CUresult (*)(CUcontext ctx, void* key);

// The application's destructor per (context, key), for the entries libd4rcuda holds with the trampoline.
struct ClsDestructors {
    std::mutex mutex;
    std::map<std::pair<CUcontext, void*>, WinClsDestructor> by_entry;
};
ClsDestructors& cls_destructors() {
    static ClsDestructors* d = new ClsDestructors();
    return *d;
}

// The context an entry belongs to: CTX, or the calling thread's current one (as libd4rcuda resolves it).
CUcontext owner_of(CUcontext ctx) {
    if (ctx) return ctx;
    const LinuxApi* api = linux_api();
    CUcontext current = nullptr;
    if (api && api->cuCtxGetCurrent && api->cuCtxGetCurrent(&current) != CUDA_SUCCESS) current = nullptr;
    return current;
}

// libd4rcuda calls this (System V) when it destroys an entry the application gave a destructor.
// d4r's own table runs destructors inside cuCtxDestroy and cuDevicePrimaryCtxReset, on the thread that
// called them; a Windows program calls those through this bridge, so that thread is a Wine thread (its
// entry point marked it, note_wine_thread) and the destructor is called right there, as NVIDIA's driver calls it
// in the middle of cuCtxDestroy. A thread the bridge has never seen (a backend's own thread) instead
// hands the call to the callback thread and waits for it.
void cls_destructor_trampoline(CUcontext ctx, void* key, void* value) {
    WinClsDestructor fn = nullptr;
    {
        ClsDestructors& d = cls_destructors();
        std::lock_guard lock(d.mutex);
        if (auto it = d.by_entry.find({ctx, key}); it != d.by_entry.end()) {
            fn = it->second;
            d.by_entry.erase(it);
        }
    }
    if (!fn) {
        log_debug("context-local-storage: a destructor was called for an entry the bridge does not know; skipped");
        return;
    }
    if (on_wine_thread())
        fn(ctx, key, value);
    else
        run_on_callback_thread([&] { fn(ctx, key, value); });
}

D4R_WIN CUresult win_cls_put(CUcontext ctx, void* key, void* value, WinClsDestructor destructor) {
    note_wine_thread();
    try {
        auto put = linux_slot<LinuxClsPut>(kCls, 0);
        ClsDestructors& d = cls_destructors();
        CUcontext owner = owner_of(ctx);
        if (!destructor) {
            CUresult r = put(ctx, key, value, nullptr);
            if (r == CUDA_SUCCESS) {
                std::lock_guard lock(d.mutex);
                d.by_entry.erase({owner, key});
            }
            return r;
        }
        if (!start_callback_thread()) return CUDA_ERROR_NOT_SUPPORTED;
        WinClsDestructor before = nullptr;
        {
            std::lock_guard lock(d.mutex);
            auto [it, fresh] = d.by_entry.try_emplace({owner, key}, destructor);
            if (!fresh) before = std::exchange(it->second, destructor);
        }
        CUresult r = put(ctx, key, value, &cls_destructor_trampoline);
        if (r != CUDA_SUCCESS) {
            std::lock_guard lock(d.mutex);
            if (before)
                d.by_entry[{owner, key}] = before;
            else
                d.by_entry.erase({owner, key});
        }
        return r;
    } catch (...) {
        log_once("cls-put", "context-local-storage put: out of memory; CUDA_ERROR_OUT_OF_MEMORY");
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
}

D4R_WIN CUresult win_cls_delete(CUcontext ctx, void* key) {
    note_wine_thread();
    CUcontext owner = owner_of(ctx);
    CUresult r = linux_slot<LinuxClsDelete>(kCls, 1)(ctx, key);
    if (r == CUDA_SUCCESS) {
        ClsDestructors& d = cls_destructors();
        std::lock_guard lock(d.mutex);
        d.by_entry.erase({owner, key});
    }
    return r;
}

// ---- integrity-check -----------------------------------------------------------------------------------

CUresult table_for(size_t index, const void** out);

// cudart hashes the record of the process, the tables and the devices it sees and compares the result
// with this slot's answer. A Windows cudart sees the Windows tables the bridge handed out, this entry
// point, and the Windows process and thread ids (what NVIDIA's Windows driver records), so the bridge
// answers with the same computation libd4rcuda makes (integrity_hash.h) over those, not over
// libd4rcuda's Linux tables, whose slot would hash addresses the Windows program never saw.
D4R_WIN CUresult win_integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t* result) {
    note_wine_thread();
    try {
        if (!result) return CUDA_ERROR_INVALID_VALUE;
        result[0] = result[1] = 0;
        const LinuxApi* api = linux_api();
        if (!api) return not_available("cuDriverGetVersion");
        auto get_uuid = api->cuDeviceGetUuid_v2 ? api->cuDeviceGetUuid_v2 : api->cuDeviceGetUuid;
        if (!api->cuDriverGetVersion || !api->cuDeviceGetCount || !api->cuDeviceGetAttribute || !get_uuid)
            return not_available("cuDeviceGetUuid");
        runtime::IntegrityInputs in;
        int driver_version = 0;
        if (CUresult r = api->cuDriverGetVersion(&driver_version)) return r;
        in.driver_version = static_cast<uint32_t>(driver_version);
        in.version = version;
        in.process = windows_process_id();
        in.thread = windows_thread_id();
        const void* cudart = nullptr; // the table the program has, or gets when it asks (built once)
        if (table_for(kCudart, &cudart) != CUDA_SUCCESS) cudart = nullptr;
        in.cudart_table = cudart;
        in.integrity_table = tables().windows[kIntegrity];
        in.function = reinterpret_cast<const void*>(&win_integrity_check);
        in.unix_seconds = unix_seconds;
        int count = 0;
        if (CUresult r = api->cuDeviceGetCount(&count)) return r;
        for (int dev = 0; dev < count; ++dev) {
            runtime::IntegrityDevice dv;
            if (CUresult r = get_uuid(&dv.uuid, dev)) return r;
            if (CUresult r = api->cuDeviceGetAttribute(&dv.pci_domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev))
                return r;
            if (CUresult r = api->cuDeviceGetAttribute(&dv.pci_bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev)) return r;
            if (CUresult r = api->cuDeviceGetAttribute(&dv.pci_device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev))
                return r;
            in.devices.push_back(dv);
        }
        auto words = runtime::integrity_hash(in);
        result[0] = words[0];
        result[1] = words[1];
        return CUDA_SUCCESS;
    } catch (...) {
        log_once("integrity", "integrity check: out of memory; CUDA_ERROR_OUT_OF_MEMORY");
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
}

// The bridge's own entry point for slot SLOT of table INDEX, or null when the generic thunk serves it.
const void* special_slot(size_t index, size_t slot) {
    if (index == kCls && slot == 0) return reinterpret_cast<const void*>(&win_cls_put);
    if (index == kCls && slot == 1) return reinterpret_cast<const void*>(&win_cls_delete);
    if (index == kIntegrity && slot == 1) return reinterpret_cast<const void*>(&win_integrity_check);
    return nullptr;
}

// ---- Building a table ------------------------------------------------------------------------------------

void log_refusal(const CUuuid& uuid, CUresult r, const std::string& why) {
    std::string text = runtime::format_uuid(uuid);
    log_once("export-table " + text, "cuGetExportTable(" + text + " = " +
                                         runtime::export_table_name(runtime::export_table_id(uuid)) + "): " + why +
                                         "; refused (" + std::to_string(int(r)) + ")");
}

// The Windows table INDEX, built on first use from libd4rcuda's. Called with the mutex not held.
CUresult table_for(size_t index, const void** out) {
    *out = nullptr;
    Tables& t = tables();
    std::lock_guard lock(t.mutex);
    if (t.built[index]) {
        *out = t.windows[index];
        return CUDA_SUCCESS;
    }
    const Layout& layout = kLayouts[index];
    const CUuuid uuid = runtime::export_table_uuid(layout.id);
    const LinuxApi* api = linux_api();
    if (!api || !api->cuGetExportTable) return not_available("cuGetExportTable");
    const void* theirs = nullptr;
    CUresult r = api->cuGetExportTable(&theirs, &uuid);
    if (r != CUDA_SUCCESS || !theirs) {
        r = r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_VALUE;
        log_refusal(uuid, r, "libd4rcuda does not serve it");
        return r;
    }
    const auto* slots = static_cast<const void* const*>(theirs);
    size_t count = layout.fixed_slots;
    if (layout.sized) {
        uintptr_t bytes = reinterpret_cast<uintptr_t>(slots[0]);
        count = bytes / sizeof(void*);
        if (bytes % sizeof(void*) || count < 1 || count > kMaxSlots) {
            log_refusal(uuid, CUDA_ERROR_NOT_SUPPORTED,
                        "libd4rcuda's table says it holds " + std::to_string(bytes) + " bytes; the bridge takes 8 to " +
                            std::to_string(kMaxSlots * sizeof(void*)) + " in whole slots");
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    }
    std::string data_slots;
    for (size_t i = 0; i < count; ++i) {
        const void* slot = slots[i];
        t.linux_slots[index][i] = slot;
        if (layout.sized && i == 0) {
            t.windows[index][i] = slot; // the size in bytes
        } else if (const void* own = special_slot(index, i); own && slot && points_to_code(slot)) {
            t.windows[index][i] = own;
        } else if (slot && points_to_code(slot)) {
            t.windows[index][i] = thunk_for(index, i);
        } else {
            t.windows[index][i] = slot; // data (or null), as it is
            data_slots += " " + std::to_string(i);
        }
    }
    t.built[index] = true;
    log_debug(std::string("cuGetExportTable(") + runtime::export_table_name(layout.id) + "): a table of " +
              std::to_string(count) + " slots for Windows" +
              (data_slots.empty() ? std::string() : "; copied as data: slots" + data_slots));
    *out = t.windows[index];
    return CUDA_SUCCESS;
}

} // namespace

CUresult windows_export_table(const void** table, const CUuuid* id) {
    if (table) *table = nullptr;
    try {
        if (!table || !id) {
            log_debug("cuGetExportTable: no table or no id; CUDA_ERROR_INVALID_VALUE");
            return CUDA_ERROR_INVALID_VALUE;
        }
        size_t index = layout_index(runtime::export_table_id(*id));
        if (index < kTables) return table_for(index, table);
        // Not one the bridge can lay out: libd4rcuda's answer when it refuses, else refused as NVIDIA's
        // driver refuses an id it does not know (its slots would be System V pointers).
        const LinuxApi* api = linux_api();
        if (!api || !api->cuGetExportTable) return not_available("cuGetExportTable");
        const void* theirs = nullptr;
        CUresult r = api->cuGetExportTable(&theirs, id);
        if (r != CUDA_SUCCESS || !theirs) {
            r = r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_VALUE;
            log_refusal(*id, r, "libd4rcuda does not serve it");
            return r;
        }
        log_refusal(*id, CUDA_ERROR_INVALID_VALUE,
                    "libd4rcuda serves it but the bridge does not know its slots, so it cannot make Windows entry "
                    "points for them");
        return CUDA_ERROR_INVALID_VALUE;
    } catch (...) {
        log_once("export-table exception", "cuGetExportTable: internal error (exception); CUDA_ERROR_UNKNOWN");
        return CUDA_ERROR_UNKNOWN;
    }
}

} // namespace d4r::bridge
