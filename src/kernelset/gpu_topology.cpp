#include "gpu_topology.h"

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/files.h"
#include "core/log.h"
#include "core/strings.h"

namespace d4r::kernels {

std::string arch_from_target_version(uint64_t version) {
    uint64_t major = version / 10000;
    uint64_t minor = (version / 100) % 100;
    uint64_t stepping = version % 100;
    if (major == 0 || minor > 15 || stepping > 15) return "";
    return fmt::format("gfx{}{:x}{:x}", major, minor, stepping);
}

bool is_valid_sm_name(std::string_view arch) {
    if (!starts_with(arch, "sm_")) return false;
    std::string_view digits = arch.substr(3);
    if (digits.size() < 2 || digits.size() > 3) return false;
    for (char c : digits) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

ForcedArch forced_gpu_arch(const Environment& env, GpuVendor vendor) {
    ForcedArch out;
    auto forced = env_text(env, EnvVar::GpuArch);
    if (!forced) return out;
    const bool amd = vendor == GpuVendor::Amd;
    if (amd ? is_valid_arch_name(*forced) : is_valid_sm_name(*forced)) {
        out.arch = *forced;
        return out;
    }
    out.warning = fmt::format("ignoring {}='{}': expected {}", env_name(EnvVar::GpuArch), *forced,
                              amd ? "a gfx target like gfx1101 (this GPU is AMD's)"
                                  : "an sm_XY target like sm_86 (this GPU is NVIDIA's)");
    return out;
}

bool is_valid_arch_name(std::string_view arch) {
    if (!starts_with(arch, "gfx")) return false;
    std::string_view digits = arch.substr(3);
    if (digits.size() < 3 || digits.size() > 4) return false;
    for (char c : digits) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

namespace {

// The properties file is "name value" lines; unknown or malformed lines are ignored (new kernels add
// keys, and a malformed line must not hide the GPU).
std::optional<GpuNode> parse_properties(int node, std::string_view text) {
    GpuNode gpu;
    gpu.node = node;
    for (std::string_view line : split(text, '\n')) {
        std::vector<std::string_view> parts;
        for (std::string_view p : split(trim(line), ' ')) {
            if (!p.empty()) parts.push_back(p);
        }
        if (parts.size() != 2) continue;
        auto value = parse_u64(parts[1]);
        if (!value) continue;
        if (parts[0] == "simd_count")
            gpu.simd_count = *value;
        else if (parts[0] == "gfx_target_version")
            gpu.gfx_target_version = *value;
        else if (parts[0] == "device_id")
            gpu.device_id = *value;
    }
    if (gpu.simd_count == 0 || gpu.gfx_target_version == 0) return std::nullopt;
    gpu.arch = arch_from_target_version(gpu.gfx_target_version);
    if (gpu.arch.empty()) return std::nullopt;
    return gpu;
}

} // namespace

std::vector<GpuNode> read_kfd_topology(const std::filesystem::path& root) {
    std::vector<GpuNode> gpus;
    for (int n = 0; n < kMaxKfdNodes; ++n) {
        std::filesystem::path properties = root / "nodes" / std::to_string(n) / "properties";
        auto text = read_text_file(properties, 1 << 20);
        if (!text) continue;
        if (auto gpu = parse_properties(n, *text)) gpus.push_back(*gpu);
    }
    return gpus;
}

std::optional<GpuNode> choose_gpu(const std::vector<GpuNode>& nodes) {
    std::optional<GpuNode> best;
    for (const GpuNode& node : nodes) {
        if (!best || node.simd_count > best->simd_count) best = node;
    }
    return best;
}

Expected<ArchDecision> decide_gpu_arch(const Environment& env, const std::filesystem::path& kfd_root,
                                       const std::optional<std::string>& explicit_arch) {
    ArchDecision decision;
    decision.gpus = read_kfd_topology(kfd_root);
    decision.chosen = choose_gpu(decision.gpus);
    if (decision.gpus.size() > 1) {
        std::string seen;
        for (const GpuNode& g : decision.gpus)
            seen += fmt::format(" node {} {} ({} SIMDs);", g.node, g.arch, g.simd_count);
        log::info("several GPUs:{} using node {} ({})", seen, decision.chosen->node, decision.chosen->arch);
    }
    if (explicit_arch) {
        if (!is_valid_arch_name(*explicit_arch)) {
            return make_error(ErrorCode::Invalid, "--arch must be a gfx target like gfx1101 or gfx1201, not '{}'",
                              *explicit_arch);
        }
        decision.arch = *explicit_arch;
        decision.source = "--arch";
        return decision;
    }
    ForcedArch forced = forced_gpu_arch(env, GpuVendor::Amd);
    if (forced.arch) {
        decision.arch = *forced.arch;
        decision.source = env_name(EnvVar::GpuArch);
        return decision;
    }
    if (!forced.warning.empty()) decision.warnings.push_back(forced.warning);
    if (decision.chosen) {
        decision.arch = decision.chosen->arch;
        decision.source = fmt::format("KFD node {}", decision.chosen->node);
    } else {
        decision.source = "none";
    }
    return decision;
}

} // namespace d4r::kernels
