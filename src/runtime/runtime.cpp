// The process runtime: backend choice and the Runtime the exported entry points call (runtime.h).
#include "runtime/runtime.h"

#include <dlfcn.h>
#include <mutex>
#include <unistd.h>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/log.h"
#include "core/strings.h"

namespace d4r::runtime {

namespace {

// The file this library was loaded from ("" when linked statically into a program).
std::string own_library_path() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&own_library_path), &info) && info.dli_fname) {
        return resolved_path_or_same(info.dli_fname);
    }
    return {};
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
    return make_error(ErrorCode::Invalid, "{}='{}': expected auto, cpu, driver or driver:/path/to/libcuda.so",
                      env_name(EnvVar::CudaBackend), t);
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
        if (reason) *reason = fmt::format("{}=cpu", env_name(EnvVar::CudaBackend));
        return make_cpu_backend();
    }
    if (choice.kind == Kind::Driver) {
        if (!choice.path.empty()) {
            if (reason) *reason = fmt::format("{}=driver:{}", env_name(EnvVar::CudaBackend), choice.path);
            return make_driver_backend(choice.path);
        }
        std::vector<std::string> found = nvidia_driver_candidates(env);
        if (found.empty())
            return make_error(ErrorCode::NotFound,
                              "{}=driver: NVIDIA's libcuda.so.1 was not found (looked in LD_LIBRARY_PATH and the "
                              "system library folders); give a path with driver:/path",
                              env_name(EnvVar::CudaBackend));
        if (reason) *reason = fmt::format("{}=driver", env_name(EnvVar::CudaBackend));
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

namespace detail {

// The process runtime: built by the first call from any thread, never destroyed (entry points may run
// during exit). Installed again when a test's runtime was uninstalled.
const ApiTable& init_dispatch() {
    static std::mutex* mutex = new std::mutex();
    std::lock_guard<std::mutex> lock(*mutex);
    if (Runtime* installed = Runtime::current()) return installed->table();
    static Runtime* process = nullptr;
    if (!process) {
        log::init_from_env();
        process = new Runtime(ProcessEnvironment());
    }
    process->install();
    return process->table();
}

} // namespace detail

std::string backend_name() {
    dispatch(); // the first call builds and installs the process runtime
    Runtime* installed = Runtime::current();
    return installed ? installed->backend_name() : std::string();
}

} // namespace d4r::runtime
