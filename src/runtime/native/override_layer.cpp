// Native-kernel overrides (see override_layer.h). The state lives in the Runtime that built the layer; the
// table holds plain C function pointers, which reach it through the installed runtime. Every map is
// guarded, launches take a shared lock only.
#include "runtime/native/override_layer.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "core/log.h"
#include "runtime/launch_params.h"
#include "runtime/module_registry.h"
#include "runtime/native/cpu_registry.h"
#include "runtime/native/native_kernel.h"

namespace d4r::runtime {

namespace {

struct FunctionRecord {
    std::string name;
    CUmodule module = nullptr;
    CUlibrary library = nullptr;               // a CUkernel's library, or that of the function cuKernelGetFunction gave
    std::shared_ptr<const KernelEntry> kernel; // from the module registry; null when its PTX is unknown
    std::shared_ptr<NativeKernel> native;
};

// The functions bound to a native kernel, sorted by handle: immutable once published, so a launch reads
// it without a lock (one atomic load; an empty index costs a compare). Replaced under the layer's mutex
// whenever a function is bound or a module unloaded; replaced indexes are kept (they are small and
// rare) because a launch in another thread may still be reading one.
struct NativeIndex {
    std::vector<std::pair<CUfunction, std::shared_ptr<FunctionRecord>>> entries;
};

struct OverrideState final : LayerState {
    static constexpr LayerSlot kSlot = LayerSlot::Overrides;
    const ApiTable* inner = nullptr;
    const HipRuntime* hip = nullptr; // for .hsaco sets
    std::atomic<const NativeIndex*> native_index{nullptr};
    std::vector<std::unique_ptr<NativeIndex>> indexes; // every index published (guarded by mutex)
    NativeSet set;
    std::shared_mutex mutex;
    std::unordered_map<CUfunction, std::shared_ptr<FunctionRecord>> functions; // served ones only
    std::map<std::string, std::shared_ptr<NativeKernel>> natives;              // by code object path
    std::atomic<uint64_t> native_launches{0}, prep_launches{0}, post_launches{0}, served{0}, refused{0};
};

// The installed runtime's layer, or null.
OverrideState* find_layer() { return installed_layer<OverrideState>(); }
// The layer's entry points run only while the runtime that built them is installed.
OverrideState& layer() { return *find_layer(); }

// Publishes the index of the functions that have a native kernel. Called with the layer's mutex held.
void publish_native_index(OverrideState& L) {
    auto index = std::make_unique<NativeIndex>();
    for (const auto& [f, rec] : L.functions)
        if (rec->native) index->entries.emplace_back(f, rec);
    std::sort(index->entries.begin(), index->entries.end(),
              [](const auto& a, const auto& b) { return std::less<CUfunction>()(a.first, b.first); });
    L.native_index.store(index.get(), std::memory_order_release);
    L.indexes.push_back(std::move(index));
}

// ---- Modules ----

CUresult ov_cuModuleUnload(CUmodule module) {
    CUresult r = layer().inner->cuModuleUnload(module);
    if (r == CUDA_SUCCESS) {
        std::unique_lock lock(layer().mutex);
        // Function handles of the module die with it; a later module may reuse their values.
        if (std::erase_if(layer().functions, [&](const auto& f) { return f.second->module == module; }))
            publish_native_index(layer());
    }
    return r;
}

// ---- Loading native code objects ----

std::shared_ptr<NativeKernel> native_for(const std::string& name, const std::string& path) {
    {
        std::shared_lock lock(layer().mutex);
        auto it = layer().natives.find(path);
        if (it != layer().natives.end()) return it->second;
    }
    auto loaded = load_native_kernel(*layer().inner, layer().hip, layer().set.extension, name, path);
    if (!loaded) {
        if (log::once("override.load." + path))
            log::warn("native kernels: {} is not served: {}", name, loaded.error().text());
        return nullptr;
    }
    std::unique_lock lock(layer().mutex);
    auto [it, inserted] = layer().natives.try_emplace(path, *loaded);
    return it->second;
}

// Decides whether the function HANDLE (whose registry record is INFO) is served by a native kernel, and
// remembers the decision for its launches. The same decision for every way a kernel is obtained:
// cuModuleGetFunction, cuLibraryGetKernel (the CUkernel launched as a CUfunction), cuKernelGetFunction.
void bind_function(OverrideState& L, CUfunction handle, const FunctionInfo& info) {
    auto rec = std::make_shared<FunctionRecord>();
    rec->name = info.name;
    rec->module = info.module;
    rec->library = info.library;
    rec->kernel = info.kernel;
    const std::string& name = rec->name;
    if (auto file = L.set.lookup(name)) {
        std::vector<uint64_t> hashes = rec->kernel ? rec->kernel->hashes : std::vector<uint64_t>{};
        if (L.set.allowed(name, hashes)) {
            rec->native = native_for(name, file->string());
            if (rec->native) {
                L.served++;
                if (log::once(fmt::format("override.served.{}", name)))
                    log::info("native kernels: serving {} from {} ({} set)", name, file->string(),
                              kernels::kernel_set_kind_name(L.set.kind));
            }
        } else {
            L.refused++;
            std::string hash_text = hashes.empty()
                                        ? std::string("no PTX module was indexed for it")
                                        : fmt::format("module hash {:016x} is not in the manifest", hashes.front());
            if (log::once(fmt::format("override.refused.{}.{}", name, hashes.empty() ? 0 : hashes.front())))
                log::info("native kernels: not serving {} ({}): it runs from PTX", name, hash_text);
        }
    }
    // Only served functions are remembered; a handle value reused by another function drops its record.
    std::unique_lock lock(L.mutex);
    bool changed = true;
    if (rec->native)
        L.functions[handle] = std::move(rec);
    else
        changed = L.functions.erase(handle) > 0;
    if (changed) publish_native_index(L);
}

// The registry's record of HANDLE (the registry sits below this layer and has just seen it handed out).
void bind_registered(OverrideState& L, CUfunction handle) {
    std::shared_ptr<const FunctionInfo> info = registered_function(handle);
    if (!info) {
        if (log::once("override.no-registry"))
            log::warn("native kernels: no module registry below the override layer; kernels are not served");
        return;
    }
    bind_function(L, handle, *info);
}

CUresult ov_cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
    OverrideState& L = layer();
    CUresult r = L.inner->cuModuleGetFunction(function, module, name);
    if (r != CUDA_SUCCESS) return r;
    bind_registered(L, *function);
    return r;
}

// ---- Libraries: cudart 12/13 launches the CUkernel handles of cuLibraryGetKernel as CUfunctions ----

CUresult ov_cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
    OverrideState& L = layer();
    CUresult r = L.inner->cuLibraryGetKernel(kernel, library, name);
    if (r != CUDA_SUCCESS || !*kernel) return r;
    bind_registered(L, reinterpret_cast<CUfunction>(*kernel));
    return r;
}

