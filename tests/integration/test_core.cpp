// d4r_test_core.dll: a test-only NGX core for the shim's D3D12 tests. It exports the NGX CUDA entry points
// the shim calls and forwards each to d4r's open core (d4r_ngx.dll, loaded through the DLL search order),
// except where the test asks it to misbehave in EvaluateFeature (calls counted from 0 over the process):
//   D4R_TEST_CORE_FAIL=I,J,...  those calls answer NVSDK_NGX_Result_FAIL_InvalidParameter without evaluating
//   D4R_TEST_CORE_STALL=I       that call never returns (it sleeps until the process ends)
// The harness picks it with D4R_SHIM_NGX_CORE=d4r_test_core.dll. Built with mingw; never shipped.
#include <windows.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "abi/ngx.h"

using namespace d4r::abi;

namespace {

struct Forward {
    decltype(&NVSDK_NGX_CUDA_Init) init = nullptr;
    decltype(&NVSDK_NGX_CUDA_Shutdown) shutdown = nullptr;
    decltype(&NVSDK_NGX_CUDA_AllocateParameters) allocate = nullptr;
    decltype(&NVSDK_NGX_CUDA_GetCapabilityParameters) capabilities = nullptr;
    decltype(&NVSDK_NGX_CUDA_DestroyParameters) destroy = nullptr;
    decltype(&NVSDK_NGX_CUDA_CreateFeature) create = nullptr;
    decltype(&NVSDK_NGX_CUDA_EvaluateFeature) evaluate = nullptr;
    decltype(&NVSDK_NGX_CUDA_ReleaseFeature) release = nullptr;
    bool loaded = false;
};

Forward& forward() {
    static Forward f = [] {
        Forward g;
        HMODULE dll = LoadLibraryA("d4r_ngx.dll");
        if (!dll) {
            std::fprintf(stderr, "d4r_test_core: cannot load d4r_ngx.dll (Windows error %lu)\n", GetLastError());
            return g;
        }
        auto get = [&](auto& member, const char* name) {
            member = reinterpret_cast<std::remove_reference_t<decltype(member)>>(
                reinterpret_cast<void*>(GetProcAddress(dll, name)));
            return member != nullptr;
        };
        g.loaded = get(g.init, "NVSDK_NGX_CUDA_Init") && get(g.shutdown, "NVSDK_NGX_CUDA_Shutdown") &&
                   get(g.allocate, "NVSDK_NGX_CUDA_AllocateParameters") &&
                   get(g.capabilities, "NVSDK_NGX_CUDA_GetCapabilityParameters") &&
                   get(g.destroy, "NVSDK_NGX_CUDA_DestroyParameters") &&
                   get(g.create, "NVSDK_NGX_CUDA_CreateFeature") && get(g.evaluate, "NVSDK_NGX_CUDA_EvaluateFeature") &&
                   get(g.release, "NVSDK_NGX_CUDA_ReleaseFeature");
        if (!g.loaded) std::fprintf(stderr, "d4r_test_core: d4r_ngx.dll lacks an NGX CUDA entry point\n");
        return g;
    }();
    return f;
}

// Whether call I is in the comma-separated list of variable NAME.
bool listed(const char* name, long i) {
    const char* text = std::getenv(name);
    if (!text) return false;
    std::string list = std::string(",") + text + ",";
    return list.find("," + std::to_string(i) + ",") != std::string::npos;
}

long g_evaluations = 0; // the shim calls the core from one thread only

} // namespace

namespace d4r::abi {

NVSDK_NGX_Result NVSDK_NGX_CUDA_Init(unsigned long long id, const wchar_t* path,
                                     const NVSDK_NGX_FeatureCommonInfo* info, NVSDK_NGX_Version version) {
    if (!forward().loaded) return NVSDK_NGX_Result_FAIL_PlatformError;
    return forward().init(id, path, info, version);
}
NVSDK_NGX_Result NVSDK_NGX_CUDA_Shutdown(void) {
    return forward().loaded ? forward().shutdown() : NVSDK_NGX_Result_FAIL_NotInitialized;
}
NVSDK_NGX_Result NVSDK_NGX_CUDA_AllocateParameters(NVSDK_NGX_Parameter** out) {
    return forward().loaded ? forward().allocate(out) : NVSDK_NGX_Result_FAIL_NotInitialized;
}
NVSDK_NGX_Result NVSDK_NGX_CUDA_GetCapabilityParameters(NVSDK_NGX_Parameter** out) {
    return forward().loaded ? forward().capabilities(out) : NVSDK_NGX_Result_FAIL_NotInitialized;
}
NVSDK_NGX_Result NVSDK_NGX_CUDA_DestroyParameters(NVSDK_NGX_Parameter* params) {
    return forward().loaded ? forward().destroy(params) : NVSDK_NGX_Result_FAIL_NotInitialized;
}
NVSDK_NGX_Result NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature feature, const NVSDK_NGX_Parameter* params,
                                              NVSDK_NGX_Handle** out) {
    return forward().loaded ? forward().create(feature, params, out) : NVSDK_NGX_Result_FAIL_NotInitialized;
}
NVSDK_NGX_Result NVSDK_NGX_CUDA_EvaluateFeature(const NVSDK_NGX_Handle* handle, const NVSDK_NGX_Parameter* params,
                                                PFN_NVSDK_NGX_ProgressCallback callback) {
    const long i = g_evaluations++;
    if (listed("D4R_TEST_CORE_STALL", i)) {
        std::fprintf(stderr, "d4r_test_core: EvaluateFeature call %ld stalls for good\n", i);
        for (;;) Sleep(1000);
    }
    if (listed("D4R_TEST_CORE_FAIL", i)) {
        std::fprintf(stderr, "d4r_test_core: EvaluateFeature call %ld answers FAIL_InvalidParameter\n", i);
        return NVSDK_NGX_Result_FAIL_InvalidParameter;
    }
    return forward().loaded ? forward().evaluate(handle, params, callback) : NVSDK_NGX_Result_FAIL_NotInitialized;
}
NVSDK_NGX_Result NVSDK_NGX_CUDA_ReleaseFeature(NVSDK_NGX_Handle* handle) {
    return forward().loaded ? forward().release(handle) : NVSDK_NGX_Result_FAIL_NotInitialized;
}

} // namespace d4r::abi
