// d4r NGX shim: the conversions between a game's texture formats and the core's canonical layout on the GPU, for the
// data paths that keep the frame in memory CUDA reaches (the Vulkan VRAM path, the D3D12 mapped path). One thread
// per texel; the per-texel code is texels.h's, which the host paths run too, so both give the same bytes.
// Committed as convert.ptx (make-ptx.sh); embedded in the shim (gpu_convert.h).
#include "shim/texels.h"

using namespace d4r::shim;

using texels::ConvertParams;

// SRC: WIDTH x HEIGHT texels of FORMAT for PLANE -> DST: the plane's canonical texels.
extern "C" __global__ void d4r_shim_to_canonical(ConvertParams p) {
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= p.width || y >= p.height) return;
    const Plane plane = static_cast<Plane>(p.plane);
    const unsigned int in_bytes = static_cast<unsigned int>(texels::texel_bytes(p.format));
    const unsigned int out_bytes = plane == Plane::Color ? 8u : 4u;
    const auto* s = reinterpret_cast<const uint8_t*>(p.src) + static_cast<size_t>(y) * p.src_pitch + x * in_bytes;
    auto* d = reinterpret_cast<uint8_t*>(p.dst) + static_cast<size_t>(y) * p.dst_pitch + x * out_bytes;
    texels::to_canonical(plane, p.format, s, d, p.tables);
}

// SRC: WIDTH x HEIGHT canonical output texels (RGBA16F) -> DST: FORMAT.
extern "C" __global__ void d4r_shim_from_canonical(ConvertParams p) {
    const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= p.width || y >= p.height) return;
    const unsigned int out_bytes = static_cast<unsigned int>(texels::texel_bytes(p.format));
    const auto* s = reinterpret_cast<const uint8_t*>(p.src) + static_cast<size_t>(y) * p.src_pitch + x * 8u;
    auto* d = reinterpret_cast<uint8_t*>(p.dst) + static_cast<size_t>(y) * p.dst_pitch + x * out_bytes;
    texels::from_canonical(p.format, s, d, p.tables);
}
