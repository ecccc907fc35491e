// The driver backend: a libcuda-compatible library (NVIDIA's driver, ZLUDA) loaded with dlopen. Its
// entry points go into the table as they are, so a forwarded call costs one indirect call; entry
// points the library lacks become NOT_SUPPORTED stubs that name themselves in the log once. Entry points
// d4r's list does not have are the library's own, through its cuGetProcAddress and its exports
// (foreign_proc, foreign_export): over NVIDIA's driver d4r is never less than NVIDIA's driver.
#include <dlfcn.h>

#include <cstdlib>
#include <fmt/format.h>

#include "core/files.h"
#include "core/log.h"
#include "runtime/backend.h"

namespace d4r::runtime {

namespace {

std::string file_of(const void* address) {
    Dl_info info{};
    if (dladdr(address, &info) && info.dli_fname) return resolved_path_or_same(info.dli_fname);
    return {};
}

class DriverBackend final : public Backend {
public:
    // The library stays loaded (its handle is never closed): CUDA calls may still be in flight in other
    // threads at exit. PROC, PROC_V2: the library's own cuGetProcAddress (null when it lacks one).
    DriverBackend(std::string name, const ApiTable& table, void* handle, decltype(ApiTable::cuGetProcAddress) proc,
                  decltype(ApiTable::cuGetProcAddress_v2) proc_v2)
        : m_name(std::move(name)), m_table(table), m_handle(handle), m_proc(proc), m_proc_v2(proc_v2) {}
    ~DriverBackend() override = default;
    const std::string& name() const override { return m_name; }
    const ApiTable& table() const override { return m_table; }

    void* foreign_proc(const char* symbol, int version, cuuint64_t flags) const override {
        void* pfn = nullptr;
        if (m_proc_v2) {
            CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            if (m_proc_v2(symbol, &pfn, version, flags, &status) != CUDA_SUCCESS ||
                status != CU_GET_PROC_ADDRESS_SUCCESS)
                return nullptr;
        } else if (!m_proc || m_proc(symbol, &pfn, version, flags) != CUDA_SUCCESS) {
            return nullptr;
        }
        return pfn;
    }
    void* foreign_export(const char* name) const override { return dlsym(m_handle, name); }

private:
    std::string m_name;
    ApiTable m_table;
    void* m_handle;
    decltype(ApiTable::cuGetProcAddress) m_proc;
    decltype(ApiTable::cuGetProcAddress_v2) m_proc_v2;
};

} // namespace

Expected<std::unique_ptr<Backend>> make_driver_backend(const std::string& path) {
    if (path.empty()) return make_error(ErrorCode::Invalid, "driver backend: empty library path");
    if (path.find('/') != std::string::npos && !is_file(path))
        return make_error(ErrorCode::NotFound, "driver backend: {} does not exist", path);
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* e = dlerror();
        return make_error(ErrorCode::NotFound, "driver backend: cannot load {}: {}", path, e ? e : "dlopen failed");
    }
    void* init = dlsym(handle, "cuInit");
    if (!init)
        return make_error(ErrorCode::Invalid, "driver backend: {} has no cuInit: not a CUDA driver library", path);
    std::string self = file_of(reinterpret_cast<const void*>(&make_driver_backend));
    std::string lib = file_of(init);
    if (!self.empty() && lib == self)
        return make_error(ErrorCode::Invalid,
                          "driver backend: {} is libd4rcuda itself (loading it as the backend would recurse); "
                          "point D4R_CUDA_BACKEND=driver:PATH at NVIDIA's or ZLUDA's library",
                          path);
    ApiTable table;
    size_t missing = 0;
    for (size_t i = 0; i < kApiCount; ++i) {
        ApiId id = static_cast<ApiId>(i);
        void* f = dlsym(handle, std::string(api_info(id).export_name).c_str());
        table_slot(table, id) = f;
        missing += f == nullptr;
    }
    std::string name = "driver:" + (lib.empty() ? path : lib);
    if (missing)
        log::info("{}: {} of {} entry points are missing (they return CUDA_ERROR_NOT_SUPPORTED)", name, missing,
                  kApiCount);
    auto proc = table.cuGetProcAddress;
    auto proc_v2 = table.cuGetProcAddress_v2;
    fill_missing(table);
    return std::unique_ptr<Backend>(new DriverBackend(name, table, handle, proc, proc_v2));
}

} // namespace d4r::runtime
