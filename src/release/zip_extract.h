// d4r release: unpacking a zip into a folder.
//
// Promise: extract_zip() writes every entry of a ZipReader (which has already refused unsafe names,
// links, duplicates and oversized entries) below TARGET, an existing empty folder, and nowhere else:
// each path is checked to stay below TARGET, folders are created one component at a time and never
// followed when they are links, files are created new (O_EXCL, O_NOFOLLOW) with mode 0755 when the
// entry is executable, else 0644 (less the umask). Every entry's CRC-32 and size are checked as it is
// written. On an error the entry being written is removed; what was written before stays, for the
// caller to remove with TARGET.
#pragma once

#include <cstdint>
#include <filesystem>

#include "core/status.h"
#include "zip_reader.h"

namespace d4r::release {

struct ExtractCount {
    size_t files = 0;
    size_t folders = 0;
    uint64_t bytes = 0;
};

Expected<ExtractCount> extract_zip(const ZipReader& zip, const std::filesystem::path& target);

} // namespace d4r::release
