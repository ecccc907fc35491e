// libFuzzer target: d4r.ini parsing, validation, resolution and export on arbitrary bytes.
// Checks invariants beyond "does not crash": a file with errors never resolves, a valid one always
// does, and every export is a valid variable name whose `export` line is one shell line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/config_file.h"
#include "config/resolve.h"
#include "core/env.h"

using namespace d4r::config;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    ParsedConfig parsed = parse_config(ConfigSource::from_text("fuzz.ini", text));
    for (const Diagnostic& d : parsed.diagnostics) {
        if (d.line < 1) __builtin_trap(); // every message points at a line
        (void)d.text();
    }

    // The environment sets a couple of variables so that the precedence paths run too.
    d4r::MapEnvironment env;
    if (size > 0 && (data[0] & 1)) env.set("D4R_SHIM_SPLIT_FRAME", (data[0] & 2) ? "0" : "1");
    if (size > 0 && (data[0] & 4)) env.set("D4R_ZLUDA_NATIVE_DIR", "/env");
    if (size > 0 && (data[0] & 8)) env.set("D4R_DLSS_PRESET", text.substr(0, 3));

    auto resolved = resolve_parsed(parsed, env);
    if (resolved.ok() == parsed.has_errors()) __builtin_trap();
    if (!resolved) return 0;
    for (const EnvExport& e : compute_exports(*resolved)) {
        if (!is_valid_variable_name(e.name)) __builtin_trap();
        if (env.has(e.name)) __builtin_trap(); // the environment wins: never exported over it
        std::string line = e.shell();
        // Values cannot hold a newline (lines split on it); a single quoted shell word keeps it one line.
        if (line.find('\n') != std::string::npos) __builtin_trap();
    }
    return 0;
}
