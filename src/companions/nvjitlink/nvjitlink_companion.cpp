// d4r's companion libnvJitLink.so.13 (companion.h, docs/companions.md): NVIDIA's nvJitLink with a PTX twin for
// every linked cubin it hands out while libd4rcuda runs PTX only.
//
// nvJitLinkCreate's options and every input added (data copied, files by path) are remembered per handle;
// nvJitLinkGetLinkedCubin, once the cubin is copied out, links the same inputs again with `-ptx` added (which
// nvJitLink answers with the linked program's PTX when the inputs are LTO IR) and registers that PTX as the
// cubin's twin. Each function is exported under both of nvJitLink's names. Everything else, and everything where
// no twin is wanted, is NVIDIA's function called as it was.
#include <dlfcn.h>

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "companions/companion.h"
#include "companions/nvjitlink/nvjitlink_abi.h"
#include "core/log.h"

using namespace d4r;
using namespace d4r::companion::nvjitlink;

// The functions forwarded untouched.
// clang-format off (one name a line; clang-format reflows this list differently at every pass)
#define D4R_NVJITLINK_FORWARDED(X)        \
    X(nvJitLinkVersion)                   \
    X(__nvJitLinkAPI)                     \
    X(nvJitLinkGetLinkedCubinSize)        \
    X(__nvJitLinkGetLinkedCubinSize_13_0) \
    X(nvJitLinkGetLinkedPtxSize)          \
    X(__nvJitLinkGetLinkedPtxSize_13_0)   \
    X(nvJitLinkGetLinkedPtx)              \
    X(__nvJitLinkGetLinkedPtx_13_0)       \
    X(nvJitLinkGetErrorLogSize)           \
    X(__nvJitLinkGetErrorLogSize_13_0)    \
    X(nvJitLinkGetErrorLog)               \
    X(__nvJitLinkGetErrorLog_13_0)        \
    X(nvJitLinkGetInfoLogSize)            \
    X(__nvJitLinkGetInfoLogSize_13_0)     \
    X(nvJitLinkGetInfoLog)                \
    X(__nvJitLinkGetInfoLog_13_0)
// clang-format on

namespace {
Result missing_function() { return kErrorInternal; }
} // namespace

extern "C" {
#define D4R_DEFINE_SLOT(name) void* d4r_slot_##name = reinterpret_cast<void*>(&missing_function);
D4R_NVJITLINK_FORWARDED(D4R_DEFINE_SLOT)
#undef D4R_DEFINE_SLOT
}
D4R_NVJITLINK_FORWARDED(D4R_COMPANION_FORWARD)

