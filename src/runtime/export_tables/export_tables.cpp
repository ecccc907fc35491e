// cuGetExportTable (export_tables.h): the backend's tables, d4r's own, or a logged refusal.
#include "runtime/export_tables/export_tables.h"

#include <array>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "core/log.h"
#include "runtime/export_tables/export_table_ids.h"
#include "runtime/export_tables/own_tables.h"
#include "runtime/module_registry.h"
#include "runtime/twin_ptx/twin_ptx_layer.h"

namespace d4r::runtime {

namespace {

// ---- The backend's cudart-interface table, with module loading seen by the registry --------------------

struct WrappedCudart {
    std::once_flag once;
    const void* original = nullptr;
    std::array<const void*, 64> slots{}; // a copy of the backend's table (its size says how many slots)
};

// The layer's state, in the runtime that installed it (layer_state.h).
struct ExportTablesState final : LayerState {
    static constexpr LayerSlot kSlot = LayerSlot::ExportTables;
    const ApiTable* backend = nullptr;
    WrappedCudart wrapped;
};

// The layer's entry points (and the copy's slots, handed out by them) run only while the runtime that
// built them is installed.
ExportTablesState& state() { return *installed_layer<ExportTablesState>(); }
WrappedCudart& wrapped_cudart() { return state().wrapped; }

template <typename F>
F original_slot(size_t index) {
    return reinterpret_cast<F>(const_cast<void*>(static_cast<const void* const*>(wrapped_cudart().original)[index]));
}

using ModuleFromWrapper = CUresult (*)(CUmodule*, const void*);
using ModuleFromWrapperExt = CUresult (*)(CUmodule*, const void*, void*, void*, unsigned);
using ModuleFromFatbinExt = CUresult (*)(const void*, CUmodule*, void*, void*, unsigned);

CUresult seen_module_from_wrapper(CUmodule* module, const void* wrapper) {
    CUresult r = original_slot<ModuleFromWrapper>(1)(module, wrapper);
    if (r == CUDA_SUCCESS && module && wrapper) note_loaded_module(*module, wrapper);
    return r;
}

CUresult seen_module_from_wrapper_ext(CUmodule* module, const void* wrapper, void* a, void* b, unsigned c) {
    CUresult r = original_slot<ModuleFromWrapperExt>(6)(module, wrapper, a, b, c);
    if (r == CUDA_SUCCESS && module && wrapper) note_loaded_module(*module, wrapper);
    return r;
}

CUresult seen_module_from_fatbin_ext(const void* fatbin, CUmodule* module, void* a, void* b, unsigned c) {
    CUresult r = original_slot<ModuleFromFatbinExt>(8)(fatbin, module, a, b, c);
    if (r == CUDA_SUCCESS && module && fatbin) note_loaded_module(*module, fatbin);
    return r;
}

// The backend's table as handed to the application: as it is without a registry, else a copy whose
// module slots tell the registry. Slot 0 holds the table's size in bytes.
const void* backend_cudart_table(const void* original) {
    if (!registry_active()) return original;
    WrappedCudart& w = wrapped_cudart();
    std::call_once(w.once, [&] {
        const auto* slots = static_cast<const void* const*>(original);
        size_t count = reinterpret_cast<uintptr_t>(slots[0]) / sizeof(void*);
        if (count < 9 || count > w.slots.size()) {
            log::warn("libd4rcuda: the backend's cudart-interface table has {} slots (expected 9 to {}); handed out "
                      "unchanged, so modules cudart loads are not indexed",
                      count, w.slots.size());
            return;
        }
        std::memcpy(w.slots.data(), slots, count * sizeof(void*));
        w.original = original;
        w.slots[1] = reinterpret_cast<const void*>(&seen_module_from_wrapper);
        w.slots[6] = reinterpret_cast<const void*>(&seen_module_from_wrapper_ext);
        w.slots[8] = reinterpret_cast<const void*>(&seen_module_from_fatbin_ext);
    });
    return w.original ? static_cast<const void*>(w.slots.data()) : original;
}

// ---- cuGetExportTable ----------------------------------------------------------------------------------

void log_answer(const CUuuid& uuid, ExportTableId id, const char* answer) {
    std::string text = format_uuid(uuid);
    if (!log::once("export-table." + text)) return;
    if (id == ExportTableId::Unknown)
        log::info("libd4rcuda: cuGetExportTable({}): an unknown table, refused (CUDA_ERROR_INVALID_VALUE)", text);
    else
        log::debug("libd4rcuda: cuGetExportTable({} = {}): {}", text, export_table_name(id), answer);
}

CUresult d4r_cuGetExportTable(const void** table, const CUuuid* uuid) {
    if (!table) return CUDA_ERROR_INVALID_VALUE;
    *table = nullptr;
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    ExportTableId id = export_table_id(*uuid);
    if (id == ExportTableId::D4rTwinPtx) {
        // d4r's own id, never the backend's: handed out only where the twin-PTX layer was built.
        *table = twin_ptx_table();
        log_answer(*uuid, id, *table ? "d4r's own table" : "refused: the backend runs machine code");
        return *table ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    }
    const void* theirs = nullptr;
    if (state().backend->cuGetExportTable(&theirs, uuid) == CUDA_SUCCESS && theirs) {
        // cudart hashes the address of the cudart-interface table it was given into the integrity
        // check: once d4r hands out a copy, the backend's check no longer matches, so d4r answers it
        // with the same computation over the copy's address.
        if (id == ExportTableId::IntegrityCheck && registry_active()) {
            *table = own_export_table(id);
            log_answer(*uuid, id, "d4r's own table (the cudart-interface table handed out is a copy)");
            return CUDA_SUCCESS;
        }
        *table = id == ExportTableId::CudartInterface ? backend_cudart_table(theirs) : theirs;
        if (id == ExportTableId::CudartInterface) set_handed_out_cudart_table(*table);
        log_answer(*uuid, id, "the backend's table");
        return CUDA_SUCCESS;
    }
    if (const void* ours = own_export_table(id)) {
        *table = ours;
        if (id == ExportTableId::CudartInterface) set_handed_out_cudart_table(ours);
        log_answer(*uuid, id, "d4r's own table");
        return CUDA_SUCCESS;
    }
    log_answer(*uuid, id, "refused: neither the backend nor d4r has it (CUDA_ERROR_INVALID_VALUE)");
    return CUDA_ERROR_INVALID_VALUE;
}

} // namespace

void install_export_tables(Runtime& runtime, ApiTable& layer, const ApiTable& backend) {
    runtime.emplace_layer<ExportTablesState>().backend = &backend;
    layer.cuGetExportTable = &d4r_cuGetExportTable;
    wrap_for_own_tables(runtime, layer);
}

} // namespace d4r::runtime