CUresult ov_cuKernelGetFunction(CUfunction* function, CUkernel kernel) {
    OverrideState& L = layer();
    CUresult r = L.inner->cuKernelGetFunction(function, kernel);
    if (r != CUDA_SUCCESS || !*function) return r;
    bind_registered(L, *function);
    return r;
}

CUresult ov_cuLibraryUnload(CUlibrary library) {
    CUresult r = layer().inner->cuLibraryUnload(library);
    if (r == CUDA_SUCCESS) {
        std::unique_lock lock(layer().mutex);
        // Its kernels and their functions die with it; a later library may reuse their values.
        if (std::erase_if(layer().functions, [&](const auto& f) { return f.second->library == library; }))
            publish_native_index(layer());
    }
    return r;
}

// ---- Launching ----

struct LaunchArgs {
    unsigned grid[3];
    unsigned block[3];
    unsigned shared;
    CUstream stream;
    void** params;
    void** extra;
};

// The parameter block laid out as the PTX kernel's (from kernelParams, or `extra`'s buffer).
Expected<std::vector<uint8_t>> param_block(const FunctionRecord& f, const LaunchArgs& a) {
    return launch_param_block(f.kernel ? &f.kernel->info : nullptr, f.name, a.params, a.extra);
}

CUresult launch_phase(NativeKernel& k, const NativePhase& phase, const std::array<unsigned, 3>& grid,
                      const std::array<unsigned, 3>& block, const LaunchArgs& a, const std::vector<uint8_t>& params,
                      uint32_t slot) {
    PhaseLaunch launch{grid, block, a.shared, a.stream, a.params, a.extra, &params, slot};
    return launch_native_phase(*layer().inner, k, phase, launch);
}

