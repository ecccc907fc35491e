#include "runtime/backends/cpu/cpu_ptx_profile.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "core/env.h"
#include "core/env_vars.h"
#include "core/log.h"

namespace d4r::runtime::cpu {

namespace {

const std::optional<std::string>& profile_path() {
    static const std::optional<std::string> path = [] {
        std::optional<std::string> p = env_text(process_environment(), EnvVar::CpuPtxProfile);
        if (p)
            log::info("cpu backend: {} is set: every launch runs interpreted and appends its PTX profile to {}",
                      env_name(EnvVar::CpuPtxProfile), *p);
        return p;
    }();
    return path;
}

// The sum of a profile's counts (the first field of each line).
uint64_t total_of(std::string_view profile) {
    uint64_t total = 0;
    for (size_t at = 0; at < profile.size();) {
        total += std::strtoull(profile.data() + at, nullptr, 10);
        const size_t eol = profile.find('\n', at);
        at = eol == std::string_view::npos ? profile.size() : eol + 1;
    }
    return total;
}

} // namespace

std::function<void(std::string_view)> ptx_profile_sink(const std::string& kernel, const ptxsim::Dim3& grid,
                                                       const ptxsim::Dim3& block) {
    const std::optional<std::string>& path = profile_path();
    if (!path) return {};
    return [path = *path, kernel, grid, block](std::string_view profile) {
        static std::mutex mutex; // launches on several streams append whole profiles, one after the other
        std::lock_guard lock(mutex);
        std::FILE* f = std::fopen(path.c_str(), "a");
        if (!f) {
            static std::once_flag said;
            std::call_once(said, [&] {
                log::warn("cpu backend: {}: cannot append the PTX profiles to {}: {}", env_name(EnvVar::CpuPtxProfile),
                          path, std::strerror(errno));
            });
            return;
        }
        const std::string header =
            fmt::format("# kernel '{}' grid {}x{}x{} block {}x{}x{}: {} warp instructions\n", kernel, grid.x, grid.y,
                        grid.z, block.x, block.y, block.z, total_of(profile));
        std::fwrite(header.data(), 1, header.size(), f);
        std::fwrite(profile.data(), 1, profile.size(), f);
        std::fclose(f);
    };
}

} // namespace d4r::runtime::cpu
