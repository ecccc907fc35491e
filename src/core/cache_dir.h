// d4r core: the base folder of d4r's caches on disk (accuracy mode's JIT cache, the PTX JIT's compile cache).
//
// Promise: cache_base_dir() is D4R_ZLUDA_CACHE_HOME when set, else the user's cache folder (user_cache_dir:
// $XDG_CACHE_HOME when absolute, else $HOME/.cache), else /tmp; empty values count as unset. A relative base is an
// error naming where it came from: a cache location must not depend on the program's working folder.
#pragma once

#include <filesystem>
#include <string>

#include "core/env.h"
#include "core/status.h"

namespace d4r {

struct CacheBase {
    std::filesystem::path dir;
    std::string source; // where it came from, for messages ("D4R_ZLUDA_CACHE_HOME", ...)
};

Expected<CacheBase> cache_base_dir(const Environment& env);

} // namespace d4r