CUresult launch_native(const FunctionRecord& f, NativeKernel& k, const LaunchArgs& a) {
    OverrideState& L = layer();
    const NativeSymbols& s = k.symbols;
    std::vector<uint8_t> params;
    if (k.needs_param_block()) {
        auto b = param_block(f, a);
        if (!b) {
            if (log::once("override.params." + k.name)) log::warn("native kernels: {}: {}", k.name, b.error().text());
            return CUDA_ERROR_INVALID_VALUE;
        }
        params = std::move(*b);
    }
    uint32_t slot = 0;
    if (k.prep) {
        std::optional<uint32_t> key_offset;
        if (s.prep_key_at && *s.prep_key_at > 0)
            key_offset = *s.prep_key_at - 1;
        else if (s.prep_key_offset && *s.prep_key_offset > 0)
            key_offset = *s.prep_key_offset;
        bool run_prep = true;
        if (key_offset) {
            uint64_t key = 0;
            if (*key_offset + 8 > params.size()) {
                if (log::once("override.key." + k.name))
                    log::warn("native kernels: {}: prep key offset {} is outside the {}-byte parameter block", k.name,
                              *key_offset, params.size());
                return CUDA_ERROR_INVALID_VALUE;
            }
            std::memcpy(&key, params.data() + *key_offset, 8);
            std::lock_guard lock(k.mutex);
            uint32_t slots = s.prep_key_slots.value_or(0);
            if (slots == 0) {
                run_prep = !k.prepared_once || key != k.last_key;
                k.prepared_once = true;
                k.last_key = key;
            } else {
                slot = slots; // overflow unless a slot holds or takes the key
                for (uint32_t i = 0; i < k.slot_keys.size(); ++i)
                    if (k.slot_keys[i] == key) slot = i;
                if (slot < slots) {
                    run_prep = false;
                } else if (k.slot_keys.size() < slots) {
                    slot = static_cast<uint32_t>(k.slot_keys.size());
                    k.slot_keys.push_back(key);
                }
            }
        }
        if (CUresult r = write_prep_slot(*L.inner, k, slot, a.stream); r != CUDA_SUCCESS) return r;
        if (run_prep) {
            std::array<unsigned, 3> grid{s.prep_blocks.value_or(1), 1, 1};
            CUresult r = launch_phase(k, k.prep, grid, {128, 1, 1}, a, params, slot);
            if (r != CUDA_SUCCESS) return r;
            L.prep_launches++;
        }
    }
    std::array<unsigned, 3> grid{a.grid[0], a.grid[1], a.grid[2]};
    if (s.grid_x) grid = {*s.grid_x, 1, 1};
    std::array<unsigned, 3> block{a.block[0], a.block[1], a.block[2]};
    if (s.block_z) block[2] = *s.block_z;
    LaunchArgs main_args = a;
    if (s.dynamic_shared) main_args.shared = *s.dynamic_shared;
    CUresult r = launch_phase(k, k.main, grid, block, main_args, params, slot);
    if (r != CUDA_SUCCESS) return r;
    L.native_launches++;
    for (const NativePhase& post : k.posts) {
        std::array<unsigned, 3> pg{post.dims.grid_x.value_or(a.grid[0]), post.dims.grid_y.value_or(a.grid[1]), 1};
        std::array<unsigned, 3> pb{post.dims.block_x.value_or(32), post.dims.block_y.value_or(1),
                                   post.dims.block_z.value_or(1)};
        r = launch_phase(k, post, pg, pb, a, params, slot);
        if (r != CUDA_SUCCESS) return r;
        L.post_launches++;
    }
    return CUDA_SUCCESS;
}

