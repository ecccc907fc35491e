// Finding and binding libamdhip64.so (see hip_runtime.h).
#include "runtime/native/hip_runtime.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"

namespace d4r::runtime {

namespace {

// The names ROCm's HIP runtime has gone by (newest first); ZLUDA links one of them.
constexpr const char* kHipNames[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};

std::string loaded_file(void* handle, const char* symbol) {
    void* address = dlsym(handle, symbol);
    Dl_info info{};
    if (address && dladdr(address, &info) && info.dli_fname) return info.dli_fname;
    return {};
}

Expected<HipRuntime> bind_runtime(void* handle, std::string library, std::string source) {
    HipRuntime hip;
    hip.library = std::move(library);
    hip.source = std::move(source);
    std::string missing;
    auto resolve = [&](auto& slot, const char* name) {
        slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, name));
        if (!slot) missing += missing.empty() ? name : fmt::format(", {}", name);
    };
    resolve(hip.module_load_data, "hipModuleLoadData");
    resolve(hip.module_unload, "hipModuleUnload");
    resolve(hip.module_get_function, "hipModuleGetFunction");
    resolve(hip.module_get_global, "hipModuleGetGlobal");
    resolve(hip.module_launch_kernel, "hipModuleLaunchKernel");
    resolve(hip.memcpy_dtoh, "hipMemcpyDtoH");
    resolve(hip.memset_d32_async, "hipMemsetD32Async");
    resolve(hip.get_error_name, "hipGetErrorName");
    if (!missing.empty())
        return make_error(ErrorCode::Unsupported, "{} lacks {}: not a usable HIP runtime", hip.library, missing);
    return hip;
}

} // namespace

Expected<HipRuntime> find_hip_runtime(const Environment& env) {
    for (const char* name : kHipNames) {
        if (void* h = dlopen(name, RTLD_NOW | RTLD_NOLOAD)) {
            std::string file = loaded_file(h, "hipModuleLoadData");
            return bind_runtime(h, file.empty() ? name : file, "already loaded by the process");
        }
    }
    std::vector<std::string> tried;
    auto attempt = [&](const std::string& path, const char* source) -> std::optional<Expected<HipRuntime>> {
        void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
        if (!h) {
            const char* e = dlerror();
            tried.push_back(e ? e : path + ": dlopen failed");
            return std::nullopt;
        }
        std::string file = loaded_file(h, "hipModuleLoadData");
        return bind_runtime(h, file.empty() ? path : file, source);
    };
    if (auto rocm = env_text(env, EnvVar::RocmDir)) {
        std::filesystem::path p = std::filesystem::path(*rocm) / "lib" / "libamdhip64.so";
        if (is_file(p)) {
            if (auto r = attempt(p.string(), env_name(EnvVar::RocmDir))) return std::move(*r);
        } else {
            tried.push_back(fmt::format("{} does not exist ({})", p.string(), env_name(EnvVar::RocmDir)));
        }
    }
    for (const char* name : kHipNames)
        if (auto r = attempt(name, "the loader's search path")) return std::move(*r);
    std::string all;
    for (const std::string& t : tried) all += all.empty() ? t : "; " + t;
    return make_error(ErrorCode::NotFound, "no HIP runtime (libamdhip64.so) could be loaded: {}", all);
}

std::string HipRuntime::error_text(abi::hipError_t e) const {
    const char* name = get_error_name ? get_error_name(e) : nullptr;
    return fmt::format("{} ({})", name ? name : "hipError", e);
}

Expected<const HipRuntime*> load_hip_runtime(const Environment& env) {
    // Process-wide and never unloaded: native kernels may run until exit.
    static std::mutex mutex;
    static std::optional<Expected<HipRuntime>> outcome;
    std::lock_guard lock(mutex);
    if (!outcome) outcome.emplace(find_hip_runtime(env));
    if (!*outcome) return Error(outcome->error());
    return &**outcome;
}

} // namespace d4r::runtime
