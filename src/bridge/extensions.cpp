// The Wine bridge (nvcuda.dll): libd4rcuda's own entry points beside NVIDIA's API (abi/d4r_extensions.h), exported
// under their own names with the Windows x64 convention and forwarded to libd4rcuda, so that the Windows build of
// a program (the open NGX core, d4r_ngx.dll) finds them in nvcuda.dll with GetProcAddress as its Linux build finds
// them in libd4rcuda with dlsym. The spec generator exports every entry point of D4R_EXTENSIONS; the check at the
// end of this file fails the build when one has no forwarder here.
//
// Promise: with libd4rcuda loaded, each answers what libd4rcuda's own answers for the same arguments (the same
// code, the same out-parameters); the bridge checks the arguments as libd4rcuda does before forwarding, and says
// a refusal at debug level (D4R_LOG=debug). Out-parameters are cleared first. Without libd4rcuda each answers
// CUDA_ERROR_NOT_INITIALIZED, over a libd4rcuda without the entry point CUDA_ERROR_NOT_SUPPORTED (said once).
// Handles cross unchanged, as they do for the CUDA driver API's entry points (a CUfunction is libd4rcuda's own).
// Never throws, never crashes the caller.
#include <string>
#include <type_traits>

#include "abi/d4r_extensions.h"
#include "bridge/linux_api.h"

using namespace d4r::bridge;

#define D4R_EXTENSION extern "C" __attribute__((ms_abi, visibility("default"))) CUresult

namespace {

// A refused argument, with libd4rcuda's code for it: said at debug level (a caller that probes must not spam).
CUresult refuse(const char* call, const char* why, CUresult code, const char* code_name) {
    log_debug(std::string(call) + ": " + why + "; " + code_name);
    return code;
}

CUresult unexpected(const char* call) {
    log_once(std::string("exception ") + call, std::string(call) + ": internal error (exception); CUDA_ERROR_UNKNOWN");
    return CUDA_ERROR_UNKNOWN;
}

} // namespace

// Whether launches of F run a native kernel of the active kernel set (docs/kernel-sets.md): libd4rcuda's answer.
D4R_EXTENSION d4r_extension_d4rFuncIsNative(int* native, CUfunction f) {
    note_wine_thread();
    try {
        if (native) *native = 0;
        const LinuxApi* api = linux_api();
        if (!api || !api->d4rFuncIsNative) return not_available("d4rFuncIsNative");
        if (!native)
            return refuse("d4rFuncIsNative", "a null out-pointer", CUDA_ERROR_INVALID_VALUE,
                          "CUDA_ERROR_INVALID_VALUE");
        if (!f)
            return refuse("d4rFuncIsNative", "a null function", CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE");
        return api->d4rFuncIsNative(native, f);
    } catch (...) {
        return unexpected("d4rFuncIsNative");
    }
}

// Every entry point of D4R_EXTENSIONS has its forwarder here, with the Windows convention and the same parameters.
#define D4R_BRIDGE_EXTENSION_CHECK(name, params, args)                                                        \
    static_assert(std::is_same_v<decltype(&d4r_extension_##name), CUresult(__attribute__((ms_abi))*) params>, \
                  "the bridge's forwarder of " #name " does not match abi/d4r_extensions.h");
D4R_EXTENSIONS(D4R_BRIDGE_EXTENSION_CHECK)
#undef D4R_BRIDGE_EXTENSION_CHECK
