// The upscaler pipeline over the CUDA driver API (see pipeline.h): the embedded PTX loaded into the
// caller's current context, one allocation for every work buffer, the launch plan of frame_setup.h.
#include "upscaler/pipeline.h"

#include "core/log.h"

#include "upscaler/embedded_ptx.h"
#include "upscaler/frame_setup.h"

namespace d4r::upscaler {

using namespace abi;

namespace {

class CudaPipeline final : public Pipeline {
public:
    CudaPipeline(const CudaFunctions& cuda, const PipelineConfig& config) : m_cuda(cuda), m_config(config) {}

    ~CudaPipeline() override {
        // Free in our own context, whatever is current on the calling thread.
        bool pushed = m_context && m_cuda.cuCtxPushCurrent_v2(m_context) == CUDA_SUCCESS;
        if (m_memory) m_cuda.cuMemFree_v2(m_memory);
        if (m_module) m_cuda.cuModuleUnload(m_module);
        if (m_replacement) m_cuda.cuModuleUnload(m_replacement);
        if (pushed) {
            CUcontext popped = nullptr;
            m_cuda.cuCtxPopCurrent_v2(&popped);
        }
    }

    Status init(std::string_view replacement_ptx) {
        CUresult r = m_cuda.cuCtxGetCurrent(&m_context);
        if (r != CUDA_SUCCESS) return cuda_error(m_cuda, "cuCtxGetCurrent", r);
        if (!m_context) return make_error(ErrorCode::Invalid, "upscaler: no current CUDA context");
        std::string_view ptx = upscaler_ptx();
        r = m_cuda.cuModuleLoadData(&m_module, ptx.data());
        if (r != CUDA_SUCCESS) {
            m_module = nullptr;
            return cuda_error(m_cuda, "cuModuleLoadData(upscaler.ptx)", r);
        }
        if (!replacement_ptx.empty()) {
            r = m_cuda.cuModuleLoadData(&m_replacement, replacement_ptx.data());
            if (r != CUDA_SUCCESS) {
                m_replacement = nullptr;
                return cuda_error(m_cuda, "cuModuleLoadData(replacement PTX)", r);
            }
        }
        for (KernelId k : kAllKernels) {
            CUfunction& f = m_functions[static_cast<size_t>(k)];
            if (m_replacement && m_cuda.cuModuleGetFunction(&f, m_replacement, kernel_name(k)) == CUDA_SUCCESS)
                continue;
            r = m_cuda.cuModuleGetFunction(&f, m_module, kernel_name(k));
            if (r != CUDA_SUCCESS) return cuda_error(m_cuda, kernel_name(k), r).add_context("cuModuleGetFunction");
        }
        m_layout = buffer_layout(m_config);
        r = m_cuda.cuMemAlloc_v2(&m_memory, m_layout.total);
        if (r != CUDA_SUCCESS) {
            m_memory = 0;
            return cuda_error(m_cuda, "cuMemAlloc_v2", r);
        }
        r = m_cuda.cuMemsetD8_v2(m_memory, 0, m_layout.total);
        if (r != CUDA_SUCCESS) return cuda_error(m_cuda, "cuMemsetD8_v2", r);
        m_buffers = work_buffers_at(m_memory, m_layout);
        return ok_status();
    }

    Status evaluate(const FrameParams& frame, CUstream stream) override {
        D4R_TRY(validate_frame(m_config, frame));
        D4R_TRY(check_buffers(frame));
        math::Params params = make_params(m_config, frame, m_state, m_buffers);
        m_last = params;
        m_evaluated = false;
        for (const PlannedLaunch& l : plan_launches(params)) {
            void* args[] = {&params};
            CUresult r = m_cuda.cuLaunchKernel(m_functions[static_cast<size_t>(l.kernel)], l.shape.grid[0],
                                               l.shape.grid[1], l.shape.grid[2], l.shape.block[0], l.shape.block[1],
                                               l.shape.block[2], 0, stream, args, nullptr);
            if (r != CUDA_SUCCESS) return cuda_error(m_cuda, "cuLaunchKernel", r).add_context(kernel_name(l.kernel));
        }
        advance(m_state, frame);
        m_evaluated = true;
        return ok_status();
    }

