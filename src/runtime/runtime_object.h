// libd4rcuda: one Runtime object owns the layer stack.
//
// Promise: a Runtime opens its backend (the one given, else the one D4R_CUDA_BACKEND names, runtime.h),
// builds the layers its Environment asks for (module registry, native-kernel overrides, d4r's own
// cuGetProcAddress and export tables, observe, legacy launch, trace: docs/architecture.md) and owns the
// backend, every layer's state (layer_state.h) and every table, the dispatch table included. Without a
// backend every call of its table fails with a CUDA error (backend_name() says why); construction never
// fails and never throws out of the layers.
//
// The rule: layer entry points are plain C function pointers, so they find their state through ONE
// process-wide pointer, the installed Runtime (current()). At most one Runtime is installed at a time;
// a Runtime's table (and any table a layer built on it) may be called only while it is installed.
// Installing and uninstalling is done by the process runtime at the first CUDA call (runtime.h: that
// Runtime is built once and never destroyed, since entry points may run during exit) and by tests, which
// build fresh Runtimes, install them, and destroy them (a destroyed Runtime uninstalls itself; the next
// call through dispatch() installs the process runtime again). Nothing may call into a Runtime's tables
// from another thread while it is uninstalled or destroyed.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <typeinfo>

#include "core/env.h"
#include "runtime/api_table.h"
#include "runtime/backend.h"
#include "runtime/layer_state.h"

namespace d4r::runtime {

class Runtime;

namespace detail {
extern std::atomic<Runtime*> g_installed; // the one process-wide pointer; read through Runtime::current()
} // namespace detail

class Runtime {
public:
    // Opens BACKEND (or, when null, the backend ENV's D4R_CUDA_BACKEND chooses) and builds the layers ENV
    // asks for. Does not install the runtime.
    explicit Runtime(const Environment& env, std::unique_ptr<Backend> backend = nullptr);
    ~Runtime(); // uninstalls it first when it is installed
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    // The installed runtime, or null.
    static Runtime* current() { return detail::g_installed.load(std::memory_order_acquire); }
    // Makes this the installed runtime (replacing whichever was).
    void install();
    // Uninstalls this runtime when it is the installed one.
    void uninstall();
    bool installed() const { return current() == this; }

    // The table the exported entry points call while this runtime is installed.
    const ApiTable& table() const { return m_dispatch; }
    // "cpu", "driver:/usr/lib/.../libcuda.so.1", or "none: <why>".
    const std::string& backend_name() const { return m_backend_name; }
    // Null when no backend could be opened.
    const Backend* backend() const { return m_backend.get(); }

    // Whether the layer of SLOT was built on this runtime.
    bool has_layer(LayerSlot slot) const { return m_layers[static_cast<size_t>(slot)] != nullptr; }
    // The state of layer T (a LayerStateOf type: it names its slot), or null when that layer was not built
    // on this runtime. Checked: the slot answers only for the type that filled it.
    template <LayerStateOf T>
    T* layer() const {
        const size_t slot = static_cast<size_t>(T::kSlot);
        if (!m_layers[slot] || *m_layer_types[slot] != typeid(T)) return nullptr;
        return static_cast<T*>(m_layers[slot].get());
    }
    // Puts a new state of layer T into its slot, destroying the one there (a layer built again on the same
    // runtime).
    template <LayerStateOf T>
    T& emplace_layer() {
        const size_t slot = static_cast<size_t>(T::kSlot);
        auto state = std::make_unique<T>();
        T& ref = *state;
        m_layers[slot] = std::move(state);
        m_layer_types[slot] = &typeid(T);
        return ref;
    }

private:
    ApiTable* build_layers(const Environment& env);

    std::unique_ptr<Backend> m_backend;
    std::string m_backend_name;
    bool m_initialised_backend = false; // d4r called the backend's cuInit before the application could
    std::array<std::unique_ptr<LayerState>, kLayerSlotCount> m_layers;
    std::array<const std::type_info*, kLayerSlotCount> m_layer_types{}; // what emplace_layer put there
    ApiTable m_registered; // the module registry over the backend (when a layer reads it)
    ApiTable m_twinned;    // the twin-PTX layer over that (when the backend runs PTX only)
    ApiTable m_layered;    // backend + d4r layers, without the observe layer and the trace
    ApiTable m_observed;   // profile and dumps over m_layered (when asked for)
    ApiTable m_gated;      // the init gate over the layers (when d4r initialised the backend: init_gate.h)
    ApiTable m_traced;     // the trace over the top layer
    ApiTable m_dispatch;   // what the exports call
};

// The installed runtime's state of layer T: null when no runtime is installed or T's layer was not built
// on it. The one way a layer's entry points reach their state.
template <LayerStateOf T>
T* installed_layer() {
    Runtime* runtime = Runtime::current();
    return runtime ? runtime->layer<T>() : nullptr;
}

} // namespace d4r::runtime
