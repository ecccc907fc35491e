// Choosing and loading the NGX core (ngx_core.h).
#include "shim/ngx_core.h"

#include <fmt/format.h>

#include "core/env_vars.h"
#include "upscaler/platform.h"

namespace d4r::shim {

CoreChoice choose_core(const Environment& env, const std::string& shim_dir, bool (*exists)(const std::string&)) {
    std::string wanted = env_text(env, EnvVar::ShimNgxCore).value_or("");
    const char* variable = env_name(EnvVar::ShimNgxCore);
    std::string what = "d4r's open core";
    std::string name = kOpenCoreName;
    if (wanted == "nvidia" || wanted == "NVIDIA") {
        name = kNvidiaCoreName;
        what = fmt::format("NVIDIA's core ({}=nvidia)", variable);
    } else if (!wanted.empty() && wanted != "d4r") {
        return {wanted, variable};
    } else if (!wanted.empty()) {
        what = fmt::format("d4r's open core ({}=d4r)", variable);
    }
    if (!shim_dir.empty()) {
        std::string beside = shim_dir + upscaler::platform::kPathSeparator + name;
        if (exists(beside)) return {beside, std::string(what) + ", beside the shim"};
    }
    return {name, std::string(what) + ", through " + std::string(upscaler::platform::kLibrarySearchPath)};
}

Expected<CoreFunctions> load_core(const CoreChoice& choice) {
    void* library = D4R_TRY_CTX(upscaler::platform::open_library(choice.path), "loading the NGX core");
    CoreFunctions f;
    f.path = choice.path;
#define D4R_SHIM_RESOLVE_REQUIRED(name)                                                           \
    f.name = reinterpret_cast<decltype(f.name)>(upscaler::platform::find_symbol(library, #name)); \
    if (!f.name) return make_error(ErrorCode::NotFound, "the NGX core {} does not export {}", choice.path, #name);
#define D4R_SHIM_RESOLVE_OPTIONAL(name) \
    f.name = reinterpret_cast<decltype(f.name)>(upscaler::platform::find_symbol(library, #name));
    D4R_SHIM_CORE_REQUIRED(D4R_SHIM_RESOLVE_REQUIRED)
    D4R_SHIM_CORE_OPTIONAL(D4R_SHIM_RESOLVE_OPTIONAL)
#undef D4R_SHIM_RESOLVE_REQUIRED
#undef D4R_SHIM_RESOLVE_OPTIONAL
    return f;
}

} // namespace d4r::shim
