#include "demo/ngx_client.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include "core/files.h"

namespace d4r::demo {

Expected<NgxClient> NgxClient::load(const std::string& path) {
    if (!is_file(path))
        return make_error(ErrorCode::NotFound, "the open NGX core {} does not exist (build target d4r_ngx)", path);
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* e = dlerror();
        return make_error(ErrorCode::NotFound, "cannot load {}: {}", path, e ? e : "dlopen failed");
    }
    NgxClient c;
    c.path = path;
#define D4R_DEMO_NGX_RESOLVE(name)                                     \
    c.name = reinterpret_cast<decltype(c.name)>(dlsym(handle, #name)); \
    if (!c.name) return make_error(ErrorCode::NotFound, "{} does not export {}", path, #name);
    D4R_DEMO_NGX_FUNCTIONS(D4R_DEMO_NGX_RESOLVE)
#undef D4R_DEMO_NGX_RESOLVE
    return c;
}

std::string ngx_result_name(abi::NVSDK_NGX_Result result) {
    using namespace abi;
    const char* name = nullptr;
    switch (result) {
    case NVSDK_NGX_Result_Success:
        name = "Success";
        break;
    case NVSDK_NGX_Result_Fail:
        name = "Fail";
        break;
    case NVSDK_NGX_Result_FAIL_FeatureNotSupported:
        name = "FAIL_FeatureNotSupported";
        break;
    case NVSDK_NGX_Result_FAIL_PlatformError:
        name = "FAIL_PlatformError";
        break;
    case NVSDK_NGX_Result_FAIL_FeatureNotFound:
        name = "FAIL_FeatureNotFound";
        break;
    case NVSDK_NGX_Result_FAIL_InvalidParameter:
        name = "FAIL_InvalidParameter";
        break;
    case NVSDK_NGX_Result_FAIL_NotInitialized:
        name = "FAIL_NotInitialized";
        break;
    case NVSDK_NGX_Result_FAIL_UnsupportedInputFormat:
        name = "FAIL_UnsupportedInputFormat";
        break;
    case NVSDK_NGX_Result_FAIL_MissingInput:
        name = "FAIL_MissingInput";
        break;
    case NVSDK_NGX_Result_FAIL_UnableToInitializeFeature:
        name = "FAIL_UnableToInitializeFeature";
        break;
    case NVSDK_NGX_Result_FAIL_OutOfGPUMemory:
        name = "FAIL_OutOfGPUMemory";
        break;
    default:
        break;
    }
    return fmt::format("NVSDK_NGX_Result_{} (0x{:x})", name ? name : "?", static_cast<unsigned>(result));
}

} // namespace d4r::demo
