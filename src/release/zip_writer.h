// d4r release: a reproducible zip file (what `d4r package` ships).
//
// Promise: write_zip() writes the files and folders of a folder tree into a zip whose bytes depend only
// on their names, contents and executable bits and on one timestamp: entries sorted by name (byte
// order), every entry stamped with the same time, modes fixed (0644 files, 0755 executables and
// folders, from the owner's execute bit), no extra fields (no local uid, gid or times), files deflated
// with zlib (level 9, raw deflate) and stored when that is not smaller. No ZIP64: a file or a zip
// above 4 GiB, or more than 65535 entries, is an Unsupported error naming the file. Symbolic links and
// other special files are refused (Invalid, naming the path). The zip is written to a temporary in the
// same folder and renamed over OUT: never half-written. The output bytes also depend on the zlib
// version (the deflate stream), which docs/packaging.md notes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::release {

// 1980-01-01 00:00:00 UTC: the earliest time a zip entry can hold, used when nothing gives a time.
inline constexpr int64_t kFallbackSourceDateEpoch = 315532800;

struct ZipEntry {
    std::string name;             // "d4r/bin/d4r"; folders end with '/'
    std::filesystem::path source; // the file on disk (empty for folders)
    bool executable = false;
};

// Every file and folder under ROOT as entries named PREFIX + the relative path ('/' separators),
// sorted by name; PREFIX itself (when not empty, it ends with '/') is the first folder entry.
Expected<std::vector<ZipEntry>> zip_entries_of_tree(const std::filesystem::path& root, const std::string& prefix);

// Writes ENTRIES (sorted here by name) to OUT, every entry stamped with UNIX_TIME (UTC; clamped to
// the range a zip can hold, 1980..2107).
Status write_zip(const std::filesystem::path& out, std::vector<ZipEntry> entries, int64_t unix_time);

} // namespace d4r::release
