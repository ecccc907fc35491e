// cpu backend: modules and functions with their attributes (libraries: cpu_library.cpp).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/files.h"
#include "core/log.h"
#include "runtime/backends/cpu/cpu_image.h"
#include "runtime/backends/cpu/cpu_memory_budget.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

std::atomic<uint64_t> g_module_counter{0};

} // namespace

Module::~Module() { release_module_memory(global_bytes); }

CUresult parse_jit_options(unsigned n, CUjit_option* options, void** values, JitLogs& logs) {
    if (n == 0) return CUDA_SUCCESS;
    D4R_CPU_REFUSE_IF(!options || !values, CUDA_ERROR_INVALID_VALUE);
    for (unsigned i = 0; i < n; ++i) {
        switch (options[i]) {
        case CU_JIT_ERROR_LOG_BUFFER:
            logs.error_buffer = static_cast<char*>(values[i]);
            break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            logs.error_size = reinterpret_cast<uintptr_t>(values[i]);
            logs.error_size_index = static_cast<int>(i);
            break;
        case CU_JIT_INFO_LOG_BUFFER:
            logs.info_buffer = static_cast<char*>(values[i]);
            break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            logs.info_size = reinterpret_cast<uintptr_t>(values[i]);
            logs.info_size_index = static_cast<int>(i);
            break;
        default:
            break; // optimisation level, registers, targets...: nothing to tune in ptxsim
        }
    }
    return CUDA_SUCCESS;
}

// Writes TEXT to a JIT log buffer (NUL-terminated, truncated) and the bytes used to its size option.
void write_log(char* buffer, size_t size, int size_index, void** values, const std::string& text) {
    size_t used = 0;
    if (buffer && size > 0) {
        used = std::min(text.size(), size - 1);
        std::memcpy(buffer, text.data(), used);
        buffer[used] = '\0';
        if (!text.empty()) ++used;
    }
    if (size_index >= 0) values[size_index] = reinterpret_cast<void*>(static_cast<uintptr_t>(used));
}

CUresult load_module(CUmodule* module, const void* image, size_t size, std::string name, unsigned n,
                     CUjit_option* options, void** values, const void* origin) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!module || !image, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    JitLogs logs;
    if (CUresult r = parse_jit_options(n, options, values, logs)) return r;
    if (name.empty()) name = fmt::format("module{}", g_module_counter.fetch_add(1));
    std::shared_ptr<ptxsim::Module> sim;
    std::string error_log;
    CUresult r = load_image(image, size, name, sim, error_log, origin);
    std::string info_log;
    if (!r)
        for (const auto& u : sim->unavailable())
            info_log += fmt::format("kernel '{}' cannot run on ptxsim: {}\n", u.kernel, u.reason);
    if (n) {
        write_log(logs.error_buffer, logs.error_size, logs.error_size_index, values, r ? error_log : "");
        write_log(logs.info_buffer, logs.info_size, logs.info_size_index, values, info_log);
    }
    if (r) {
        log::warn("cpu backend: module load failed ({}): {}", error_name(r), error_log);
        return r;
    }
    if (!sim->unavailable().empty())
        log::info("cpu backend: module {} loaded without {} of its kernels (ptxsim cannot run them; "
                  "cuModuleGetFunction refuses them with CUDA_ERROR_NOT_SUPPORTED): {}",
                  name, sim->unavailable().size(), info_log);
    auto m = std::make_shared<Module>();
    m->ctx = ctx.get();
    m->sim = sim;
    for (const ptx::VariableInfo& v : sim->index().variables) {
        auto g = sim->global(v.name);
        if (!g || g->size == 0) continue;
        add_region(
            Region{g->address, g->size, RegionKind::ModuleGlobal, ctx.get(), v.managed ? kManagedModuleGlobal : 0, 0});
        m->globals.push_back(g->address);
        m->global_bytes += g->size;
    }
    charge_module_memory(m->global_bytes);
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.modules[m.get()] = m;
    *module = reinterpret_cast<CUmodule>(m.get());
    return CUDA_SUCCESS;
}

