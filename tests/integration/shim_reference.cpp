// The Linux side of the shim's integration tests: the reference the Windows run is compared with.
//   shim_reference frames IN_DIR OUT_DIR FORMAT [DEPTH [MOTION]]   copies scene frames (scene_frames.cpp)
//       with the colour passed through FORMAT and back (formats_encode.h: what a game renders in FORMAT and
//       the exact RGBA16F the shim must make of it), likewise the depth through DEPTH (r32f, d32f, d24s8) and
//       the motion vectors through MOTION (rg16f, rg32f), so that ngx_frames on OUT_DIR gives what the shim
//       must give
//   shim_reference output IN_DIR OUT_DIR FORMAT   converts outputs (frame_<i>.bin, RGBA16F) into FORMAT, the
//       bytes the shim must write into an output texture of that format
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "formats_encode.h"

namespace enc = d4r::test::encode;
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& why) {
    std::fprintf(stderr, "shim_reference: %s\n", why.c_str());
    std::exit(1);
}

std::vector<uint8_t> read_file(const fs::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) fail("cannot open " + path.string());
    std::vector<uint8_t> bytes;
    uint8_t chunk[65536];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
    std::fclose(f);
    return bytes;
}

void write_file(const fs::path& path, const void* data, size_t bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(data, 1, bytes, f) != bytes) fail("cannot write " + path.string());
    std::fclose(f);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 5 || argc > 7) {
        std::fprintf(stderr, "usage: shim_reference frames IN_DIR OUT_DIR FORMAT [DEPTH [MOTION]]\n"
                             "       shim_reference output IN_DIR OUT_DIR FORMAT\n");
        return 2;
    }
    const std::string mode = argv[1];
    const fs::path in = argv[2], out = argv[3];
    const enc::Format* format = enc::find(argv[4]);
    if (!format) fail(std::string("unknown format ") + argv[4]);
    const enc::Format* depth_format = enc::find_depth(argc > 5 ? argv[5] : "r32f");
    if (!depth_format) fail(std::string("unknown depth format ") + argv[5]);
    const enc::Format* motion_format = enc::find_motion(argc > 6 ? argv[6] : "rg16f");
    if (!motion_format) fail(std::string("unknown motion format ") + argv[6]);
    fs::create_directories(out);
    if (mode == "frames") {
        std::vector<uint8_t> index = read_file(in / "frames.txt");
        write_file(out / "frames.txt", index.data(), index.size());
        index.push_back(0);
        unsigned rw = 0, rh = 0, ow = 0, oh = 0, count = 0;
        if (std::sscanf(reinterpret_cast<const char*>(index.data()), "%u %u %u %u %u", &rw, &rh, &ow, &oh, &count) != 5)
            fail("bad frames.txt");
        const size_t n = size_t(rw) * rh;
        for (unsigned i = 0; i < count; ++i) {
            std::string name = "frame_" + std::to_string(i) + ".bin";
            std::vector<uint8_t> frame = read_file(in / name);
            if (frame.size() < 12 + n * 8) fail(name + ": too short");
            uint16_t* colour = reinterpret_cast<uint16_t*>(frame.data() + 12);
            std::vector<uint8_t> encoded = enc::encode_color(*format, colour, n);
            std::vector<uint16_t> decoded = enc::decode_color(*format, encoded.data(), n);
            std::copy(decoded.begin(), decoded.end(), colour);
            if (frame.size() != 12 + n * 16) fail(name + ": wrong size");
            uint8_t* depth = frame.data() + 12 + n * 8;
            std::vector<uint8_t> depth_bytes =
                enc::encode_depth(*depth_format, reinterpret_cast<const float*>(depth), n);
            std::vector<float> depth_back = enc::decode_depth(*depth_format, depth_bytes.data(), n);
            std::memcpy(depth, depth_back.data(), n * 4);
            uint8_t* motion = frame.data() + 12 + n * 12;
            std::vector<uint8_t> motion_bytes =
                enc::encode_motion(*motion_format, reinterpret_cast<const uint16_t*>(motion), n);
            std::vector<uint16_t> motion_back = enc::decode_motion(*motion_format, motion_bytes.data(), n);
            std::memcpy(motion, motion_back.data(), n * 4);
            write_file(out / name, frame.data(), frame.size());
        }
        std::printf("shim_reference: %u frames with colour through %s, depth through %s, motion through %s\n", count,
                    format->name, depth_format->name, motion_format->name);
    } else if (mode == "output") {
        unsigned count = 0;
        for (const auto& entry : fs::directory_iterator(in)) {
            if (entry.path().extension() != ".bin") continue;
            std::vector<uint8_t> halves = read_file(entry.path());
            std::vector<uint8_t> encoded =
                enc::encode_color(*format, reinterpret_cast<const uint16_t*>(halves.data()), halves.size() / 8);
            write_file(out / entry.path().filename(), encoded.data(), encoded.size());
            ++count;
        }
        std::printf("shim_reference: %u outputs in %s\n", count, format->name);
    } else {
        fail("unknown mode " + mode);
    }
    return 0;
}
