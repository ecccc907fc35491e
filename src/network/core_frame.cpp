// refine-v2's core frame for checks (core_frame.h).
#include "network/core_frame.h"

#include <algorithm>

#include "kernels/common/f16.h"
#include "network/test_model.h"
#include "upscaler/pipeline.h"

namespace d4r::network {

namespace up = upscaler;
using namespace abi;

namespace {

// Device buffers freed however the run ends.
struct DeviceBuffers {
    const up::CudaFunctions& cuda;
    std::vector<CUdeviceptr> held;
    explicit DeviceBuffers(const up::CudaFunctions& c) : cuda(c) {}
    DeviceBuffers(const DeviceBuffers&) = delete;
    DeviceBuffers& operator=(const DeviceBuffers&) = delete;
    ~DeviceBuffers() {
        for (CUdeviceptr p : held) cuda.cuMemFree_v2(p);
    }
    Expected<CUdeviceptr> upload(const void* bytes, size_t size) {
        CUdeviceptr p = 0;
        if (CUresult r = cuda.cuMemAlloc_v2(&p, size); r != CUDA_SUCCESS) return up::cuda_error(cuda, "cuMemAlloc", r);
        held.push_back(p);
        if (bytes) {
            if (CUresult r = cuda.cuMemcpyHtoD_v2(p, bytes, size); r != CUDA_SUCCESS)
                return up::cuda_error(cuda, "cuMemcpyHtoD", r);
        }
        return p;
    }
};

} // namespace

Status with_core_frame(const up::CudaFunctions& cuda, uint32_t width, uint32_t height, uint64_t seed,
                       const std::function<Status(const up::math::Params&)>& use) {
    const uint32_t rw = std::max(width / 2, 1u), rh = std::max(height / 2, 1u);
    up::PipelineConfig config;
    config.render_width = rw;
    config.render_height = rh;
    config.output_width = width;
    config.output_height = height;
    config.hdr = true;
    config.keep_network_inputs = true; // as the NGX core runs it before refine-v2
    auto pipeline = D4R_TRY(up::Pipeline::create(cuda, config));
    const size_t n = size_t(rw) * rh;
    const std::vector<uint16_t> colour = nettest::test_image(rw, rh, seed);
    std::vector<float> depth(n);
    std::vector<uint16_t> motion(n * 2);
    for (size_t i = 0; i < n; ++i) {
        depth[i] = 0.2f + 0.6f * float(i % rw) / float(rw) + 0.1f * float(i / rw) / float(rh);
        motion[2 * i] = kernels::float_to_half(0.75f);
        motion[2 * i + 1] = kernels::float_to_half(-0.5f);
    }
    DeviceBuffers buffers(cuda);
    up::FrameParams frame;
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
            return up::cuda_error(cuda, "cuCtxSynchronize after the core", r);
    }
    const up::math::Params* core = pipeline->frame_params();
    if (!core) return make_error(ErrorCode::Internal, "the core gave no frame parameters after evaluating");
    return use(*core);
}

Expected<CoreFrame> copy_core_frame(const up::CudaFunctions& cuda, const up::math::Params& params) {
    CoreFrame frame;
    frame.params = params;
    for (uint64_t up::math::Params::* field : kCoreBufferFields) {
        const uint64_t p = params.*field;
        if (p == 0) continue;
        const bool known = std::any_of(frame.buffers.begin(), frame.buffers.end(), [p](const CoreFrame::Buffer& b) {
            return p >= b.address && p < b.address + b.bytes.size();
        });
        if (known) continue;
        CUdeviceptr base = 0;
        size_t size = 0;
        if (CUresult r = cuda.cuMemGetAddressRange_v2(&base, &size, p); r != CUDA_SUCCESS)
            return up::cuda_error(cuda, "cuMemGetAddressRange of a core buffer", r);
        CoreFrame::Buffer b{base, std::vector<uint8_t>(size)};
        if (CUresult r = cuda.cuMemcpyDtoH_v2(b.bytes.data(), base, size); r != CUDA_SUCCESS)
            return up::cuda_error(cuda, "cuMemcpyDtoH of a core buffer", r);
        frame.buffers.push_back(std::move(b));
    }
    return frame;
}

} // namespace d4r::network
