// Kernel profiling and replay dumps (see observe_layer.h). The state lives in the Runtime that built the
// layer; the table holds plain C function pointers, which reach it through the installed runtime. Maps are
// guarded by a shared mutex, launch counting is atomic.
#include "runtime/observe/observe_layer.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/log.h"
#include "core/strings.h"
#include "ptx/module_index.h"
#include "runtime/launch_params.h"
#include "runtime/module_registry.h"
#include "runtime/native/override_layer.h"
#include "runtime/observe/dump_descriptors.h"
#include "runtime/observe/dump_format.h"
#include "runtime/observe/replay.h"

namespace d4r::runtime {

namespace fs = std::filesystem;

namespace {

struct Selector {
    LaunchSelector config;
    std::atomic<uint64_t> matched{0};

    bool select(std::string_view name) {
        if (!config.filter.empty() && name.find(config.filter) == std::string_view::npos) return false;
        uint64_t n = matched.fetch_add(1, std::memory_order_relaxed) + 1;
        return n > config.skip && n - config.skip <= config.limit;
    }
};

// A texture or surface object as the application created it: the backend can give back the resource
// (cuTexObjectGetResourceDesc) but d4r's API has no cuTexObjectGetTextureDesc / GetResourceViewDesc, so
// the layer keeps the rest from the creating call.
struct ObjectRecord {
    CUDA_TEXTURE_DESC texture{};
    std::optional<CUDA_RESOURCE_VIEW_DESC> view;
};

struct ObserveState final : LayerState {
    static constexpr LayerSlot kSlot = LayerSlot::Observe;
    const ApiTable* inner = nullptr;
    ObserveConfig config;
    std::unique_ptr<Selector> profile, dump;
    std::atomic<uint64_t> launches{0};
    std::shared_mutex mutex;
    std::unordered_map<CUtexObject, ObjectRecord> textures; // only while dumping
};

// The layer's entry points run only while the runtime that built them is installed.
ObserveState& layer() { return *installed_layer<ObserveState>(); }

// ---- Texture and surface objects (recorded while dumping) ----

CUresult ob_cuTexObjectCreate(CUtexObject* tex, const CUDA_RESOURCE_DESC* res, const CUDA_TEXTURE_DESC* desc,
                              const CUDA_RESOURCE_VIEW_DESC* view) {
    CUresult r = layer().inner->cuTexObjectCreate(tex, res, desc, view);
    if (r == CUDA_SUCCESS && tex && desc) {
        ObjectRecord rec;
        rec.texture = *desc;
        if (view) rec.view = *view;
        std::unique_lock lock(layer().mutex);
        layer().textures[*tex] = rec;
    }
    return r;
}

CUresult ob_cuTexObjectDestroy(CUtexObject tex) {
    CUresult r = layer().inner->cuTexObjectDestroy(tex);
    if (r == CUDA_SUCCESS) {
        std::unique_lock lock(layer().mutex);
        layer().textures.erase(tex);
    }
    return r;
}

// ---- Dumps ----

struct PendingDump {
    fs::path temp, final;
    DumpManifest manifest;
    std::vector<CUarray> arrays; // manifest.arrays[j] is arrays[j]
};

// The allocations and arrays of a dump into FOLDER (alloc-<i>.bin, array-<j>.bin).
Status save_contents(const ApiTable& in, const fs::path& folder, const PendingDump& d) {
    const DumpManifest& m = d.manifest;
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
        D4R_TRY(write_file_atomic(folder / dump_alloc_file(i), bytes));
    }
    for (size_t j = 0; j < m.arrays.size(); ++j) {
        bytes.resize(m.arrays[j].bytes());
        CUresult r = copy_array(in, d.arrays[j], m.arrays[j], bytes.data(), ArrayCopy::ToHost);
        if (r != CUDA_SUCCESS)
            return make_error(ErrorCode::Io, "reading array {} ({} bytes) failed: {}", j, bytes.size(),
                              error_name(r) ? error_name(r) : "?");
        D4R_TRY(write_file_atomic(folder / dump_array_file(j), bytes));
    }
    return {};
}

// The allocation holding device address V, added to M when new: its index and V's offset in it.
std::optional<std::pair<uint32_t, uint64_t>> find_alloc(const ApiTable& in, DumpManifest& m, uint64_t v) {
    CUdeviceptr base = 0;
    size_t size = 0;
    if (!v || in.cuMemGetAddressRange_v2(&base, &size, v) != CUDA_SUCCESS) return std::nullopt;
    uint32_t index = 0;
    while (index < m.allocs.size() && m.allocs[index].base != base) ++index;
    if (index == m.allocs.size()) m.allocs.push_back({base, size});
    return std::pair{index, v - base};
}

// Offsets of the words of the parameter block that may hold a texture or surface object. Handles are
// unsigned long long (a .u64 parameter, or a word inside a struct passed by value: a .b8 array), so only
// those words are asked about, and a float or 32-bit parameter is never taken for a handle.
std::vector<uint64_t> handle_words(const ptx::EntryInfo& info, uint64_t args_bytes) {
    std::vector<uint64_t> offsets;
    auto add_range = [&](uint64_t begin, uint64_t end) {
        for (uint64_t off = (begin + 7) / 8 * 8; off + 8 <= std::min(end, args_bytes); off += 8) offsets.push_back(off);
    };
    for (const ptx::ParamInfo& p : info.params) {
        const std::string& t = p.type;
        bool word = t == ".u64" || t == ".b64" || t == ".s64" || t == ".texref" || t == ".surfref";
        bool aggregate = t == ".b8" && p.size >= 8;
        if (word || aggregate) add_range(p.offset, p.offset + p.size);
    }
    return offsets;
}

// The resource of object V (kind KIND) as the dump describes it; nullopt (logged) when it cannot be dumped.
std::optional<DumpResource> capture_resource(const ApiTable& in, PendingDump& d, const CUDA_RESOURCE_DESC& rd,
                                             std::string_view kind, uint64_t v) {
    DumpResource r;
    switch (rd.resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
        r.kind = DumpResource::Kind::Array;
        size_t j = std::find(d.arrays.begin(), d.arrays.end(), rd.res.array.hArray) - d.arrays.begin();
        if (j == d.arrays.size()) {
            CUDA_ARRAY3D_DESCRIPTOR a{};
            if (CUresult e = in.cuArray3DGetDescriptor_v2(&a, rd.res.array.hArray); e != CUDA_SUCCESS) {
                log::warn("replay dump: the array of {} object 0x{:x}: cuArray3DGetDescriptor failed ({}); not dumped",
                          kind, v, error_name(e) ? error_name(e) : "?");
                return std::nullopt;
            }
            DumpArray da{a.Width, a.Height, a.Depth, static_cast<uint32_t>(a.Format), a.NumChannels, a.Flags};
            if (da.texel_bytes() == 0 || da.channels < 1 || da.channels > 4) {
                log::warn("replay dump: {} object 0x{:x} is over an array of format 0x{:x} x {}, which dumps do not "
                          "know; not dumped",
                          kind, v, da.format, da.channels);
                return std::nullopt;
            }
            d.arrays.push_back(rd.res.array.hArray);
            d.manifest.arrays.push_back(da);
        }
        r.array = static_cast<uint32_t>(j);
        return r;
    }
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        if (log::once("observe.dump.mipmapped"))
            log::warn("replay dump: mipmapped arrays are not captured; a {} object over one keeps its dumped handle "
                      "(the manifest says 'mipmapped'), so its replay reads whatever that handle names then",
                      kind);
        r.kind = DumpResource::Kind::Mipmapped;
        return r;
    case CU_RESOURCE_TYPE_LINEAR:
    case CU_RESOURCE_TYPE_PITCH2D: {
        bool linear = rd.resType == CU_RESOURCE_TYPE_LINEAR;
        r.kind = linear ? DumpResource::Kind::Linear : DumpResource::Kind::Pitch2D;
        uint64_t ptr = linear ? rd.res.linear.devPtr : rd.res.pitch2D.devPtr;
        auto where = find_alloc(in, d.manifest, ptr);
        if (!where) {
            log::warn("replay dump: {} object 0x{:x} reads 0x{:x}, which is in no allocation; not dumped", kind, v,
                      ptr);
            return std::nullopt;
        }
        r.alloc = where->first;
        r.delta = where->second;
        if (linear) {
            r.format = static_cast<uint32_t>(rd.res.linear.format);
            r.channels = rd.res.linear.numChannels;
            r.bytes = rd.res.linear.sizeInBytes;
        } else {
            r.format = static_cast<uint32_t>(rd.res.pitch2D.format);
            r.channels = rd.res.pitch2D.numChannels;
            r.width = rd.res.pitch2D.width;
            r.height = rd.res.pitch2D.height;
            r.pitch = rd.res.pitch2D.pitchInBytes;
        }
        // The manifest's own rules (memory inside the allocation, a known format): what a replay can rebuild.
        if (Status ok = check_dump_resource(r, d.manifest, fmt::format("{} object 0x{:x}", kind, v)); !ok) {
            log::warn("replay dump: {}; not dumped", ok.error().text());
            return std::nullopt;
        }
        return r;
    }
    }
    log::warn("replay dump: {} object 0x{:x} has resource type {}, which dumps do not know; not dumped", kind, v,
              static_cast<int>(rd.resType));
    return std::nullopt;
}

