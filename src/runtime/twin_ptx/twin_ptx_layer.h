// libd4rcuda: PTX twins of machine-code images (abi/d4r_twin_ptx.h), a layer for backends that run PTX only.
//
// Promise: built on a Runtime whose backend runs PTX only (the cpu backend; the driver backend over ZLUDA),
// the layer hands out d4r's twin-PTX export table (kD4rTwinPtxTableId) and keeps every twin registered
// through it in the Runtime. When cuModuleLoadData, cuModuleLoadDataEx, cuModuleLoadFatBinary,
// cuLibraryLoadData or cuLinkAddData(_v2) (a CU_JIT_INPUT_CUBIN) is given an image whose bytes are a
// registered image's, the layer below is given the twin's PTX instead (logged once per image); every other
// image passes through untouched, and with nothing registered a load costs one relaxed load more. Over a
// backend that runs machine code the layer is not built and the id is refused as NVIDIA's driver refuses it.
#pragma once

#include "runtime/api_table.h"
#include "runtime/backend.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

// Whether BACKEND runs PTX only, so that the layer is worth building.
bool backend_runs_ptx_only(const Backend& backend, const Environment& env);

// Builds the layer over INNER (which must outlive it); its state lives in RUNTIME.
ApiTable make_twin_ptx_table(Runtime& runtime, const ApiTable& inner);

// The twin-PTX export table when the installed runtime has the layer, else null.
const void* twin_ptx_table();

} // namespace d4r::runtime
