// Writes the frames the NGX core tests feed to d4r's open core: the demo's scene renderer at a small size,
// already in the core's canonical formats, so that a Linux and a Windows client (ngx_frames.cpp) upload
// the same bytes. Linux only (the renderer is not built for Windows).
//   scene_frames OUT_DIR SCENE FRAMES RENDER_W RENDER_H OUTPUT_W OUTPUT_H
// OUT_DIR/frames.txt: "RENDER_W RENDER_H OUTPUT_W OUTPUT_H FRAMES"; OUT_DIR/frame_<i>.bin: the bit
// patterns of jitter x, jitter y and exposure (3 x uint32), then colour RGBA16F, depth R32F and motion
// RG16F at render size, rows packed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "image/half.h"
#include "scene/scene.h"

namespace {

bool write_all(std::FILE* f, const void* data, size_t bytes) { return std::fwrite(data, 1, bytes, f) == bytes; }

uint32_t bits(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: scene_frames OUT_DIR SCENE FRAMES RENDER_W RENDER_H OUTPUT_W OUTPUT_H\n");
        return 2;
    }
    std::string dir = argv[1];
    uint32_t frames = std::strtoul(argv[3], nullptr, 10);
    d4r::scene::Size render{uint32_t(std::strtoul(argv[4], nullptr, 10)), uint32_t(std::strtoul(argv[5], nullptr, 10))};
    d4r::scene::Size output{uint32_t(std::strtoul(argv[6], nullptr, 10)), uint32_t(std::strtoul(argv[7], nullptr, 10))};
    auto scene = d4r::scene::make_scene(argv[2]);
    if (!scene) {
        std::fprintf(stderr, "scene_frames: %s\n", scene.error().text().c_str());
        return 1;
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::FILE* index = std::fopen((dir + "/frames.txt").c_str(), "w");
    if (!index) {
        std::fprintf(stderr, "scene_frames: cannot write %s/frames.txt\n", dir.c_str());
        return 1;
    }
    std::fprintf(index, "%u %u %u %u %u\n", render.width, render.height, output.width, output.height, frames);
    std::fclose(index);
    for (uint32_t i = 0; i < frames; ++i) {
        d4r::scene::Frame frame = (*scene)->render(i, render, output);
        const d4r::scene::FrameInputs& in = frame.inputs;
        std::vector<uint16_t> color = d4r::image::floats_to_halves(in.color);
        std::vector<uint16_t> motion = d4r::image::floats_to_halves(in.motion);
        uint32_t header[3] = {bits(in.jitter_x), bits(in.jitter_y), bits(in.exposure)};
        std::string path = dir + "/frame_" + std::to_string(i) + ".bin";
        std::FILE* f = std::fopen(path.c_str(), "wb");
        bool ok = f && write_all(f, header, sizeof header) && write_all(f, color.data(), color.size() * 2) &&
                  write_all(f, in.depth.data(), in.depth.size() * 4) && write_all(f, motion.data(), motion.size() * 2);
        if (f) std::fclose(f);
        if (!ok) {
            std::fprintf(stderr, "scene_frames: cannot write %s\n", path.c_str());
            return 1;
        }
    }
    std::printf("scene_frames: %u frames of '%s', %ux%u -> %ux%u, in %s\n", frames, argv[2], render.width,
                render.height, output.width, output.height, dir.c_str());
    return 0;
}
