// The Runtime object (runtime_object.h): the backend, the layer stack built from the environment, d4r's own
// entry points (cuGetProcAddress), installing and uninstalling.
#include "runtime/runtime_object.h"

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/log.h"
#include "kernelset/gpu_topology.h"
#include "runtime/export_tables/export_tables.h"
#include "runtime/init_gate.h"
#include "runtime/legacy_launch.h"
#include "runtime/module_registry.h"
#include "runtime/native/hip_runtime.h"
#include "runtime/native/native_target.h"
#include "runtime/native/override_layer.h"
#include "runtime/observe/observe_layer.h"
#include "runtime/refusal.h"
#include "runtime/runtime.h"
#include "runtime/twin_ptx/twin_ptx_layer.h"

namespace d4r::runtime {

namespace detail {
std::atomic<Runtime*> g_installed{nullptr};
}

namespace {

// ---- When no backend could be opened: every call fails, the reason was logged. ----

#define D4R_UNAVAILABLE(exp, base, since, params, args) \
    CUresult unavailable_##exp params { return CUDA_ERROR_NOT_INITIALIZED; }
D4R_CUDA_API(D4R_UNAVAILABLE)
#undef D4R_UNAVAILABLE

CUresult unavailable_init(unsigned int) { return CUDA_ERROR_NO_DEVICE; }

// The error texts need no backend.
CUresult own_error_name(CUresult error, const char** text) {
    if (!text) return CUDA_ERROR_INVALID_VALUE;
    *text = error_name(error);
    return *text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult own_error_string(CUresult error, const char** text) {
    if (!text) return CUDA_ERROR_INVALID_VALUE;
    *text = error_string(error);
    return *text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

ApiTable make_unavailable_table() {
    ApiTable t = {
#define D4R_UNAVAILABLE_REF(exp, base, since, params, args) &unavailable_##exp,
        D4R_CUDA_API(D4R_UNAVAILABLE_REF)
#undef D4R_UNAVAILABLE_REF
    };
    t.cuInit = &unavailable_init;
    t.cuGetErrorName = &own_error_name;
    t.cuGetErrorString = &own_error_string;
    return t;
}

// ---- d4r's own entry points (the same on every backend) ----

CUresult get_proc_address_common(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                                 CUdriverProcAddressQueryResult* status) {
    // Cleared before any refusal, as every entry point does (the exported symbol clears them too).
    if (pfn) *pfn = nullptr;
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    if (!symbol || !pfn) return refuse(CUDA_ERROR_INVALID_VALUE, "cuGetProcAddress: symbol or pfn is null");
    if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) {
        if (log::once("runtime.ptds"))
            log::info("per-thread default stream entry points requested: d4r serves the legacy-stream ones "
                      "(every stream is ordered on the backend)");
    }
    bool too_low = false;
    ApiId id = find_proc(symbol, cuda_version, &too_low);
    if (id == ApiId::Count) {
        // Not in d4r's list (or not at this version): the backend's library may have it (the driver backend).
        const Runtime* runtime = Runtime::current();
        const Backend* backend = runtime ? runtime->backend() : nullptr;
        if (void* foreign = backend ? backend->foreign_proc(symbol, cuda_version, flags) : nullptr) {
            if (log::once(fmt::format("runtime.foreign.{}.{}", symbol, cuda_version)))
                log::debug("cuGetProcAddress({}, {}): the backend library's own entry point (d4r's layers do not "
                           "see its calls)",
                           symbol, cuda_version);
            *pfn = foreign;
            return CUDA_SUCCESS;
        }
        // One line per unknown name, for the first names only: a program may ask for any number of them,
        // and log::once remembers every key it was given.
        static std::atomic<int> named{0};
        if (named.load(std::memory_order_relaxed) < 256 && log::once(fmt::format("runtime.proc.{}", symbol)) &&
            named.fetch_add(1, std::memory_order_relaxed) < 256)
            log::debug("cuGetProcAddress({}, {}): {}", symbol, cuda_version,
                       too_low ? "version not sufficient" : "not found");
        // With a status to fill, NVIDIA's driver (580) reports a missing symbol there and returns success;
        // without one the result says it.
        if (status) {
            *status = too_low ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            return CUDA_SUCCESS;
        }
        return CUDA_ERROR_NOT_FOUND;
    }
    // The installed runtime's table: the one whose table handed out this entry point.
    *pfn = table_slot(dispatch(), id);
    if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult d4r_cuGetProcAddress(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags) {
    return get_proc_address_common(symbol, pfn, cuda_version, flags, nullptr);
}

CUresult d4r_cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                                 CUdriverProcAddressQueryResult* status) {
    return get_proc_address_common(symbol, pfn, cuda_version, flags, status);
}

void set_own_entries(ApiTable& t) {
    t.cuGetProcAddress = &d4r_cuGetProcAddress;
    t.cuGetProcAddress_v2 = &d4r_cuGetProcAddress_v2;
}

// The native set and HIP runtime the override layer would use, or nullopt (the reason is logged).
struct NativeChoice {
    NativeSet set;
    const HipRuntime* hip = nullptr;
};

// *INITIALISED_BACKEND becomes true when learning the target called the backend's cuInit (NVIDIA code objects).
std::optional<NativeChoice> choose_native(const Backend& backend, const Environment& env, bool* initialised_backend) {
    if (!env_text(env, EnvVar::NativeKernelDir)) return std::nullopt;
    NativeTarget target = native_target_for(backend, env, kernels::kDefaultKfdTopology);
    if (target.extension == "cubin") *initialised_backend = true;
    log::debug("native kernels: {}", target.why);
    auto set = load_native_set(env, target.extension, target.arch);
    if (!set) {
        log::warn("native kernels: off: {}", set.error().text());
        return std::nullopt;
    }
    for (const std::string& note : set->notes) log::debug("native kernels: {}", note);
    if (!set->active()) {
        log::info("native kernels: no kernel set qualifies under {} ({}): every kernel runs from PTX",
                  env_text(env, EnvVar::NativeKernelDir).value_or(""), target.why);
        return std::nullopt;
    }
    NativeChoice choice{std::move(*set), nullptr};
    if (target.extension == "hsaco") {
        auto loaded = load_hip_runtime(env);
        if (!loaded) {
            log::warn("native kernels: off: .hsaco code objects run through HIP, and {}: every kernel runs from PTX",
                      loaded.error().text());
            return std::nullopt;
        }
        choice.hip = *loaded;
        log::info("native kernels: HIP runtime {} ({})", choice.hip->library, choice.hip->source);
    }
    log::info("native kernels: {} set {} ({} code objects)", kernels::kernel_set_kind_name(choice.set.kind),
              choice.set.path.string(), target.extension);
    return choice;
}

} // namespace

// The layers between the backend and the trace: the module registry when the overrides or the observe
// layer need it, the twin-PTX layer over a backend that runs PTX only (above the registry, which so indexes
// the PTX it substitutes), the overrides, d4r's own cuGetProcAddress and export tables, the observe layer.
// Returns the top table.
ApiTable* Runtime::build_layers(const Environment& env) {
    std::optional<NativeChoice> native = choose_native(*m_backend, env, &m_initialised_backend);
    ObserveConfig observe = observe_config_from_env(env);
    const ApiTable* below = &m_backend->table();
    if (native || observe.active()) {
        m_registered = make_module_registry_table(*this, *below, RegistryOptions{observe.dump.has_value()});
        below = &m_registered;
    }
    if (backend_runs_ptx_only(*m_backend, env)) {
        m_twinned = make_twin_ptx_table(*this, *below);
        below = &m_twinned;
    }
    m_layered = native ? make_override_table(*this, *below, std::move(native->set), native->hip) : *below;
    set_own_entries(m_layered);
    install_export_tables(*this, m_layered, m_backend->table());
    if (!observe.active()) return &m_layered;
    if (observe.profile)
        log::info("libd4rcuda: kernel profile on (skip {}, limit {}, filter '{}')", observe.profile->skip,
                  observe.profile->limit, observe.profile->filter);
    if (observe.dump)
        log::info("libd4rcuda: replay dumps into {} (skip {}, limit {}, filter '{}')", observe.dump_dir,
                  observe.dump->skip, observe.dump->limit, observe.dump->filter);
    m_observed = make_observe_table(*this, m_layered, std::move(observe));
    return &m_observed;
}

Runtime::Runtime(const Environment& env, std::unique_ptr<Backend> backend) {
    std::string reason = "given by the caller";
    if (!backend) {
        auto choice = parse_backend_choice(env_text(env, EnvVar::CudaBackend).value_or(""));
        // Auto chose a driver only after its cuInit succeeded.
        const bool probed = choice && choice->kind == BackendChoice::Kind::Auto;
        Expected<std::unique_ptr<Backend>> opened = choice
                                                        ? open_backend(*choice, env, &reason)
                                                        : Expected<std::unique_ptr<Backend>>(std::move(choice).error());
        if (opened) {
            backend = std::move(*opened);
            m_initialised_backend = probed && backend->name().rfind("driver:", 0) == 0;
        } else {
            m_backend_name = "none: " + opened.error().text();
            log::error("libd4rcuda: no CUDA backend: {}", opened.error().text());
        }
    }
    ApiTable* top = nullptr;
    if (backend) {
        m_backend = std::move(backend);
        m_backend_name = m_backend->name();
        log::info("libd4rcuda: backend {} ({})", m_backend_name, reason);
        top = build_layers(env);
        // The CUDA 1.0 launches become cuLaunchKernel calls of the finished table, so every layer sees them.
        install_legacy_launch(*this, *top, m_backend->table(), &m_dispatch);
        if (m_initialised_backend) {
            log::debug("libd4rcuda: d4r initialised the backend itself; calls before the application's cuInit "
                       "answer CUDA_ERROR_NOT_INITIALIZED, as without d4r (init gate)");
            m_gated = make_init_gate_table(*this, *top);
            top = &m_gated;
        }
    } else {
        m_layered = make_unavailable_table();
        set_own_entries(m_layered);
        top = &m_layered;
    }
    if (env_bool(env, EnvVar::CudaTrace)) {
        m_traced = make_trace_table(*this, *top);
        m_dispatch = m_traced;
    } else {
        m_dispatch = *top;
    }
}

Runtime::~Runtime() { uninstall(); }

namespace {
std::atomic<ForeignExportBinder> g_export_binder{nullptr};
} // namespace

void set_foreign_export_binder(ForeignExportBinder binder) {
    g_export_binder.store(binder, std::memory_order_release);
    if (binder) binder(Runtime::current() ? Runtime::current()->backend() : nullptr);
}

void Runtime::install() {
    detail::g_installed.store(this, std::memory_order_release);
    if (ForeignExportBinder bind = g_export_binder.load(std::memory_order_acquire)) bind(m_backend.get());
}

void Runtime::uninstall() {
    Runtime* self = this;
    detail::g_installed.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel);
}

} // namespace d4r::runtime
