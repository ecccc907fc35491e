// The Wine bridge (nvcuda.dll): one Windows x64 entry point per function of the API list, forwarding to
// libd4rcuda. The compiler converts the arguments between the two calling conventions (registers,
// by-value structs, floats), so each thunk is a plain call. Entry points that move function pointers
// across the border are implemented in bridge.cpp instead (special_exports.h); their thunks here are
// unused.
#include "abi/cuda_unimplemented.h"
#include "bridge/linux_api.h"

using namespace d4r::bridge;

#define D4R_BRIDGE_THUNK(exp, base, since, params, args)                                        \
    extern "C" __attribute__((ms_abi, visibility("default"))) CUresult d4r_thunk_##exp params { \
        note_wine_thread();                                                                     \
        const LinuxApi* api = linux_api();                                                      \
        if (!api || !api->exp) return not_available(#exp);                                      \
        return api->exp args;                                                                   \
    }
D4R_CUDA_API(D4R_BRIDGE_THUNK)
#undef D4R_BRIDGE_THUNK

// The entry points NVIDIA's driver exports and d4r does not implement (abi/cuda_unimplemented.h): a
// Windows program importing one of them loads, and the call answers CUDA_ERROR_NOT_SUPPORTED. Callers'
// arguments are ignored (the caller owns them under the Windows x64 convention too).
#define D4R_BRIDGE_UNIMPLEMENTED(name)                                                                             \
    extern "C" __attribute__((ms_abi, visibility("default"))) CUresult d4r_unimplemented_##name() {                \
        log_once("unimplemented." #name, #name " is not implemented by d4r: it answers CUDA_ERROR_NOT_SUPPORTED"); \
        return CUDA_ERROR_NOT_SUPPORTED;                                                                           \
    }
D4R_CUDA_UNIMPLEMENTED(D4R_BRIDGE_UNIMPLEMENTED)
#undef D4R_BRIDGE_UNIMPLEMENTED
