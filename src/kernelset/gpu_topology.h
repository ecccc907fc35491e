// d4r kernel sets: which AMD GPU d4r runs on, from the KFD topology (docs/kernel-sets.md).
//
// Promise: reads ROOT/nodes/<N>/properties for N = 0..15, skips CPU nodes (simd_count or
// gfx_target_version 0), names each GPU from gfx_target_version (110001 → gfx1101) and picks the one
// with the most SIMDs (a discrete GPU beats an integrated one; ties go to the lowest node). A valid
// D4R_GPU_ARCH overrides detection; an invalid one is reported and ignored. forced_gpu_arch() is the one
// place that reads and validates D4R_GPU_ARCH, for AMD (gfx targets) and NVIDIA (sm_XY) alike.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/env_vars.h"
#include "core/status.h"

namespace d4r::kernels {

inline constexpr const char* kDefaultKfdTopology = "/sys/class/kfd/kfd/topology";
inline constexpr int kMaxKfdNodes = 16;

struct GpuNode {
    int node = 0;
    uint64_t gfx_target_version = 0;
    uint64_t simd_count = 0;
    uint64_t device_id = 0; // PCI device id, when the properties file has one
    std::string arch;       // gfx name from gfx_target_version
};

// "gfx" + v/10000 (decimal) + (v/100)%100 and v%100 (one hex digit each): 110001 → gfx1101,
// 90010 → gfx90a. Values whose minor or stepping do not fit one hex digit yield an empty string.
std::string arch_from_target_version(uint64_t version);

// True for names like gfx1101, gfx90a (gfx followed by 3 or 4 lowercase hex digits).
bool is_valid_arch_name(std::string_view arch);
// True for NVIDIA names like sm_86, sm_120 (sm_ followed by 2 or 3 digits).
bool is_valid_sm_name(std::string_view arch);

enum class GpuVendor { Amd, Nvidia };
struct ForcedArch {
    std::optional<std::string> arch; // D4R_GPU_ARCH when set and valid for the vendor
    std::string warning;             // why a set value is ignored; empty otherwise
};
// D4R_GPU_ARCH, validated for VENDOR: gfx targets for AMD, sm_XY for NVIDIA. Unset: neither field.
ForcedArch forced_gpu_arch(const Environment& env, GpuVendor vendor);

// GPU nodes found under ROOT (CPU nodes skipped), in node order. A missing ROOT is not an error
// (empty list): most machines have no KFD. Unreadable node folders are skipped.
std::vector<GpuNode> read_kfd_topology(const std::filesystem::path& root);

// The node d4r uses among NODES (most SIMDs, lowest node on ties).
std::optional<GpuNode> choose_gpu(const std::vector<GpuNode>& nodes);

struct ArchDecision {
    std::string arch;              // empty: unknown
    std::string source;            // "--arch", "D4R_GPU_ARCH", "KFD node 1", or "none"
    std::vector<GpuNode> gpus;     // every GPU seen in the topology
    std::optional<GpuNode> chosen; // the detected GPU d4r would use (even when overridden)
    std::vector<std::string> warnings;
};

// The architecture d4r targets: EXPLICIT (a CLI flag) if given, else D4R_GPU_ARCH, else the KFD
// choice. An invalid explicit value is an error; an invalid D4R_GPU_ARCH is a warning.
Expected<ArchDecision> decide_gpu_arch(const Environment& env, const std::filesystem::path& kfd_root,
                                       const std::optional<std::string>& explicit_arch = std::nullopt);

} // namespace d4r::kernels
