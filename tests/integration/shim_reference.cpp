// The Linux side of the shim's integration tests: the reference the Windows run is compared with.
//   shim_reference frames IN_DIR OUT_DIR FORMAT   copies scene frames (scene_frames.cpp) with the colour
//       passed through FORMAT and back (formats_encode.h: what a game renders in FORMAT and the exact RGBA16F
//       the shim must make of it), so that ngx_frames on OUT_DIR gives what the shim must give
//   shim_reference output IN_DIR OUT_DIR FORMAT   converts outputs (frame_<i>.bin, RGBA16F) into FORMAT, the
//       bytes the shim must write into an output texture of that format
#include <cstdio>
#include <cstdlib>
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
    if (argc != 5) {
        std::fprintf(stderr, "usage: shim_reference frames|output IN_DIR OUT_DIR FORMAT\n");
        return 2;
    }
    const std::string mode = argv[1];
    const fs::path in = argv[2], out = argv[3];
    const enc::Format* format = enc::find(argv[4]);
    if (!format) fail(std::string("unknown format ") + argv[4]);
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
            write_file(out / name, frame.data(), frame.size());
        }
        std::printf("shim_reference: %u frames with colour through %s\n", count, format->name);
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
