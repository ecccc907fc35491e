// d4r demo: a client of an NGX core's CUDA API, loaded with dlopen the way an application loads it.
//
// Promise: NgxClient::load resolves every entry point the demo calls from the library at PATH and
// names the first one missing; the client never unloads the library (CUDA work may outlive it).
#pragma once

#include <string>

#include "abi/ngx.h"
#include "core/status.h"

namespace d4r::demo {

// clang-format off
#define D4R_DEMO_NGX_FUNCTIONS(X) \
    X(NVSDK_NGX_CUDA_Init) X(NVSDK_NGX_CUDA_Shutdown) X(NVSDK_NGX_CUDA_AllocateParameters) \
    X(NVSDK_NGX_CUDA_GetCapabilityParameters) X(NVSDK_NGX_CUDA_DestroyParameters) \
    X(NVSDK_NGX_CUDA_CreateFeature) X(NVSDK_NGX_CUDA_EvaluateFeature_C) X(NVSDK_NGX_CUDA_ReleaseFeature) \
    X(NVSDK_NGX_Parameter_SetUI) X(NVSDK_NGX_Parameter_SetI) X(NVSDK_NGX_Parameter_SetF) \
    X(NVSDK_NGX_Parameter_SetVoidPointer) X(NVSDK_NGX_Parameter_GetI)
// clang-format on

struct NgxClient {
#define D4R_DEMO_NGX_MEMBER(name) decltype(&abi::name) name = nullptr;
    D4R_DEMO_NGX_FUNCTIONS(D4R_DEMO_NGX_MEMBER)
#undef D4R_DEMO_NGX_MEMBER
    std::string path;

    static Expected<NgxClient> load(const std::string& path);
};

// "NVSDK_NGX_Result_FAIL_InvalidParameter (0xbad00005)".
std::string ngx_result_name(abi::NVSDK_NGX_Result result);

} // namespace d4r::demo
