// d4r NGX shim: texels.h's format conversions on the GPU, for the data paths whose frame is in memory CUDA reaches
// (the Vulkan VRAM path, the D3D12 mapped path), so that a game's R11G11B10F colour, D24S8 depth or RGBA8 output does
// not send the frame through the CPU.
//
// Promise: `load` loads the embedded module (convert_ptx(), made from ptx/convert.cu) into the current context and
// finds its two kernels; `to_canonical` and `from_canonical` queue one thread per texel on STREAM (nothing waits)
// and give the bytes formats.h's convert_to_canonical and convert_from_canonical give on the host for the same
// texels (the same texels.h code; tests/integration/shim_convert_test.cpp holds them together on the cpu backend).
// A format the plane does not take is refused (ErrorCode::Unsupported) before anything is queued. Use and destroy
// it on the thread where its context is current (the shim's CUDA worker); the destructor unloads the module.
#pragma once

#include <memory>
#include <string_view>

#include "core/status.h"
#include "shim/formats.h"
#include "upscaler/cuda_functions.h"

namespace d4r::shim {

std::string_view convert_ptx(); // generated from ptx/convert.ptx (src/shim/CMakeLists.txt)

class GpuConvert {
public:
    static Expected<std::unique_ptr<GpuConvert>> load(const upscaler::CudaFunctions& cuda);
    ~GpuConvert();
    GpuConvert(const GpuConvert&) = delete;
    GpuConvert& operator=(const GpuConvert&) = delete;

    // WIDTH x HEIGHT texels of FORMAT for input PLANE at SRC (rows SRC_PITCH bytes apart) -> the plane's canonical
    // texels at DST (rows DST_PITCH apart).
    Status to_canonical(Plane plane, uint32_t format, abi::CUdeviceptr src, size_t src_pitch, uint32_t width,
                        uint32_t height, abi::CUdeviceptr dst, size_t dst_pitch, abi::CUstream stream) const;
    // WIDTH x HEIGHT RGBA16F texels at SRC -> the output FORMAT at DST.
    Status from_canonical(uint32_t format, abi::CUdeviceptr src, size_t src_pitch, uint32_t width, uint32_t height,
                          abi::CUdeviceptr dst, size_t dst_pitch, abi::CUstream stream) const;

private:
    explicit GpuConvert(const upscaler::CudaFunctions& cuda) : m_cuda(cuda) {}
    Status launch(abi::CUfunction f, const void* params, uint32_t width, uint32_t height, abi::CUstream stream,
                  const char* what) const;

    const upscaler::CudaFunctions& m_cuda;
    abi::CUmodule m_module = nullptr;
    abi::CUfunction m_to = nullptr, m_from = nullptr;
};

} // namespace d4r::shim
