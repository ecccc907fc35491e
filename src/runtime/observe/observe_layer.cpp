// Kernel profiling and replay dumps (see observe_layer.h). State is process-wide because the table holds
// plain C function pointers; maps are guarded by a shared mutex, launch counting is atomic.
#include "runtime/observe/observe_layer.h"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "core/files.h"
#include "core/log.h"
#include "core/strings.h"
#include "ptx/image_extent.h"
#include "ptx/module_index.h"
#include "runtime/launch_params.h"
#include "runtime/native/override_layer.h"
#include "runtime/observe/dump_format.h"

namespace d4r::runtime {

namespace fs = std::filesystem;

namespace {

struct KernelRecord {
    ptx::EntryInfo info;
    std::shared_ptr<const std::string> ptx; // the module text defining it (kept only when dumping)
};

struct ModuleRecord {
    std::map<std::string, KernelRecord, std::less<>> kernels;
};

struct FunctionRecord {
    std::string name;
    CUmodule module = nullptr;
    std::optional<KernelRecord> kernel;
};

struct Selector {
    LaunchSelector config;
    std::atomic<uint64_t> matched{0};

    bool select(std::string_view name) {
        if (!config.filter.empty() && name.find(config.filter) == std::string_view::npos) return false;
        uint64_t n = matched.fetch_add(1, std::memory_order_relaxed) + 1;
        return n > config.skip && n - config.skip <= config.limit;
    }
};

struct LayerState {
    const ApiTable* inner = nullptr;
    ObserveConfig config;
    std::unique_ptr<Selector> profile, dump;
    std::atomic<uint64_t> launches{0};
    std::shared_mutex mutex;
    std::unordered_map<CUmodule, std::shared_ptr<ModuleRecord>> modules;
    std::unordered_map<CUfunction, std::shared_ptr<FunctionRecord>> functions;
};

LayerState* g_layer = nullptr;
LayerState& layer() { return *g_layer; }

// ---- Modules and functions ----

std::shared_ptr<ModuleRecord> index_image(std::span<const uint8_t> bytes) {
    auto modules = ptx::index_ptx_modules(bytes);
    if (!modules) {
        if (log::once("observe.index." + modules.error().text()))
            log::warn("profile/dump: cannot index a module's PTX ({}): its kernels are profiled by name only and "
                      "cannot be dumped",
                      modules.error().text());
        return nullptr;
    }
    auto record = std::make_shared<ModuleRecord>();
    bool keep_text = layer().config.dump.has_value();
    for (const ptx::IndexedModule& m : *modules) {
        auto text = keep_text ? std::make_shared<const std::string>(m.text()) : nullptr;
        for (const ptx::EntryInfo& e : m.index.entries) record->kernels.try_emplace(e.name, KernelRecord{e, text});
    }
    return record;
}

void remember(CUmodule module, std::shared_ptr<ModuleRecord> record) {
    if (!record) return;
    std::unique_lock lock(layer().mutex);
    layer().modules[module] = std::move(record);
}

void remember_image(CUmodule module, const void* image) {
    auto bytes = ptx::image_extent(image);
    if (bytes) remember(module, index_image(*bytes));
}

CUresult ob_cuModuleLoadData(CUmodule* module, const void* image) {
    CUresult r = layer().inner->cuModuleLoadData(module, image);
    if (r == CUDA_SUCCESS) remember_image(*module, image);
    return r;
}

CUresult ob_cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned n, CUjit_option* o, void** v) {
    CUresult r = layer().inner->cuModuleLoadDataEx(module, image, n, o, v);
    if (r == CUDA_SUCCESS) remember_image(*module, image);
    return r;
}

CUresult ob_cuModuleLoadFatBinary(CUmodule* module, const void* fatbin) {
    CUresult r = layer().inner->cuModuleLoadFatBinary(module, fatbin);
    if (r == CUDA_SUCCESS) remember_image(*module, fatbin);
    return r;
}

CUresult ob_cuModuleLoad(CUmodule* module, const char* path) {
    CUresult r = layer().inner->cuModuleLoad(module, path);
    if (r != CUDA_SUCCESS) return r;
    if (auto bytes = read_file(path, ptx::kMaxPtxFileBytes))
        remember(*module, index_image({reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()}));
    return r;
}

CUresult ob_cuModuleUnload(CUmodule module) {
    CUresult r = layer().inner->cuModuleUnload(module);
    if (r == CUDA_SUCCESS) {
        std::unique_lock lock(layer().mutex);
        layer().modules.erase(module);
        std::erase_if(layer().functions, [&](const auto& f) { return f.second->module == module; });
    }
    return r;
}

CUresult ob_cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
    CUresult r = layer().inner->cuModuleGetFunction(function, module, name);
    if (r != CUDA_SUCCESS) return r;
    auto rec = std::make_shared<FunctionRecord>();
    rec->name = name;
    rec->module = module;
    std::unique_lock lock(layer().mutex);
    if (auto it = layer().modules.find(module); it != layer().modules.end())
        if (auto k = it->second->kernels.find(std::string_view(name)); k != it->second->kernels.end()) rec->kernel = k->second;
    layer().functions[*function] = std::move(rec);
    return r;
}

