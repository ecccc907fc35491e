// The runtime: backend choice, the dispatch table and d4r's own entry points (cuGetProcAddress).
#include "runtime/runtime.h"

#include <dlfcn.h>
#include <mutex>
#include <unistd.h>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/log.h"
#include "core/strings.h"
#include "kernelset/gpu_topology.h"
#include "runtime/export_tables/export_tables.h"
#include "runtime/legacy_launch.h"
#include "runtime/module_registry.h"
#include "runtime/native/hip_runtime.h"
#include "runtime/native/native_target.h"
#include "runtime/native/override_layer.h"
#include "runtime/observe/observe_layer.h"
#include "runtime/refusal.h"

namespace d4r::runtime {

namespace detail {
std::atomic<const ApiTable*> g_dispatch{nullptr};
}

namespace {

struct RuntimeState {
    std::mutex mutex;
    std::unique_ptr<Backend> backend;
    std::string backend_name;
    ApiTable registered; // the module registry over the backend (when a layer reads it)
    ApiTable layered;    // backend + d4r layers, without the trace
    ApiTable observed;   // profile and dumps over `layered` (when asked for)
    ApiTable traced;     // the trace over the top layer
    ApiTable dispatch;   // what the exports call
};

RuntimeState& state() {
    static RuntimeState* s = new RuntimeState(); // never destroyed: entry points may run during exit
    return *s;
}

// The file this library was loaded from ("" when linked statically into a program).
std::string own_library_path() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&own_library_path), &info) && info.dli_fname) {
        return resolved_path_or_same(info.dli_fname);
    }
    return {};
}

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
    *pfn = table_slot(state().dispatch, id);
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

} // namespace

Expected<BackendChoice> parse_backend_choice(std::string_view text) {
    std::string t(trim(text));
    BackendChoice c;
    if (t.empty() || iequals(t, "auto")) return c;
    if (iequals(t, "cpu")) {
        c.kind = BackendChoice::Kind::Cpu;
        return c;
    }
    if (iequals(t, "driver")) {
        c.kind = BackendChoice::Kind::Driver;
        return c;
    }
    if (t.size() > 7 && iequals(t.substr(0, 7), "driver:")) {
        c.kind = BackendChoice::Kind::Driver;
        c.path = t.substr(7);
        return c;
    }
    return make_error(ErrorCode::Invalid,
                      "D4R_CUDA_BACKEND='{}': expected auto, cpu, driver or driver:/path/to/libcuda.so", t);
}

