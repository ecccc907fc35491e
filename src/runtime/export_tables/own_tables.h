// libd4rcuda internals: d4r's own implementation of the export tables cudart needs, for backends that
// have none (the cpu backend). Built on the CUDA driver API as the exported entry points serve it, so
// the same tables work over any backend and every layer (registry, overrides, trace) sees their calls.
//
// Served: cudart-interface (modules from fatbins, the primary context, compilers), tools-tls,
// tools-runtime-hooks, context-local-storage (with destructors run at context destruction and primary
// context reset), ctx-create-bypass, device-extended-rt, integrity-check (bit-identical to NVIDIA's
// driver on the H200) and context-checks. Not served, as NVIDIA's driver 580 on Linux does not serve
// heap-access either; cudart carries on without the early probe, and libnvrtc without its probe.
#pragma once

#include "runtime/api_table.h"
#include "runtime/export_tables/export_table_ids.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

// The table for ID, or null when d4r has none. Valid for the process' lifetime; its functions keep their
// state (context-local storage, the primary contexts held for cudart) in the installed runtime.
const void* own_export_table(ExportTableId id);

// The cudart-interface table d4r handed to the application (d4r's own, or a copy of the backend's): the
// integrity check hashes its address, as cudart does with the table it was given. Kept in the installed
// runtime.
void set_handed_out_cudart_table(const void* table);

// Wraps the entry points whose effects the own tables must follow (context destruction and primary
// context reset run context-local-storage destructors); the state of d4r's tables lives in RUNTIME.
void wrap_for_own_tables(Runtime& runtime, ApiTable& layer);

} // namespace d4r::runtime
