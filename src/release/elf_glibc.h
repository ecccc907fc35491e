// d4r release tools: which libraries and GLIBC an ELF file needs.
//
// Promise: read_glibc_needs() reads a little-endian ELF64 file's version-needs section
// (.gnu.version_r, SHT_GNU_verneed) through its linked string table and returns every version it asks
// of every library, and the highest GLIBC_x.y[.z] among them (compared numerically: 2.10 > 2.9); it
// also returns the libraries its dynamic section names (DT_NEEDED, what the loader must find).
// highest_version() gives the highest version of another family (GLIBCXX_, CXXABI_) the same way. A
// file with no version needs (a static executable, a library using no versioned symbol) has none and
// no highest; one without a dynamic section needs no library. Offsets and counts are checked against
// the file: a malformed table is an Error naming the offset, never a read outside the bytes. Not ELF64
// little-endian: ErrorCode::Unsupported.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace d4r::release {

// A version such as GLIBC_2.34: its numbers (2, 34), compared element by element.
struct GlibcVersion {
    std::vector<unsigned> numbers;
    std::string text() const; // "2.34"
    auto operator<=>(const GlibcVersion&) const = default;
};

// "2.41" or "GLIBC_2.41" -> {2, 41}; anything else -> Error naming TEXT.
Expected<GlibcVersion> parse_glibc_version(std::string_view text);

struct VersionNeed {
    std::string library; // "libc.so.6"
    std::string version; // "GLIBC_2.34"
};

struct GlibcNeeds {
    std::vector<VersionNeed> needs;      // in file order
    std::optional<GlibcVersion> highest; // the highest GLIBC_ version asked, if any
    std::string highest_library;         // the library it is asked of
    std::vector<std::string> needed;     // the DT_NEEDED libraries ("libc.so.6"), in file order
};

Expected<GlibcNeeds> read_glibc_needs(std::span<const uint8_t> file);

// The highest of NEEDS' versions named PREFIX followed by numbers ("GLIBCXX_" finds GLIBCXX_3.4.30,
// never GLIBCXX_TUNABLES or GLIBC_2.34), with its full name and the library it is asked of.
struct HighestVersion {
    GlibcVersion version; // {3, 4, 30}
    std::string name;     // "GLIBCXX_3.4.30"
    std::string library;  // "libstdc++.so.6"
};
std::optional<HighestVersion> highest_version(const GlibcNeeds& needs, std::string_view prefix);

} // namespace d4r::release
