// Fresh runtimes for the runtime tests (runtime/runtime_object.h): a test builds its own Runtime over a new
// cpu backend, installs it, and destroys it at the end (which uninstalls it), so no test sees another's
// layer state.
#pragma once

#include <memory>

#include "core/env.h"
#include "runtime/backend.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime::rt_test {

// A new cpu backend object (they share the process' one cpu device), or null.
inline std::unique_ptr<Backend> cpu_backend() {
    auto backend = make_cpu_backend();
    return backend ? std::move(*backend) : nullptr;
}

// A Runtime over a new cpu backend with the layers ENV asks for (none by default), installed.
inline std::unique_ptr<Runtime> install_fresh_runtime(const Environment& env = MapEnvironment()) {
    auto runtime = std::make_unique<Runtime>(env, cpu_backend());
    runtime->install();
    return runtime;
}

} // namespace d4r::runtime::rt_test
