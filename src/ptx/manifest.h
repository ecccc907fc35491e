// d4r PTX toolkit: the kernel manifest `d4r-kernels.txt` of a release kernel set (docs/runtime.md, "Native-kernel
// overrides").
//
// Promise: reads and writes the manifest format — lines `NAME HASH` (HASH exactly 16 hex digits,
// either case on read, lowercase on write), `#` comments (whole line or after the fields), blank
// lines, CRLF tolerated, several lines per name (one per accepted library version), duplicates
// harmless. A malformed line is an Error naming the source and line
// ("d4r-kernels.txt:3: expected 'NAME HASH' with HASH 16 hex digits, got 'foo'"). Written files are
// sorted by name then hash, start with a header comment naming the writer, and parse back to an
// equal Manifest. Queries are what the runtime asks before serving a native kernel.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace d4r::ptx {

inline constexpr std::string_view kManifestFileName = "d4r-kernels.txt";
// Manifests are small (a line per kernel and library version); anything larger is not one.
inline constexpr uint64_t kMaxManifestBytes = 16ull << 20;

// A PTX identifier ([a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+): what an .entry NAME can be.
bool is_kernel_name(std::string_view name);

class Manifest {
public:
    // SOURCE names the text in error messages (a path, or "d4r-kernels.txt").
    static Expected<Manifest> parse(std::string_view text, std::string_view source = kManifestFileName);
    // Reads and parses PATH (errors name the path).
    static Expected<Manifest> load(const std::filesystem::path& path);

    // Adds NAME HASH (already present: no change). An error when NAME is not a kernel name.
    Status add(std::string_view name, uint64_t hash);

    // True when the manifest lists HASH for NAME.
    bool allows(std::string_view name, uint64_t hash) const;
    std::vector<std::string> names() const;                        // sorted
    std::vector<uint64_t> hashes_for(std::string_view name) const; // sorted; empty when NAME is absent
    size_t kernel_count() const { return m_hashes.size(); }
    size_t entry_count() const; // NAME HASH pairs
    bool empty() const { return m_hashes.empty(); }

    // The file text: a header comment ("written by WRITER"), then one `NAME HASH` line per pair,
    // sorted by name then hash.
    std::string to_text(std::string_view writer) const;
    // Writes to_text(WRITER) to PATH atomically.
    Status save(const std::filesystem::path& path, std::string_view writer) const;

    bool operator==(const Manifest& other) const { return m_hashes == other.m_hashes; }

private:
    std::map<std::string, std::set<uint64_t>, std::less<>> m_hashes;
};

} // namespace d4r::ptx
