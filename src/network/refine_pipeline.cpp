// The refine network over the CUDA driver API: the modules its plan needs, one allocation (weights, then work
// buffers).
#include "network/refine_pipeline.h"

#include <algorithm>

#include "core/log.h"
#include "kernels/upscaler/ptx/upscaler_math.h"
#include "network/plan.h"

namespace d4r::network {

using namespace abi;
using upscaler::cuda_error;

namespace {

// The module that defines a kernel: its embedded text and its file name (for errors).
struct Module {
    std::string_view (*ptx)();
    const char* file;
};
Module module_of(Kernel kernel) {
    switch (kernel) {
    case Kernel::LinearFp8:
        return {refine_fp8_ptx, "refine_fp8.ptx"};
    case Kernel::PixelFeatures:
    case Kernel::PixelBlend:
    case Kernel::LinearWide:
        return {refine_v2_ptx, "refine_v2.ptx"};
    case Kernel::Block:
    case Kernel::CoarseBlock:
    case Kernel::PixelEmbed:
    case Kernel::PixelHead:
        return {refine_block_ptx, "refine_block.ptx"};
    default:
        return {refine_ptx, "refine.ptx"};
    }
}

class CudaRefinePipeline final : public RefinePipeline {
public:
    CudaRefinePipeline(const upscaler::CudaFunctions& cuda, uint32_t max_width, uint32_t max_height)
        : m_cuda(cuda), m_max(geometry_for(max_width, max_height)) {}

    ~CudaRefinePipeline() override {
        bool pushed = m_context && m_cuda.cuCtxPushCurrent_v2(m_context) == CUDA_SUCCESS;
        if (m_memory) m_cuda.cuMemFree_v2(m_memory);
        for (auto& [text, module] : m_modules) m_cuda.cuModuleUnload(module);
        if (pushed) {
            CUcontext popped = nullptr;
            m_cuda.cuCtxPopCurrent_v2(&popped);
        }
    }

    Status init(const Model& model) {
        CUresult r = m_cuda.cuCtxGetCurrent(&m_context);
        if (r != CUDA_SUCCESS) return cuda_error(m_cuda, "cuCtxGetCurrent", r);
        if (!m_context) return make_error(ErrorCode::Invalid, "refine network: no current CUDA context");
        // Only the modules of the kernels the plan launches: refine_fp8.ptx (sm_89) only for refine-v1-fp8.
        for (Kernel k : plan_kernels(model.arch)) D4R_TRY(load(k));
        m_arch = model.arch;
        choose_layout();
        std::vector<uint8_t> weights = pack_weights(model);
        m_weight_bytes = weights.size();
        const uint64_t total = m_weight_bytes + scratch_layout(m_max, m_arch).total;
        r = m_cuda.cuMemAlloc_v2(&m_memory, total);
        if (r != CUDA_SUCCESS) {
            m_memory = 0;
            return cuda_error(m_cuda, "cuMemAlloc_v2", r).add_context(fmt::format("{} bytes", total));
        }
        r = m_cuda.cuMemcpyHtoD_v2(m_memory, weights.data(), weights.size());
        if (r != CUDA_SUCCESS) return cuda_error(m_cuda, "cuMemcpyHtoD_v2", r).add_context("uploading the weights");
        return ok_status();
    }

    // Each fusion of the plan (plan.h's PlanOptions) where a native kernel serves its kernel (refine_pipeline.h), said
    // once per process and reason. Nothing here fails the pipeline: whatever stands in the way of a fusion leaves the
    // unfused launches.
    void choose_layout() {
        const PlanOptions all{.fuse_blocks = true, .fuse_pixels = true, .fuse_coarse = true};
        const std::vector<Kernel> fused = plan_kernels(m_arch, all);
        auto in_plan = [&](Kernel k) { return std::find(fused.begin(), fused.end(), k) != fused.end(); };
        if (in_plan(Kernel::Block)) {
            std::string why;
            m_options.fuse_blocks = runs_native(Kernel::Block, why);
            if (m_options.fuse_blocks && log::once("refine network: fused"))
                log::info("refine network: fused blocks (d4r_nn_block runs a native kernel)");
            if (!m_options.fuse_blocks && log::once("refine network: unfused: " + why))
                log::info("refine network: unfused blocks (seven launches each): {}", why);
        }
        if (in_plan(Kernel::CoarseBlock)) {
            std::string why;
            m_options.fuse_coarse = runs_native(Kernel::CoarseBlock, why);
            if (m_options.fuse_coarse && log::once("refine network: fused coarse level"))
                log::info("refine network: fused coarse level (d4r_nn_coarse_block runs a native kernel)");
            if (!m_options.fuse_coarse && log::once("refine network: unfused coarse level: " + why))
                log::info("refine network: merge, the coarse block and expand as launches of their own: {}", why);
        }
        if (in_plan(Kernel::PixelEmbed)) {
            std::string why;
            m_options.fuse_pixels = runs_native(Kernel::PixelEmbed, why) && runs_native(Kernel::PixelHead, why);
            if (m_options.fuse_pixels && log::once("refine network: fused pixels"))
                log::info("refine network: fused pixel stages (d4r_nn_pixel_embed and d4r_nn_pixel_head run native "
                          "kernels)");
            if (!m_options.fuse_pixels && log::once("refine network: unfused pixels: " + why))
                log::info("refine network: pixel features and embed, head and blend as two launches each: {}", why);
        }
    }

