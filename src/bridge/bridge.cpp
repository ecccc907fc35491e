// The Wine bridge (nvcuda.dll): loading libd4rcuda, and the entry points that move function pointers
// across the border between the Windows x64 convention (the application) and System V (libd4rcuda).
//
// Promise:
//   * cuInit fails with CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, and one line says why, when libd4rcuda
//     cannot be loaded; every other entry point then answers CUDA_ERROR_NOT_INITIALIZED. Nothing crashes.
//   * cuGetProcAddress hands out this DLL's own Windows entry points, never libd4rcuda's.
//   * Host callbacks (cuLaunchHostFunc, cuStreamAddCallback, graph host nodes) run on a thread Wine
//     created, with the Windows convention, while the stream that queued them waits, as CUDA orders them.
//     cuOccupancyMaxPotentialBlockSize's size callback runs on the calling (Wine) thread.
//   * cuGetExportTable hands out cudart's private tables as tables of Windows entry points
//     (export_tables.h), never libd4rcuda's System V function pointers.
#include <dlfcn.h>

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "bridge/callback_thread.h"
#include "bridge/export_tables.h"
#include "bridge/linux_api.h"
#include "bridge/special_exports.h"
#include "bridge/wine_thread.h"
#include "core/log.h"

namespace d4r::bridge {

namespace {

std::string g_load_error;

// The folder of this library's file, links resolved (Wine loads it through an nvcuda.dll link).
std::string folder_of_this_library() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&folder_of_this_library), &info) || !info.dli_fname) return {};
    char* real = realpath(info.dli_fname, nullptr);
    std::string path = real ? real : info.dli_fname;
    std::free(real);
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

LinuxApi* load() {
    std::string tried;
    void* lib = nullptr;
    auto attempt = [&](const std::string& path) {
        if (lib) return;
        lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) tried += (tried.empty() ? "" : "; ") + std::string(dlerror());
    };
    // The bridge is built by wineg++ from its own few files and links nothing of d4r's core, so it cannot read
    // the table of variables (core/env_vars.h): its two names are spelled here (allowed in
    // tests/core/env_vars_source_test.cpp, which checks that both are still rows of the table).
    if (const char* dir = std::getenv("D4R_RUNTIME_DIR"); dir && *dir) attempt(std::string(dir) + "/libd4rcuda.so");
    if (std::string here = folder_of_this_library(); !here.empty()) attempt(here + "/libd4rcuda.so");
    attempt("libd4rcuda.so");
    if (!lib) {
        g_load_error = "cannot load libd4rcuda.so (set D4R_RUNTIME_DIR to the folder that holds it): " + tried;
        return nullptr;
    }
    auto* api = new LinuxApi();