namespace {

CUresult cu_module_load_data(CUmodule* module, const void* image) {
    return load_module(module, image, 0, "", 0, nullptr, nullptr);
}

CUresult cu_module_load_data_ex(CUmodule* module, const void* image, unsigned n, CUjit_option* options, void** values) {
    return load_module(module, image, 0, "", n, options, values);
}

CUresult cu_module_load_fat_binary(CUmodule* module, const void* image) {
    return load_module(module, image, 0, "", 0, nullptr, nullptr);
}

CUresult cu_module_load(CUmodule* module, const char* path) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!module || !path, CUDA_ERROR_INVALID_VALUE);
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    auto bytes = read_file(path, 1ull << 30);
    if (!bytes) {
        log::warn("cpu backend: cuModuleLoad: {}", bytes.error().text());
        return CUDA_ERROR_FILE_NOT_FOUND;
    }
    bytes->push_back(0); // PTX text is read up to its NUL
    return load_module(module, bytes->data(), bytes->size(), path, 0, nullptr, nullptr);
}

void unregister_module(Module* m) {
    // Caller holds State::mutex.
    State& s = state();
    for (auto& [name, f] : m->functions) s.functions.erase(f);
    m->functions.clear();
}

} // namespace

CUresult unload_module(CUmodule h) {
    State& s = state();
    std::shared_ptr<Module> m;
    {
        std::lock_guard lock(s.mutex);
        auto it = s.modules.find(h);
        D4R_CPU_REFUSE_IF(it == s.modules.end(), CUDA_ERROR_INVALID_HANDLE);
        m = it->second;
        unregister_module(m.get());
        s.modules.erase(it);
    }
    // Queued launches keep the ptxsim module alive; the variables stop being valid copy targets.
    for (uint64_t base : m->globals) remove_region(base);
    return CUDA_SUCCESS;
}

namespace {

CUresult cu_module_unload(CUmodule h) {
    if (CUresult r = check_init()) return r;
    return unload_module(h);
}

} // namespace

CUresult get_function(CUfunction* out, CUmodule h, const char* name) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out || !name, CUDA_ERROR_INVALID_VALUE);
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.modules.find(h);
    D4R_CPU_REFUSE_IF(it == s.modules.end(), CUDA_ERROR_INVALID_HANDLE);
    Module& m = *it->second;
    if (auto f = m.functions.find(name); f != m.functions.end()) {
        *out = reinterpret_cast<CUfunction>(f->second);
        return CUDA_SUCCESS;
    }
    auto kernel = m.sim->kernel(name);
    if (!kernel) {
        D4R_CPU_REFUSE_IF(kernel.error().code() != ErrorCode::Unsupported, CUDA_ERROR_NOT_FOUND);
        // Once per module and kernel: programs may ask again and again.
        if (m.refused.insert(name).second) log::warn("cpu backend: cuModuleGetFunction: {}", kernel.error().message());
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    auto f = std::make_shared<Function>();
    f->module = &m;
    f->sim = m.sim;
    f->kernel = *kernel;
    f->max_dynamic_shared =
        kDefaultSharedPerBlock -
        static_cast<int>(std::min<uint32_t>((*kernel)->static_shared_bytes(), kDefaultSharedPerBlock));
    m.functions.emplace(name, f.get());
    s.functions[f.get()] = f;
    *out = reinterpret_cast<CUfunction>(f.get());
    return CUDA_SUCCESS;
}

CUresult get_global(CUdeviceptr* dptr, size_t* bytes, CUmodule h, const char* name) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!name, CUDA_ERROR_INVALID_VALUE);
    auto m = find_module(h);
    D4R_CPU_REFUSE_IF(!m, CUDA_ERROR_INVALID_HANDLE);
    auto g = m->sim->global(name);
    D4R_CPU_REFUSE_IF(!g, CUDA_ERROR_NOT_FOUND);
    if (dptr) *dptr = g->address;
    if (bytes) *bytes = g->size;
    return CUDA_SUCCESS;
}

