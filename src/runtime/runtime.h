// libd4rcuda: the process-wide CUDA runtime.
//
// Promise: the first CUDA call of the process (any entry point, from any thread) picks the backend
// once, from D4R_CUDA_BACKEND = auto | cpu | driver | driver:/path/libcuda.so (auto: NVIDIA's driver
// when it is installed and sees a device, else cpu; the choice and its reason are logged once), and
// builds the dispatch table every exported entry point calls: the backend's functions, wrapped by
// d4r's layers (cuGetProcAddress resolving to d4r's own entry points, the D4R_CUDA_TRACE trace).
// When no backend can be loaded every call fails with a CUDA error and the reason is logged once;
// nothing aborts.
#pragma once

#include <atomic>
#include <string>

#include "core/env.h"
#include "core/status.h"
#include "runtime/api_table.h"
#include "runtime/backend.h"

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
extern std::atomic<const ApiTable*> g_dispatch;
const ApiTable& init_dispatch();
} // namespace detail

// The table the exported entry points call. The first call initialises the runtime.
inline const ApiTable& dispatch() {
    const ApiTable* t = detail::g_dispatch.load(std::memory_order_acquire);
    if (t) [[likely]]
        return *t;
    return detail::init_dispatch();
}

// The name of the backend in use ("cpu", "driver:/usr/lib/.../libcuda.so.1", or "none: <why>").
std::string backend_name();

// The wrapper layers, each a table built over INNER (kept alive by the caller).
// trace: logs every call with its arguments and result (D4R_CUDA_TRACE=1).
ApiTable make_trace_table(const ApiTable& inner);

} // namespace d4r::runtime