#define D4R_BRIDGE_RESOLVE(exp, base, since, params, args) \
    api->exp = reinterpret_cast<decltype(api->exp)>(dlsym(lib, #exp));
    D4R_CUDA_API(D4R_BRIDGE_RESOLVE)
#undef D4R_BRIDGE_RESOLVE
#define D4R_BRIDGE_RESOLVE_EXTENSION(name, params, args) \
    api->name = reinterpret_cast<decltype(api->name)>(dlsym(lib, #name));
    D4R_EXTENSIONS(D4R_BRIDGE_RESOLVE_EXTENSION)
#undef D4R_BRIDGE_RESOLVE_EXTENSION
    return api;
}

} // namespace

namespace {
thread_local bool t_on_wine_thread = false;
} // namespace

__attribute__((noinline)) void note_wine_thread() { t_on_wine_thread = true; }
__attribute__((noinline)) bool on_wine_thread() { return t_on_wine_thread; }

const LinuxApi* linux_api() {
    static const LinuxApi* api = load();
    return api;
}

const std::string& load_error() {
    linux_api();
    return g_load_error;
}

// d4r_core's logger (D4R_LOG, D4R_LOG_FILE), read on first use and again when the shim changes either
// through d4r_SetEnvironment (reread_log_settings).
void ensure_logger() {
    static const bool done = [] {
        log::init_from_env();
        return true;
    }();
    (void)done;
}

void log_once(const std::string& key, const std::string& line) {
    ensure_logger();
    if (log::once("bridge " + key)) log::warn("bridge (nvcuda.dll): {}", line);
}

void log_debug(const std::string& line) {
    ensure_logger();
    log::debug("bridge (nvcuda.dll): {}", line);
}

void reread_log_settings() {
    ensure_logger();
    log::init_from_env();
}

CUresult not_available(const char* name) {
    if (!linux_api()) {
        log_once("load", load_error());
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    log_once(name, std::string(name) + ": libd4rcuda does not export it; refused with CUDA_ERROR_NOT_SUPPORTED");
    return CUDA_ERROR_NOT_SUPPORTED;
}

} // namespace d4r::bridge

using namespace d4r::bridge;

// ---- Windows-convention function pointers the application hands in ----------------------------------

using WinHostFn = void(__attribute__((ms_abi)) *)(void* userData);
using WinStreamCallback = void(__attribute__((ms_abi)) *)(CUstream stream, CUresult status, void* userData);
using WinB2DSize = size_t(__attribute__((ms_abi)) *)(int blockSize);

namespace {

// Runs jobs on one thread Wine created (Windows code may only run on such threads); the caller waits.
class WineDispatcher {
public:
    static WineDispatcher& get() {
        static WineDispatcher* d = new WineDispatcher(); // lives for the process: callbacks may come at exit
        return *d;
    }
    // Called on the application's thread (a Wine thread) when a callback is registered.
    bool ensure_started() {
        std::lock_guard lock(m_mutex);
        if (m_started) return true;
        m_started = start_wine_thread(&WineDispatcher::run, this);
        if (!m_started) log_once("dispatcher", "cannot create the thread host callbacks run on; they are refused");
        return m_started;
    }
    // Called on libd4rcuda's worker thread: runs JOB on the Wine thread and returns when it has run.
    void run_and_wait(const std::function<void()>& job) {
        Item item{&job};
        std::unique_lock lock(m_mutex);
        m_queue.push_back(&item);
        m_wake.notify_one();
        m_done.wait(lock, [&] { return item.done; });
    }

private:
    struct Item {
        const std::function<void()>* job;
        bool done = false;
    };
    static void run(void* self) { static_cast<WineDispatcher*>(self)->loop(); }
    void loop() {
        note_wine_thread();
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return !m_queue.empty(); });
            Item* item = m_queue.front();
            m_queue.pop_front();
            lock.unlock();
            (*item->job)();
            lock.lock();
            item->done = true;
            m_done.notify_all();
        }
    }
    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::deque<Item*> m_queue;
    bool m_started = false;
};

struct HostCall {
    WinHostFn fn;
    void* data;
};
struct StreamCall {
    WinStreamCallback fn;
    void* data;
};

void host_trampoline(void* p) {
    auto* call = static_cast<HostCall*>(p);
    WineDispatcher::get().run_and_wait([&] { call->fn(call->data); });
}
void host_trampoline_once(void* p) {
    host_trampoline(p);
    delete static_cast<HostCall*>(p);
}
void stream_trampoline_once(CUstream stream, CUresult status, void* p) {
    auto* call = static_cast<StreamCall*>(p);
    WineDispatcher::get().run_and_wait([&] { call->fn(stream, status, call->data); });
    delete call;
}

// Graph host nodes keep their HostCall for the graph's life (CUDA gives no hook at node destruction); a
// node's parameters read back are the application's own.
CUDA_HOST_NODE_PARAMS wrap_host_node(const CUDA_HOST_NODE_PARAMS* in) {
    CUDA_HOST_NODE_PARAMS out{};
    out.fn = &host_trampoline;
    out.userData = new HostCall{reinterpret_cast<WinHostFn>(in->fn), in->userData};
    return out;
}

