// Fresh runtimes for the runtime tests (runtime/runtime_object.h): a test builds its own Runtime over a new
// cpu backend, installs it, and destroys it at the end (which uninstalls it), so no test sees another's
// layer state or backend state (each cpu backend object owns its contexts, modules and graphs). Tests that
// build layers by hand over the cpu_test api() table hold their layer state in a Runtime over that table
// (install_runtime_over), which makes no backend state of its own.
#pragma once

#include <memory>
#include <string>

#include "core/env.h"
#include "runtime/backend.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime::rt_test {

// A new cpu backend object (with a state of its own, the active one while it lives), or null.
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

// A backend that answers with another's table (which must outlive it) and owns nothing.
class BorrowedBackend final : public Backend {
public:
    // NAME: what the backend says it is ("cpu", or "driver:/path" for a backend that runs machine code).
    explicit BorrowedBackend(const ApiTable& table, std::string name = "cpu")
        : m_table(table), m_name(std::move(name)) {}
    const std::string& name() const override { return m_name; }
    const ApiTable& table() const override { return m_table; }

private:
    const ApiTable& m_table;
    std::string m_name;
};

// A Runtime over TABLE (a backend's table that outlives it) with the layers ENV asks for, installed.
inline std::unique_ptr<Runtime> install_runtime_over(const ApiTable& table, const Environment& env = MapEnvironment()) {
    auto runtime = std::make_unique<Runtime>(env, std::make_unique<BorrowedBackend>(table));
    runtime->install();
    return runtime;
}

} // namespace d4r::runtime::rt_test
