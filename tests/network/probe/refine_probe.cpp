// refine_probe LIBCUDA OUT WIDTH HEIGHT SEED [REPEATS]: runs the refine network (RefinePipeline, the embedded
// PTX) with the deterministic test model random_model(SEED) on test_image(WIDTH, HEIGHT, SEED) through the
// libcuda at LIBCUDA (d4r's on any backend, or NVIDIA's driver), writes the refined RGBA16F image to OUT and,
// with REPEATS > 0, prints "refine_ms MEDIAN MIN" over that many further passes (GPU time by events).
// tests/device/refine-golden.sh runs it on the H200 to make the committed goldens.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "harness.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"

using namespace d4r;

namespace {

int fail(const std::string& what) {
    std::fprintf(stderr, "refine_probe: %s\n", what.c_str());
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 6 && argc != 7) {
        std::fprintf(stderr, "usage: refine_probe LIBCUDA OUT WIDTH HEIGHT SEED [REPEATS]\n");
        return 2;
    }
    const uint32_t w = static_cast<uint32_t>(std::stoul(argv[3])), h = static_cast<uint32_t>(std::stoul(argv[4]));
    const uint64_t seed = std::stoull(argv[5]);
    const int repeats = argc == 7 ? std::stoi(argv[6]) : 0;
    auto cuda = upscaler::load_cuda_functions(argv[1]);
    if (!cuda) return fail(cuda.error().text());
    if (Status s = upscaler::test::open_context(*cuda); !s) return fail(s.error().text());
    const network::Model model = network::nettest::random_model(seed);
    const std::vector<uint16_t> image = network::nettest::test_image(w, h, seed);
    auto pipeline = network::RefinePipeline::create(*cuda, model, w, h);
    if (!pipeline) return fail(pipeline.error().text());
    abi::CUdeviceptr dev = 0;
    const size_t bytes = image.size() * 2;
    if (cuda->cuMemAlloc_v2(&dev, bytes) != abi::CUDA_SUCCESS) return fail("cuMemAlloc_v2");
    if (cuda->cuMemcpyHtoD_v2(dev, image.data(), bytes) != abi::CUDA_SUCCESS) return fail("cuMemcpyHtoD_v2");
    if (Status s = (*pipeline)->refine(dev, 0, w, h, nullptr); !s) return fail(s.error().text());
    std::vector<uint16_t> out(image.size());
    if (cuda->cuCtxSynchronize() != abi::CUDA_SUCCESS) return fail("cuCtxSynchronize");
    if (cuda->cuMemcpyDtoH_v2(out.data(), dev, bytes) != abi::CUDA_SUCCESS) return fail("cuMemcpyDtoH_v2");
    std::ofstream(argv[2], std::ios::binary).write(reinterpret_cast<const char*>(out.data()), std::streamsize(bytes));
    if (repeats > 0) {
        abi::CUevent start = nullptr, stop = nullptr;
        cuda->cuEventCreate(&start, 0);
        cuda->cuEventCreate(&stop, 0);
        std::vector<float> ms;
        for (int i = 0; i < repeats; ++i) {
            cuda->cuEventRecord(start, nullptr);
            if (Status s = (*pipeline)->refine(dev, 0, w, h, nullptr); !s) return fail(s.error().text());
            cuda->cuEventRecord(stop, nullptr);
            cuda->cuEventSynchronize(stop);
            float t = 0;
            cuda->cuEventElapsedTime(&t, start, stop);
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("refine_ms %.4f %.4f\n", ms[ms.size() / 2], ms[0]);
    }
    return 0;
}
