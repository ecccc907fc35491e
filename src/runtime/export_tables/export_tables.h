// libd4rcuda internals: cuGetExportTable, the private tables cudart and NVIDIA's libraries ask for.
//
// Promise: install_export_tables() sets the layer's cuGetExportTable. For each id asked:
//   1. the backend's own table when the backend answers it (NVIDIA's driver, ZLUDA); cudart's interface
//      table is then handed out as a copy whose module-loading slots also tell d4r's module registry,
//      so native kernels, profiles and dumps see the modules cudart loads; the integrity check, which
//      hashes that table's address, is then d4r's own (bit-identical to the driver's computation);
//   2. otherwise d4r's own table (own_tables.h) for the ids d4r implements, built on the CUDA driver
//      API as the exported entry points serve it;
//   3. otherwise CUDA_ERROR_INVALID_VALUE (what NVIDIA's driver answers for an id it does not know).
// Every id is logged once with its 16 bytes, its name and the answer; a slot of d4r's own tables that
// d4r does not implement logs its table and index once when called and returns CUDA_ERROR_NOT_SUPPORTED
// instead of crashing.
#pragma once

#include "runtime/api_table.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

// BACKEND is asked first (it must outlive the layer); d4r's own tables call the exported API. The layer's
// state (and the copy of the backend's cudart-interface table handed out) lives in RUNTIME.
void install_export_tables(Runtime& runtime, ApiTable& layer, const ApiTable& backend);

} // namespace d4r::runtime