// The texture and surface objects among the words of ARGS that are not pointers (see handle_words).
// A word is an object when the backend describes it (cuTexObjectGetResourceDesc, else
// cuSurfObjectGetResourceDesc); the sampling state and resource view come from the layer's record of
// the creating call.
void capture_objects(const ApiTable& in, const ptx::EntryInfo& info, const std::vector<uint8_t>& args, PendingDump& d) {
    for (uint64_t off : handle_words(info, args.size())) {
        uint64_t v = 0;
        std::memcpy(&v, args.data() + off, 8);
        if (!v) continue;
        if (std::any_of(d.manifest.pointers.begin(), d.manifest.pointers.end(),
                        [&](const DumpPointer& p) { return p.arg_offset == off; }))
            continue;
        CUDA_RESOURCE_DESC rd{};
        DumpObject o;
        o.arg_offset = off;
        CUDA_RESOURCE_DESC surface_rd{};
        bool is_surface = in.cuSurfObjectGetResourceDesc(&surface_rd, v) == CUDA_SUCCESS;
        if (in.cuTexObjectGetResourceDesc(&rd, v) == CUDA_SUCCESS) {
            // NVIDIA's handles are small integers counted separately for textures and surfaces.
            if (is_surface)
                log::warn("replay dump: 0x{:x} (argument offset {}) is a live texture and a live surface object; "
                          "dumped as the texture",
                          v, off);
        } else if (is_surface) {
            rd = surface_rd;
            o.surface = true;
        } else {
            continue;
        }
        const char* kind = o.surface ? "surface" : "texture";
        auto resource = capture_resource(in, d, rd, kind, v);
        if (!resource) continue;
        o.resource = *resource;
        if (!o.surface) {
            std::optional<ObjectRecord> rec;
            {
                std::shared_lock lock(layer().mutex);
                if (auto it = layer().textures.find(v); it != layer().textures.end()) rec = it->second;
            }
            if (rec) {
                o.texture = dump_texture_desc(rec->texture);
                if (rec->view) o.view = dump_view_desc(*rec->view);
            } else {
                log::warn("replay dump: texture object 0x{:x} (argument offset {}) was not created through this "
                          "process's libd4rcuda; its sampling state is unknown and dumped as all zeros (wrap, point)",
                          v, off);
            }
        }
        d.manifest.objects.push_back(o);
    }
}

