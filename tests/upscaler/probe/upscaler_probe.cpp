// upscaler_probe LIBCUDA OUT RW RH OW OH FRAMES: runs probe_options() frames through the upscaler Pipeline on
// the libcuda at LIBCUDA (whatever backend and native kernel set its environment selects), writes every
// frame's output (RGBA16F, packed) to OUT and prints "frame_ms T0 T1 ..." (launch to completion).
// A separate process because libd4rcuda reads D4R_NATIVE_KERNEL_DIR once, at its first call.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "harness.h"

using namespace d4r;
using namespace d4r::upscaler;

int main(int argc, char** argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: upscaler_probe LIBCUDA OUT RW RH OW OH FRAMES\n");
        return 2;
    }
    auto num = [&](int i) { return static_cast<uint32_t>(std::stoul(argv[i])); };
    test::RunOptions o = test::probe_options(num(3), num(4), num(5), num(6), num(7));
    auto cuda = load_cuda_functions(argv[1]);
    if (!cuda) {
        std::fprintf(stderr, "upscaler_probe: %s\n", cuda.error().text().c_str());
        return 1;
    }
    if (Status s = test::open_context(*cuda); !s) {
        std::fprintf(stderr, "upscaler_probe: %s\n", s.error().text().c_str());
        return 1;
    }
    std::ofstream out(argv[2], std::ios::binary);
    std::vector<double> ms;
    Status s = test::run_pipeline(
        *cuda, o,
        [&](uint32_t, const std::vector<uint16_t>& frame) {
            out.write(reinterpret_cast<const char*>(frame.data()), static_cast<std::streamsize>(frame.size() * 2));
        },
        &ms);
    if (!s) {
        std::fprintf(stderr, "upscaler_probe: %s\n", s.error().text().c_str());
        return 1;
    }
    std::printf("frame_ms");
    for (double v : ms) std::printf(" %.3f", v);
    std::printf("\n");
    return out.good() ? 0 : 1;
}
