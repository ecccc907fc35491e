// refine_probe [--fp8] LIBCUDA OUT WIDTH HEIGHT SEED [REPEATS [--layers]]: runs the refine network
// (RefinePipeline, the embedded PTX) with the deterministic test model random_model(SEED) (with --fp8 its
// refine-v1-fp8 variant, random_model(SEED, true): the H200 goldens refine-h200-fp8-*.bin) on test_image(WIDTH, HEIGHT,
// SEED) through the libcuda at LIBCUDA (d4r's on any backend, or NVIDIA's driver), writes the refined RGBA16F image to
// OUT and, with REPEATS > 0, prints "refine_ms MEDIAN MIN" over that many further passes (GPU time by events). With
// --layers it then times every launch of the plan on its own (an event pair around each) and prints
// "layer WHAT KERNEL MEDIAN_MS" per launch and "layers_sum_ms SUM" (the sum of the medians).
// tests/device/refine-network.sh runs it on the H200 (goldens, timing).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/log.h"
#include "harness.h"
#include "network/plan.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"

using namespace d4r;

namespace {

int fail(const std::string& what) {
    std::fprintf(stderr, "refine_probe: %s\n", what.c_str());
    return 1;
}

// Every launch of the plan timed on its own, with the modules loaded here from the same PTX (kernel_ptx(): only
// those the plan needs; a native kernel set serves them as it serves the pipeline's).
int profile_layers(const upscaler::CudaFunctions& cuda, const network::Model& model, abi::CUdeviceptr image, uint32_t w,
                   uint32_t h, int repeats) {
    using namespace network;
    std::vector<std::pair<const char*, abi::CUmodule>> modules; // by the PTX text's address
    std::vector<abi::CUfunction> functions(kAllKernels.size());
    for (Kernel k : plan_kernels(model.arch)) {
        const char* text = kernel_ptx(k).data();
        auto loaded = std::find_if(modules.begin(), modules.end(), [&](auto& m) { return m.first == text; });
        if (loaded == modules.end()) {
            abi::CUmodule module = nullptr;
            if (cuda.cuModuleLoadData(&module, text) != abi::CUDA_SUCCESS)
                return fail(std::string("cuModuleLoadData: the PTX of ") + kernel_name(k));
            loaded = modules.insert(modules.end(), {text, module});
        }
        if (cuda.cuModuleGetFunction(&functions[size_t(k)], loaded->second, kernel_name(k)) != abi::CUDA_SUCCESS)
            return fail(std::string("cuModuleGetFunction ") + kernel_name(k));
    }
    const Geometry g = geometry_for(w, h);
    const std::vector<uint8_t> weights = pack_weights(model);
    abi::CUdeviceptr memory = 0;
    if (cuda.cuMemAlloc_v2(&memory, weights.size() + scratch_layout(g).total) != abi::CUDA_SUCCESS)
        return fail("cuMemAlloc_v2 (layers)");
    cuda.cuMemcpyHtoD_v2(memory, weights.data(), weights.size());
    const std::vector<Launch> plan = plan_forward(g, image, w * 8, memory, memory + weights.size(), model.arch);
    std::vector<std::vector<float>> times(plan.size());
    abi::CUevent start = nullptr, stop = nullptr;
    cuda.cuEventCreate(&start, 0);
    cuda.cuEventCreate(&stop, 0);
    for (int r = 0; r < repeats; ++r)
        for (size_t i = 0; i < plan.size(); ++i) {
            const Launch& l = plan[i];
            void* args[] = {const_cast<uint8_t*>(l.params.data())};
            cuda.cuEventRecord(start, nullptr);
            if (cuda.cuLaunchKernel(functions[size_t(l.kernel)], l.grid[0], l.grid[1], l.grid[2], l.block[0],
                                    l.block[1], l.block[2], 0, nullptr, args, nullptr) != abi::CUDA_SUCCESS)
                return fail("cuLaunchKernel " + l.what);
            cuda.cuEventRecord(stop, nullptr);
            cuda.cuEventSynchronize(stop);
            float t = 0;
            cuda.cuEventElapsedTime(&t, start, stop);
            times[i].push_back(t);
        }
    double sum = 0;
    for (size_t i = 0; i < plan.size(); ++i) {
        std::sort(times[i].begin(), times[i].end());
        const float median = times[i][times[i].size() / 2];
        sum += median;
        std::printf("layer %-12s %-18s %.4f\n", plan[i].what.c_str(), kernel_name(plan[i].kernel), median);
    }
    std::printf("layers_sum_ms %.4f\n", sum);
    cuda.cuMemFree_v2(memory);
    for (auto& [text, module] : modules) cuda.cuModuleUnload(module);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    log::init_from_env(); // the pipeline's own lines (D4R_LOG), as in the NGX core
    // --fp8 first: the test model's refine-v1-fp8 variant.
    const bool fp8 = argc > 1 && std::string(argv[1]) == "--fp8";
    if (fp8) {
        argv[1] = argv[0];
        ++argv;
        --argc;
    }
    const bool layers = argc == 8 && std::string(argv[7]) == "--layers";
    if (argc < 6 || argc > 8 || (argc == 8 && !layers)) {
        std::fprintf(stderr, "usage: refine_probe [--fp8] LIBCUDA OUT WIDTH HEIGHT SEED [REPEATS [--layers]]\n");
        return 2;
    }
    const uint32_t w = static_cast<uint32_t>(std::stoul(argv[3])), h = static_cast<uint32_t>(std::stoul(argv[4]));
    const uint64_t seed = std::stoull(argv[5]);
    const int repeats = argc >= 7 ? std::stoi(argv[6]) : 0;
    auto cuda = upscaler::load_cuda_functions(argv[1]);
    if (!cuda) return fail(cuda.error().text());
    if (Status s = upscaler::test::open_context(*cuda); !s) return fail(s.error().text());
    const network::Model model = network::nettest::random_model(seed, fp8);
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
        if (layers) return profile_layers(*cuda, model, dev, w, h, repeats);
    }
    return 0;
}