thread_local WinB2DSize t_b2d = nullptr;
size_t b2d_trampoline(int block_size) { return t_b2d ? t_b2d(block_size) : 0; }

// The hand-written entry points by export name, for cuGetProcAddress.
std::unordered_map<std::string, void*> special_entry_points();

} // namespace

bool d4r::bridge::start_callback_thread() { return WineDispatcher::get().ensure_started(); }
void d4r::bridge::run_on_callback_thread(const std::function<void()>& job) { WineDispatcher::get().run_and_wait(job); }

#define D4R_BRIDGE_DECLARE_THUNK(exp, base, since, params, args) \
    extern "C" __attribute__((ms_abi)) CUresult d4r_thunk_##exp params;
D4R_CUDA_API(D4R_BRIDGE_DECLARE_THUNK)
#undef D4R_BRIDGE_DECLARE_THUNK

#define D4R_BRIDGE_API extern "C" __attribute__((ms_abi, visibility("default"))) CUresult

D4R_BRIDGE_API d4r_special_cuInit(unsigned int flags) {
    const LinuxApi* api = linux_api();
    if (!api || !api->cuInit) {
        log_once("load", api ? "libd4rcuda has no cuInit" : load_error());
        return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
    }
    return api->cuInit(flags);
}

namespace {

// libd4rcuda found SYMBOL for VERSION: this DLL's entry point for it is that of the export the API list
// maps (SYMBOL, VERSION) to, by the rule libd4rcuda applies: the entry of that base name with the largest
// `since` not above VERSION.
CUresult to_windows_entry_point(CUresult r, const char* symbol, int version, void** pfn) {
    if (r != CUDA_SUCCESS || !pfn || !*pfn) return r;
    *pfn = nullptr;
    static const std::unordered_map<std::string, void*> special = special_entry_points();
    int best = -1;
    void* entry = nullptr;
#define D4R_BRIDGE_PICK(exp, base, since, params, args)                                     \
    if (since <= version && since > best && std::strcmp(#base, symbol) == 0) {              \
        best = since;                                                                       \
        auto s = special.find(#exp);                                                        \
        entry = s != special.end() ? s->second : reinterpret_cast<void*>(&d4r_thunk_##exp); \
    }
    D4R_CUDA_API(D4R_BRIDGE_PICK)
#undef D4R_BRIDGE_PICK
    if (!entry) {
        log_once(std::string("proc ") + symbol,
                 std::string("cuGetProcAddress(") + symbol + "): libd4rcuda has it but the bridge does not; NOT_FOUND");
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = entry;
    return CUDA_SUCCESS;
}

} // namespace

D4R_BRIDGE_API d4r_special_cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags) {
    if (pfn) *pfn = nullptr;
    const LinuxApi* api = linux_api();
    if (!api || !api->cuGetProcAddress) return not_available("cuGetProcAddress");
    return to_windows_entry_point(api->cuGetProcAddress(symbol, pfn, version, flags), symbol, version, pfn);
}

D4R_BRIDGE_API d4r_special_cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                                               CUdriverProcAddressQueryResult* status) {
    if (pfn) *pfn = nullptr;
    const LinuxApi* api = linux_api();
    if (!api || !api->cuGetProcAddress_v2) return not_available("cuGetProcAddress_v2");
    CUresult r =
        to_windows_entry_point(api->cuGetProcAddress_v2(symbol, pfn, version, flags, status), symbol, version, pfn);
    if (r == CUDA_ERROR_NOT_FOUND && status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return r;
}

D4R_BRIDGE_API d4r_special_cuGetExportTable(const void** table, const CUuuid* id) {
    note_wine_thread();
    return windows_export_table(table, id);
}

D4R_BRIDGE_API d4r_special_cuLaunchHostFunc(CUstream stream, CUhostFn fn, void* data) {
    const LinuxApi* api = linux_api();
    if (!api || !api->cuLaunchHostFunc) return not_available("cuLaunchHostFunc");
    if (!fn) return api->cuLaunchHostFunc(stream, nullptr, data); // libd4rcuda validates
    if (!WineDispatcher::get().ensure_started()) return CUDA_ERROR_NOT_SUPPORTED;
    auto* call = new HostCall{reinterpret_cast<WinHostFn>(fn), data};
    CUresult r = api->cuLaunchHostFunc(stream, &host_trampoline_once, call);
    if (r != CUDA_SUCCESS) delete call;
    return r;
}

D4R_BRIDGE_API d4r_special_cuStreamAddCallback(CUstream stream, CUstreamCallback cb, void* data, unsigned int flags) {
    const LinuxApi* api = linux_api();
    if (!api || !api->cuStreamAddCallback) return not_available("cuStreamAddCallback");
    if (!cb) return api->cuStreamAddCallback(stream, nullptr, data, flags);
    if (!WineDispatcher::get().ensure_started()) return CUDA_ERROR_NOT_SUPPORTED;
    auto* call = new StreamCall{reinterpret_cast<WinStreamCallback>(cb), data};
    CUresult r = api->cuStreamAddCallback(stream, &stream_trampoline_once, call, flags);
    if (r != CUDA_SUCCESS) delete call;
    return r;
}

D4R_BRIDGE_API d4r_special_cuGraphAddHostNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* deps, size_t n,
                                              const CUDA_HOST_NODE_PARAMS* params) {
    if (node) *node = nullptr;
    const LinuxApi* api = linux_api();
    if (!api || !api->cuGraphAddHostNode) return not_available("cuGraphAddHostNode");
    if (!params || !params->fn) return api->cuGraphAddHostNode(node, graph, deps, n, params);
    if (!WineDispatcher::get().ensure_started()) return CUDA_ERROR_NOT_SUPPORTED;
    CUDA_HOST_NODE_PARAMS wrapped = wrap_host_node(params);
    CUresult r = api->cuGraphAddHostNode(node, graph, deps, n, &wrapped);
    if (r != CUDA_SUCCESS) delete static_cast<HostCall*>(wrapped.userData);
    return r;
}

D4R_BRIDGE_API d4r_special_cuGraphHostNodeSetParams(CUgraphNode node, const CUDA_HOST_NODE_PARAMS* params) {
    const LinuxApi* api = linux_api();
    if (!api || !api->cuGraphHostNodeSetParams) return not_available("cuGraphHostNodeSetParams");
    if (!params || !params->fn) return api->cuGraphHostNodeSetParams(node, params);
    if (!WineDispatcher::get().ensure_started()) return CUDA_ERROR_NOT_SUPPORTED;
    CUDA_HOST_NODE_PARAMS wrapped = wrap_host_node(params);
    CUresult r = api->cuGraphHostNodeSetParams(node, &wrapped);
    if (r != CUDA_SUCCESS) delete static_cast<HostCall*>(wrapped.userData);
    return r;
}

D4R_BRIDGE_API d4r_special_cuGraphExecHostNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                                        const CUDA_HOST_NODE_PARAMS* params) {
    const LinuxApi* api = linux_api();
    if (!api || !api->cuGraphExecHostNodeSetParams) return not_available("cuGraphExecHostNodeSetParams");
    if (!params || !params->fn) return api->cuGraphExecHostNodeSetParams(exec, node, params);
    if (!WineDispatcher::get().ensure_started()) return CUDA_ERROR_NOT_SUPPORTED;
    CUDA_HOST_NODE_PARAMS wrapped = wrap_host_node(params);
    CUresult r = api->cuGraphExecHostNodeSetParams(exec, node, &wrapped);
    if (r != CUDA_SUCCESS) delete static_cast<HostCall*>(wrapped.userData);
    return r;
}

D4R_BRIDGE_API d4r_special_cuGraphHostNodeGetParams(CUgraphNode node, CUDA_HOST_NODE_PARAMS* params) {
    const LinuxApi* api = linux_api();
    if (!api || !api->cuGraphHostNodeGetParams) return not_available("cuGraphHostNodeGetParams");
    CUresult r = api->cuGraphHostNodeGetParams(node, params);
    if (r == CUDA_SUCCESS && params && params->fn == &host_trampoline) {
        auto* call = static_cast<HostCall*>(params->userData);
        params->fn = reinterpret_cast<CUhostFn>(call->fn);
        params->userData = call->data;
    }
    return r;
}

D4R_BRIDGE_API d4r_special_cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block, CUfunction f,
                                                            CUoccupancyB2DSize cb, size_t smem, int limit) {
    const LinuxApi* api = linux_api();
    if (!api || !api->cuOccupancyMaxPotentialBlockSize) return not_available("cuOccupancyMaxPotentialBlockSize");
    t_b2d = reinterpret_cast<WinB2DSize>(cb);
    CUresult r = api->cuOccupancyMaxPotentialBlockSize(min_grid, block, f, cb ? &b2d_trampoline : nullptr, smem, limit);
    t_b2d = nullptr;
    return r;
}

