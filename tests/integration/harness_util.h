// What the shim's harnesses (d3d12_harness.cpp, vulkan_harness.cpp) share: reading a frame file whole, the FNV-1a
// hash they print per output, and a float from its little-endian bytes. No program-specific failure handling:
// `read_whole_file` says whether it could read the file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace harness {

inline bool read_whole_file(const std::string& path, std::vector<uint8_t>& bytes) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    bytes.clear();
    uint8_t chunk[65536];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
    std::fclose(f);
    return true;
}

inline uint64_t fnv1a(const void* data, size_t bytes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<const uint8_t*>(data)[i]) * 0x100000001b3ull;
    return h;
}

inline float from_bits(const uint8_t* p) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
}

} // namespace harness
