// cpu backend: make_cpu_backend() and its table (each concept file fills its own entries).
#include <mutex>

#include "runtime/backend.h"
#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime {

namespace {

// The cpu backend has no private tables of its own: the runtime's export-table layer serves d4r's.
CUresult cu_get_export_table(const void** table, const CUuuid*) {
    if (table) *table = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}

// No profiler attaches to ptxsim: starting and stopping one succeed and do nothing, as with NVIDIA's
// driver when no profiler is attached.
CUresult cu_profiler_start() { return cpu::check_init(); }
CUresult cu_profiler_stop() { return cpu::check_init(); }

const ApiTable& cpu_table() {
    static const ApiTable table = [] {
        ApiTable t{};
        cpu::fill_device(t);
        cpu::fill_context(t);
        cpu::fill_memory(t);
        cpu::fill_memcpy(t);
        cpu::fill_module(t);
        cpu::fill_library(t);
        cpu::fill_launch(t);
        cpu::fill_stream(t);
        cpu::fill_event(t);
        cpu::fill_array(t);
        cpu::fill_texture(t);
        cpu::fill_stream_ext(t);
        cpu::fill_peer(t);
        cpu::fill_mempool(t);
        cpu::fill_graph(t);
        cpu::fill_graph_nodes(t);
        cpu::fill_link(t);
        cpu::fill_vmm(t);
        cpu::fill_external(t);
        cpu::fill_managed(t);
        cpu::fill_legacy(t);
        t.cuGetExportTable = cu_get_export_table;
        t.cuProfilerStart = cu_profiler_start;
        t.cuProfilerStop = cu_profiler_stop;
        cpu::fill_capture(t);     // wraps the entries above
        cpu::fill_entry_layer(t); // last: sticky errors and launch back-pressure
        fill_missing(t);
        return t;
    }();
    return table;
}

// Owns its State (cpu_state.h), which is the active one from its making until the next cpu backend is made
// or it is destroyed.
class CpuBackend final : public Backend {
public:
    CpuBackend() : m_state(std::make_unique<cpu::State>()) { cpu::activate(m_state.get()); }
    ~CpuBackend() override {
        {
            // Destroyed as the state() of this thread: what its objects do on the way out (a graph's memory
            // going back, a context's last sticky fault) reaches this State, whichever is active.
            const cpu::BoundState bound(m_state.get());
            m_state.reset();
        }
        cpu::retire(m_raw);
    }
    CpuBackend(const CpuBackend&) = delete;
    CpuBackend& operator=(const CpuBackend&) = delete;

    const std::string& name() const override { return m_name; }
    const ApiTable& table() const override { return cpu_table(); }

private:
    std::unique_ptr<cpu::State> m_state;
    cpu::State* const m_raw = m_state.get();
    std::string m_name = "cpu";
};

} // namespace

Expected<std::unique_ptr<Backend>> make_cpu_backend() {
    (void)cpu_table();        // built once, before any state: every cpu backend object shares the constant table
    (void)cpu::jit_enabled(); // how kernels will run, said in the log now
    return std::unique_ptr<Backend>(new CpuBackend());
}

} // namespace d4r::runtime