// The dump of a launch, before it runs; nullopt when the launch's arguments are invalid (kernelParams,
// `extra`): the backend refuses such a launch with its own code, and the layer reads none of them.
Expected<std::optional<PendingDump>> begin_dump(uint64_t seq, const FunctionInfo& f,
                                                const std::array<unsigned, 3>& grid,
                                                const std::array<unsigned, 3>& block, unsigned shared, CUstream stream,
                                                void** params, void** extra) {
    const ApiTable& in = *layer().inner;
    if (!f.kernel || !f.kernel->ptx)
        return make_error(ErrorCode::Unsupported,
                          "the PTX of {} is unknown (not loaded with cuModuleLoad* or cuLibraryLoadData, or not PTX)",
                          f.name);
    auto block_bytes = launch_param_block(&f.kernel->info, f.name, params, extra);
    if (!block_bytes) {
        log::debug("replay dump: not dumping a refused launch: {}", block_bytes.error().text());
        return std::optional<PendingDump>();
    }
    std::vector<uint8_t> args = std::move(*block_bytes);
    CUresult r = in.cuStreamSynchronize(stream);
    if (r != CUDA_SUCCESS)
        return make_error(ErrorCode::Io, "cuStreamSynchronize before the launch: {}",
                          error_name(r) ? error_name(r) : "?");
    PendingDump d;
    d.manifest.kernel = f.name;
    d.manifest.grid = {grid[0], grid[1], grid[2]};
    d.manifest.block = {block[0], block[1], block[2]};
    d.manifest.shared = shared;
    d.manifest.args_bytes = args.size();
    for (size_t off = 0; off + 8 <= args.size(); off += 8) {
        uint64_t v = 0;
        std::memcpy(&v, args.data() + off, 8);
        if (auto where = find_alloc(in, d.manifest, v))
            d.manifest.pointers.push_back({off, where->first, where->second});
    }
    capture_objects(in, f.kernel->info, args, d);
    d.final = fs::path(layer().config.dump_dir) / dump_folder_name(seq, f.name);
    d.temp = d.final;
    d.temp += fmt::format(".partial-{}", getpid());
    std::error_code ec;
    fs::remove_all(d.temp, ec);
    fs::create_directories(d.temp, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot create {}: {}", d.temp.string(), ec.message());
    D4R_TRY(write_file_atomic(d.temp / "args.bin", args));
    D4R_TRY(write_file_atomic(d.temp / d.manifest.module, *f.kernel->ptx));
    D4R_TRY(save_contents(in, d.temp, d));
    // What `d4r replay` would refuse is not worth writing: say why now, while the cause is known.
    std::string manifest = write_dump_manifest(d.manifest);
    if (auto check = parse_dump_manifest(manifest, "the manifest of " + d.final.filename().string()); !check)
        return std::move(check).error();
    D4R_TRY(write_file_atomic(d.temp / "manifest.txt", manifest));
    return std::optional<PendingDump>(std::move(d));
}

Status finish_dump(PendingDump& d, CUstream stream) {
    const ApiTable& in = *layer().inner;
    CUresult r = in.cuStreamSynchronize(stream);
    if (r != CUDA_SUCCESS)
        return make_error(ErrorCode::Io, "cuStreamSynchronize after the launch: {}",
                          error_name(r) ? error_name(r) : "?");
    D4R_TRY(save_contents(in, d.temp / "after", d));
    std::error_code ec;
    if (fs::exists(d.final, ec)) {
        log::info("replay dump: replacing {}", d.final.string());
        fs::remove_all(d.final, ec);
    }
    fs::rename(d.temp, d.final, ec);
    if (ec)
        return make_error(ErrorCode::Io, "cannot rename {} to {}: {}", d.temp.string(), d.final.string(), ec.message());
    return {};
}

void abandon(const PendingDump* d, const FunctionInfo& f, const Error& e) {
    log::warn("replay dump of {} failed: {}", f.name, e.text());
    if (d) {
        std::error_code ec;
        fs::remove_all(d->temp, ec);
    }
}

// ---- Launching ----

// Runs WORK, turning an exception (a huge allocation's std::bad_alloc, a filesystem error) into an error:
// nothing may throw out of the launch entry points this layer stands in for.
template <class T, class Work>
Expected<T> without_exceptions(std::string_view what, Work&& work) {
    try {
        return work();
    } catch (const std::bad_alloc&) {
        return make_error(ErrorCode::Io, "{}: out of memory", what);
    } catch (const std::exception& e) {
        return make_error(ErrorCode::Internal, "{}: {}", what, e.what());
    } catch (...) {
        return make_error(ErrorCode::Internal, "{}: an unknown exception", what);
    }
}

// Whether STREAM is capturing into a graph (cudaStreamBeginCapture). A backend that cannot say is taken
// as not capturing.
bool is_capturing(const ApiTable& in, CUstream stream) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    return in.cuStreamIsCapturing(stream, &status) == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// COOPERATIVE: a launch with grid-wide synchronisation. It is profiled but not dumped: `d4r replay`
// launches a dump without the cooperative guarantee (every block resident), which grid.sync() needs.
CUresult observed_launch_impl(CUfunction f, const std::array<unsigned, 3>& grid, const std::array<unsigned, 3>& block,
                              unsigned shared, CUstream stream, void** params, void** extra,
                              const std::function<CUresult()>& launch, bool cooperative) {
    ObserveState& L = layer();
    uint64_t seq = L.launches.fetch_add(1, std::memory_order_relaxed) + 1;
    auto rec = registered_function(f);
    if (!rec) return launch(); // no registry below (a wiring mistake): nothing to name the kernel by
    bool profile = L.profile && L.profile->select(rec->name);
    bool dump = L.dump && L.dump->select(rec->name);
    if (dump && cooperative) {
        if (log::once("observe.cooperative"))
            log::warn("replay dump: {} is a cooperative launch (grid-wide synchronisation), which d4r replay cannot "
                      "reproduce; not dumped",
                      rec->name);
        dump = false;
    }
    // A launch into a capturing stream is recorded into a graph, not run: events recorded and waited for
    // around it would invalidate the capture (NVIDIA's driver answers the graph's end with
    // STREAM_CAPTURE_INVALIDATED), so it is neither timed nor dumped.
    const bool capturing = (profile || dump) && is_capturing(*L.inner, stream);
    if (profile && capturing && log::once("observe.profile.capture." + rec->name))
        log::info("kernel profile: {} is launched into a stream being captured into a graph; not timed", rec->name);
    if (dump && capturing) {
        // A launch into a capturing stream is recorded into a graph, not run: there is nothing to dump,
        // and the synchronisation a dump needs would invalidate the capture.
        if (log::once("observe.capture." + rec->name))
            log::info("replay dump: {} is launched into a stream being captured into a graph; not dumped", rec->name);
        dump = false;
    }
    if (!profile && !dump) return launch();
    const ApiTable& in = *L.inner;

    std::optional<PendingDump> pending;
    if (dump) {
        auto d = without_exceptions<std::optional<PendingDump>>(
            "preparing the dump", [&] { return begin_dump(seq, *rec, grid, block, shared, stream, params, extra); });
        if (d)
            pending = std::move(*d);
        else
            abandon(nullptr, *rec, d.error());
    }
    CUevent start = nullptr, end = nullptr;
    bool timed = profile && !capturing;
    if (timed) {
        if (in.cuEventCreate(&start, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
            in.cuEventCreate(&end, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
            in.cuEventRecord(start, stream) != CUDA_SUCCESS) {
            if (log::once("observe.events")) log::warn("kernel profile: cannot record events; launches are not timed");
            profile = false;
            timed = false;
        }
    }
    CUresult r = launch();
    if (profile) {
        float ms = -1;
        if (timed && r == CUDA_SUCCESS && in.cuEventRecord(end, stream) == CUDA_SUCCESS &&
            in.cuEventSynchronize(end) == CUDA_SUCCESS)
            in.cuEventElapsedTime(&ms, start, end);
        if (r == CUDA_SUCCESS)
            log::write(log::Level::Info, format_profile_line(seq, is_native_function(f), ms, rec->name));
    }
    if (start) in.cuEventDestroy_v2(start);
    if (end) in.cuEventDestroy_v2(end);
    if (pending) {
        Status s =
            r == CUDA_SUCCESS
                ? without_exceptions<void>("finishing the dump", [&] { return finish_dump(*pending, stream); })
                : Status(make_error(ErrorCode::Invalid, "the launch failed ({})", error_name(r) ? error_name(r) : "?"));
        if (!s)
            abandon(&*pending, *rec, s.error());
        else
            log::info("replay dump: {} written", pending->final.string());
    }
    return r;
}

// The launch entry points' barrier: LAUNCH runs exactly once whatever the observation around it throws.
CUresult observed_launch(CUfunction f, const std::array<unsigned, 3>& grid, const std::array<unsigned, 3>& block,
                         unsigned shared, CUstream stream, void** params, void** extra,
                         const std::function<CUresult()>& launch, bool cooperative = false) {
    bool launched = false;
    std::optional<CUresult> result;
    auto once = [&]() -> CUresult {
        launched = true;
        result = launch();
        return *result;
    };
    try {
        return observed_launch_impl(f, grid, block, shared, stream, params, extra, once, cooperative);
    } catch (...) {
        if (log::once("observe.exception"))
            log::warn("kernel profile / replay dump: an exception while observing a launch");
    }
    if (result) return *result;
    return launched ? CUDA_ERROR_UNKNOWN : launch();
}

CUresult ob_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           unsigned shared, CUstream stream, void** params, void** extra) {
    return observed_launch(f, {gx, gy, gz}, {bx, by, bz}, shared, stream, params, extra, [&] {
        return layer().inner->cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
    });
}

CUresult ob_cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
    if (!c) return layer().inner->cuLaunchKernelEx(c, f, params, extra);
    return observed_launch(
        f, {c->gridDimX, c->gridDimY, c->gridDimZ}, {c->blockDimX, c->blockDimY, c->blockDimZ}, c->sharedMemBytes,
        c->hStream, params, extra, [&] { return layer().inner->cuLaunchKernelEx(c, f, params, extra); },
        is_cooperative(c));
}

CUresult ob_cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                      unsigned bz, unsigned shared, CUstream stream, void** params) {
    return observed_launch(
        f, {gx, gy, gz}, {bx, by, bz}, shared, stream, params, nullptr,
        [&] { return layer().inner->cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params); },
        true);
}