std::shared_ptr<FunctionRecord> find_function(CUfunction f) {
    {
        std::shared_lock lock(layer().mutex);
        auto it = layer().functions.find(f);
        if (it != layer().functions.end()) return it->second;
    }
    // A function obtained another way (cuLibrary*, cuKernelGetFunction): ask the backend for its name.
    auto rec = std::make_shared<FunctionRecord>();
    const char* name = nullptr;
    rec->name = layer().inner->cuFuncGetName(&name, f) == CUDA_SUCCESS && name ? name : "?";
    return rec;
}

// ---- Dumps ----

struct PendingDump {
    fs::path temp, final;
    DumpManifest manifest;
};

Status save_allocs(const ApiTable& in, const fs::path& folder, const DumpManifest& m) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot create {}: {}", folder.string(), ec.message());
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i < m.allocs.size(); ++i) {
        bytes.resize(m.allocs[i].bytes);
        CUresult r = in.cuMemcpyDtoH_v2(bytes.data(), m.allocs[i].base, bytes.size());
        if (r != CUDA_SUCCESS)
            return make_error(ErrorCode::Io, "reading alloc {} (0x{:x}, {} bytes) failed: {}", i, m.allocs[i].base,
                              bytes.size(), error_name(r) ? error_name(r) : "?");
        D4R_TRY(write_file_atomic(folder / fmt::format("alloc-{}.bin", i), bytes));
    }
    return {};
}

