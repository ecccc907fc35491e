// libd4rcuda: the registry of CPU native kernels (the `.cpu` code objects of docs/runtime.md, "Native-kernel
// overrides").
//
// A CPU native kernel replaces `.entry NAME` on the cpu backend: a C++ function receiving the same
// launch shape and parameter block as the PTX kernel (device pointers are host addresses on ptxsim).
// Its optional prep and post phases and code-object symbols mirror a GPU code object's
// (d4r_prep_blocks, d4r_prep_key_offset/at/slots, d4r_block_z, d4r_grid_x, d4r_postK_*). A kernel folder
// holds `NAME.cpu` (a version line) to say that the registered kernel NAME may be served.
// Promise: registration is thread-safe and may happen at static-initialisation time; lookups after
// registration see it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace d4r::runtime {

struct CpuLaunch {
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t shared_bytes = 0;
    uint32_t slot = 0;               // the prepared-image slot (d4r_prep_key_slots; 0 without slots)
    std::span<const uint8_t> params; // the parameter block, laid out as the PTX kernel's
};

using CpuKernelFn = std::function<void(const CpuLaunch&)>;

// The code-object symbols of a native kernel (docs/runtime.md, "Native-kernel overrides"); absent = not defined.
struct NativeSymbols {
    std::optional<uint32_t> prep_blocks;
    std::optional<uint32_t> prep_key_offset;
    std::optional<uint32_t> prep_key_at;
    std::optional<uint32_t> prep_key_slots;
    std::optional<uint32_t> block_z;
    std::optional<uint32_t> grid_x;
    std::optional<uint32_t> dynamic_shared; // the main kernel's dynamic shared memory, in bytes
    struct Post {
        std::optional<uint32_t> grid_x, grid_y, block_x, block_y, block_z;
    };
    std::array<Post, 8> posts;
};

struct CpuNativeKernel {
    std::string name;
    CpuKernelFn main;
    CpuKernelFn prep;               // optional
    std::vector<CpuKernelFn> posts; // phases 1..N
    NativeSymbols symbols;
};

void register_cpu_kernel(CpuNativeKernel kernel);
// The registered kernel NAME, or nullptr. The pointer stays valid for the process.
const CpuNativeKernel* find_cpu_kernel(std::string_view name);

} // namespace d4r::runtime
