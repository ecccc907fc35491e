// texels.h's conversions on the GPU (gpu_convert.h).
#include "shim/gpu_convert.h"

#include <string>

#include "shim/texels.h"

namespace d4r::shim {

using namespace abi;

namespace {

texels::ConvertParams params(Plane plane, uint32_t format, CUdeviceptr src, size_t src_pitch, uint32_t width,
                             uint32_t height, CUdeviceptr dst, size_t dst_pitch) {
    texels::ConvertParams p;
    p.src = src;
    p.dst = dst;
    p.src_pitch = static_cast<uint32_t>(src_pitch);
    p.dst_pitch = static_cast<uint32_t>(dst_pitch);
    p.width = width;
    p.height = height;
    p.plane = static_cast<uint32_t>(plane);
    p.format = format;
    p.tables = texels::host_tables();
    return p;
}

} // namespace

Expected<std::unique_ptr<GpuConvert>> GpuConvert::load(const upscaler::CudaFunctions& cuda) {
    std::unique_ptr<GpuConvert> c(new GpuConvert(cuda));
    const std::string ptx(convert_ptx()); // NUL-terminated for cuModuleLoadData
    if (CUresult r = cuda.cuModuleLoadData(&c->m_module, ptx.c_str()); r != CUDA_SUCCESS)
        return upscaler::cuda_error(cuda, "cuModuleLoadData of the shim's conversion kernels", r);
    if (CUresult r = cuda.cuModuleGetFunction(&c->m_to, c->m_module, "d4r_shim_to_canonical"); r != CUDA_SUCCESS)
        return upscaler::cuda_error(cuda, "cuModuleGetFunction d4r_shim_to_canonical", r);
    if (CUresult r = cuda.cuModuleGetFunction(&c->m_from, c->m_module, "d4r_shim_from_canonical"); r != CUDA_SUCCESS)
        return upscaler::cuda_error(cuda, "cuModuleGetFunction d4r_shim_from_canonical", r);
    return c;
}

GpuConvert::~GpuConvert() {
    if (m_module) m_cuda.cuModuleUnload(m_module);
}

Status GpuConvert::launch(CUfunction f, const void* params, uint32_t width, uint32_t height, CUstream stream,
                          const char* what) const {
    constexpr uint32_t kBlock = 16;
    if (width == 0 || height == 0) return {};
    void* args[] = {const_cast<void*>(params)};
    if (CUresult r = m_cuda.cuLaunchKernel(f, (width + kBlock - 1) / kBlock, (height + kBlock - 1) / kBlock, 1, kBlock,
                                           kBlock, 1, 0, stream, args, nullptr);
        r != CUDA_SUCCESS)
        return upscaler::cuda_error(m_cuda, what, r);
    return {};
}

Status GpuConvert::to_canonical(Plane plane, uint32_t format, CUdeviceptr src, size_t src_pitch, uint32_t width,
                                uint32_t height, CUdeviceptr dst, size_t dst_pitch, CUstream stream) const {
    if (plane == Plane::Output || !accepted(plane, format))
        return make_error(ErrorCode::Unsupported, "the {} plane does not take {}", plane_name(plane),
                          format_name(format));
    const texels::ConvertParams p = params(plane, format, src, src_pitch, width, height, dst, dst_pitch);
    return launch(m_to, &p, width, height, stream, "cuLaunchKernel d4r_shim_to_canonical");
}

Status GpuConvert::from_canonical(uint32_t format, CUdeviceptr src, size_t src_pitch, uint32_t width, uint32_t height,
                                  CUdeviceptr dst, size_t dst_pitch, CUstream stream) const {
    if (!accepted(Plane::Output, format))
        return make_error(ErrorCode::Unsupported, "the Output plane does not take {}", format_name(format));
    const texels::ConvertParams p = params(Plane::Output, format, src, src_pitch, width, height, dst, dst_pitch);
    return launch(m_from, &p, width, height, stream, "cuLaunchKernel d4r_shim_from_canonical");
}

} // namespace d4r::shim