// The record of F when it has a native kernel, else nullptr. Lock-free (see NativeIndex).
const FunctionRecord* find_native(const OverrideState& L, CUfunction f) {
    const NativeIndex* index = L.native_index.load(std::memory_order_acquire);
    if (!index || index->entries.empty()) return nullptr;
    auto it = std::lower_bound(index->entries.begin(), index->entries.end(), f,
                               [](const auto& e, CUfunction key) { return std::less<CUfunction>()(e.first, key); });
    return it != index->entries.end() && it->first == f ? it->second.get() : nullptr;
}

CUresult ov_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           unsigned shared, CUstream stream, void** params, void** extra) {
    const OverrideState& L = layer();
    const FunctionRecord* rec = find_native(L, f);
    if (!rec) [[likely]]
        return L.inner->cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || uint64_t(bx) * by * bz > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    return launch_native(*rec, *rec->native, LaunchArgs{{gx, gy, gz}, {bx, by, bz}, shared, stream, params, extra});
}

// A cooperative launch of a kernel that has a native one runs the PTX kernel: native kernels offer no
// grid-wide synchronisation. Said once per kernel.
void cooperative_uses_ptx(const FunctionRecord& rec) {
    if (log::once("override.cooperative." + rec.name))
        log::info("native kernels: {} is launched cooperatively (grid-wide synchronisation); its PTX kernel runs, "
                  "not the native one",
                  rec.name);
}

CUresult ov_cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                      unsigned bz, unsigned shared, CUstream stream, void** params) {
    const OverrideState& L = layer();
    if (const FunctionRecord* rec = find_native(L, f)) cooperative_uses_ptx(*rec);
    return L.inner->cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params);
}

CUresult ov_cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    const OverrideState& L = layer();
    const FunctionRecord* rec = find_native(L, f);
    if (!rec) return L.inner->cuLaunchKernelEx(c, f, params, extra);
    if (is_cooperative(c)) {
        cooperative_uses_ptx(*rec);
        return L.inner->cuLaunchKernelEx(c, f, params, extra);
    }
    return ov_cuLaunchKernel(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                             c->sharedMemBytes, c->hStream, params, extra);
}

} // namespace

ApiTable make_override_table(Runtime& runtime, const ApiTable& inner, NativeSet set, const HipRuntime* hip) {
    OverrideState& state = runtime.emplace_layer<OverrideState>();
    state.inner = &inner;
    state.set = std::move(set);
    state.hip = hip;
    ApiTable t = inner;
    t.cuModuleUnload = &ov_cuModuleUnload;
    t.cuModuleGetFunction = &ov_cuModuleGetFunction;
    t.cuLibraryGetKernel = &ov_cuLibraryGetKernel;
    t.cuKernelGetFunction = &ov_cuKernelGetFunction;
    t.cuLibraryUnload = &ov_cuLibraryUnload;
    t.cuLaunchKernel = &ov_cuLaunchKernel;
    t.cuLaunchKernelEx = &ov_cuLaunchKernelEx;
    t.cuLaunchCooperativeKernel = &ov_cuLaunchCooperativeKernel;
    return t;
}

bool is_native_function(CUfunction f) {
    const OverrideState* L = find_layer();
    return L && find_native(*L, f) != nullptr;
}

OverrideStats override_stats() {
    OverrideStats s;
    const OverrideState* L = find_layer();
    if (!L) return s;
    s.native_launches = L->native_launches;
    s.prep_launches = L->prep_launches;
    s.post_launches = L->post_launches;
    s.served_functions = L->served;
    s.refused_functions = L->refused;
    return s;
}

} // namespace d4r::runtime
