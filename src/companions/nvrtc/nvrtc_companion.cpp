// d4r's companion libnvrtc.so.13 (companion.h, docs/companions.md): NVIDIA's NVRTC with a PTX twin for every
// cubin it hands out while libd4rcuda runs PTX only.
//
// nvrtcCreateProgram, nvrtcAddNameExpression and nvrtcCompileProgram are remembered per program (source,
// headers, name expressions, options); nvrtcGetCUBIN, once the cubin is copied out, compiles the same program
// again with its `sm_XY` target turned into `compute_XY` (arch_option.h) and registers that PTX as the cubin's
// twin. Everything else, and everything where no twin is wanted, is NVIDIA's function called as it was.
#include <dlfcn.h>

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "companions/companion.h"
#include "companions/nvrtc/arch_option.h"
#include "companions/nvrtc/nvrtc_abi.h"
#include "core/log.h"

using namespace d4r;
using namespace d4r::companion::nvrtc;

// The functions forwarded untouched: NVRTC 13's exports but the intercepted five (__nvrtcCPEx is an undocumented
// one; tests/companions/exports-match-nvidia.sh checks the list against NVIDIA's library).
// clang-format off (one name a line; clang-format reflows such lists differently at every pass)
#define D4R_NVRTC_FORWARDED(X)     \
    X(nvrtcGetErrorString)         \
    X(nvrtcVersion)                \
    X(nvrtcGetNumSupportedArchs)   \
    X(nvrtcGetSupportedArchs)      \
    X(nvrtcGetPTXSize)             \
    X(nvrtcGetPTX)                 \
    X(nvrtcGetCUBINSize)           \
    X(nvrtcGetLTOIRSize)           \
    X(nvrtcGetLTOIR)               \
    X(nvrtcGetOptiXIRSize)         \
    X(nvrtcGetOptiXIR)             \
    X(nvrtcGetProgramLogSize)      \
    X(nvrtcGetProgramLog)          \
    X(nvrtcGetLoweredName)         \
    X(nvrtcGetPCHHeapSize)         \
    X(nvrtcSetPCHHeapSize)         \
    X(nvrtcGetPCHCreateStatus)     \
    X(nvrtcGetPCHHeapSizeRequired) \
    X(nvrtcSetFlowCallback)        \
    X(__nvrtcCPEx)
// clang-format on

namespace {

const char* missing_error_string(int) { return "d4r: NVIDIA's libnvrtc.so.13 could not be loaded (see d4r's log)"; }
Result missing_function() { return kErrorInternal; }

} // namespace

extern "C" {
#define D4R_DEFINE_SLOT(name) void* d4r_slot_##name = reinterpret_cast<void*>(&missing_function);
D4R_NVRTC_FORWARDED(D4R_DEFINE_SLOT)
#undef D4R_DEFINE_SLOT
}
D4R_NVRTC_FORWARDED(D4R_COMPANION_FORWARD)

