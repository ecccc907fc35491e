// libd4rcuda internals: the init gate, which keeps "nothing works before cuInit" true when d4r itself had
// to initialise the backend.
//
// Promise: d4r calls NVIDIA's cuInit before the application does when it chooses the backend
// (D4R_CUDA_BACKEND=auto probes the driver) or the native kernels' target (the device's compute capability).
// The driver then no longer answers CUDA_ERROR_NOT_INITIALIZED to the application's calls made before its own
// cuInit, as it would without d4r. Over such a backend the runtime installs this gate at the top of the stack:
// until the application's first successful cuInit every call answers CUDA_ERROR_NOT_INITIALIZED, except the
// ones NVIDIA's driver answers before cuInit (cuInit, cuDriverGetVersion, cuGetErrorName, cuGetErrorString,
// cuGetProcAddress and cuGetExportTable); afterwards every call passes straight through.
#pragma once

#include "runtime/api_table.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

// The gate over INNER (which must outlive it), its state in RUNTIME; the functions read the installed
// runtime's gate (Runtime::current()).
ApiTable make_init_gate_table(Runtime& runtime, const ApiTable& inner);

} // namespace d4r::runtime
