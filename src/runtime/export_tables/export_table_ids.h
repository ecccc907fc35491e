// libd4rcuda internals: the private export tables of NVIDIA's driver that d4r knows by id.
//
// cudart, libnvrtc and other NVIDIA libraries ask the driver for undocumented function tables with
// cuGetExportTable(&table, &uuid). Promise: every id d4r has met is named here once, with what is known
// of it; format_uuid() gives the 16 bytes in the usual 8-4-4-4-12 form (bytes in memory order), which is
// how logs and the trace print an id.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "abi/cuda.h"

namespace d4r::runtime {

using abi::CUuuid;

enum class ExportTableId {
    CudartInterface,     // modules from fatbins, the primary context, compiler loading (fatal if refused)
    ToolsTls,            // tools thread-local storage (size only)
    ToolsRuntimeHooks,   // buffers the tools callbacks share with cudart
    ContextLocalStorage, // per-context key/value store cudart keeps its state in
    CtxCreateBypass,     // cuCtxCreate without the tools callbacks
    HeapAccess,          // driver heap records
    DeviceExtendedRt,    // extra device attributes for the runtime
    IntegrityCheck,      // a keyed hash cudart uses to check the driver it talks to
    ContextChecks,       // context sanity bits
    HybridCudart,        // Windows: nvcudart_hybrid64.dll loader
    CudartEarlyProbe,    // f8cff951-...: asked by cudart 13 before cuInit; refused without harm
    NvrtcProbe,          // da9151d3-...: asked by libnvrtc; refused without harm
    D4rTwinPtx,          // d4r's own (abi/d4r_twin_ptx.h): its companion libraries register PTX twins
    Unknown,
};

// The id of UUID, Unknown for anything else.
ExportTableId export_table_id(const CUuuid& uuid);
// A short name for logs ("cudart-interface").
const char* export_table_name(ExportTableId id);
// The 16 bytes of ID as an uuid (memory order).
CUuuid export_table_uuid(ExportTableId id);
// "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9"
std::string format_uuid(const CUuuid& uuid);

} // namespace d4r::runtime
