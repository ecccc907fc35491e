// libd4rcuda internals: the execution-control API of CUDA 1.0-3.2 (cuFuncSetBlockShape,
// cuFuncSetSharedSize, cuParamSetSize/Seti/Setf/Setv, cuLaunch, cuLaunchGrid, cuLaunchGridAsync) for every
// backend, as one layer at the top of the stack.
//
// Promise: install_legacy_launch() replaces those entries of TABLE. Each function handle's block shape
// (default 1x1x1), dynamic shared size (0) and parameter buffer live in the layer; a launch becomes one
// cuLaunchKernel of LAUNCHER with the buffer passed through `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER), so
// it goes through every d4r layer a cuLaunchKernel does: native-kernel overrides, profiles, replay
// dumps, the trace. Handles are checked with INNER's cuFuncGetAttribute (an invalid one answers as the
// backend does); a function's state is forgotten when its module or library is unloaded. LAUNCHER is
// read at launch time and must outlive the layer. The layer's state lives in RUNTIME (layer_state.h), which
// must be installed when the entries are called; installing the layer again on the same runtime starts
// afresh.
#pragma once

#include "runtime/api_table.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

void install_legacy_launch(Runtime& runtime, ApiTable& table, const ApiTable& inner, const ApiTable* launcher);

} // namespace d4r::runtime
