// d4r open NGX core: the state behind the NGX CUDA entry points (abi/ngx.h).
//
// Promise: one Core per process, thread-safe (one lock; evaluations of all features are serialised).
// Every call but DestroyParameters needs a successful Init first (else FAIL_NotInitialized). Init
// loads the CUDA driver library the core runs on — D4R_NGX_CUDA_LIBRARY if set, else the libcuda.so.1
// (nvcuda.dll in the Windows DLL) next to the core library itself, else that name through the system's
// search — and logs which. Features are Super
// Resolution only; each owns a Pipeline in the CUDA context that was current when it was created (the
// device's primary context when none was). Handles are validated by identity and never reused, so a
// released or foreign handle gives FAIL_FeatureNotFound without being dereferenced. The GetParameters
// map is never freed: Shutdown retires it (parameters.h) and a later GetParameters hands out the same
// object again with fresh capabilities, so a pointer a game keeps past Shutdown never reaches freed
// memory. Rejections give one log line naming the parameter (evaluation rejections: the first 3, then
// every 120th).
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "abi/ngx.h"
#include "core/env.h"
#include "network/refine_pipeline.h"
#include "upscaler/cuda_functions.h"
#include "upscaler/ngx/parameters.h"
#include "upscaler/pipeline.h"

namespace d4r::upscaler::ngx {

using abi::NVSDK_NGX_Feature;
using abi::NVSDK_NGX_Handle;

// Which libcuda to load, and a phrase saying why ("D4R_NGX_CUDA_LIBRARY", "next to the NGX core", ...).
// `core_dir` is the folder of the library (or program) the core is linked into; empty if unknown.
struct CudaLibraryChoice {
    std::string path;
    std::string reason;
};
CudaLibraryChoice choose_cuda_library(const Environment& env, const std::string& core_dir);
// The folder holding the binary this code is linked into (platform::this_binary_directory), or "".
std::string core_directory();
// The refinement network's model file: D4R_NETWORK_MODEL if set, else `<core_dir>/refine-v2.d4rnet` when it
// exists (a release's flat folder), else `<core_dir>/../share/d4r/models/refine-v2.d4rnet` (an installation's,
// or the build tree's).
std::string choose_model_path(const Environment& env, const std::string& core_dir);

class Core {
public:
    static Core& instance();

    NVSDK_NGX_Result init(const std::string& caller);
    NVSDK_NGX_Result shutdown();
    bool initialized() const;

    NVSDK_NGX_Result get_parameters(NVSDK_NGX_Parameter** out);
    NVSDK_NGX_Result allocate_parameters(NVSDK_NGX_Parameter** out, bool with_capabilities);
    NVSDK_NGX_Result destroy_parameters(NVSDK_NGX_Parameter* params);
    NVSDK_NGX_Result scratch_buffer_size(NVSDK_NGX_Feature feature, size_t* out);

    NVSDK_NGX_Result create_feature(NVSDK_NGX_Feature feature, const NVSDK_NGX_Parameter* params,
                                    NVSDK_NGX_Handle** out);
    NVSDK_NGX_Result evaluate_feature(const NVSDK_NGX_Handle* handle, const NVSDK_NGX_Parameter* params);
    NVSDK_NGX_Result release_feature(NVSDK_NGX_Handle* handle);

    // For tests: live features and the configuration one was created with.
    size_t feature_count() const;
    std::optional<PipelineConfig> feature_config(const NVSDK_NGX_Handle* handle) const;

private:
    struct Feature {
        std::unique_ptr<Pipeline> pipeline;
        std::unique_ptr<network::RefinePipeline> refine; // null: the network is off or did not load
        abi::CUcontext context = nullptr;
        bool owns_primary = false; // retained the primary context of device 0 at creation
        abi::CUdevice device = 0;
        unsigned long long evaluations = 0;
    };

    Core() = default;
    NVSDK_NGX_Result load_cuda();
    void load_model();
    void destroy_feature(Feature& feature);
    void log_rejection(const char* call, const std::string& message);

    mutable std::mutex m_mutex;
    bool m_initialized = false;
    std::optional<CudaFunctions> m_cuda;
    std::optional<network::Model> m_model; // loaded at the first Init when D4R_NETWORK allows
    bool m_model_tried = false;
    std::deque<NVSDK_NGX_Handle> m_handles; // every handle ever issued: addresses stay valid and unique
    std::unordered_map<const NVSDK_NGX_Handle*, Feature> m_features;
    unsigned int m_next_id = 1;
    std::unordered_set<NVSDK_NGX_Parameter*> m_parameter_objects; // handed out by Allocate/GetCapability
    std::unique_ptr<ParameterObject> m_shared_parameters;         // handed out by GetParameters
    unsigned long long m_rejections = 0;
};

} // namespace d4r::upscaler::ngx
