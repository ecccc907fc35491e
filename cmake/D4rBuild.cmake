# Build-time helpers for d4r's own libraries (docs/performance.md, "Build time").

# d4r_library_pch(TARGET [HEADER ...])
# One precompiled header for a library's files: fmt (every d4r file includes it through core/status.h) and the
# standard headers most files use, plus the given HEADERs. Most of a typical library file's compile time is
# parsing these (about 1.4 of 2-3 CPU-seconds for a runtime file); the header is parsed once per library.
# Code must still include what it uses: the header only saves the time.
function(d4r_library_pch target)
    target_precompile_headers(${target} PRIVATE
        <fmt/format.h> <algorithm> <cstdint> <cstring> <functional> <map> <memory> <mutex> <optional> <string>
        <string_view> <unordered_map> <variant> <vector> ${ARGN})
endfunction()
