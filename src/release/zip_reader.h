// d4r release: reading a zip file (the release zip `d4r install --release` takes).
//
// Promise: ZipReader opens a zip (a file, or bytes in memory), reads its end-of-central-directory
// record and central directory, and lists its entries only when every entry is one d4r can extract
// safely; otherwise open() returns an Invalid or Unsupported Error naming the zip and the entry:
// ZIP64 and multi-disk zips, encrypted entries, methods other than stored (0) and deflate (8), names
// that are empty, absolute, hold a backslash, a drive letter, a NUL, or an empty, "." or ".."
// component, symbolic links and other special files (Unix mode in the external attributes),
// duplicate names (also a file and a folder of one name, or a file used as a folder), an entry above
// ZipLimits' per-entry size or all entries above its total (zip bombs), local headers that disagree
// with the central directory, entries whose data overlap or pass the central directory, and
// truncated or corrupt archives. read() streams one entry's bytes, inflating deflate with zlib (raw,
// windowBits -15), and fails when the data inflate to more or fewer bytes than declared, do not end
// where the compressed size says, or do not match the CRC-32. Nothing here writes files
// (zip_extract.h does); nothing throws.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::release {

struct ZipLimits {
    uint64_t max_entry_bytes = 1ull << 30; // uncompressed, per entry
    uint64_t max_total_bytes = 4ull << 30; // uncompressed, all entries together
    size_t max_entries = 65535;            // what a zip without ZIP64 can count
};

struct ZipItem {
    std::string name; // as in the zip: '/' separators, folders end with '/'
    uint16_t method = 0;
    uint16_t flags = 0;
    uint32_t crc32 = 0;
    uint64_t compressed_size = 0;
    uint64_t size = 0;
    uint64_t data_offset = 0; // of the entry's (compressed) data, after its local header
    bool folder = false;
    bool executable = false; // a Unix mode with the owner's execute bit
};

// Receives an entry's bytes in order, in chunks; an error stops the read.
using ZipSink = std::function<Status(std::span<const uint8_t>)>;

class ZipReader {
public:
    // Opens PATH (kept open until the reader is destroyed) and checks the whole directory.
    static Expected<ZipReader> open_file(const std::filesystem::path& path, const ZipLimits& limits = {});
    // As open_file over BYTES, which must outlive the reader; NAME stands for the zip in messages.
    static Expected<ZipReader> open_memory(std::span<const uint8_t> bytes, std::string name,
                                           const ZipLimits& limits = {});

    const std::string& name() const;
    // In the order of the central directory.
    const std::vector<ZipItem>& entries() const;
    // The sum of the entries' uncompressed sizes.
    uint64_t total_size() const;

    // Streams ITEM (one of entries()) to SINK, checking its size and CRC-32 as it goes.
    Status read(const ZipItem& item, const ZipSink& sink) const;
    // The whole entry in memory (at most ZipLimits::max_entry_bytes).
    Expected<std::string> read_all(const ZipItem& item) const;

private:
    struct Impl;
    explicit ZipReader(std::shared_ptr<const Impl> impl);
    std::shared_ptr<const Impl> m_impl;
};

} // namespace d4r::release
