// d4r kernels check's core frame for refine-v2 (kernels_check_core.h).
#include "kernels_check_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "core/files.h"
#include "kernels/common/f16.h"
#include "kernelset/kernel_set.h"
#include "network/refine_pipeline.h"
#include "network/test_model.h"
#include "upscaler/pipeline.h"

namespace d4r::cli {

namespace fs = std::filesystem;
using namespace abi;

namespace {

// Device buffers freed however the run ends.
struct DeviceBuffers {
    const upscaler::CudaFunctions& cuda;
    std::vector<CUdeviceptr> held;
    explicit DeviceBuffers(const upscaler::CudaFunctions& c) : cuda(c) {}
    DeviceBuffers(const DeviceBuffers&) = delete;
    DeviceBuffers& operator=(const DeviceBuffers&) = delete;
    ~DeviceBuffers() {
        for (CUdeviceptr p : held) cuda.cuMemFree_v2(p);
    }
    Expected<CUdeviceptr> upload(const void* bytes, size_t size) {
        CUdeviceptr p = 0;
        if (CUresult r = cuda.cuMemAlloc_v2(&p, size); r != CUDA_SUCCESS)
            return upscaler::cuda_error(cuda, "cuMemAlloc", r);
        held.push_back(p);
        if (bytes) {
            if (CUresult r = cuda.cuMemcpyHtoD_v2(p, bytes, size); r != CUDA_SUCCESS)
                return upscaler::cuda_error(cuda, "cuMemcpyHtoD", r);
        }
        return p;
    }
};

} // namespace

Expected<network::LayerTrace> trace_after_core(const upscaler::CudaFunctions& cuda, const network::Model& model,
                                               uint32_t width, uint32_t height, uint64_t seed) {
    const uint32_t rw = std::max(width / 2, 1u), rh = std::max(height / 2, 1u);
    upscaler::PipelineConfig config;
    config.render_width = rw;
    config.render_height = rh;
    config.output_width = width;
    config.output_height = height;
    config.hdr = true;
    auto pipeline = D4R_TRY(upscaler::Pipeline::create(cuda, config));
    const size_t n = size_t(rw) * rh;
    const std::vector<uint16_t> colour = network::nettest::test_image(rw, rh, seed);
    std::vector<float> depth(n);
    std::vector<uint16_t> motion(n * 2);
    for (size_t i = 0; i < n; ++i) {
        depth[i] = 0.2f + 0.6f * float(i % rw) / float(rw) + 0.1f * float(i / rw) / float(rh);
        motion[2 * i] = kernels::float_to_half(0.75f);
        motion[2 * i + 1] = kernels::float_to_half(-0.5f);
    }
    DeviceBuffers buffers(cuda);
    upscaler::FrameParams frame;
    frame.color = D4R_TRY(buffers.upload(colour.data(), colour.size() * 2));
    frame.depth = D4R_TRY(buffers.upload(depth.data(), depth.size() * 4));
    frame.motion = D4R_TRY(buffers.upload(motion.data(), motion.size() * 2));
    frame.output = D4R_TRY(buffers.upload(nullptr, size_t(width) * height * 8));
    frame.render_width = rw;
    frame.render_height = rh;
    const float jitter[3][2] = {{0.25f, -0.25f}, {-0.25f, 0.25f}, {0.125f, 0.375f}};
    for (int t = 0; t < 3; ++t) {
        frame.jitter_x = jitter[t][0];
        frame.jitter_y = jitter[t][1];
        frame.reset = t == 0;
        D4R_TRY(pipeline->evaluate(frame, nullptr));
        if (CUresult r = cuda.cuCtxSynchronize(); r != CUDA_SUCCESS)
            return upscaler::cuda_error(cuda, "cuCtxSynchronize after the core", r);
    }
    const upscaler::math::Params* core = pipeline->frame_params();
    if (!core) return make_error(ErrorCode::Internal, "the core gave no frame parameters after evaluating");
    return network::trace_forward_after_core(cuda, model, *core, network::kernel_ptx);
}

Status network_only_root(const fs::path& root, const fs::path& dst) {
    std::error_code ec;
    size_t sets = 0;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_directory() || !kernels::has_manifest(it->path())) continue;
        const fs::path out = dst / fs::relative(it->path(), root);
        fs::create_directories(out, ec);
        if (ec) return make_error(ErrorCode::Io, "creating {}: {}", out.string(), ec.message());
        std::string manifest = D4R_TRY(read_text_file(it->path() / kernels::kManifestFileName));
        std::string kept;
        size_t at = 0;
        while (at < manifest.size()) {
            size_t end = manifest.find('\n', at);
            if (end == std::string::npos) end = manifest.size();
            const std::string line = manifest.substr(at, end - at);
            if (line.empty() || line[0] == '#' || line.rfind("d4r_nn_", 0) == 0) kept += line + "\n";
            at = end + 1;
        }
        D4R_TRY(write_file_atomic(out / kernels::kManifestFileName, std::string_view(kept)));
        for (const fs::directory_entry& f : fs::directory_iterator(it->path(), ec)) {
            const std::string name = f.path().filename().string();
            if (!f.is_regular_file() || (name.rfind("d4r_nn_", 0) != 0 && name != kernels::kAccuracyMarkerFileName))
                continue;
            fs::copy_file(f.path(), out / name, fs::copy_options::overwrite_existing, ec);
            if (ec) return make_error(ErrorCode::Io, "copying {}: {}", f.path().string(), ec.message());
        }
        ++sets;
    }
    if (ec) return make_error(ErrorCode::Io, "reading {}: {}", root.string(), ec.message());
    if (sets == 0)
        return make_error(ErrorCode::NotFound, "{} holds no kernel set (no {})", root.string(),
                          kernels::kManifestFileName);
    return {};
}

} // namespace d4r::cli
