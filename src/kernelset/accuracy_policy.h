// d4r kernel sets: the accuracy policy (docs/kernel-sets.md).
//
// Promise: when D4R_PREFER_ACCURACY is true (the one boolean rule: true/on/yes/1), the runtime forces the variables
// below before it loads a backend, whatever they were set to; when it is unset or anything else, nothing changes.
// Accuracy mode also keeps its JIT cache apart, in `d4r-accuracy` under the cache base, so code
// compiled with fast-math settings is never reused for an accuracy run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/status.h"

namespace d4r::kernels {

inline constexpr const char* kAccuracyCacheFolder = "d4r-accuracy";
// PATH_MAX including the terminating NUL: longer cache paths are refused, never truncated.
inline constexpr size_t kMaxCachePathBytes = 4095;

struct EnvOverride {
    std::string name;
    std::string value;                 // what the policy sets
    std::optional<std::string> before; // what it was (nullopt: unset)
    bool changes() const { return !before || *before != value; }
};

bool accuracy_preferred(const Environment& env);

// The variables the policy sets, in a fixed order; empty when accuracy is not preferred.
std::vector<EnvOverride> accuracy_policy_overrides(const Environment& env);

// Applies the overrides to the process environment, logging (info) each value it changed and
// (warn, once) each conflicting value it replaced. Returns what it applied.
std::vector<EnvOverride> apply_accuracy_policy();

// The JIT cache folder of accuracy mode: BASE/d4r-accuracy, where BASE is the configured cache dir
// (D4R_ZLUDA_CACHE_HOME), else $XDG_CACHE_HOME (when absolute, as the XDG rules say), else $HOME/.cache,
// else /tmp; empty values count as unset. A relative configured dir or HOME is an error: a cache location
// must not depend on the game's working folder.
Expected<std::filesystem::path> accuracy_cache_dir(const Environment& env);

} // namespace d4r::kernels
