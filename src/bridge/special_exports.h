// The Wine bridge (nvcuda.dll): the entry points bridge.cpp implements by hand instead of forwarding
// them unchanged, because a function pointer crosses the border between the Windows x64 calling
// convention (the application) and the System V one (libd4rcuda): cuGetProcAddress hands pointers out,
// callbacks come in, export tables hand out tables of them. Shared by the spec generator and bridge.cpp.
#pragma once

#include <array>
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

// d4r's own exports of nvcuda.dll (no CUDA equivalent), for the NGX shim: none yet.
inline constexpr std::array<const char*, 0> kHelperExports{};

inline bool is_special_export(const char* name) {
    for (const char* s : kSpecialExports)
        if (std::strcmp(s, name) == 0) return true;
    return false;
}

} // namespace d4r::bridge
