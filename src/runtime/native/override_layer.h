// libd4rcuda: native-kernel overrides (docs/kernel-sets.md and docs/runtime.md), a layer above every backend.
//
// Promise: at cuModuleGetFunction the layer decides once per function whether to serve NAME from the
// native set (the file NAME.<ext> exists and the set is a developer set, or the manifest lists the hash
// of a module defining NAME: module_registry.h indexed and hashed the module's PTX at load), loads the
// code object (native_kernel.h: cubin through the backend, hsaco through HIP, cpu from the registry),
// and logs each served and refused kernel once with the reason. cuLaunchKernel/Ex of a served function
// runs NAME_prep (grid d4r_prep_blocks x 128 threads, skipped while the u64 key at d4r_prep_key_offset
// repeats; with d4r_prep_key_slots N, one prepared image per key for N keys and an overflow slot
// prepared at every launch; the slot index is written to the code object's u32 `d4r_prep_slot` when it
// has one), then NAME with d4r_block_z / d4r_grid_x applied, then NAME_post1..8, all on the caller's
// stream with the caller's parameters. Everything else passes through to the backend untouched; with
// no active set the layer is not installed at all.
#pragma once

#include <cstdint>

#include "runtime/api_table.h"
#include "runtime/native/native_set.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

struct HipRuntime;

// Builds the layer over INNER (which must outlive it and be a module registry table,
// make_module_registry_table), its state in RUNTIME (one layer per runtime: building a new one replaces
// the previous one's state).
// HIP runs the set's code objects when they are `.hsaco` (it must then be non-null and outlive the layer).
ApiTable make_override_table(Runtime& runtime, const ApiTable& inner, NativeSet set, const HipRuntime* hip = nullptr);

// override_stats() and is_native_function() read the installed runtime's layer (Runtime::current()).

struct OverrideStats {
    uint64_t native_launches = 0; // main kernels launched natively
    uint64_t prep_launches = 0;
    uint64_t post_launches = 0;
    uint64_t served_functions = 0;  // functions bound to a native kernel
    uint64_t refused_functions = 0; // functions with a code object that was not allowed
};
OverrideStats override_stats(); // zeros without a layer

// True when launches of F are served by a native kernel (false without a layer).
bool is_native_function(CUfunction f);

} // namespace d4r::runtime
