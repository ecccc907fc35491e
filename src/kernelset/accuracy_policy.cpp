#include "accuracy_policy.h"

#include "core/cache_dir.h"
#include "core/env_vars.h"
#include "core/log.h"

namespace d4r::kernels {

namespace {

struct Forced {
    EnvVar variable;
    const char* value;
};

// Each of these trades accuracy for speed in the backend (ZLUDA) or the NGX sync path.
constexpr Forced kForced[] = {
    {EnvVar::ZludaIgnoreDenormal, "0"}, // keep f32 denormals instead of flushing them
    {EnvVar::ZludaWmmaF32Acc, "0"},     // round f16 accumulators after every MMA step as NVIDIA does
    {EnvVar::ZludaFastMath, "0"},       // no approximate math beyond what the PTX asks for
    {EnvVar::ZludaWave64, "0"},         // wave32: same reduction order as a 32-lane warp
    {EnvVar::ElideNgxSync, "0"},        // keep every synchronisation NGX asks for
};

} // namespace

bool accuracy_preferred(const Environment& env) { return env_bool(env, EnvVar::PreferAccuracy); }

std::vector<EnvOverride> accuracy_policy_overrides(const Environment& env) {
    std::vector<EnvOverride> overrides;
    if (!accuracy_preferred(env)) return overrides;
    for (const Forced& forced : kForced) {
        const char* name = env_name(forced.variable);
        overrides.push_back({name, forced.value, env.get(name)});
    }
    return overrides;
}

std::vector<EnvOverride> apply_accuracy_policy() {
    std::vector<EnvOverride> overrides = accuracy_policy_overrides(process_environment());
    for (const EnvOverride& o : overrides) {
        if (o.before && *o.before != o.value && log::once("accuracy overrides " + o.name)) {
            log::warn("{}=1 overrides {}={} with {}", env_name(EnvVar::PreferAccuracy), o.name, *o.before, o.value);
        } else if (o.changes()) {
            log::info("{}=1 sets {}={}", env_name(EnvVar::PreferAccuracy), o.name, o.value);
        }
        set_env(o.name, o.value);
    }
    return overrides;
}

Expected<std::filesystem::path> accuracy_cache_dir(const Environment& env) {
    const CacheBase base = D4R_TRY(cache_base_dir(env));
    std::filesystem::path dir = base.dir / kAccuracyCacheFolder;
    if (dir.native().size() > kMaxCachePathBytes) {
        return make_error(ErrorCode::Invalid, "accuracy cache path from {} is {} bytes long, more than the {} accepted",
                          base.source, dir.native().size(), kMaxCachePathBytes);
    }
    return dir;
}

} // namespace d4r::kernels
