// d4r core: SHA-256 (FIPS 180-4).
//
// Promise: the SHA-256 digest of bytes or of a file, as 64 lowercase hex digits; a file is read in
// chunks (never whole), and a file that cannot be read is an Error naming the path and the OS reason.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "status.h"

namespace d4r {

class Sha256 {
public:
    Sha256();
    void update(std::span<const uint8_t> bytes);
    void update(std::string_view text);
    // The digest; the object must not be updated afterwards.
    std::array<uint8_t, 32> finish();
    std::string finish_hex();

private:
    void block(const uint8_t* p);
    std::array<uint32_t, 8> m_h;
    std::array<uint8_t, 64> m_buffer{};
    size_t m_buffered = 0;
    uint64_t m_length = 0; // bytes
};

std::string sha256_hex(std::span<const uint8_t> bytes);
std::string sha256_hex(std::string_view text);
Expected<std::string> sha256_file_hex(const std::filesystem::path& path);

} // namespace d4r