Expected<PendingDump> begin_dump(uint64_t seq, const FunctionRecord& f, const std::array<unsigned, 3>& grid,
                                 const std::array<unsigned, 3>& block, unsigned shared, CUstream stream,
                                 void** params, void** extra) {
    const ApiTable& in = *layer().inner;
    if (!f.kernel || !f.kernel->ptx)
        return make_error(ErrorCode::Unsupported, "the PTX of {} is unknown (loaded before the layer or not PTX)", f.name);
    std::vector<uint8_t> args = D4R_TRY(launch_param_block(&f.kernel->info, f.name, params, extra));
    CUresult r = in.cuStreamSynchronize(stream);
    if (r != CUDA_SUCCESS) return make_error(ErrorCode::Io, "cuStreamSynchronize before the launch: {}", error_name(r) ? error_name(r) : "?");
    PendingDump d;
    d.manifest.kernel = f.name;
    d.manifest.grid = {grid[0], grid[1], grid[2]};
    d.manifest.block = {block[0], block[1], block[2]};
    d.manifest.shared = shared;
    d.manifest.args_bytes = args.size();
    for (size_t off = 0; off + 8 <= args.size(); off += 8) {
        uint64_t v = 0;
        std::memcpy(&v, args.data() + off, 8);
        if (!v) continue;
        CUdeviceptr base = 0;
        size_t size = 0;
        if (in.cuMemGetAddressRange_v2(&base, &size, v) != CUDA_SUCCESS) continue;
        uint32_t index = 0;
        while (index < d.manifest.allocs.size() && d.manifest.allocs[index].base != base) ++index;
        if (index == d.manifest.allocs.size()) d.manifest.allocs.push_back({base, size});
        d.manifest.pointers.push_back({off, index, v - base});
    }
    d.final = fs::path(layer().config.dump_dir) / dump_folder_name(seq, f.name);
    d.temp = d.final;
    d.temp += fmt::format(".partial-{}", getpid());
    std::error_code ec;
    fs::remove_all(d.temp, ec);
    fs::create_directories(d.temp, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot create {}: {}", d.temp.string(), ec.message());
    D4R_TRY(write_file_atomic(d.temp / "args.bin", args));
    D4R_TRY(write_file_atomic(d.temp / d.manifest.module, *f.kernel->ptx));
    D4R_TRY(save_allocs(in, d.temp, d.manifest));
    D4R_TRY(write_file_atomic(d.temp / "manifest.txt", write_dump_manifest(d.manifest)));
    return d;
}

Status finish_dump(PendingDump& d, CUstream stream) {
    const ApiTable& in = *layer().inner;
    CUresult r = in.cuStreamSynchronize(stream);
    if (r != CUDA_SUCCESS) return make_error(ErrorCode::Io, "cuStreamSynchronize after the launch: {}", error_name(r) ? error_name(r) : "?");
    D4R_TRY(save_allocs(in, d.temp / "after", d.manifest));
    std::error_code ec;
    if (fs::exists(d.final, ec)) {
        log::info("replay dump: replacing {}", d.final.string());
        fs::remove_all(d.final, ec);
    }
    fs::rename(d.temp, d.final, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot rename {} to {}: {}", d.temp.string(), d.final.string(), ec.message());
    return {};
}

void abandon(const PendingDump* d, const FunctionRecord& f, const Error& e) {
    log::warn("replay dump of {} failed: {}", f.name, e.text());
    if (d) {
        std::error_code ec;
        fs::remove_all(d->temp, ec);
    }
}

// ---- Launching ----

CUresult observed_launch(CUfunction f, const std::array<unsigned, 3>& grid, const std::array<unsigned, 3>& block,
                         unsigned shared, CUstream stream, void** params, void** extra,
                         const std::function<CUresult()>& launch) {
    LayerState& L = layer();
    uint64_t seq = L.launches.fetch_add(1, std::memory_order_relaxed) + 1;
    auto rec = find_function(f);
    bool profile = L.profile && L.profile->select(rec->name);
    bool dump = L.dump && L.dump->select(rec->name);
    if (!profile && !dump) return launch();
    const ApiTable& in = *L.inner;

    std::optional<PendingDump> pending;
    if (dump) {
        auto d = begin_dump(seq, *rec, grid, block, shared, stream, params, extra);
        if (d) pending = std::move(*d);
        else abandon(nullptr, *rec, d.error());
    }
    CUevent start = nullptr, end = nullptr;
    if (profile) {
        if (in.cuEventCreate(&start, CU_EVENT_DEFAULT) != CUDA_SUCCESS || in.cuEventCreate(&end, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
            in.cuEventRecord(start, stream) != CUDA_SUCCESS) {
            if (log::once("observe.events")) log::warn("kernel profile: cannot record events; launches are not timed");
            profile = false;
        }
    }
    CUresult r = launch();
    if (profile) {
        float ms = -1;
        if (r == CUDA_SUCCESS && in.cuEventRecord(end, stream) == CUDA_SUCCESS && in.cuEventSynchronize(end) == CUDA_SUCCESS)
            in.cuEventElapsedTime(&ms, start, end);
        if (r == CUDA_SUCCESS)
            log::write(log::Level::Info, format_profile_line(seq, is_native_function(f), ms, rec->name));
    }
    if (start) in.cuEventDestroy_v2(start);
    if (end) in.cuEventDestroy_v2(end);
    if (pending) {
        Status s = r == CUDA_SUCCESS ? finish_dump(*pending, stream)
                                     : Status(make_error(ErrorCode::Invalid, "the launch failed ({})", error_name(r) ? error_name(r) : "?"));
        if (!s) abandon(&*pending, *rec, s.error());
        else log::info("replay dump: {} written", pending->final.string());
    }
    return r;
}

CUresult ob_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           unsigned shared, CUstream stream, void** params, void** extra) {
    return observed_launch(f, {gx, gy, gz}, {bx, by, bz}, shared, stream, params, extra, [&] {
        return layer().inner->cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
    });
}

CUresult ob_cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
    if (!c) return layer().inner->cuLaunchKernelEx(c, f, params, extra);
    return observed_launch(f, {c->gridDimX, c->gridDimY, c->gridDimZ}, {c->blockDimX, c->blockDimY, c->blockDimZ},
                           c->sharedMemBytes, c->hStream, params, extra,
                           [&] { return layer().inner->cuLaunchKernelEx(c, f, params, extra); });
}

std::optional<LaunchSelector> selector_from_env(const Environment& env, const std::string& prefix, uint64_t limit) {
    LaunchSelector s;
    s.limit = limit;
    s.filter = env.get(prefix + "_FILTER").value_or("");
    for (auto [suffix, target] : {std::pair<const char*, uint64_t*>{"_SKIP", &s.skip}, {"_LIMIT", &s.limit}}) {
        auto text = env.get(prefix + suffix);
        if (!text || text->empty()) continue;
        auto v = parse_u64(*text);
        if (v) *target = *v;
        else if (log::once(prefix + suffix))
            log::warn("{}{}={} is not a number; using {}", prefix, suffix, *text, *target);
    }
    return s;
}

} // namespace