std::vector<std::string> nvidia_driver_candidates(const Environment& env) {
    std::vector<std::string> dirs;
    if (auto llp = env.get("LD_LIBRARY_PATH"))
        for (std::string_view d : split(*llp, ':'))
            if (!d.empty()) dirs.emplace_back(d);
    for (const char* d :
         {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64", "/usr/lib/wsl/lib"})
        dirs.push_back(d);
    std::string self = own_library_path();
    std::vector<std::string> out;
    for (const std::string& d : dirs) {
        std::string p = d + "/libcuda.so.1";
        if (!is_file(p)) continue;
        std::string real = resolved_path_or_same(p);
        if (!self.empty() && real == self) continue;
        bool seen = false;
        for (const std::string& o : out) seen = seen || resolved_path_or_same(o) == real;
        if (!seen) out.push_back(p);
    }
    return out;
}

Expected<std::unique_ptr<Backend>> open_backend(const BackendChoice& choice, const Environment& env,
                                                std::string* reason) {
    using Kind = BackendChoice::Kind;
    if (choice.kind == Kind::Cpu) {
        if (reason) *reason = "D4R_CUDA_BACKEND=cpu";
        return make_cpu_backend();
    }
    if (choice.kind == Kind::Driver) {
        if (!choice.path.empty()) {
            if (reason) *reason = "D4R_CUDA_BACKEND=driver:" + choice.path;
            return make_driver_backend(choice.path);
        }
        std::vector<std::string> found = nvidia_driver_candidates(env);
        if (found.empty())
            return make_error(ErrorCode::NotFound,
                              "D4R_CUDA_BACKEND=driver: NVIDIA's libcuda.so.1 was not found (looked in "
                              "LD_LIBRARY_PATH and the system library folders); give a path with driver:/path");
        if (reason) *reason = "D4R_CUDA_BACKEND=driver";
        return make_driver_backend(found.front());
    }
    // Auto: NVIDIA's driver when it loads and sees a device, else the CPU.
    std::string why;
    for (const std::string& path : nvidia_driver_candidates(env)) {
        auto b = make_driver_backend(path);
        if (!b) {
            why = fmt::format("{}: {}", path, b.error().text());
            continue;
        }
        const ApiTable& t = (*b)->table();
        int count = 0;
        CUresult r = t.cuInit(0);
        if (r == CUDA_SUCCESS) r = t.cuDeviceGetCount(&count);
        if (r == CUDA_SUCCESS && count > 0) {
            if (reason) *reason = fmt::format("auto: NVIDIA driver {} sees {} device(s)", path, count);
            return b;
        }
        const char* name = error_name(r);
        why = fmt::format("{}: {}", path, r != CUDA_SUCCESS ? (name ? name : "error") : "no device");
    }
    if (reason)
        *reason = why.empty() ? "auto: no NVIDIA driver installed, using the CPU (ptxsim)"
                              : fmt::format("auto: NVIDIA driver unusable ({}), using the CPU (ptxsim)", why);
    return make_cpu_backend();
}

ApiTable make_trace_table(const ApiTable& inner); // trace.cpp

namespace {

// The native set and HIP runtime the override layer would use, or nullopt (the reason is logged).
struct NativeChoice {
    NativeSet set;
    const HipRuntime* hip = nullptr;
};

std::optional<NativeChoice> choose_native(const Backend& backend, const Environment& env) {
    if (!env_text(env, EnvVar::NativeKernelDir)) return std::nullopt;
    NativeTarget target = native_target_for(backend, env, kernels::kDefaultKfdTopology);
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

// The layers between the backend and the trace: the module registry when the overrides or the observe
// layer need it, the overrides, d4r's own cuGetProcAddress, the observe layer. Returns the top table.
ApiTable* install_layers(RuntimeState& s, const Environment& env) {
    std::optional<NativeChoice> native = choose_native(*s.backend, env);
    ObserveConfig observe = observe_config_from_env(env);
    const ApiTable* below = &s.backend->table();
    if (native || observe.active()) {
        s.registered = make_module_registry_table(*below, RegistryOptions{observe.dump.has_value()});
        below = &s.registered;
    }
    s.layered = native ? make_override_table(*below, std::move(native->set), native->hip) : *below;
    s.layered.cuGetProcAddress = &d4r_cuGetProcAddress;
    s.layered.cuGetProcAddress_v2 = &d4r_cuGetProcAddress_v2;
    install_export_tables(s.layered, s.backend->table());
    if (!observe.active()) return &s.layered;
    if (observe.profile)
        log::info("libd4rcuda: kernel profile on (skip {}, limit {}, filter '{}')", observe.profile->skip,
                  observe.profile->limit, observe.profile->filter);
    if (observe.dump)
        log::info("libd4rcuda: replay dumps into {} (skip {}, limit {}, filter '{}')", observe.dump_dir,
                  observe.dump->skip, observe.dump->limit, observe.dump->filter);
    s.observed = make_observe_table(s.layered, std::move(observe));
    return &s.observed;
}

} // namespace

namespace detail {

const ApiTable& init_dispatch() {
    RuntimeState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (const ApiTable* t = g_dispatch.load(std::memory_order_acquire)) return *t;
    log::init_from_env();
    ProcessEnvironment env;
    std::string reason;
    Expected<std::unique_ptr<Backend>> backend = [&]() -> Expected<std::unique_ptr<Backend>> {
        auto choice = parse_backend_choice(env_text(env, EnvVar::CudaBackend).value_or(""));
        if (!choice) return std::move(choice).error();
        return open_backend(*choice, env, &reason);
    }();
    ApiTable* top = nullptr;
    if (backend) {
        s.backend = std::move(*backend);
        s.backend_name = s.backend->name();
        log::info("libd4rcuda: backend {} ({})", s.backend_name, reason);
        top = install_layers(s, env);
        // The CUDA 1.0 launches become cuLaunchKernel calls of the finished table, so every layer sees them.
        install_legacy_launch(*top, s.backend->table(), &s.dispatch);
    } else {
        s.backend_name = "none: " + backend.error().text();
        s.layered = make_unavailable_table();
        s.layered.cuGetProcAddress = &d4r_cuGetProcAddress;
        s.layered.cuGetProcAddress_v2 = &d4r_cuGetProcAddress_v2;
        log::error("libd4rcuda: no CUDA backend: {}", backend.error().text());
        top = &s.layered;
    }
    if (env_bool(env, EnvVar::CudaTrace)) {
        s.traced = make_trace_table(*top);
        s.dispatch = s.traced;
    } else {
        s.dispatch = *top;
    }
    g_dispatch.store(&s.dispatch, std::memory_order_release);
    return s.dispatch;
}

} // namespace detail

std::string backend_name() {
    dispatch();
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().backend_name;
}

} // namespace d4r::runtime
