// libd4rcuda: kernel profiling and replay dumps (docs/runtime.md, "Observability"), a layer above the native-kernel
// overrides, so it sees every launch the application makes (served natively or not) on any backend.
//
// D4R_CUDA_KERNEL_PROFILE=1 (_SKIP N: ignore the first N matching launches; _LIMIT N, default 3000:
// profile at most N; _FILTER S: only kernels whose name contains S) writes for each profiled launch
//   KERNEL_PROFILE launch=<n> eligible=<0|1> gpu_ms=<t> name=<kernel>
// n counts every launch of the process from 1; eligible is 1 when a native kernel served it; gpu_ms is
// the time between events recorded on the launch's stream before and after it. Profiling waits for
// each profiled launch to finish (that is what makes the time attributable), so it slows the program.
// D4R_CUDA_REPLAY_DUMP_DIR=DIR (_FILTER, _SKIP, _LIMIT default 1) writes a dump (dump_format.h) of each
// matching launch: the stream is synchronised, the inputs saved (the allocations the parameter block
// points into, and the CUDA arrays behind the texture and surface objects it holds), the launch run, and
// the allocations and arrays saved again under after/. A dump is written to a temporary folder and
// renamed, so a folder that exists is complete. Failures to dump are logged and never change the
// launch's result; nothing the layer does throws out of a launch entry point. A launch with arguments
// the backend refuses (a NULL kernelParams entry, an `extra` without a buffer or size; launch_params.h)
// is not dumped (a debug line says why) and gets the backend's own answer. Kernel names, parameter layouts and module
// text come from the module registry (module_registry.h), which must be below the layer (with keep_ptx_text when
// dumping). Promise: with neither variable set the layer is not installed (no cost).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/env.h"
#include "runtime/api_table.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

struct LaunchSelector {
    std::string filter; // substring of the kernel name; "" = all
    uint64_t skip = 0;
    uint64_t limit = 0;
};

struct ObserveConfig {
    std::optional<LaunchSelector> profile;
    std::optional<LaunchSelector> dump;
    std::string dump_dir;
    bool active() const { return profile || dump; }
};

// Reads the variables above; a malformed number is logged once and its default used.
ObserveConfig observe_config_from_env(const Environment& env);

// Builds the layer over INNER (which must outlive it and have a module registry below it), its state in
// RUNTIME (one layer per runtime: building a new one replaces the previous one's state).
ApiTable make_observe_table(Runtime& runtime, const ApiTable& inner, ObserveConfig config);

// "KERNEL_PROFILE launch=12 eligible=0 gpu_ms=0.0123 name=k"
std::string format_profile_line(uint64_t launch, bool eligible, double gpu_ms, std::string_view name);

} // namespace d4r::runtime
