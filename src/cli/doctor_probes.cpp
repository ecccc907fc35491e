#include "doctor_probes.h"

#include <dlfcn.h>
#include <link.h>

#include <sstream>

#include "abi/cuda_api.h"
#include "core/process.h"
#include "core/strings.h"

namespace d4r::cli {

namespace {

using namespace std::chrono_literals;
using namespace d4r::abi;

// The child reports "key=value" lines; values never contain newlines.
std::string clean(std::string text) {
    for (char& c : text) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    return text;
}

std::string loaded_path(void* handle, const std::string& fallback) {
    link_map* map = nullptr;
    if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) return map->l_name;
    return fallback;
}

std::string cuda_probe_child(const std::string& library) {
    std::ostringstream out;
    void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* e = ::dlerror();
        out << "error=" << clean(e ? e : "dlopen failed") << "\n";
        return out.str();
    }
    out << "library=" << clean(loaded_path(handle, library)) << "\n";
    auto init = reinterpret_cast<PFN_cuInit>(::dlsym(handle, "cuInit"));
    auto version = reinterpret_cast<PFN_cuDriverGetVersion>(::dlsym(handle, "cuDriverGetVersion"));
    auto count = reinterpret_cast<PFN_cuDeviceGetCount>(::dlsym(handle, "cuDeviceGetCount"));
    auto get = reinterpret_cast<PFN_cuDeviceGet>(::dlsym(handle, "cuDeviceGet"));
    auto name = reinterpret_cast<PFN_cuDeviceGetName>(::dlsym(handle, "cuDeviceGetName"));
    if (!init || !version || !count || !get || !name) {
        out << "error=the library lacks cuInit, cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet or cuDeviceGetName\n";
        return out.str();
    }
    int v = 0;
    if (version(&v) == CUDA_SUCCESS) out << "version=" << v << "\n";
    CUresult r = init(0);
    out << "init=" << r << "\n";
    if (r != CUDA_SUCCESS) return out.str();
    int n = 0;
    if (count(&n) == CUDA_SUCCESS) out << "count=" << n << "\n";
    CUdevice device = 0;
    char buffer[256] = {};
    if (n > 0 && get(&device, 0) == CUDA_SUCCESS && name(buffer, sizeof buffer - 1, device) == CUDA_SUCCESS)
        out << "device=" << clean(buffer) << "\n";
    return out.str();
}

} // namespace

CudaProbe probe_cuda_driver(const std::string& library) {
    CudaProbe probe;
    auto report = run_isolated([&] { return cuda_probe_child(library); }, 20s);
    if (!report) {
        probe.error = report.error().text();
        return probe;
    }
    for (std::string_view line : split(*report, '\n')) {
        size_t eq = line.find('=');
        if (eq == std::string_view::npos) continue;
        std::string_view key = line.substr(0, eq);
        std::string value(line.substr(eq + 1));
        if (key == "library") {
            probe.loaded = true;
            probe.library = value;
        } else if (key == "error") {
            probe.error = value;
        } else if (key == "version") {
            probe.driver_version = static_cast<int>(parse_i64(value).value_or(0));
        } else if (key == "init") {
            probe.init_result = static_cast<int>(parse_i64(value).value_or(-1));
        } else if (key == "count") {
            probe.device_count = static_cast<int>(parse_i64(value).value_or(0));
        } else if (key == "device") {
            probe.first_device = value;
        }
    }
    return probe;
}

Expected<std::string> probe_library(const std::string& name) {
    std::string report = D4R_TRY(run_isolated(
        [&]() -> std::string {
            void* handle = ::dlopen(name.c_str(), RTLD_LAZY | RTLD_LOCAL);
            if (!handle) {
                const char* e = ::dlerror();
                return "error=" + clean(e ? e : "dlopen failed");
            }
            return "library=" + clean(loaded_path(handle, name));
        },
        20s));
    if (starts_with(report, "library=")) return report.substr(8);
    if (starts_with(report, "error=")) return make_error(ErrorCode::NotFound, "{}", report.substr(6));
    return make_error(ErrorCode::Io, "probe of {} gave no answer", name);
}

Expected<std::string> probe_library_symbol(const std::string& name, const std::string& symbol) {
    std::string report = D4R_TRY(run_isolated(
        [&]() -> std::string {
            void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!handle) {
                const char* e = ::dlerror();
                return "error=" + clean(e ? e : "dlopen failed");
            }
            std::string path = loaded_path(handle, name);
            if (!::dlsym(handle, symbol.c_str())) return "error=" + clean(path) + " has no " + symbol;
            return "library=" + clean(path);
        },
        20s));
    if (starts_with(report, "library=")) return report.substr(8);
    if (starts_with(report, "error=")) return make_error(ErrorCode::NotFound, "{}", report.substr(6));
    return make_error(ErrorCode::Io, "probe of {} gave no answer", name);
}

} // namespace d4r::cli