// Which launches to profile or dump: FILTER, SKIP and LIMIT variables of the table (core/env_vars.h),
// whose defaults (skip 0; limit 3000 for profiles, 1 for dumps) live there.
std::optional<LaunchSelector> selector_from_env(const Environment& env, EnvVar filter, EnvVar skip, EnvVar limit) {
    LaunchSelector s;
    s.filter = env_text(env, filter).value_or("");
    s.skip = static_cast<uint64_t>(env_int(env, skip));
    s.limit = static_cast<uint64_t>(env_int(env, limit));
    return s;
}

} // namespace

std::string format_profile_line(uint64_t launch, bool eligible, double gpu_ms, std::string_view name) {
    return fmt::format("KERNEL_PROFILE launch={} eligible={} gpu_ms={:.4f} name={}", launch, eligible ? 1 : 0, gpu_ms,
                       name);
}

ObserveConfig observe_config_from_env(const Environment& env) {
    ObserveConfig c;
    if (env_bool(env, EnvVar::CudaKernelProfile))
        c.profile = selector_from_env(env, EnvVar::CudaKernelProfileFilter, EnvVar::CudaKernelProfileSkip,
                                      EnvVar::CudaKernelProfileLimit);
    if (auto dir = env_text(env, EnvVar::CudaReplayDumpDir)) {
        c.dump = selector_from_env(env, EnvVar::CudaReplayDumpFilter, EnvVar::CudaReplayDumpSkip,
                                   EnvVar::CudaReplayDumpLimit);
        c.dump_dir = *dir;
    }
    return c;
}

ApiTable make_observe_table(Runtime& runtime, const ApiTable& inner, ObserveConfig config) {
    ObserveState* s = &runtime.emplace_layer<ObserveState>();
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
    ApiTable t = inner;
    t.cuLaunchKernel = &ob_cuLaunchKernel;
    t.cuLaunchKernelEx = &ob_cuLaunchKernelEx;
    t.cuLaunchCooperativeKernel = &ob_cuLaunchCooperativeKernel;
    if (s->config.dump) {
        t.cuTexObjectCreate = &ob_cuTexObjectCreate;
        t.cuTexObjectDestroy = &ob_cuTexObjectDestroy;
    }
    return t;
}

} // namespace d4r::runtime
