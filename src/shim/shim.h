// d4r NGX shim: the state behind NGX's entry points (d3d12/exports.cpp), common to every graphics API.
//
// Promise: one Shim per process, thread-safe (one lock around the API; evaluations are serialised). No
// graphics-API type appears here: Init takes a maker of the API's part (api_device.h: for D3D12, the game's
// ID3D12Device), command lists and resources are opaque handles. Init loads the NGX core (ngx_core.h; which one and why
// is logged) and the CUDA driver (nvcuda.dll beside the shim, else through the DLL search order), and on the CUDA
// worker initialises CUDA (device 0's primary context) and the core. Every call into CUDA or the core runs on that one
// worker (cuda_worker.h), and none waits for it without a limit. Features are Super Resolution; each owns a core
// feature, a core parameter map and a data path (D3D12: the host path; Vulkan: the VRAM path, vulkan/vram_path.h). An
// evaluation is parsed (evaluation_request.h), checked against the API's resources (ApiDevice::validate), throttled,
// then handed to the feature's data path. Behaviour a game relies on:
//   * the first evaluation of a feature always resets its history;
//   * D4R_DLSS_PRESET (a preset number, or a letter A-M) replaces all six render-preset hints at creation;
//   * unsupported formats give FAIL_UnsupportedFormat and a log line naming plane, size and format (the
//     first 3, then every 120th); missing resources FAIL_MissingInput; regions outside a resource or a
//     render size above the created one FAIL_InvalidParameter; refusals of bad arguments at debug level;
//   * handles are checked by identity (an unknown or released one gives FAIL_FeatureNotFound unread);
//   * an "invalid parameter" answer of the core's EvaluateFeature recreates the core's feature with the same
//     creation parameters and evaluates the frame once more (core_feature.h); a second failure is returned;
//   * at most D4R_SHIM_MAX_IN_FLIGHT tasks are outstanding on the worker (settings.h): beyond that the game's
//     thread waits up to kGiveUpMs for one to end, else the frame is dropped (NVSDK_NGX_Result_Fail);
//   * an evaluation the worker does not finish within kGiveUpMs gives NVSDK_NGX_Result_Fail for that frame;
//     ReleaseFeature and Shutdown on a worker stuck in such a task queue their work behind it and return.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "abi/ngx.h"
#include "bridge/d4r_helpers.h"
#include "shim/api_device.h"
#include "shim/core_feature.h"
#include "shim/cuda_worker.h"
#include "shim/data_path.h"
#include "shim/evaluation_request.h"
#include "shim/ngx_core.h"
#include "shim/settings.h"
#include "upscaler/cuda_functions.h"
#include "upscaler/ngx/parameters.h"

namespace d4r::shim {

using abi::NVSDK_NGX_Feature;
using abi::NVSDK_NGX_Handle;
using abi::NVSDK_NGX_Parameter;
using abi::NVSDK_NGX_Result;

// D4R_DLSS_PRESET's value ("11", "K", "k") as a preset number; empty for anything else.
std::optional<unsigned int> parse_preset(const std::string& text);

class Shim {
public:
    static Shim& instance();

    // MAKE_API: the API's part, made once CUDA and the core are ready. DEVICE_UUID (Vulkan's deviceUUID of the
    // game's GPU): the CUDA device with that UUID is used, and when none has it, device 0 and no VRAM path (said
    // once); without it, device 0.
    using ApiDeviceMaker = std::function<std::unique_ptr<ApiDevice>()>;
    using DeviceUuid = std::array<uint8_t, 16>;
    NVSDK_NGX_Result init(const char* entry, const ApiDeviceMaker& make_api, const wchar_t* data_path,
                          std::optional<DeviceUuid> device_uuid = std::nullopt);
    NVSDK_NGX_Result shutdown();

    NVSDK_NGX_Result get_parameters(NVSDK_NGX_Parameter** out);
    NVSDK_NGX_Result allocate_parameters(NVSDK_NGX_Parameter** out, bool with_capabilities);
    NVSDK_NGX_Result destroy_parameters(NVSDK_NGX_Parameter* params);

    NVSDK_NGX_Result create_feature(CommandListHandle list, NVSDK_NGX_Feature feature,
                                    const NVSDK_NGX_Parameter* params, NVSDK_NGX_Handle** out);
    NVSDK_NGX_Result evaluate_feature(CommandListHandle list, const NVSDK_NGX_Handle* handle,
                                      const NVSDK_NGX_Parameter* params);
    NVSDK_NGX_Result release_feature(NVSDK_NGX_Handle* handle);

private:
    struct Feature {
        std::shared_ptr<CoreFeature> core = std::make_shared<CoreFeature>(); // used on the worker only
        std::unique_ptr<DataPath> path;
        unsigned long long evaluations = 0;
    };

    Shim() = default;
    NVSDK_NGX_Result init_cuda_and_core(const std::wstring& data_path, std::optional<DeviceUuid> device_uuid);
    void watchdog_default(const std::string& cuda_path);

    // The cpu backend's launch watchdog (EnvVar::CpuWatchdogMs), on by default in a game (docs/proton.md).
    static constexpr unsigned kWatchdogDefaultMs = 10000;
    NVSDK_NGX_Result create_core(Feature& feature);
    // Releases the core's feature; on a stuck worker it is queued behind the stalled task, not waited for.
    void release_core(Feature& feature);
    // Waits (bounded) while Settings::max_in_flight tasks are outstanding on the worker; false: drop the frame.
    bool wait_for_in_flight_slot();
    // Logs a rejected evaluation: the first 3, then every 120th.
    void log_rejection(const std::string& message);
    // The request's values for the core's map, set on the worker right before its EvaluateFeature.
    CoreCall core_call(const std::shared_ptr<CoreFeature>& feature, const EvaluationRequest& request,
                       std::shared_ptr<CoreOutcome> outcome) const;
    // Logs what the core's "invalid parameter" recreation did (read only once the task has ended).
    static void log_recreation(unsigned int id, const CoreOutcome& outcome);
    // The NGX result of a data path's failure.
    NVSDK_NGX_Result evaluation_failed(unsigned int id, const Error& error, const CoreOutcome* outcome);

    std::mutex m_mutex;
    bool m_initialized = false;
    std::unique_ptr<ApiDevice> m_api;
    CudaWorker m_worker;
    std::optional<upscaler::CudaFunctions> m_cuda;
    std::optional<CoreFunctions> m_core;
    bool m_core_initialized = false;
    abi::CUcontext m_context = nullptr;
    abi::CUdevice m_device = 0;
    std::deque<NVSDK_NGX_Handle> m_handles; // every handle ever issued: addresses stay valid and unique
    std::unordered_map<const NVSDK_NGX_Handle*, Feature> m_features;
    unsigned int m_next_id = 1;
    std::unordered_set<NVSDK_NGX_Parameter*> m_parameter_objects;
    std::unique_ptr<upscaler::ngx::ParameterObject> m_shared_parameters;
    unsigned long long m_rejections = 0;
    Settings m_settings;
    abi::PFN_d4r_EventWait m_event_wait = nullptr; // the bridge's blocking event wait, if nvcuda.dll is d4r's
    std::string m_cuda_path;                       // the CUDA driver library loaded
    std::string m_no_vram;                         // why no feature may share memory with CUDA, or empty
};

} // namespace d4r::shim
