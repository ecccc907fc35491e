// The Wine bridge (nvcuda.dll): the entry points bridge.cpp implements by hand instead of forwarding
// them unchanged, because a function pointer crosses the border between the Windows x64 calling
// convention (the application) and the System V one (libd4rcuda): cuGetProcAddress hands pointers out,
// callbacks come in, export tables hand out tables of them. Shared by the spec generator and bridge.cpp.
#pragma once

#include <cstring>

namespace d4r::bridge {

inline constexpr const char* kSpecialExports[] = {
    "cuInit",
    "cuGetProcAddress",
    "cuGetProcAddress_v2",
    "cuGetExportTable",
    "cuStreamAddCallback",
    "cuLaunchHostFunc",
    "cuGraphAddHostNode",
    "cuGraphHostNodeSetParams",
    "cuGraphHostNodeGetParams",
    "cuGraphExecHostNodeSetParams",
    "cuOccupancyMaxPotentialBlockSize",
    "cuOccupancyMaxPotentialBlockSizeWithFlags",
};

// d4r's own exports of nvcuda.dll (no CUDA equivalent), for the NGX shim (d4r_helpers.h declares them):
// the export name, the bridge function that implements it (helpers.cpp) and its number of arguments.
struct HelperExport {
    const char* name;
    const char* function;
    int arguments;
};
inline constexpr HelperExport kHelperExports[] = {
    {"d4r_SetEnvironment", "d4r_helper_SetEnvironment", 2},
    {"d4r_GetLoadError", "d4r_helper_GetLoadError", 3},
    {"d4r_EventWait", "d4r_helper_EventWait", 2},
    {"d4r_Memcpy2DAsync", "d4r_helper_Memcpy2DAsync", 8},
    {"d4r_StreamWaitValue32", "d4r_helper_StreamWaitValue32", 4},
    {"d4r_StreamWriteValue32", "d4r_helper_StreamWriteValue32", 4},
};

inline bool is_special_export(const char* name) {
    for (const char* s : kSpecialExports)
        if (std::strcmp(s, name) == 0) return true;
    return false;
}

} // namespace d4r::bridge
