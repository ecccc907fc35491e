// The Wine bridge (nvcuda.dll): libd4rcuda's entry points, as Linux (System V) function pointers.
//
// Promise: linux_api() loads libd4rcuda once, from $D4R_RUNTIME_DIR, else from the folder of this
// bridge, else from the loader's path, and resolves every entry point of the API list and every d4r extension
// (abi/d4r_extensions.h; a missing one stays null). It returns null when the library cannot be loaded; load_error()
// then says why. Thread-safe.
#pragma once

#include <string>

#include "abi/cuda_api.h"
#include "abi/d4r_extensions.h"

namespace d4r::bridge {

using namespace d4r::abi;

struct LinuxApi {
#define D4R_BRIDGE_FIELD(exp, base, since, params, args) CUresult(*exp) params = nullptr;
    D4R_CUDA_API(D4R_BRIDGE_FIELD)
#undef D4R_BRIDGE_FIELD
    // d4r's own entry points (abi/d4r_extensions.h), forwarded by extensions.cpp.
#define D4R_BRIDGE_EXTENSION_FIELD(name, params, args) CUresult(*name) params = nullptr;
    D4R_EXTENSIONS(D4R_BRIDGE_EXTENSION_FIELD)
#undef D4R_BRIDGE_EXTENSION_FIELD
};

const LinuxApi* linux_api();
const std::string& load_error();
// A refused call: logs once per entry point why (the library or the entry point is missing).
CUresult not_available(const char* name);
// Marks the calling thread as one that entered the bridge from Windows code (the generated entry points,
// cuGetExportTable and the export tables' slots call it; so does the callback thread): a thread Wine
// knows, on which the bridge may call the application's Windows code directly. on_wine_thread() reads
// the mark. Out-of-line functions, not a thread_local variable the entry points touch: GCC 12 moves an
// ms_abi function's arguments into rdi/rsi and then overwrites rdi with the general-dynamic TLS
// sequence's __tls_get_addr argument, so ms_abi code must reach thread-local data through a call.
void note_wine_thread();
bool on_wine_thread();

// Through d4r_core's logger (core/log.h: D4R_LOG, D4R_LOG_FILE), prefixed "bridge (nvcuda.dll): ".
// log_once: a warning, once per KEY. log_debug: at debug level (why a helper refused its arguments).
void log_once(const std::string& key, const std::string& line);
void log_debug(const std::string& line);
// Reads D4R_LOG and D4R_LOG_FILE again (after d4r_SetEnvironment changed one of them).
void reread_log_settings();

} // namespace d4r::bridge