namespace {

// ---- Function attributes ---------------------------------------------------------------------------------

int const_bytes(const Function& f) {
    uint64_t n = 0;
    for (const ptx::VariableInfo& v : f.sim->index().variables)
        if (v.space == ".const") n += v.size;
    return static_cast<int>(std::min<uint64_t>(n, INT32_MAX));
}

CUresult cu_func_get_attribute(int* pi, CUfunction_attribute attrib, CUfunction h) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!pi, CUDA_ERROR_INVALID_VALUE);
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_HANDLE);
    switch (static_cast<int>(attrib)) {
    case 0:
        *pi = function_max_threads(*f);
        return CUDA_SUCCESS;
    case 1:
        *pi = static_cast<int>(f->kernel->static_shared_bytes());
        return CUDA_SUCCESS;
    case 2:
        *pi = const_bytes(*f);
        return CUDA_SUCCESS;
    case 3:
        *pi = static_cast<int>(f->kernel->local_bytes_per_thread());
        return CUDA_SUCCESS;
    case 4: {
        const auto& maxnreg = f->kernel->info().directives.maxnreg;
        *pi = maxnreg ? std::min<int>(kReportedRegsPerThread, static_cast<int>(*maxnreg)) : kReportedRegsPerThread;
        return CUDA_SUCCESS;
    }
    case 5: {
        // The PTX's own .target (sm_80 -> 80), as NVIDIA's driver answers for JIT-compiled PTX: CUB
        // dispatches on it and fails with cudaErrorInvalidDeviceFunction when it is not one of the
        // architectures the program was compiled for.
        const std::string sm = f->sim->index().sm();
        const size_t digits = sm.find_first_of("0123456789");
        *pi = digits == std::string::npos ? 90 : std::atoi(sm.c_str() + digits);
        if (*pi <= 0) *pi = 90;
        return CUDA_SUCCESS;
    }
    case 6:
        *pi = 90;
        return CUDA_SUCCESS; // JIT-compiled for the modelled sm_90
    case 7:
        *pi = 0;
        return CUDA_SUCCESS;
    case 8:
        *pi = f->max_dynamic_shared;
        return CUDA_SUCCESS;
    case 9:
        *pi = f->carveout;
        return CUDA_SUCCESS;
    case 10:
    case 11:
    case 12:
    case 13:
    case 14:
    case 15:
        *pi = 0;
        return CUDA_SUCCESS; // clusters: none
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cu_func_set_attribute(CUfunction h, CUfunction_attribute attrib, int value) {
    if (CUresult r = check_init()) return r;
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_HANDLE);
    switch (static_cast<int>(attrib)) {
    case 8: {
        int limit = kOptinSharedPerBlock - static_cast<int>(f->kernel->static_shared_bytes());
        D4R_CPU_REFUSE_IF(value < 0 || value > limit, CUDA_ERROR_INVALID_VALUE);
        f->max_dynamic_shared = value;
        return CUDA_SUCCESS;
    }
    case 9:
        D4R_CPU_REFUSE_IF(value < -1 || value > 100, CUDA_ERROR_INVALID_VALUE);
        f->carveout = value;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cu_func_set_cache_config(CUfunction h, CUfunc_cache config) {
    if (CUresult r = check_init()) return r;
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_HANDLE);
    D4R_CPU_REFUSE_IF(static_cast<unsigned>(config) > CU_FUNC_CACHE_PREFER_EQUAL, CUDA_ERROR_INVALID_VALUE);
    f->cache_config = config;
    return CUDA_SUCCESS;
}

CUresult cu_func_set_shared_mem_config(CUfunction h, CUsharedconfig config) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!find_function(h), CUDA_ERROR_INVALID_HANDLE);
    return static_cast<unsigned>(config) <= 2 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cu_func_get_name(const char** name, CUfunction h) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!name, CUDA_ERROR_INVALID_VALUE);
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_HANDLE);
    *name = f->kernel->name().c_str();
    return CUDA_SUCCESS;
}

CUresult cu_func_get_module(CUmodule* module, CUfunction h) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!module, CUDA_ERROR_INVALID_VALUE);
    auto f = find_function(h);
    D4R_CPU_REFUSE_IF(!f, CUDA_ERROR_INVALID_HANDLE);
    *module = reinterpret_cast<CUmodule>(f->module);
    return CUDA_SUCCESS;
}

} // namespace

void fill_module(ApiTable& t) {
    t.cuModuleLoad = cu_module_load;
    t.cuModuleLoadData = cu_module_load_data;
    t.cuModuleLoadDataEx = cu_module_load_data_ex;
    t.cuModuleLoadFatBinary = cu_module_load_fat_binary;
    t.cuModuleUnload = cu_module_unload;
    t.cuModuleGetFunction = get_function;
    t.cuModuleGetGlobal_v2 = get_global;
    t.cuFuncGetAttribute = cu_func_get_attribute;
    t.cuFuncSetAttribute = cu_func_set_attribute;
    t.cuFuncSetCacheConfig = cu_func_set_cache_config;
    t.cuFuncSetSharedMemConfig = cu_func_set_shared_mem_config;
    t.cuFuncGetName = cu_func_get_name;
    t.cuFuncGetModule = cu_func_get_module;
}

} // namespace d4r::runtime::cpu
