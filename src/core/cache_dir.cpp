// The base folder of d4r's caches (see cache_dir.h).
#include "core/cache_dir.h"

#include "core/env_vars.h"

namespace d4r {

Expected<CacheBase> cache_base_dir(const Environment& env) {
    CacheBase base;
    if (auto configured = env_text(env, EnvVar::ZludaCacheHome)) {
        base.dir = *configured;
        base.source = env_name(EnvVar::ZludaCacheHome);
    } else if (auto cache = user_cache_dir(env)) {
        base.dir = *cache;
        base.source = "the user's cache folder (XDG_CACHE_HOME, else HOME)";
    } else {
        base.dir = "/tmp";
        base.source = "the fallback /tmp";
    }
    if (base.dir.is_relative())
        return make_error(ErrorCode::Invalid, "cache base '{}' from {} is not an absolute path", base.dir.string(),
                          base.source);
    return base;
}

} // namespace d4r
