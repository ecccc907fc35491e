// The open NGX core's state: init, parameter maps, features.
#include "upscaler/ngx/core.h"

#include <filesystem>

#include <fmt/ranges.h>

#include "core/env_vars.h"
#include "core/log.h"
#include "network/model_file.h"
#include "upscaler/frame_setup.h"
#include "upscaler/ngx/feature_params.h"
#include "upscaler/platform.h"

namespace d4r::upscaler::ngx {

using namespace abi;

namespace fs = std::filesystem;

CudaLibraryChoice choose_cuda_library(const Environment& env, const std::string& core_dir) {
    if (auto path = env_text(env, EnvVar::NgxCudaLibrary)) return {*path, env_name(EnvVar::NgxCudaLibrary)};
    if (!core_dir.empty()) {
        std::error_code ec;
        fs::path beside = fs::path(core_dir) / platform::kCudaLibraryName;
        if (fs::exists(beside, ec)) return {beside.string(), "next to the NGX core"};
    }
    return {platform::kCudaLibraryName, platform::kLibrarySearchPath};
}

std::string core_directory() { return platform::this_binary_directory(); }

std::string choose_model_path(const Environment& env, const std::string& core_dir) {
    if (auto path = env_text(env, EnvVar::NetworkModel)) return *path;
    const fs::path beside = fs::path(core_dir) / network::kModelFileName;
    std::error_code ec;
    if (!core_dir.empty() && fs::exists(beside, ec)) return beside.string();
    return (fs::path(core_dir) / ".." / "share" / "d4r" / "models" / network::kModelFileName)
        .lexically_normal()
        .string();
}

void Core::load_model() {
    if (m_model_tried) return;
    m_model_tried = true;
    const Environment& env = process_environment();
    if (!env_bool(env, EnvVar::Network)) {
        log::info("ngx: the refinement network is off ({}=false)", env_name(EnvVar::Network));
        return;
    }
    std::string path = choose_model_path(env, core_directory());
    auto model = network::read_model(path);
    if (!model) {
        log::warn("ngx: the refinement network is not used: {}; the core runs without it", model.error().text());
        return;
    }
    log::info("ngx: refinement network {} from {}", model->arch, path);
    m_model = std::move(*model);
}

Core& Core::instance() {
    // Never destroyed: features still alive at exit must not call into a libcuda being torn down.
    static Core* core = new Core();
    return *core;
}

bool Core::initialized() const {
    std::lock_guard lock(m_mutex);
    return m_initialized;
}

NVSDK_NGX_Result Core::load_cuda() {
    if (m_cuda) return NVSDK_NGX_Result_Success;
    CudaLibraryChoice choice = choose_cuda_library(process_environment(), core_directory());
    auto cuda = load_cuda_functions(choice.path);
    if (!cuda) {
        log::error("ngx: cannot load the CUDA driver library {} ({}): {}", choice.path, choice.reason,
                   cuda.error().text());
        return NVSDK_NGX_Result_FAIL_PlatformError;
    }
    log::info("ngx: CUDA driver library {} ({})", choice.path, choice.reason);
    CUresult r = cuda->cuInit(0);
    if (r != CUDA_SUCCESS) {
        log::error("ngx: {}", cuda_error(*cuda, "cuInit", r).text());
        return NVSDK_NGX_Result_FAIL_PlatformError;
    }
    m_cuda = *cuda;
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Core::init(const std::string& caller) {
    log::init_from_env();
    std::lock_guard lock(m_mutex);
    if (m_initialized) {
        log::info("ngx: {}: already initialised", caller);
        return NVSDK_NGX_Result_Success;
    }
    NVSDK_NGX_Result r = load_cuda();
    if (r != NVSDK_NGX_Result_Success) return r;
    load_model();
    m_initialized = true;
    log::info("ngx: {}: initialised", caller);
    return NVSDK_NGX_Result_Success;
}

void Core::destroy_feature(Feature& feature) {
    const CudaFunctions& cuda = *m_cuda;
    bool pushed = cuda.cuCtxPushCurrent_v2(feature.context) == CUDA_SUCCESS;
    feature.refine.reset();
    feature.pipeline.reset();
    if (pushed) {
        CUcontext popped = nullptr;
        (void)cuda.cuCtxPopCurrent_v2(&popped);
    }
    if (feature.owns_primary) (void)cuda.cuDevicePrimaryCtxRelease_v2(feature.device);
}

NVSDK_NGX_Result Core::shutdown() {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    if (!m_features.empty()) log::info("ngx: Shutdown releases {} feature(s)", m_features.size());
    for (auto& [handle, feature] : m_features) destroy_feature(feature);
    m_features.clear();
    if (m_shared_parameters) {
        // Kept, not freed: games hold this map past Shutdown (issue 14, item 6); its table answers
        // FAIL_NotInitialized until a later GetParameters revives it.
        m_shared_parameters->store.clear();
        m_shared_parameters->retired.store(true, std::memory_order_release);
    }
    m_initialized = false;
    log::info("ngx: shut down");
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Core::get_parameters(NVSDK_NGX_Parameter** out) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    if (!m_shared_parameters) {
        m_shared_parameters = std::make_unique<ParameterObject>();
        set_capabilities(*m_shared_parameters);
    } else if (m_shared_parameters->retired.load(std::memory_order_acquire)) {
        // The same address again: a pointer the game kept from before Shutdown is a live map once more.
        m_shared_parameters->retired.store(false, std::memory_order_release);
        set_capabilities(*m_shared_parameters);
    }
    *out = m_shared_parameters.get();
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Core::allocate_parameters(NVSDK_NGX_Parameter** out, bool with_capabilities) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    auto object = std::make_unique<ParameterObject>();
    if (with_capabilities) set_capabilities(*object);
    *out = object.get();
    m_parameter_objects.insert(object.release());
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Core::destroy_parameters(NVSDK_NGX_Parameter* params) {
    std::lock_guard lock(m_mutex);
    if (params == nullptr) return NVSDK_NGX_Result_FAIL_InvalidParameter;
    auto it = m_parameter_objects.find(params);
    if (it == m_parameter_objects.end()) {
        log::warn("ngx: DestroyParameters: {} was not made by AllocateParameters or GetCapabilityParameters",
                  static_cast<void*>(params));
        return NVSDK_NGX_Result_FAIL_InvalidParameter;
    }
    delete static_cast<ParameterObject*>(*it);
    m_parameter_objects.erase(it);
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Core::scratch_buffer_size(NVSDK_NGX_Feature feature, size_t* out) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    if (feature != NVSDK_NGX_Feature_SuperSampling) return NVSDK_NGX_Result_FAIL_FeatureNotSupported;
    *out = 0; // the feature allocates its own buffers
    return NVSDK_NGX_Result_Success;
}

namespace {

NVSDK_NGX_Result create_result(const Error& error) {
    if (error.code() == ErrorCode::Invalid) return NVSDK_NGX_Result_FAIL_InvalidParameter;
    if (error.code() == ErrorCode::Unsupported) return NVSDK_NGX_Result_FAIL_FeatureNotSupported;
    if (error.text().find("OUT_OF_MEMORY") != std::string::npos) return NVSDK_NGX_Result_FAIL_OutOfGPUMemory;
    return NVSDK_NGX_Result_FAIL_UnableToInitializeFeature;
}

} // namespace

NVSDK_NGX_Result Core::create_feature(NVSDK_NGX_Feature feature_id, const NVSDK_NGX_Parameter* params,
                                      NVSDK_NGX_Handle** out) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    if (feature_id != NVSDK_NGX_Feature_SuperSampling) {
        log::warn("ngx: CreateFeature: feature {} is not supported (the open core implements SuperSampling = 1)",
                  static_cast<int>(feature_id));
        return NVSDK_NGX_Result_FAIL_FeatureNotSupported;
    }
    CreateRequest request;
    Rejection rejected = read_create(*params, request);
    if (!rejected.ok()) {
        log::warn("ngx: CreateFeature: {}", rejected.message);
        return rejected.result;
    }
    if (request.ignored_flags != 0)
        log::warn("ngx: CreateFeature: DLSS.Feature.Create.Flags bits {:#x} are not supported and ignored",
                  request.ignored_flags);

    const CudaFunctions& cuda = *m_cuda;
    Feature feature;
    CUcontext current = nullptr;
    (void)cuda.cuCtxGetCurrent(&current);
    bool pushed = false;
    if (current == nullptr) {
        // NGX expects the caller's context; without one, use the device's primary context.
        CUresult r = cuda.cuDeviceGet(&feature.device, 0);
        if (r == CUDA_SUCCESS) r = cuda.cuDevicePrimaryCtxRetain(&current, feature.device);
        if (r != CUDA_SUCCESS) {
            log::error("ngx: CreateFeature: no current CUDA context and {}",
                       cuda_error(cuda, "cuDevicePrimaryCtxRetain", r).text());
            return NVSDK_NGX_Result_FAIL_PlatformError;
        }
        feature.owns_primary = true;
        pushed = cuda.cuCtxPushCurrent_v2(current) == CUDA_SUCCESS;
        log::info("ngx: CreateFeature: no current CUDA context; using device 0's primary context");
    }
    feature.context = current;
    // refine-v2 reads the core's accumulate terms: the core keeps them for it instead of the network computing them
    // again.
    PipelineConfig config = request.config;
    config.keep_network_inputs = m_model && request.network && network::reads_core_frame(m_model->arch);
    auto pipeline = Pipeline::create(cuda, config);
    if (pipeline && m_model && request.network) {
        auto refine =
            network::RefinePipeline::create(cuda, *m_model, request.config.output_width, request.config.output_height);
        if (refine)
            feature.refine = std::move(*refine);
        else
            log::warn("ngx: CreateFeature: the refinement network is not used for this feature: {}",
                      refine.error().text());
    }
    if (pushed) {
        CUcontext popped = nullptr;
        (void)cuda.cuCtxPopCurrent_v2(&popped);
    }
    if (!pipeline) {
        if (feature.owns_primary) (void)cuda.cuDevicePrimaryCtxRelease_v2(feature.device);
        log::error("ngx: CreateFeature: {}", pipeline.error().text());
        return create_result(pipeline.error());
    }
    feature.pipeline = std::move(*pipeline);

    const bool feature_refines = feature.refine != nullptr;
    m_handles.push_back(NVSDK_NGX_Handle{m_next_id++});
    NVSDK_NGX_Handle* handle = &m_handles.back();
    const PipelineConfig& c = request.config;
    log::info("ngx: CreateFeature: handle {}: {}x{} -> {}x{}, flags {:#x}, quality {}, presets {} (not used by the "
              "open core), refinement network {}",
              handle->Id, c.render_width, c.render_height, c.output_width, c.output_height, request.flags,
              request.perf_quality, fmt::join(request.presets, ","), feature_refines ? "on" : "off");
    m_features.emplace(handle, std::move(feature));
    *out = handle;
    return NVSDK_NGX_Result_Success;
}

void Core::log_rejection(const char* call, const std::string& message) {
    ++m_rejections;
    if (m_rejections <= 3 || m_rejections % 120 == 0)
        log::warn("ngx: {}: {} (rejection {})", call, message, m_rejections);
}

NVSDK_NGX_Result Core::evaluate_feature(const NVSDK_NGX_Handle* handle, const NVSDK_NGX_Parameter* params) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    auto it = m_features.find(handle);
    if (it == m_features.end()) {
        log_rejection("EvaluateFeature", fmt::format("unknown feature handle {}", static_cast<const void*>(handle)));
        return NVSDK_NGX_Result_FAIL_FeatureNotFound;
    }
    Feature& feature = it->second;
    FrameParams frame;
    Rejection rejected = read_evaluate(*params, feature.pipeline->config(), frame);
    if (!rejected.ok()) {
        log_rejection("EvaluateFeature", rejected.message);
        return rejected.result;
    }

    const CudaFunctions& cuda = *m_cuda;
    CUcontext current = nullptr;
    (void)cuda.cuCtxGetCurrent(&current);
    bool pushed = false;
    if (current != feature.context) {
        // The feature's buffers live in its own context; evaluate there on that context's stream 0.
        pushed = cuda.cuCtxPushCurrent_v2(feature.context) == CUDA_SUCCESS;
        if (log::once("ngx-evaluate-context"))
            log::info("ngx: EvaluateFeature: the calling thread's CUDA context is not the feature's; using the "
                      "feature's");
    }
    Status status = feature.pipeline->evaluate(frame, nullptr);
    if (status && feature.refine) {
        const OutputImage out = output_image(feature.pipeline->config(), frame);
        status = feature.refine->refine(out.address, out.pitch, out.width, out.height, nullptr,
                                        feature.pipeline->frame_params());
    }
    if (pushed) {
        CUcontext popped = nullptr;
        (void)cuda.cuCtxPopCurrent_v2(&popped);
    }
    if (!status) {
        log_rejection("EvaluateFeature", status.error().text());
        return status.error().code() == ErrorCode::Invalid ? NVSDK_NGX_Result_FAIL_InvalidParameter
                                                           : NVSDK_NGX_Result_FAIL_PlatformError;
    }
    ++feature.evaluations;
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result Core::release_feature(NVSDK_NGX_Handle* handle) {
    std::lock_guard lock(m_mutex);
    if (!m_initialized) return NVSDK_NGX_Result_FAIL_NotInitialized;
    auto it = m_features.find(handle);
    if (it == m_features.end()) {
        log::warn("ngx: ReleaseFeature: unknown feature handle {}", static_cast<const void*>(handle));
        return NVSDK_NGX_Result_FAIL_FeatureNotFound;
    }
    log::info("ngx: ReleaseFeature: handle {} after {} evaluation(s)", handle->Id, it->second.evaluations);
    destroy_feature(it->second);
    m_features.erase(it);
    return NVSDK_NGX_Result_Success;
}

size_t Core::feature_count() const {
    std::lock_guard lock(m_mutex);
    return m_features.size();
}

std::optional<PipelineConfig> Core::feature_config(const NVSDK_NGX_Handle* handle) const {
    std::lock_guard lock(m_mutex);
    auto it = m_features.find(handle);
    if (it == m_features.end()) return std::nullopt;
    return it->second.pipeline->config();
}

} // namespace d4r::upscaler::ngx
