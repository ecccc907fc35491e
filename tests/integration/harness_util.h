// What the shim's harnesses (d3d12_harness.cpp, vulkan_harness.cpp) share: reading a file whole, the scene frames
// they evaluate, the FNV-1a hash they print per output, and a float from its little-endian bytes. No
// program-specific failure handling: each says whether it could, or why not.
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

// The scene frames tests/bridge/programs/scene_frames.cpp writes: DIR/frames.txt ("RW RH OW OH COUNT") and
// DIR/frame_<i>.bin (jitter x, jitter y, exposure as float bits, then colour RGBA16F, depth R32F and motion RG16F at
// render size, rows packed). `open` and `read` answer empty, or why not (for the program's own failure handling).
struct FrameSet {
    std::string dir;
    unsigned rw = 0, rh = 0, ow = 0, oh = 0, count = 0;

    std::string open(const std::string& d) {
        dir = d;
        std::vector<uint8_t> index;
        if (!read_whole_file(dir + "/frames.txt", index)) return "cannot read " + dir + "/frames.txt";
        index.push_back(0);
        if (std::sscanf(reinterpret_cast<const char*>(index.data()), "%u %u %u %u %u", &rw, &rh, &ow, &oh, &count) !=
                5 ||
            !rw || !rh || !ow || !oh || !count)
            return "bad " + dir + "/frames.txt (expected five positive numbers: RW RH OW OH COUNT)";
        return {};
    }
    std::string read(unsigned i, std::vector<uint8_t>& bytes) const {
        const std::string path = dir + "/frame_" + std::to_string(i) + ".bin";
        if (!read_whole_file(path, bytes)) return "cannot read " + path;
        if (bytes.size() != 12 + size_t(rw) * rh * 16)
            return path + ": " + std::to_string(bytes.size()) + " bytes, expected " +
                   std::to_string(12 + size_t(rw) * rh * 16);
        return {};
    }
};

} // namespace harness