    // Whether KERNEL (of a fused plan) runs a native kernel of the active set; if not, WHY.
    bool runs_native(Kernel kernel, std::string& why) {
        if (!m_cuda.d4rFuncIsNative) {
            why = "the CUDA library has no d4rFuncIsNative (not libd4rcuda)";
            return false;
        }
        if (Status loaded = load(kernel); !loaded) {
            why = loaded.error().text();
            return false;
        }
        int native = 0;
        if (CUresult r = m_cuda.d4rFuncIsNative(&native, m_functions[static_cast<size_t>(kernel)]); r != CUDA_SUCCESS) {
            why = cuda_error(m_cuda, "d4rFuncIsNative", r).text();
            return false;
        }
        if (native == 0) why = fmt::format("{} has no native kernel in the active kernel set", kernel_name(kernel));
        return native != 0;
    }

    // Loads the module defining KERNEL (once) and gets its function.
    Status load(Kernel k) {
        const char* text = kernel_ptx(k).data();
        auto loaded = std::find_if(m_modules.begin(), m_modules.end(), [&](auto& m) { return m.first == text; });
        if (loaded == m_modules.end()) {
            CUmodule module = nullptr;
            CUresult r = m_cuda.cuModuleLoadData(&module, text);
            if (r != CUDA_SUCCESS)
                return cuda_error(m_cuda, "cuModuleLoadData", r)
                    .add_context(fmt::format("the PTX of {} ({})", kernel_name(k), module_of(k).file));
            loaded = m_modules.insert(m_modules.end(), {text, module});
        }
        CUresult r = m_cuda.cuModuleGetFunction(&m_functions[static_cast<size_t>(k)], loaded->second, kernel_name(k));
        if (r != CUDA_SUCCESS) return cuda_error(m_cuda, kernel_name(k), r).add_context("cuModuleGetFunction");
        return ok_status();
    }

    Status refine(CUdeviceptr image, size_t pitch, uint32_t width, uint32_t height, CUstream stream,
                  const upscaler::math::Params* core) override {
        if (reads_core_frame(m_arch) && !core)
            return make_error(ErrorCode::Invalid, "refine network: {} needs the core's frame (its parameter block)",
                              m_arch);
        if (core && (core->output != image || core->output_w != width || core->output_h != height))
            return make_error(ErrorCode::Invalid,
                              "refine network: the core's frame wrote {}x{} at 0x{:x}, not the image {}x{} at 0x{:x}",
                              core->output_w, core->output_h, core->output, width, height, image);
        if (!image || width == 0 || height == 0)
            return make_error(ErrorCode::Invalid, "refine network: an empty image ({}x{} at 0x{:x})", width, height,
                              image);
        if (width > m_max.width || height > m_max.height)
            return make_error(ErrorCode::Invalid, "refine network: image {}x{} is larger than {}x{}", width, height,
                              m_max.width, m_max.height);
        if (pitch == 0) pitch = size_t(width) * 8;
        if (pitch < size_t(width) * 8 || pitch > UINT32_MAX)
            return make_error(ErrorCode::Invalid, "refine network: row pitch {} for {} RGBA16F pixels", pitch, width);
        const Geometry g = geometry_for(width, height);
        for (const Launch& l : plan_forward(g, image, static_cast<uint32_t>(pitch), m_memory, m_memory + m_weight_bytes,
                                            m_arch, core, m_options)) {
            void* args[] = {const_cast<uint8_t*>(l.params.data())};
            CUresult r = m_cuda.cuLaunchKernel(m_functions[static_cast<size_t>(l.kernel)], l.grid[0], l.grid[1],
                                               l.grid[2], l.block[0], l.block[1], l.block[2], 0, stream, args, nullptr);
            if (r != CUDA_SUCCESS)
                return cuda_error(m_cuda, "cuLaunchKernel", r)
                    .add_context(fmt::format("{} ({})", kernel_name(l.kernel), l.what));
        }
        return ok_status();
    }

private:
    upscaler::CudaFunctions m_cuda;
    Geometry m_max;
    CUcontext m_context = nullptr;
    std::vector<std::pair<const char*, CUmodule>> m_modules; // by the PTX text's address
    std::array<CUfunction, kAllKernels.size()> m_functions{};
    CUdeviceptr m_memory = 0;
    uint64_t m_weight_bytes = 0;
    std::string m_arch; // the model's architecture: which kernels the plan launches
    PlanOptions m_options;
};

} // namespace

std::string_view kernel_ptx(Kernel kernel) { return module_of(kernel).ptx(); }

Expected<std::unique_ptr<RefinePipeline>> RefinePipeline::create(const upscaler::CudaFunctions& cuda,
                                                                 const Model& model, uint32_t max_width,
                                                                 uint32_t max_height) {
    if (max_width == 0 || max_height == 0 || max_width > 16384 || max_height > 16384)
        return make_error(ErrorCode::Invalid, "refine network: image size {}x{} (accepted: 1..16384)", max_width,
                          max_height);
    auto p = std::make_unique<CudaRefinePipeline>(cuda, max_width, max_height);
    D4R_TRY_CTX(p->init(model), "creating the refine network");
    return std::unique_ptr<RefinePipeline>(std::move(p));
}

} // namespace d4r::network
