// d4r release: is a wineserver running for a Wine prefix?
//
// Promise: find_wineserver() answers the way Wine itself does: the server of the prefix PREFIX listens on
// ROOT/.wine-<uid>/server-<dev>-<inode>/socket (ROOT is /tmp; dev and inode of PREFIX, in lowercase hex).
// A socket that accepts a connection is a running server, and its pid comes from the peer credentials;
// a leftover socket that refuses connections (a server that crashed) is not. Never throws.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/status.h"

namespace d4r::release {

namespace fs = std::filesystem;

struct Wineserver {
    std::string socket; // the socket it listens on
    int64_t pid = 0;    // 0 when the peer credentials could not be read
};

// The socket path Wine uses for PREFIX (an error when PREFIX cannot be stat'ed).
Expected<fs::path> wineserver_socket_path(const fs::path& prefix, const fs::path& root = "/tmp");
// The running server of PREFIX, or nullopt.
std::optional<Wineserver> find_wineserver(const fs::path& prefix, const fs::path& root = "/tmp");

} // namespace d4r::release