std::string format_profile_line(uint64_t launch, bool eligible, double gpu_ms, std::string_view name) {
    return fmt::format("KERNEL_PROFILE launch={} eligible={} gpu_ms={:.4f} name={}", launch, eligible ? 1 : 0, gpu_ms, name);
}

ObserveConfig observe_config_from_env(const Environment& env) {
    ObserveConfig c;
    auto flag = env.get("D4R_CUDA_KERNEL_PROFILE");
    if (flag && *flag == "1") c.profile = selector_from_env(env, "D4R_CUDA_KERNEL_PROFILE", 3000);
    auto dir = env.get("D4R_CUDA_REPLAY_DUMP_DIR");
    if (dir && !dir->empty()) {
        c.dump = selector_from_env(env, "D4R_CUDA_REPLAY_DUMP", 1);
        c.dump_dir = *dir;
    }
    return c;
}

ApiTable make_observe_table(const ApiTable& inner, ObserveConfig config) {
    static auto* layers = new std::vector<std::unique_ptr<LayerState>>();
    layers->push_back(std::make_unique<LayerState>());
    LayerState* s = layers->back().get();
    s->inner = &inner;
    s->config = std::move(config);
    if (s->config.profile) {
        s->profile = std::make_unique<Selector>();
        s->profile->config = *s->config.profile;
    }
    if (s->config.dump) {
        s->dump = std::make_unique<Selector>();
        s->dump->config = *s->config.dump;
    }
    g_layer = s;
    ApiTable t = inner;
    t.cuModuleLoad = &ob_cuModuleLoad;
    t.cuModuleLoadData = &ob_cuModuleLoadData;
    t.cuModuleLoadDataEx = &ob_cuModuleLoadDataEx;
    t.cuModuleLoadFatBinary = &ob_cuModuleLoadFatBinary;
    t.cuModuleUnload = &ob_cuModuleUnload;
    t.cuModuleGetFunction = &ob_cuModuleGetFunction;
    t.cuLaunchKernel = &ob_cuLaunchKernel;
    t.cuLaunchKernelEx = &ob_cuLaunchKernelEx;
    return t;
}

} // namespace d4r::runtime
