// d4r doctor: the Windows side (the Wine bridge nvcuda.dll, the NGX shim and the open core as DLLs,
// whether the bridge can load libd4rcuda).
//
// Promise: check_windows_side() appends one line per check, in this order: bridge (nvcuda.dll.so beside
// libd4rcuda or nvcuda.dll in a release folder, an ELF Wine builtin), runtime (D4R_RUNTIME_DIR, when
// set, is a folder holding libd4rcuda.so), shim (d4r_nvngx.dll) and ngxcore (d4r_ngx.dll) present and
// PE x64 DLLs, d4rcuda (libd4rcuda resolved as the bridge resolves it, loaded in a child process, with
// cuInit). Missing Windows pieces are warnings (only Windows programs need them); a file that is there
// but wrong, an invalid D4R_RUNTIME_DIR, or a bridge that cannot load libd4rcuda is a failure, with the
// fix in the hint. The PE and ELF tests are exposed for unit tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/env.h"
#include "doctor.h"

namespace d4r::cli {

// Where d4r's own files are looked for: D4R_RUNTIME_DIR when set, else LIB_DIR (the lib folder beside
// the d4r binary: build/lib in a build).
void check_windows_side(const Environment& env, const std::filesystem::path& lib_dir, std::vector<CheckLine>& out);

// "" when BYTES are a PE image for x86-64 that is a DLL, else what they are not.
std::string pe_x64_dll_problem(const std::vector<uint8_t>& bytes);
// "" when BYTES are an x86-64 ELF shared object built as a Wine builtin (winegcc), else what is wrong.
std::string wine_builtin_problem(const std::vector<uint8_t>& bytes);

} // namespace d4r::cli
