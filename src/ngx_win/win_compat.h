// The Windows sub-build (mingw): declarations of the POSIX calls the shared sources make that the Windows C
// runtime lacks (setenv, unsetenv: d4r_core's env.cpp), defined in win_compat.cpp. Included in every
// translation unit that uses d4r_win_core by the compiler (-include, cmake/windows/CMakeLists.txt), so the
// shared sources stay unchanged.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif
int setenv(const char* name, const char* value, int overwrite);
int unsetenv(const char* name);
#ifdef __cplusplus
}
#endif
