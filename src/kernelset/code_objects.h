// d4r kernel sets: what a native code object file is called.
//
// Promise: the one list of file extensions that make a file in a kernel folder a native kernel
// (`NAME.<ext>` replaces `.entry NAME`, docs/runtime.md, "Native-kernel overrides"). Every tool that scans kernel
// folders (selection, manifest writer, accuracy builder check, runtime) asks here.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace d4r::kernels {

struct CodeObjectKind {
    std::string_view extension; // without the dot
    std::string_view target;    // what runs it
};

// .hsaco: AMD code object (HIP); .cubin: NVIDIA (driver backend); .cpu: a CPU native kernel from the
// registry of the cpu backend (the file names the registered kernel; its content is a version line).
inline constexpr std::array<CodeObjectKind, 3> kCodeObjectKinds{{
    {"hsaco", "AMD GPU (HIP)"},
    {"cubin", "NVIDIA GPU (CUDA driver)"},
    {"cpu", "CPU (ptxsim native registry)"},
}};

// The kernel NAME when PATH is a code object (NAME.<ext> with a known extension), else nullopt.
inline std::optional<std::string> code_object_kernel_name(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    if (ext.size() < 2) return std::nullopt;
    for (const CodeObjectKind& kind : kCodeObjectKinds) {
        if (std::string_view(ext).substr(1) == kind.extension) {
            std::string stem = path.stem().string();
            if (stem.empty()) return std::nullopt;
            return stem;
        }
    }
    return std::nullopt;
}

} // namespace d4r::kernels
