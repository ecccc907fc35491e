// d4r core: file helpers.
//
// Promise: reads report the path and the OS reason on failure; write_file_atomic never leaves a
// half-written file under the target name (it writes a temporary file in the same folder, flushes
// it to disk and renames it over the target; on failure the temporary is removed).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "status.h"

namespace d4r {

namespace fs = std::filesystem;

// Reads a whole file. Files larger than max_bytes are refused (untrusted input must not make d4r
// allocate without bound), and so is anything that is not a regular file (a device such as /dev/zero,
// a pipe, a socket, a folder), before anything is read.
Expected<std::vector<uint8_t>> read_file(const fs::path& path, uint64_t max_bytes = UINT64_MAX);
Expected<std::string> read_text_file(const fs::path& path, uint64_t max_bytes = UINT64_MAX);

Status write_file_atomic(const fs::path& path, std::span<const uint8_t> bytes);
Status write_file_atomic(const fs::path& path, std::string_view text);

// Non-throwing queries: false on any error (missing, permission, ...). Named apart from
// std::filesystem::is_directory/is_regular_file so argument-dependent lookup never makes calls ambiguous.
bool path_exists(const fs::path& path);
bool is_dir(const fs::path& path);
bool is_file(const fs::path& path);

// PATH with every link and `..` resolved (realpath), or PATH unchanged when it cannot be resolved.
std::string resolved_path_or_same(const std::string& path);

// Entries of a folder, sorted by name (so results never depend on readdir order).
Expected<std::vector<fs::path>> list_directory(const fs::path& path);

} // namespace d4r