D4R_BRIDGE_API d4r_special_cuOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid, int* block, CUfunction f,
                                                                     CUoccupancyB2DSize cb, size_t smem, int limit,
                                                                     unsigned int flags) {
    const LinuxApi* api = linux_api();
    if (!api || !api->cuOccupancyMaxPotentialBlockSizeWithFlags)
        return not_available("cuOccupancyMaxPotentialBlockSizeWithFlags");
    t_b2d = reinterpret_cast<WinB2DSize>(cb);
    CUresult r = api->cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block, f, cb ? &b2d_trampoline : nullptr,
                                                                smem, limit, flags);
    t_b2d = nullptr;
    return r;
}

namespace {

std::unordered_map<std::string, void*> special_entry_points() {
    std::unordered_map<std::string, void*> special = {
        {"cuInit", reinterpret_cast<void*>(&d4r_special_cuInit)},
        {"cuGetProcAddress", reinterpret_cast<void*>(&d4r_special_cuGetProcAddress)},
        {"cuGetProcAddress_v2", reinterpret_cast<void*>(&d4r_special_cuGetProcAddress_v2)},
        {"cuGetExportTable", reinterpret_cast<void*>(&d4r_special_cuGetExportTable)},
        {"cuStreamAddCallback", reinterpret_cast<void*>(&d4r_special_cuStreamAddCallback)},
        {"cuLaunchHostFunc", reinterpret_cast<void*>(&d4r_special_cuLaunchHostFunc)},
        {"cuGraphAddHostNode", reinterpret_cast<void*>(&d4r_special_cuGraphAddHostNode)},
        {"cuGraphHostNodeGetParams", reinterpret_cast<void*>(&d4r_special_cuGraphHostNodeGetParams)},
        {"cuGraphHostNodeSetParams", reinterpret_cast<void*>(&d4r_special_cuGraphHostNodeSetParams)},
        {"cuGraphExecHostNodeSetParams", reinterpret_cast<void*>(&d4r_special_cuGraphExecHostNodeSetParams)},
        {"cuOccupancyMaxPotentialBlockSize", reinterpret_cast<void*>(&d4r_special_cuOccupancyMaxPotentialBlockSize)},
        {"cuOccupancyMaxPotentialBlockSizeWithFlags",
         reinterpret_cast<void*>(&d4r_special_cuOccupancyMaxPotentialBlockSizeWithFlags)},
    };
    if (special.size() != std::size(kSpecialExports)) log_once("special", "internal: special export lists differ");
    return special;
}

} // namespace