namespace {

struct Real {
    CreateProgramFn create = nullptr;
    DestroyProgramFn destroy = nullptr;
    CompileProgramFn compile = nullptr;
    AddNameExpressionFn add_name = nullptr;
    GetBytesFn get_cubin = nullptr;
} g_real;

struct Record {
    std::string source, name;
    bool has_headers = false;
    std::vector<std::string> headers, include_names;
    std::vector<std::string> name_expressions;
    std::vector<std::string> options;
    std::optional<std::string> twin_ptx; // made once, at the first nvrtcGetCUBIN
};

std::mutex g_mutex;
std::unordered_map<Program, Record>& records() {
    static auto* r = new std::unordered_map<Program, Record>; // never destroyed: calls may come during exit
    return *r;
}

std::vector<const char*> pointers(const std::vector<std::string>& v) {
    std::vector<const char*> p;
    for (const std::string& s : v) p.push_back(s.c_str());
    return p;
}

template <typename F>
F slot_fn(void* slot) {
    return reinterpret_cast<F>(slot);
}

// The PTX of R compiled for the virtual target of its machine-code target, or nullopt (logged).
std::optional<std::string> compile_twin(const Record& r) {
    auto options = d4r::companion::ptx_twin_options(r.options);
    if (!options) {
        log::debug("companion libnvrtc: {}: no sm_XY target in its options; no PTX twin", r.name);
        return std::nullopt;
    }
    Program twin = nullptr;
    auto headers = pointers(r.headers), names = pointers(r.include_names);
    Result res = g_real.create(&twin, r.source.c_str(), r.name.c_str(), static_cast<int>(headers.size()),
                               r.has_headers ? headers.data() : nullptr, r.has_headers ? names.data() : nullptr);
    if (res != kSuccess) {
        log::warn("companion libnvrtc: {}: creating its PTX twin failed (nvrtcResult {})", r.name,
                  static_cast<int>(res));
        return std::nullopt;
    }
    for (const std::string& e : r.name_expressions) g_real.add_name(twin, e.c_str());
    auto opts = pointers(*options);
    res = g_real.compile(twin, static_cast<int>(opts.size()), opts.data());
    std::optional<std::string> ptx;
    size_t size = 0;
    if (res == kSuccess && slot_fn<GetSizeFn>(d4r_slot_nvrtcGetPTXSize)(twin, &size) == kSuccess && size) {
        std::string text(size, '\0');
        if (slot_fn<GetBytesFn>(d4r_slot_nvrtcGetPTX)(twin, text.data()) == kSuccess) ptx = std::move(text);
    }
    if (!ptx) {
        std::string log_text;
        size_t log_size = 0;
        if (slot_fn<GetSizeFn>(d4r_slot_nvrtcGetProgramLogSize)(twin, &log_size) == kSuccess && log_size) {
            log_text.resize(log_size);
            slot_fn<GetBytesFn>(d4r_slot_nvrtcGetProgramLog)(twin, log_text.data());
        }
        log::warn("companion libnvrtc: {}: compiling its PTX twin failed (nvrtcResult {}): {}", r.name,
                  static_cast<int>(res), log_text.c_str());
    }
    g_real.destroy(&twin);
    return ptx;
}

__attribute__((constructor)) void bind_nvrtc() {
    try {
        log::init_from_env();
        auto real = d4r::companion::open_real_library(EnvVar::NvrtcLibrary, "libnvrtc.so.13",
                                                      reinterpret_cast<const void*>(&bind_nvrtc));
        if (!real) {
            log::error("companion libnvrtc: {}; every NVRTC call fails", real.error().text());
            d4r_slot_nvrtcGetErrorString = reinterpret_cast<void*>(&missing_error_string);
            return;
        }
#define D4R_BIND_SLOT(name) \
    if (void* f = ::dlsym(*real, #name)) d4r_slot_##name = f;
        D4R_NVRTC_FORWARDED(D4R_BIND_SLOT)
#undef D4R_BIND_SLOT
        g_real.create = reinterpret_cast<CreateProgramFn>(::dlsym(*real, "nvrtcCreateProgram"));
        g_real.destroy = reinterpret_cast<DestroyProgramFn>(::dlsym(*real, "nvrtcDestroyProgram"));
        g_real.compile = reinterpret_cast<CompileProgramFn>(::dlsym(*real, "nvrtcCompileProgram"));
        g_real.add_name = reinterpret_cast<AddNameExpressionFn>(::dlsym(*real, "nvrtcAddNameExpression"));
        g_real.get_cubin = reinterpret_cast<GetBytesFn>(::dlsym(*real, "nvrtcGetCUBIN"));
        if (d4r_slot_nvrtcGetErrorString == reinterpret_cast<void*>(&missing_function))
            d4r_slot_nvrtcGetErrorString = reinterpret_cast<void*>(&missing_error_string);
    } catch (...) {
        d4r_slot_nvrtcGetErrorString = reinterpret_cast<void*>(&missing_error_string);
    }
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) Result nvrtcCreateProgram(Program* prog, const char* src, const char* name,
                                                                 int num_headers, const char* const* headers,
                                                                 const char* const* include_names) {
    if (!g_real.create) return kErrorInternal;
    Result r = g_real.create(prog, src, name, num_headers, headers, include_names);
    if (r != kSuccess || !prog || !*prog) return r;
    try {
        Record rec;
        rec.source = src;
        rec.name = name ? name : "default_program";
        rec.has_headers = num_headers > 0 && headers && include_names;
        for (int i = 0; rec.has_headers && i < num_headers; ++i) {
            rec.headers.emplace_back(headers[i] ? headers[i] : "");
            rec.include_names.emplace_back(include_names[i] ? include_names[i] : "");
        }
        std::lock_guard lock(g_mutex);
        records()[*prog] = std::move(rec);
    } catch (...) {
        log::warn("companion libnvrtc: out of memory remembering a program; it gets no PTX twin");
    }
    return r;
}

__attribute__((visibility("default"))) Result nvrtcDestroyProgram(Program* prog) {
    if (!g_real.destroy) return kErrorInternal;
    if (prog && *prog) {
        std::lock_guard lock(g_mutex);
        records().erase(*prog);
    }
    return g_real.destroy(prog);
}

__attribute__((visibility("default"))) Result nvrtcAddNameExpression(Program prog, const char* name_expression) {
    if (!g_real.add_name) return kErrorInternal;
    Result r = g_real.add_name(prog, name_expression);
    if (r == kSuccess && name_expression) {
        try {
            std::lock_guard lock(g_mutex);
            if (auto it = records().find(prog); it != records().end())
                it->second.name_expressions.emplace_back(name_expression);
        } catch (...) {
        }
    }
    return r;
}

__attribute__((visibility("default"))) Result nvrtcCompileProgram(Program prog, int num_options,
                                                                  const char* const* options) {
    if (!g_real.compile) return kErrorInternal;
    Result r = g_real.compile(prog, num_options, options);
    try {
        std::lock_guard lock(g_mutex);
        if (auto it = records().find(prog); it != records().end()) {
            it->second.options.clear();
            for (int i = 0; options && i < num_options; ++i)
                if (options[i]) it->second.options.emplace_back(options[i]);
            it->second.twin_ptx.reset();
        }
    } catch (...) {
    }
    return r;
}

__attribute__((visibility("default"))) Result nvrtcGetCUBIN(Program prog, char* cubin) {
    if (!g_real.get_cubin) return kErrorInternal;
    Result r = g_real.get_cubin(prog, cubin);
    if (r != kSuccess || !cubin) return r;
    try {
        if (!d4r::companion::twin_table()) return r;
        size_t size = 0;
        if (slot_fn<GetSizeFn>(d4r_slot_nvrtcGetCUBINSize)(prog, &size) != kSuccess || !size) return r;
        Record rec;
        {
            std::lock_guard lock(g_mutex);
            auto it = records().find(prog);
            if (it == records().end()) return r;
            rec = it->second;
        }
        if (!rec.twin_ptx) {
            rec.twin_ptx = compile_twin(rec);
            if (!rec.twin_ptx) return r;
            std::lock_guard lock(g_mutex);
            if (auto it = records().find(prog); it != records().end()) it->second.twin_ptx = rec.twin_ptx;
        }
        d4r::companion::register_twin({reinterpret_cast<const uint8_t*>(cubin), size}, *rec.twin_ptx,
                                      "NVRTC program " + rec.name);
    } catch (...) {
        log::warn("companion libnvrtc: making the PTX twin of a cubin failed; the cubin is NVIDIA's as made");
    }
    return r;
}

} // extern "C"