    const PipelineConfig& config() const override { return m_config; }
    const math::Params* frame_params() const override { return m_evaluated ? &m_last : nullptr; }

private:
    // Every caller buffer the frame touches lies inside one live CUDA allocation or one range of page-locked host
    // memory mapped for the device (cuMemHostRegister or cuMemHostAlloc with DEVICEMAP: the NGX shim's D3D12 mapped
    // path), or nothing is queued: a kernel running off a too-small, freed or unmapped host buffer would fault and
    // poison the game's context.
    Status check_buffers(const FrameParams& frame) const {
        if (!m_cuda.cuMemGetAddressRange_v2) {
            if (log::once("upscaler-no-address-range"))
                log::warn("upscaler: the CUDA library has no cuMemGetAddressRange_v2: the game's buffers are not "
                          "checked against their allocations");
            return ok_status();
        }
        for (const BufferExtent& e : buffer_extents(m_config, frame)) {
            CUdeviceptr base = 0;
            size_t size = 0;
            CUresult r = m_cuda.cuMemGetAddressRange_v2(&base, &size, e.start);
            if (r != CUDA_SUCCESS && mapped_host_range(e.start, base, size)) r = CUDA_SUCCESS;
            if (r != CUDA_SUCCESS)
                return make_error(ErrorCode::Invalid, "{}: 0x{:x} is not inside a CUDA allocation ({})", e.name,
                                  e.start, cuda_error(m_cuda, "cuMemGetAddressRange_v2", r).message());
            if (e.start < base || e.bytes > size - (e.start - base))
                return make_error(ErrorCode::Invalid,
                                  "{}: the frame uses {} bytes from 0x{:x}, past the end of its allocation "
                                  "[0x{:x}, +{})",
                                  e.name, e.bytes, e.start, base, size);
        }
        return ok_status();
    }

    // The page-locked host range mapped for the device that holds PTR (cuMemGetAddressRange answers only for
    // allocations): its memory type is host and CUDA knows its extent.
    bool mapped_host_range(CUdeviceptr ptr, CUdeviceptr& base, size_t& size) const {
        if (!m_cuda.cuPointerGetAttribute) return false;
        unsigned type = 0;
        return m_cuda.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr) == CUDA_SUCCESS &&
               type == CU_MEMORYTYPE_HOST &&
               m_cuda.cuPointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr) == CUDA_SUCCESS &&
               m_cuda.cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr) == CUDA_SUCCESS;
    }

    CudaFunctions m_cuda;
    PipelineConfig m_config;
    CUcontext m_context = nullptr;
    CUmodule m_module = nullptr;
    CUmodule m_replacement = nullptr; // Pipeline::create's replacement PTX, when given
    std::array<CUfunction, kAllKernels.size()> m_functions{};
    CUdeviceptr m_memory = 0;
    BufferLayout m_layout;
    WorkBuffers m_buffers;
    SequenceState m_state;
    math::Params m_last{}; // the last evaluate()'s parameter block (valid when m_evaluated)
    bool m_evaluated = false;
};

} // namespace

Expected<std::unique_ptr<Pipeline>> Pipeline::create(const CudaFunctions& cuda, const PipelineConfig& config,
                                                     std::string_view replacement_ptx) {
    D4R_TRY(validate_config(config));
    auto p = std::make_unique<CudaPipeline>(cuda, config);
    D4R_TRY_CTX(p->init(replacement_ptx), "creating the upscaler pipeline");
    return std::unique_ptr<Pipeline>(std::move(p));
}

} // namespace d4r::upscaler
