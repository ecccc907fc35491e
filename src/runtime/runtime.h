// libd4rcuda: the process-wide CUDA runtime.
//
// Promise: the first CUDA call of the process (any entry point, from any thread) builds the process
// Runtime (runtime_object.h) once from the process environment and installs it; it is never destroyed
// (entry points may run during exit). Its backend comes from D4R_CUDA_BACKEND = auto | cpu | driver |
// driver:/path/libcuda.so (auto: NVIDIA's driver when it is installed and sees a device, else cpu; the
// choice and its reason are logged once); its dispatch table is the table every exported entry point
// calls: the backend's functions, wrapped by d4r's layers (cuGetProcAddress resolving to d4r's own entry
// points, the D4R_CUDA_TRACE trace, ...). dispatch() costs one acquire load once a runtime is installed.
// When no backend can be loaded every call fails with a CUDA error and the reason is logged once;
// nothing aborts.
#pragma once

#include <atomic>
#include <string>

#include "core/env.h"
#include "core/status.h"
#include "runtime/api_table.h"
#include "runtime/backend.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

// What D4R_CUDA_BACKEND asks for.
struct BackendChoice {
    enum class Kind { Auto, Cpu, Driver } kind = Kind::Auto;
    std::string path; // Driver: the library ("" = find NVIDIA's libcuda.so.1)
};
Expected<BackendChoice> parse_backend_choice(std::string_view text);

// Where NVIDIA's driver library may be (absolute paths, in search order), for auto and a bare
// `driver`: LD_LIBRARY_PATH entries, then the distributions' library folders. Paths that are
// libd4rcuda itself are left out.
std::vector<std::string> nvidia_driver_candidates(const Environment& env);

// Builds a backend as CHOICE says; for Auto also says why in *reason.
Expected<std::unique_ptr<Backend>> open_backend(const BackendChoice& choice, const Environment& env,
                                                std::string* reason);

namespace detail {
// Installs the process runtime (building it at the first call) when none is installed.
const ApiTable& init_dispatch();
} // namespace detail

// The table the exported entry points call: the installed runtime's. The first call initialises the
// process runtime.
inline const ApiTable& dispatch() {
    if (const Runtime* r = Runtime::current()) [[likely]]
        return r->table();
    return detail::init_dispatch();
}

// The name of the installed runtime's backend ("cpu", "driver:/usr/lib/.../libcuda.so.1", or
// "none: <why>"), installing the process runtime when none is.
std::string backend_name();

// The trace layer over INNER (kept alive by the caller), its state in RUNTIME: logs every call with its
// arguments and result (D4R_CUDA_TRACE=1).
ApiTable make_trace_table(Runtime& runtime, const ApiTable& inner);

} // namespace d4r::runtime