namespace {

struct Real {
    CreateFn create = nullptr;
    DestroyFn destroy = nullptr;
    AddDataFn add_data = nullptr;
    AddFileFn add_file = nullptr;
    CompleteFn complete = nullptr;
    GetBytesFn get_cubin = nullptr;
} g_real;

struct Input {
    int type = 0;
    std::string bytes; // the data of nvJitLinkAddData, or empty for a file
    std::string file;  // the path of nvJitLinkAddFile
    std::string name;
    bool has_name = false;
};

struct Record {
    std::vector<std::string> options;
    std::vector<Input> inputs;
    bool twin_tried = false;
    std::optional<std::string> twin_ptx;
};

std::mutex g_mutex;
std::unordered_map<Handle, Record>& records() {
    static auto* r = new std::unordered_map<Handle, Record>; // never destroyed: calls may come during exit
    return *r;
}

template <typename F>
F slot_fn(void* slot) {
    return reinterpret_cast<F>(slot);
}

std::string error_log(Handle h) {
    size_t size = 0;
    if (slot_fn<GetSizeFn>(d4r_slot___nvJitLinkGetErrorLogSize_13_0)(h, &size) != kSuccess || !size) return "";
    std::string text(size, '\0');
    slot_fn<GetBytesFn>(d4r_slot___nvJitLinkGetErrorLog_13_0)(h, text.data());
    return text.c_str();
}

// The PTX of R's inputs linked with `-ptx`, or nullopt (logged).
std::optional<std::string> link_twin(const Record& r) {
    std::vector<std::string> options = r.options;
    options.emplace_back("-ptx");
    std::vector<const char*> opts;
    for (const std::string& o : options) opts.push_back(o.c_str());
    Handle twin = nullptr;
    Result res = g_real.create(&twin, static_cast<uint32_t>(opts.size()), opts.data());
    if (res != kSuccess) {
        log::warn("companion libnvJitLink: creating the PTX twin's link failed (nvJitLinkResult {})",
                  static_cast<int>(res));
        return std::nullopt;
    }
    for (const Input& in : r.inputs) {
        res = in.file.empty() ? g_real.add_data(twin, in.type, in.bytes.data(), in.bytes.size(),
                                                in.has_name ? in.name.c_str() : nullptr)
                              : g_real.add_file(twin, in.type, in.file.c_str());
        if (res != kSuccess) break;
    }
    if (res == kSuccess) res = g_real.complete(twin);
    std::optional<std::string> ptx;
    size_t size = 0;
    if (res == kSuccess && slot_fn<GetSizeFn>(d4r_slot___nvJitLinkGetLinkedPtxSize_13_0)(twin, &size) == kSuccess &&
        size) {
        std::string text(size, '\0');
        if (slot_fn<GetBytesFn>(d4r_slot___nvJitLinkGetLinkedPtx_13_0)(twin, text.data()) == kSuccess)
            ptx = std::move(text);
    }
    if (!ptx)
        log::warn("companion libnvJitLink: linking the PTX twin failed (nvJitLinkResult {}; -ptx needs LTO IR "
                  "inputs): {}",
                  static_cast<int>(res), error_log(twin));
    g_real.destroy(&twin);
    return ptx;
}

__attribute__((constructor)) void bind_nvjitlink() {
    try {
        log::init_from_env();
        auto real = d4r::companion::open_real_library(EnvVar::NvJitLinkLibrary, "libnvJitLink.so.13",
                                                      reinterpret_cast<const void*>(&bind_nvjitlink));
        if (!real) {
            log::error("companion libnvJitLink: {}; every nvJitLink call fails", real.error().text());
            return;
        }
#define D4R_BIND_SLOT(name) \
    if (void* f = ::dlsym(*real, #name)) d4r_slot_##name = f;
        D4R_NVJITLINK_FORWARDED(D4R_BIND_SLOT)
#undef D4R_BIND_SLOT
        g_real.create = reinterpret_cast<CreateFn>(::dlsym(*real, "__nvJitLinkCreate_13_0"));
        g_real.destroy = reinterpret_cast<DestroyFn>(::dlsym(*real, "__nvJitLinkDestroy_13_0"));
        g_real.add_data = reinterpret_cast<AddDataFn>(::dlsym(*real, "__nvJitLinkAddData_13_0"));
        g_real.add_file = reinterpret_cast<AddFileFn>(::dlsym(*real, "__nvJitLinkAddFile_13_0"));
        g_real.complete = reinterpret_cast<CompleteFn>(::dlsym(*real, "__nvJitLinkComplete_13_0"));
        g_real.get_cubin = reinterpret_cast<GetBytesFn>(::dlsym(*real, "__nvJitLinkGetLinkedCubin_13_0"));
    } catch (...) {
    }
}

Result create(Handle* handle, uint32_t num_options, const char* const* options) {
    if (!g_real.create) return kErrorInternal;
    Result r = g_real.create(handle, num_options, options);
    if (r != kSuccess || !handle || !*handle) return r;
    try {
        Record rec;
        for (uint32_t i = 0; options && i < num_options; ++i)
            if (options[i]) rec.options.emplace_back(options[i]);
        std::lock_guard lock(g_mutex);
        records()[*handle] = std::move(rec);
    } catch (...) {
        log::warn("companion libnvJitLink: out of memory remembering a link; it gets no PTX twin");
    }
    return r;
}

Result destroy(Handle* handle) {
    if (!g_real.destroy) return kErrorInternal;
    if (handle && *handle) {
        std::lock_guard lock(g_mutex);
        records().erase(*handle);
    }
    return g_real.destroy(handle);
}

void remember(Handle handle, Input in) {
    try {
        std::lock_guard lock(g_mutex);
        if (auto it = records().find(handle); it != records().end()) it->second.inputs.push_back(std::move(in));
    } catch (...) {
        log::warn("companion libnvJitLink: out of memory remembering an input; the link gets no PTX twin");
        std::lock_guard lock(g_mutex);
        records().erase(handle);
    }
}

Result add_data(Handle handle, int type, const void* data, size_t size, const char* name) {
    if (!g_real.add_data) return kErrorInternal;
    Result r = g_real.add_data(handle, type, data, size, name);
    if (r == kSuccess && data)
        remember(handle, Input{type, std::string(static_cast<const char*>(data), size), "", name ? name : "", !!name});
    return r;
}

Result add_file(Handle handle, int type, const char* file_name) {
    if (!g_real.add_file) return kErrorInternal;
    Result r = g_real.add_file(handle, type, file_name);
    if (r == kSuccess && file_name) remember(handle, Input{type, "", file_name, "", false});
    return r;
}

Result complete(Handle handle) { return g_real.complete ? g_real.complete(handle) : kErrorInternal; }

Result get_linked_cubin(Handle handle, void* cubin) {
    if (!g_real.get_cubin) return kErrorInternal;
    Result r = g_real.get_cubin(handle, cubin);
    if (r != kSuccess || !cubin) return r;
    try {
        if (!d4r::companion::twin_table()) return r;
        size_t size = 0;
        if (slot_fn<GetSizeFn>(d4r_slot___nvJitLinkGetLinkedCubinSize_13_0)(handle, &size) != kSuccess || !size)
            return r;
        Record rec;
        {
            std::lock_guard lock(g_mutex);
            auto it = records().find(handle);
            if (it == records().end()) return r;
            rec = it->second;
        }
        if (!rec.twin_tried) {
            rec.twin_ptx = link_twin(rec);
            std::lock_guard lock(g_mutex);
            if (auto it = records().find(handle); it != records().end()) {
                it->second.twin_tried = true;
                it->second.twin_ptx = rec.twin_ptx;
            }
        }
        if (rec.twin_ptx)
            d4r::companion::register_twin({static_cast<const uint8_t*>(cubin), size}, *rec.twin_ptx,
                                          "nvJitLink output");
    } catch (...) {
        log::warn("companion libnvJitLink: making the PTX twin of a cubin failed; the cubin is NVIDIA's as made");
    }
    return r;
}

} // namespace

extern "C" {

#define D4R_EXPORT_BOTH(plain, versioned, ret, params, impl, args)                \
    __attribute__((visibility("default"))) ret plain params { return impl args; } \
    __attribute__((visibility("default"))) ret versioned params { return impl args; }

D4R_EXPORT_BOTH(nvJitLinkCreate, __nvJitLinkCreate_13_0, Result,
                (Handle * handle, uint32_t num_options, const char* const* options), create,
                (handle, num_options, options))
D4R_EXPORT_BOTH(nvJitLinkDestroy, __nvJitLinkDestroy_13_0, Result, (Handle * handle), destroy, (handle))
D4R_EXPORT_BOTH(nvJitLinkAddData, __nvJitLinkAddData_13_0, Result,
                (Handle handle, int type, const void* data, size_t size, const char* name), add_data,
                (handle, type, data, size, name))
D4R_EXPORT_BOTH(nvJitLinkAddFile, __nvJitLinkAddFile_13_0, Result, (Handle handle, int type, const char* file_name),
                add_file, (handle, type, file_name))
D4R_EXPORT_BOTH(nvJitLinkComplete, __nvJitLinkComplete_13_0, Result, (Handle handle), complete, (handle))
D4R_EXPORT_BOTH(nvJitLinkGetLinkedCubin, __nvJitLinkGetLinkedCubin_13_0, Result, (Handle handle, void* cubin),
                get_linked_cubin, (handle, cubin))

#undef D4R_EXPORT_BOTH

} // extern "C"
