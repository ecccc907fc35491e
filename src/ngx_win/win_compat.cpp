// d4r_ngx.dll (mingw): the POSIX environment calls d4r_core's env.cpp makes, which the Windows C runtime
// spells differently. The core only reads its environment; these exist so that env.cpp links unchanged.
#include <cstdlib>

#include "win_compat.h"

extern "C" int setenv(const char* name, const char* value, int overwrite) {
    if (!overwrite && std::getenv(name)) return 0;
    return _putenv_s(name, value) == 0 ? 0 : -1;
}

extern "C" int unsetenv(const char* name) { return _putenv_s(name, "") == 0 ? 0 : -1; }
