// The shim's state: Init, parameter maps, features (shim.h).
#include "shim/shim.h"

#include <cctype>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/xchar.h>

#include "bridge/d4r_helpers.h"
#include "core/env.h"
#include "core/env_vars.h"
#include "core/log.h"
#include "shim/formats.h"
#include "upscaler/platform.h"

namespace d4r::shim {

using namespace abi;

namespace {

bool file_exists(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(std::filesystem::u8path(path), ec);
}

template <typename T>
std::optional<T> read(const NVSDK_NGX_Parameter& p, const char* name) {
    T value{};
    if (p.Get(name, &value) != NVSDK_NGX_Result_Success) return std::nullopt;
    return value;
}

// The CUDA device whose UUID is UUID (cuDeviceGetCount and cuDeviceGetUuid of the library at CUDA_PATH), if any.
std::optional<CUdevice> device_with_uuid(const upscaler::CudaFunctions& cuda, const std::string& cuda_path,
                                         const Shim::DeviceUuid& uuid) {
    auto library = upscaler::platform::open_library(cuda_path);
    if (!library) return std::nullopt;
    auto count_of =
        reinterpret_cast<PFN_cuDeviceGetCount>(upscaler::platform::find_symbol(*library, "cuDeviceGetCount"));
    auto uuid_of = reinterpret_cast<PFN_cuDeviceGetUuid>(upscaler::platform::find_symbol(*library, "cuDeviceGetUuid"));
    int count = 0;
    if (!count_of || !uuid_of || count_of(&count) != CUDA_SUCCESS) return std::nullopt;
    for (int d = 0; d < count; ++d) {
        CUdevice device = 0;
        CUuuid id{};
        if (cuda.cuDeviceGet(&device, d) != CUDA_SUCCESS || uuid_of(&id, device) != CUDA_SUCCESS) continue;
        if (std::memcmp(id.bytes, uuid.data(), uuid.size()) == 0) return device;
    }
    return std::nullopt;
}

} // namespace

std::optional<unsigned int> parse_preset(const std::string& text) {
    if (text.empty()) return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(text[0]))) {
        unsigned int v = 0;
        for (char c : text) {
            if (!std::isdigit(static_cast<unsigned char>(c)) || v > 100) return std::nullopt;
            v = v * 10 + unsigned(c - '0');
        }
        return v >= 1 && v <= 13 ? std::optional<unsigned int>(v) : std::nullopt;
    }
    if (text.size() != 1) return std::nullopt;
    char c = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    if (c >= 'A' && c <= 'G') return unsigned(c - 'A' + 1);
    if (c >= 'J' && c <= 'M') return unsigned(c - 'J' + 10);
    return std::nullopt;
}

Shim& Shim::instance() {
    static Shim* shim = new Shim(); // never destroyed: the worker may outlive static destruction at exit
    return *shim;
}

void Shim::log_rejection(const std::string& message) {
    ++m_rejections;
    if (m_rejections <= 3 || m_rejections % 120 == 0)
        log::warn("shim: evaluation refused: {} (refusal {})", message, m_rejections);
}

// In a game a kernel that never ends must not freeze it: unless the user chose otherwise
// (D4R_CPU_WATCHDOG_MS set, e.g. from d4r.ini's [Interop] WatchdogMs by the launcher), the shim turns the
// cpu backend's launch watchdog on, through the bridge's d4r_SetEnvironment, before CUDA starts.
void Shim::watchdog_default(const std::string& cuda_path) {
    if (env_raw(process_environment(), EnvVar::CpuWatchdogMs)) return;
    auto library = upscaler::platform::open_library(cuda_path);
    auto set_env =
        library
            ? reinterpret_cast<PFN_d4r_SetEnvironment>(upscaler::platform::find_symbol(*library, "d4r_SetEnvironment"))
            : nullptr;
    if (!set_env) {
        log::info("shim: {} has no d4r_SetEnvironment (not d4r's bridge): the kernel watchdog stays as it is",
                  cuda_path);
        return;
    }
    const std::string ms = std::to_string(kWatchdogDefaultMs);
    if (set_env(env_name(EnvVar::CpuWatchdogMs), ms.c_str()) == CUDA_SUCCESS)
        log::info("shim: kernel watchdog on: {}={} (a kernel running longer stops with CUDA_ERROR_LAUNCH_TIMEOUT)",
                  env_name(EnvVar::CpuWatchdogMs), ms);
}

