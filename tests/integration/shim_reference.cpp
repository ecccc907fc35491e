// The Linux side of the shim's integration tests: the reference the Windows run is compared with.
//   shim_reference frames IN_DIR OUT_DIR FORMAT [DEPTH [MOTION]]   copies scene frames (scene_frames.cpp)
//       with the colour passed through FORMAT and back (formats_encode.h: what a game renders in FORMAT and
//       the exact RGBA16F the shim must make of it), likewise the depth through DEPTH (r32f, d32f, d24s8) and
//       the motion vectors through MOTION (rg16f, rg32f), so that ngx_frames on OUT_DIR gives what the shim
//       must give
//   shim_reference output IN_DIR OUT_DIR FORMAT   converts outputs (frame_<i>.bin, RGBA16F) into FORMAT, the
//       bytes the shim must write into an output texture of that format
//   shim_reference dilate IN_DIR OUT_DIR N   copies scene frames with their motion vectors dilated over radius N
//       (depth not inverted, as the harness creates its feature), what the core must see with
//       D4R_MOTION_DILATION=N; prints how many vectors changed
//   shim_reference watermark DIR WIDTH HEIGHT   draws the watermark into every output (frame_<i>.bin, RGBA16F,
//       WIDTH x HEIGHT) in place, what the shim must give with D4R_SHIM_WATERMARK=1
// The last two call the shim's own passes (src/shim/frame_passes.h, unit-tested on their own in
// shim_frame_passes_test.cpp): these cases show that the shim applies them, where and when it should.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "formats_encode.h"
#include "shim/frame_passes.h"

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

std::vector<fs::path> frame_files(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".bin") files.push_back(entry.path());
    return files;
}

int dilate(const fs::path& in, const fs::path& out, unsigned radius) {
    fs::create_directories(out);
    std::vector<uint8_t> index = read_file(in / "frames.txt");
    write_file(out / "frames.txt", index.data(), index.size());
    index.push_back(0);
    unsigned rw = 0, rh = 0, ow = 0, oh = 0, count = 0;
    if (std::sscanf(reinterpret_cast<const char*>(index.data()), "%u %u %u %u %u", &rw, &rh, &ow, &oh, &count) != 5)
        fail("bad frames.txt");
    const size_t n = size_t(rw) * rh;
    size_t changed = 0;
    d4r::shim::DilationScratch scratch;
    for (unsigned i = 0; i < count; ++i) {
        std::string name = "frame_" + std::to_string(i) + ".bin";
        std::vector<uint8_t> frame = read_file(in / name);
        if (frame.size() != 12 + n * 16) fail(name + ": wrong size");
        uint8_t* depth = frame.data() + 12 + n * 8;
        uint8_t* motion = frame.data() + 12 + n * 12;
        std::vector<uint8_t> before(motion, motion + n * 4);
        d4r::shim::dilate_motion({motion, rw, rh, rw}, {depth, rw, rh, rw}, radius, false, &scratch);
        for (size_t t = 0; t < n; ++t) changed += std::memcmp(&before[t * 4], motion + t * 4, 4) != 0;
        write_file(out / name, frame.data(), frame.size());
    }
    std::printf("shim_reference: %u frames, motion dilated over radius %u: %zu vectors changed\n", count, radius,
                changed);
    return 0;
}

int watermark(const fs::path& dir, unsigned width, unsigned height) {
    unsigned count = 0;
    for (const fs::path& file : frame_files(dir)) {
        std::vector<uint8_t> halves = read_file(file);
        if (halves.size() != size_t(width) * height * 8)
            fail(file.string() + ": not a " + std::to_string(width) + "x" + std::to_string(height) + " RGBA16F output");
        d4r::shim::draw_watermark({halves.data(), width, height, width});
        write_file(file, halves.data(), halves.size());
        ++count;
    }
    std::printf("shim_reference: watermark drawn into %u outputs\n", count);
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 5 && std::string(argv[1]) == "dilate") return dilate(argv[2], argv[3], unsigned(std::atoi(argv[4])));
    if (argc == 5 && std::string(argv[1]) == "watermark")
        return watermark(argv[2], unsigned(std::atoi(argv[3])), unsigned(std::atoi(argv[4])));
    if (argc < 5 || argc > 7) {
        std::fprintf(stderr, "usage: shim_reference frames IN_DIR OUT_DIR FORMAT [DEPTH [MOTION]]\n"
                             "       shim_reference output IN_DIR OUT_DIR FORMAT\n"
                             "       shim_reference dilate IN_DIR OUT_DIR N\n"
                             "       shim_reference watermark DIR WIDTH HEIGHT\n");
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
