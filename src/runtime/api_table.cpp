// The API table helpers: function names and versions, missing-entry stubs, cuGetProcAddress lookup,
// error texts.
#include "runtime/api_table.h"
#include "runtime/out_params.h"

#include <array>
#include <atomic>

#include "core/log.h"
#include "runtime/runtime_object.h"

namespace d4r::runtime {

static_assert(sizeof(ApiTable) == kApiCount * sizeof(void*), "ApiTable must be a plain array of pointers");

namespace {

constexpr std::array<ApiInfo, kApiCount> kInfos = {{
#define D4R_API_INFO(exp, base, since, params, args) ApiInfo{#exp, #base, since},
    D4R_CUDA_API(D4R_API_INFO)
#undef D4R_API_INFO
}};

// The stubs are shared by every backend's table: they name the installed runtime's backend.
void report_missing(ApiId id, std::atomic<bool>& reported) {
    if (reported.exchange(true)) return;
    const Runtime* runtime = Runtime::current();
    log::warn("{} does not implement {}: returning CUDA_ERROR_NOT_SUPPORTED",
              runtime ? "backend " + runtime->backend_name() : std::string("the backend"), api_info(id).export_name);
}

// A stub still clears its out-parameters (out_params.h): cuGetProcAddress hands it out directly, past the
// exported entry points that clear them otherwise.
#define D4R_API_MISSING(exp, base, since, params, args)                         \
    CUresult missing_##exp params {                                             \
        clear_out_params<out_param_mask<CUresult(*) params>(#exp, #args)> args; \
        static std::atomic<bool> reported{false};                               \
        report_missing(ApiId::exp, reported);                                   \
        return CUDA_ERROR_NOT_SUPPORTED;                                        \
    }
D4R_CUDA_API(D4R_API_MISSING)
#undef D4R_API_MISSING

const ApiTable kMissing = {
#define D4R_API_MISSING_REF(exp, base, since, params, args) &missing_##exp,
    D4R_CUDA_API(D4R_API_MISSING_REF)
#undef D4R_API_MISSING_REF
};

} // namespace

const ApiInfo& api_info(ApiId id) { return kInfos[static_cast<size_t>(id)]; }

void*& table_slot(ApiTable& table, ApiId id) { return reinterpret_cast<void**>(&table)[static_cast<size_t>(id)]; }

void* table_slot(const ApiTable& table, ApiId id) {
    return reinterpret_cast<void* const*>(&table)[static_cast<size_t>(id)];
}

void fill_missing(ApiTable& table) {
    for (size_t i = 0; i < kApiCount; ++i) {
        ApiId id = static_cast<ApiId>(i);
        if (!table_slot(table, id)) table_slot(table, id) = table_slot(kMissing, id);
    }
}

ApiId find_proc(std::string_view symbol, int cuda_version, bool* version_too_low) {
    ApiId best = ApiId::Count;
    int best_since = -1;
    bool exists = false;
    for (size_t i = 0; i < kApiCount; ++i) {
        const ApiInfo& info = kInfos[i];
        if (info.base_name != symbol) continue;
        exists = true;
        if (info.since <= cuda_version && info.since > best_since) {
            best = static_cast<ApiId>(i);
            best_since = info.since;
        }
    }
    // A base name that newer versions map to a function of another base name (cuGraphInstantiate).
    struct Alias {
        std::string_view base;
        int since;
        ApiId id;
    };
    static constexpr Alias kAliases[] = {
#define D4R_API_ALIAS(base, since, exp) Alias{#base, since, ApiId::exp},
        D4R_CUDA_API_ALIASES(D4R_API_ALIAS)
#undef D4R_API_ALIAS
    };
    for (const Alias& alias : kAliases) {
        if (alias.base != symbol) continue;
        exists = true;
        if (alias.since <= cuda_version && alias.since > best_since) {
            best = alias.id;
            best_since = alias.since;
        }
    }
    if (version_too_low) *version_too_low = exists && best == ApiId::Count;
    return best;
}

namespace {

struct ErrorText {
    CUresult code;
    const char* name;
    const char* text;
};

// Names are the enumerators; texts say what the condition means (d4r's wording).
constexpr ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error (cuInit was not called)"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for this device"},
    {CUDA_ERROR_UNSUPPORTED_LIMIT, "CUDA_ERROR_UNSUPPORTED_LIMIT", "limit is not supported on this device"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "peer access is not supported between these two devices"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the PTX version is not supported"},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel source is invalid"},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
     "shared object symbol not found"},
    {CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
     "shared object initialization failed"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation is not valid in the current state"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "peer access is already enabled"},
    {CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled"},
    {CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", "the primary context is already active"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "the context was destroyed"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "host memory is already registered"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "host memory is not registered"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE",
     "operation not supported on this address space"},
    {CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", "invalid program counter"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {CUDA_ERROR_STREAM_CAPTURE_MERGE, "CUDA_ERROR_STREAM_CAPTURE_MERGE",
     "operation would result in a merge of separate capture sequences"},
    {CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
     "capture was not ended in the same stream as it began"},
    {CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "capturing stream has unjoined work"},
    {CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
     "dependency created on uncaptured work in another stream"},
    {CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {CUDA_ERROR_CAPTURED_EVENT, "CUDA_ERROR_CAPTURED_EVENT",
     "operation not permitted on an event last recorded in a capturing stream"},
    {CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {CUDA_ERROR_TIMEOUT, "CUDA_ERROR_TIMEOUT", "wait operation timed out"},
    {CUDA_ERROR_EXTERNAL_DEVICE, "CUDA_ERROR_EXTERNAL_DEVICE", "an error occurred on an external device"},
    {CUDA_ERROR_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE",
     "a kernel launch error has occurred due to cluster misconfiguration"},
    {CUDA_ERROR_FUNCTION_NOT_LOADED, "CUDA_ERROR_FUNCTION_NOT_LOADED", "the function handle is not loaded"},
    {CUDA_ERROR_INVALID_RESOURCE_TYPE, "CUDA_ERROR_INVALID_RESOURCE_TYPE",
     "one or more resources passed in are not valid resource types for the operation"},
    {CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION",
     "one or more resources are insufficient or non-applicable for the operation"},
    {CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
     "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText* find_error(CUresult r) {
    for (const ErrorText& e : kErrors)
        if (e.code == r) return &e;
    return nullptr;
}

} // namespace

const char* error_name(CUresult r) {
    const ErrorText* e = find_error(r);
    return e ? e->name : nullptr;
}

const char* error_string(CUresult r) {
    const ErrorText* e = find_error(r);
    return e ? e->text : nullptr;
}

} // namespace d4r::runtime