NVSDK_NGX_Result Shim::init(const char* entry, const ApiDeviceMaker& make_api, const wchar_t* data_path,
                            std::optional<DeviceUuid> device_uuid) {
    std::lock_guard lock(m_mutex);
    if (m_initialized) {
        log::debug("shim: {}: already initialised", entry);
        return NVSDK_NGX_Result_Success;
    }
    const std::string shim_dir = upscaler::platform::this_binary_directory();
    CoreChoice choice = choose_core(process_environment(), shim_dir, &file_exists);
    log::info("shim: {}: NGX core {} ({})", entry, choice.path, choice.reason);
    auto core = load_core(choice);
    if (!core) {
        log::error("shim: {}: {}", entry, core.error().text());
        return NVSDK_NGX_Result_FAIL_PlatformError;
    }
    m_core = std::move(*core);
    if (!m_cuda) {
        const std::string name = upscaler::platform::kCudaLibraryName;
        std::string cuda_path = name, why = std::string("through ") + upscaler::platform::kLibrarySearchPath;
        if (!shim_dir.empty() && file_exists(shim_dir + upscaler::platform::kPathSeparator + name)) {
            cuda_path = shim_dir + upscaler::platform::kPathSeparator + name;
            why = "beside the shim";
        }
        auto cuda = upscaler::load_cuda_functions(cuda_path);
        if (!cuda) {
            log::error("shim: {}: CUDA driver {} ({}): {}", entry, cuda_path, why, cuda.error().text());
            return NVSDK_NGX_Result_FAIL_PlatformError;
        }
        log::info("shim: CUDA driver {} ({})", cuda_path, why);
        m_cuda = *cuda;
        m_cuda_path = cuda_path;
        watchdog_default(cuda_path);
        if (auto library = upscaler::platform::open_library(cuda_path))
            m_event_wait =
                reinterpret_cast<PFN_d4r_EventWait>(upscaler::platform::find_symbol(*library, "d4r_EventWait"));
    }
    NVSDK_NGX_Result r = init_cuda_and_core(data_path ? std::wstring(data_path) : std::wstring(L"."), device_uuid);
    if (NVSDK_NGX_FAILED(r)) return r;
    m_api = make_api();
    m_settings = read_settings(process_environment());
    m_initialized = true;
    for (const std::string& notice : m_settings.notices) log::warn("shim: {}", notice);
    if (m_settings.motion_dilation)
        log::info("shim: motion-vector dilation on: {}={}: each motion vector takes the front-most pixel's in its "
                  "{}x{} neighbourhood before the core sees it",
                  env_name(EnvVar::MotionDilation), m_settings.motion_dilation, 2 * m_settings.motion_dilation + 1,
                  2 * m_settings.motion_dilation + 1);
    if (m_settings.watermark)
        log::info("shim: watermark on ({}): d4r's mark is drawn into the top-left corner of every output",
                  env_name(EnvVar::ShimWatermark));
    log::info("shim: {}: ready (at most {} evaluations in flight, output wait: {}; the data path is said per feature)",
              entry, m_settings.max_in_flight, m_settings.blocking_sync ? "blocking event" : "context synchronisation");
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Shim::init_cuda_and_core(const std::wstring& data_path, std::optional<DeviceUuid> device_uuid) {
    // Shared with the task: one the watchdog gives up on must not write into this frame.
    struct State {
        std::wstring data_path;
        std::optional<DeviceUuid> uuid;
        std::string cuda_path;
        std::string no_vram; // set when no CUDA device has the game's GPU's UUID
        CUdevice device = 0;
        CUcontext context = nullptr;
        NVSDK_NGX_Result result = NVSDK_NGX_Result_Fail;
    };
    auto st = std::make_shared<State>();
    st->data_path = data_path;
    st->uuid = device_uuid;
    st->cuda_path = m_cuda_path;
    const upscaler::CudaFunctions* cuda = &*m_cuda;
    const CoreFunctions* core = &*m_core;
    Status s = m_worker.run(
        "CUDA and NGX core initialisation",
        [st, cuda, core]() -> Status {
            CUresult r = cuda->cuInit(0);
            if (r != CUDA_SUCCESS) return upscaler::cuda_error(*cuda, "cuInit", r);
            r = cuda->cuDeviceGet(&st->device, 0);
            if (r != CUDA_SUCCESS) return upscaler::cuda_error(*cuda, "cuDeviceGet", r);
            if (st->uuid) {
                if (auto found = device_with_uuid(*cuda, st->cuda_path, *st->uuid)) {
                    st->device = *found;
                    log::info("shim: CUDA device {} is the game's GPU (the same UUID)", *found);
                } else {
                    st->no_vram = "no CUDA device has the UUID of the game's GPU";
                    log::warn("shim: {}: CUDA device 0 evaluates, and no frame shares memory with it", st->no_vram);
                }
            }
            r = cuda->cuDevicePrimaryCtxRetain(&st->context, st->device);
            if (r != CUDA_SUCCESS) return upscaler::cuda_error(*cuda, "cuDevicePrimaryCtxRetain", r);
            r = cuda->cuCtxSetCurrent(st->context);
            if (r != CUDA_SUCCESS) return upscaler::cuda_error(*cuda, "cuCtxSetCurrent", r);
            // The core DLL's spelling (application id, data path, version) with the version repeated where
            // the SDK's spelling has its FeatureCommonInfo pointer, which d4r's core reads as a version too
            // (abi/ngx.h): both kinds of core get the version.
            st->result = core->NVSDK_NGX_CUDA_Init(
                0xd4d4, st->data_path.c_str(),
                reinterpret_cast<const NVSDK_NGX_FeatureCommonInfo*>(static_cast<uintptr_t>(NVSDK_NGX_Version_API)),
                NVSDK_NGX_Version_API);
            if (NVSDK_NGX_FAILED(st->result))
                return make_error(ErrorCode::Io, "NVSDK_NGX_CUDA_Init of {} gave {:#x}", core->path,
                                  unsigned(st->result));
            return {};
        },
        kSetupTimeoutMs);
    if (!s) {
        log::error("shim: {}", s.error().text());
        return NVSDK_NGX_FAILED(st->result) && st->result != NVSDK_NGX_Result_Fail
                   ? st->result
                   : NVSDK_NGX_Result_FAIL_PlatformError;
    }
    m_device = st->device;
    m_context = st->context;
    m_no_vram = st->no_vram;
    m_core_initialized = true;
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Shim::shutdown() {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) {
        log::debug("shim: Shutdown without Init");
        return NVSDK_NGX_Result_FAIL_NotInitialized;
    }
    for (auto& [handle, feature] : m_features) release_core(feature);
    m_features.clear();
    const upscaler::CudaFunctions& cuda = *m_cuda;
    const CoreFunctions& core = *m_core;
    auto task = [&cuda, &core, device = m_device]() -> Status {
        NVSDK_NGX_Result r = core.NVSDK_NGX_CUDA_Shutdown();
        cuda.cuDevicePrimaryCtxRelease_v2(device);
        if (NVSDK_NGX_FAILED(r)) return make_error(ErrorCode::Io, "NVSDK_NGX_CUDA_Shutdown gave {:#x}", unsigned(r));
        return {};
    };
    if (m_worker.stuck()) {
        log::warn("shim: Shutdown: the CUDA worker is stuck in a stalled task; the core's shutdown is queued behind "
                  "it and not waited for");
        m_worker.post("NGX core shutdown", task);
    } else if (Status s = m_worker.run("NGX core shutdown", task); !s) {
        log::warn("shim: {}", s.error().text());
    }
    m_core_initialized = false;
    m_api.reset();
    m_initialized = false;
    log::info("shim: Shutdown");
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Shim::get_parameters(NVSDK_NGX_Parameter** out) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    if (!m_shared_parameters) m_shared_parameters = std::make_unique<upscaler::ngx::ParameterObject>();
    upscaler::ngx::set_capabilities(*m_shared_parameters);
    *out = m_shared_parameters.get();
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Shim::allocate_parameters(NVSDK_NGX_Parameter** out, bool with_capabilities) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    auto object = std::make_unique<upscaler::ngx::ParameterObject>();
    if (with_capabilities) upscaler::ngx::set_capabilities(*object);
    *out = object.get();
    m_parameter_objects.insert(object.release());
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Shim::destroy_parameters(NVSDK_NGX_Parameter* params) {
    std::lock_guard lock(m_mutex);
    auto it = m_parameter_objects.find(params);
    if (it == m_parameter_objects.end()) {
        log::debug("shim: DestroyParameters: {} was not handed out by AllocateParameters or GetCapabilityParameters",
                   static_cast<const void*>(params));
        return NVSDK_NGX_Result_FAIL_InvalidParameter;
    }
    delete static_cast<upscaler::ngx::ParameterObject*>(*it);
    m_parameter_objects.erase(it);
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Shim::create_core(Feature& feature) {
    struct Answer {
        NVSDK_NGX_Result result = NVSDK_NGX_Result_Fail;
    };
    auto answer = std::make_shared<Answer>();
    std::shared_ptr<CoreFeature> cf = feature.core;
    const CoreFunctions* core = &*m_core;
    Status s = m_worker.run(
        "NGX core CreateFeature",
        [answer, cf, core]() -> Status {
            answer->result = create_core_feature(*core, *cf);
            if (NVSDK_NGX_FAILED(answer->result))
                return make_error(ErrorCode::Io, "NVSDK_NGX_CUDA_CreateFeature gave {:#x}", unsigned(answer->result));
            return {};
        },
        kSetupTimeoutMs);
    if (!s) {
        const CreateInfo& c = feature.core->info;
        log::warn("shim: CreateFeature {}x{} -> {}x{}: {}", c.width, c.height, c.out_width, c.out_height,
                  s.error().text());
        if (is_timeout(s.error())) return NVSDK_NGX_Result_Fail;
        return NVSDK_NGX_FAILED(answer->result) ? answer->result : NVSDK_NGX_Result_Fail;
    }
    return NVSDK_NGX_Result_Success;
}

void Shim::release_core(Feature& feature) {
    feature.path.reset(); // frees its CUDA buffers on the worker
    const CoreFunctions* core = &*m_core;
    std::shared_ptr<CoreFeature> cf = feature.core;
    // The task owns what it frees: a release the watchdog gives up on must not touch the Feature later.
    auto task = [core, cf]() -> Status {
        release_core_feature(*core, *cf);
        return {};
    };
    if (m_worker.stuck()) {
        log::warn("shim: ReleaseFeature: the CUDA worker is stuck in a stalled task; the core's ReleaseFeature is "
                  "queued behind it and not waited for");
        m_worker.post("NGX core ReleaseFeature", task);
        return;
    }
    Status s = m_worker.run("NGX core ReleaseFeature", task);
    if (!s) log::warn("shim: {}", s.error().text());
}

bool Shim::wait_for_in_flight_slot() {
    const size_t limit = m_settings.max_in_flight;
    if (m_worker.pending() < limit) return true;
    if (log::once("shim-in-flight-limit"))
        log::warn("shim: {} evaluations are outstanding on the CUDA worker ({}={}): the game's thread waits up to "
                  "{} ms for one to finish, else the frame is dropped (said once)",
                  m_worker.pending(), env_name(EnvVar::ShimMaxInFlight), limit, kGiveUpMs);
    return m_worker.wait_below(limit, kGiveUpMs);
}

NVSDK_NGX_Result Shim::create_feature(CommandListHandle list, NVSDK_NGX_Feature feature_id,
                                      const NVSDK_NGX_Parameter* params, NVSDK_NGX_Handle** out) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    if (feature_id != NVSDK_NGX_Feature_SuperSampling) {
        log::info("shim: CreateFeature: feature {} is not supported (Super Resolution only)", int(feature_id));
        return NVSDK_NGX_Result_FAIL_FeatureNotSupported;
    }
    Feature feature;
    CreateInfo& c = feature.core->info;
    c.width = read<unsigned int>(*params, NVSDK_NGX_Parameter_Width).value_or(0);
    c.height = read<unsigned int>(*params, NVSDK_NGX_Parameter_Height).value_or(0);
    c.out_width = read<unsigned int>(*params, NVSDK_NGX_Parameter_OutWidth).value_or(0);
    c.out_height = read<unsigned int>(*params, NVSDK_NGX_Parameter_OutHeight).value_or(0);
    c.perf_quality = read<int>(*params, NVSDK_NGX_Parameter_PerfQualityValue).value_or(0);
    c.flags = read<int>(*params, NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags).value_or(0);
    for (int k = 0; k < 6; ++k) c.presets[k] = read<unsigned int>(*params, kPresetNames[k]).value_or(0);
    if (auto text = env_text(process_environment(), EnvVar::DlssPreset)) {
        if (auto preset = parse_preset(*text)) {
            for (unsigned int& p : c.presets) p = *preset;
            log::info("shim: {}={}: preset {} for every quality mode", env_name(EnvVar::DlssPreset), *text, *preset);
        } else if (log::once("shim-bad-preset")) {
            log::warn("shim: {}={}: not a preset number 1-13 or letter A-M; the game's hints kept",
                      env_name(EnvVar::DlssPreset), *text);
        }
    }
    NVSDK_NGX_Result r = create_core(feature);
    if (NVSDK_NGX_FAILED(r)) {
        release_core(feature);
        return r;
    }
    HostOptions options;
    options.blocking_sync = m_settings.blocking_sync;
    options.event_wait = m_event_wait;
    options.passes.motion_dilation = m_settings.motion_dilation;
    options.passes.depth_inverted = (unsigned(c.flags) & NVSDK_NGX_DLSS_Feature_Flags_DepthInverted) != 0;
    options.passes.watermark = m_settings.watermark;
    options.cuda_library = m_cuda_path;
    options.no_vram =
        m_settings.vram_off ? fmt::format("{}=0 asks for no VRAM path", env_name(EnvVar::ShimVramInterop)) : m_no_vram;
    feature.path = m_api->make_data_path(m_worker, *m_cuda, options);
    m_handles.push_back(NVSDK_NGX_Handle{m_next_id++});
    NVSDK_NGX_Handle* handle = &m_handles.back();
    log::info("shim: CreateFeature {}: {}x{} -> {}x{}, flags {:#x}, quality {}, data path {}", handle->Id, c.width,
              c.height, c.out_width, c.out_height, unsigned(c.flags), c.perf_quality, feature.path->name());
    m_features.emplace(handle, std::move(feature));
    *out = handle;
    return NVSDK_NGX_Result_Success;
}

CoreCall Shim::core_call(const std::shared_ptr<CoreFeature>& feature, const EvaluationRequest& request,
                         std::shared_ptr<CoreOutcome> outcome) const {
    const CoreFunctions& core = *m_core;
    return [&core, cf = feature, request, outcome](const CudaFrame& f) -> Status {
        if (!cf->params) return make_error(ErrorCode::Invalid, "the core's feature has no parameter map");
        NVSDK_NGX_Parameter& q = *cf->params;
        auto ptr = [](CUdeviceptr d) { return reinterpret_cast<void*>(static_cast<uintptr_t>(d)); };
        q.Set(NVSDK_NGX_Parameter_Color, ptr(f.color));
        q.Set(NVSDK_NGX_Parameter_Depth, ptr(f.depth));
        q.Set(NVSDK_NGX_Parameter_MotionVectors, ptr(f.motion));
        q.Set(NVSDK_NGX_Parameter_ExposureTexture, ptr(f.exposure));
        q.Set(NVSDK_NGX_Parameter_Output, ptr(f.output));
        apply_to_core(request, q);
        *outcome = evaluate_core(core, *cf);
        if (NVSDK_NGX_FAILED(outcome->result))
            return make_error(ErrorCode::Invalid, "the core's EvaluateFeature gave {:#x}", unsigned(outcome->result));
        return {};
    };
}

void Shim::log_recreation(unsigned int id, const CoreOutcome& outcome) {
    if (!outcome.recreated) return;
    if (NVSDK_NGX_SUCCEED(outcome.result))
        log::warn("shim: feature {}: the core answered invalid parameter ({:#x}); the core's feature was recreated "
                  "with the same creation parameters and the frame evaluated again: ok",
                  id, unsigned(outcome.first));
    else
        log::error("shim: feature {}: the core answered invalid parameter ({:#x}); recreated (CreateFeature {:#x}), "
                   "the frame failed again: {:#x} returned to the game",
                   id, unsigned(outcome.first), unsigned(outcome.recreate), unsigned(outcome.result));
}

NVSDK_NGX_Result Shim::evaluation_failed(unsigned int id, const Error& error, const CoreOutcome* outcome) {
    log_rejection(fmt::format("feature {}: {}", id, error.text()));
    if (!outcome) return NVSDK_NGX_Result_Fail; // timed out: the task may still write the outcome
    if (NVSDK_NGX_FAILED(outcome->result)) return outcome->result;
    return error.code() == ErrorCode::Unsupported ? NVSDK_NGX_Result_FAIL_UnsupportedFormat : NVSDK_NGX_Result_Fail;
}

NVSDK_NGX_Result Shim::evaluate_feature(CommandListHandle list, const NVSDK_NGX_Handle* handle,
                                        const NVSDK_NGX_Parameter* params) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    auto it = m_features.find(handle);
    if (it == m_features.end()) {
        log::debug("shim: EvaluateFeature: unknown feature handle {}", static_cast<const void*>(handle));
        return NVSDK_NGX_Result_FAIL_FeatureNotFound;
    }
    Feature& feature = it->second;
    const CreateInfo& c = feature.core->info;

    // 1. The NGX parameters, parsed (no API involved).
    Expected<EvaluationRequest> request = parse_evaluation_request(*params, c);
    if (!request) {
        log_rejection(request.error().message());
        return ngx_result_of(request.error());
    }
    for (const std::string& name : request->defaulted)
        if (log::once("shim-defaulted-" + name))
            log::debug("shim: EvaluateFeature: {} cannot be read as its type; its default is used (said once)", name);
    if (feature.evaluations == 0 && !request->reset) {
        log::debug("shim: feature {}: first evaluation: Reset forced", handle->Id);
        request->reset = 1;
    }

    // 2. The frame, checked against the API's resources.
    GameFrame frame = frame_geometry(*request, c);
    if (std::optional<Refusal> refusal = m_api->validate(frame)) {
        log_rejection(refusal->message);
        return refusal->result;
    }

    // 3. Throttled, then the data path.
    if (!wait_for_in_flight_slot()) {
        log_rejection(fmt::format(
            "feature {}: frame dropped: {} tasks still outstanding on the CUDA worker after {} ms "
            "({}={})",
            handle->Id, m_worker.pending(), kGiveUpMs, env_name(EnvVar::ShimMaxInFlight), m_settings.max_in_flight));
        return NVSDK_NGX_Result_Fail;
    }
    auto outcome = std::make_shared<CoreOutcome>();
    CoreCall call = core_call(feature.core, *request, outcome);
    if (feature.path->asynchronous()) {
        // The core runs after this returns: the task says what happened, and the game learns only of refusals.
        call = [call, outcome, id = handle->Id](const CudaFrame& f) -> Status {
            Status r = call(f);
            log_recreation(id, *outcome);
            return r;
        };
        if (Status s = feature.path->evaluate(list, frame, call); !s) {
            log_rejection(fmt::format("feature {}: {}", handle->Id, s.error().text()));
            return s.error().code() == ErrorCode::Unsupported ? NVSDK_NGX_Result_FAIL_UnsupportedFormat
                                                              : NVSDK_NGX_Result_Fail;
        }
        if (feature.evaluations == 0)
            log::info("shim: feature {}: first evaluation recorded (render {}x{}, data path {})", handle->Id,
                      request->render_width, request->render_height, feature.path->name());
        ++feature.evaluations;
        return NVSDK_NGX_Result_Success;
    }
    Status s = feature.path->evaluate(list, frame, call);
    const bool timed_out = !s && is_timeout(s.error());
    if (!timed_out) log_recreation(handle->Id, *outcome);
    if (!s) return evaluation_failed(handle->Id, s.error(), timed_out ? nullptr : outcome.get());
    if (feature.evaluations == 0)
        log::info("shim: feature {}: first evaluation done (render {}x{}, colour {}, output {})", handle->Id,
                  request->render_width, request->render_height, format_name(frame.color.format),
                  format_name(frame.output.format));
    ++feature.evaluations;
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Shim::release_feature(NVSDK_NGX_Handle* handle) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    auto it = m_features.find(handle);
    if (it == m_features.end()) {
        log::debug("shim: ReleaseFeature: unknown feature handle {}", static_cast<const void*>(handle));
        return NVSDK_NGX_Result_FAIL_FeatureNotFound;
    }
    release_core(it->second);
    log::info("shim: ReleaseFeature {} after {} evaluations", handle->Id, it->second.evaluations);
    m_features.erase(it);
    return NVSDK_NGX_Result_Success;
}

} // namespace d4r::shim
