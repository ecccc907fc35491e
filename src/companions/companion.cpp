// What d4r's companion libraries share (companion.h).
#include "companions/companion.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/log.h"
#include "core/strings.h"

namespace d4r::companion {

namespace {

bool same_file(const std::string& a, const std::string& b) {
    struct stat sa{}, sb{};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

std::string own_file(const void* self) {
    Dl_info info{};
    return ::dladdr(self, &info) && info.dli_fname ? info.dli_fname : "";
}

Expected<void*> open_path(const std::string& path) {
    ::dlerror();
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = ::dlerror();
        return Error(ErrorCode::Io, fmt::format("{}: {}", path, why ? why : "dlopen failed"));
    }
    return handle;
}

} // namespace

std::vector<std::string> search_folders(const Environment& env) {
    std::vector<std::string> dirs;
    if (auto v = env.get("LD_LIBRARY_PATH"))
        for (std::string_view d : split(*v, ':'))
            if (!d.empty()) dirs.emplace_back(d);
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (auto v = env.get(var); v && !v->empty()) dirs.push_back(*v + "/lib64");
    for (const char* d : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                          "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"})
        dirs.emplace_back(d);
    return dirs;
}

Expected<void*> open_real_library(EnvVar var, std::string_view file_name, const void* self) {
    const Environment& env = process_environment();
    const std::string me = own_file(self);
    if (auto chosen = env_text(env, var)) {
        if (!me.empty() && same_file(*chosen, me))
            return Error(ErrorCode::Invalid, fmt::format("{}={}: that is d4r's companion itself, not NVIDIA's {}",
                                                         env_var_info(var).name, *chosen, file_name));
        auto opened = open_path(*chosen);
        if (!opened) return Error(ErrorCode::Io, fmt::format("{}: {}", env_var_info(var).name, opened.error().text()));
        return opened;
    }
    std::vector<std::string> tried;
    for (const std::string& dir : search_folders(env)) {
        std::string path = dir + "/" + std::string(file_name);
        struct stat st{};
        if (::stat(path.c_str(), &st) != 0 || (!me.empty() && same_file(path, me))) continue;
        auto opened = open_path(path);
        if (opened) return opened;
        tried.push_back(opened.error().text());
    }
    return Error(ErrorCode::NotFound,
                 fmt::format("NVIDIA's {} was not found (searched LD_LIBRARY_PATH, $CUDA_HOME/lib64, $CUDA_PATH/lib64, "
                             "/usr/local/cuda and the system's library folders{}{}); set {} to its path",
                             file_name, tried.empty() ? "" : "; failed to load: ", fmt::join(tried, "; "),
                             env_var_info(var).name));
}

const abi::D4rTwinPtxTable* twin_table() {
    static const abi::D4rTwinPtxTable* table = []() -> const abi::D4rTwinPtxTable* {
        void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!cuda) {
            log::debug("companion: libcuda.so.1 cannot be loaded; no PTX twins are made");
            return nullptr;
        }
        using GetExportTable = abi::CUresult (*)(const void**, const abi::CUuuid*);
        auto get = reinterpret_cast<GetExportTable>(::dlsym(cuda, "cuGetExportTable"));
        const void* t = nullptr;
        if (!get || get(&t, &abi::kD4rTwinPtxTableId) != abi::CUDA_SUCCESS || !t) {
            log::debug("companion: the process' libcuda.so.1 wants no PTX twins (it runs machine code)");
            return nullptr;
        }
        const auto* table = static_cast<const abi::D4rTwinPtxTable*>(t);
        if (table->size < sizeof(abi::D4rTwinPtxTable) || !table->register_twin) {
            log::warn("companion: libd4rcuda's twin-PTX table is older than this companion ({} bytes); no PTX twins",
                      table->size);
            return nullptr;
        }
        log::debug("companion: libd4rcuda runs PTX only; machine code made here gets a PTX twin");
        return table;
    }();
    return table;
}

void register_twin(std::span<const uint8_t> image, std::string_view ptx, std::string_view what) {
    abi::CUresult r = twin_table()->register_twin(image.data(), image.size(), ptx.data(), ptx.size());
    if (r == abi::CUDA_SUCCESS)
        log::debug("companion: {}: PTX twin registered ({} bytes of machine code, {} of PTX)", what, image.size(),
                   ptx.size());
    else
        log::warn("companion: {}: libd4rcuda refused its PTX twin (CUresult {}); loading it on this backend will fail",
                  what, static_cast<int>(r));
}

} // namespace d4r::companion
