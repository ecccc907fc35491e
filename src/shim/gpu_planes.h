// d4r NGX shim: the planes a data path converts on the GPU (gpu_convert.h) — their canonical CUDA buffers and one
// frame's conversions — shared by the paths whose frame is in memory CUDA reaches (the Vulkan VRAM path, the D3D12
// mapped path).
//
// Promise: `ensure` loads the conversions on first use and grows the canonical buffer of each plane to the bytes
// asked (0: the plane is not converted); once the conversions could not load, it and every later call refuse with
// ErrorCode::Unsupported and the reason (the caller then sends such frames to its host path). `convert_inputs` queues
// the conversions of the inputs, `convert_output` that of the output, on the null stream (the core's), nothing
// waiting. Everything but the constructor runs on the CUDA worker (the feature's context current), `release` too.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>

#include "core/status.h"
#include "shim/data_path.h"
#include "shim/formats.h"
#include "shim/gpu_convert.h"
#include "upscaler/cuda_functions.h"

namespace d4r::shim {

// One plane's conversion in a frame: WIDTH x HEIGHT texels between the game's FORMAT at GAME (rows GAME_PITCH bytes
// apart) and the canonical layout at CANONICAL (rows CANONICAL_PITCH apart): to canonical for an input, from it for
// the output.
struct PlaneConversion {
    Plane plane = Plane::Color;
    uint32_t format = 0, width = 0, height = 0;
    abi::CUdeviceptr game = 0, canonical = 0;
    size_t game_pitch = 0, canonical_pitch = 0;
};

class GpuPlanes {
public:
    static constexpr int kPlanes = 5; // indexed by Plane

    explicit GpuPlanes(const upscaler::CudaFunctions& cuda) : m_cuda(cuda) {}
    ~GpuPlanes() = default; // release() first, on the worker
    GpuPlanes(const GpuPlanes&) = delete;
    GpuPlanes& operator=(const GpuPlanes&) = delete;

    // The canonical bytes plane P of R takes: R's rows (GameResource::row) of canonical texels, at least 16.
    static size_t canonical_bytes(Plane p, const GameResource& r);
    // True when `ensure(bytes)` has nothing to do (loaded, every buffer large enough): the caller then need not go
    // to the worker. Read where `ensure` is called from, never while it runs.
    bool ready_for(const std::array<size_t, kPlanes>& bytes) const;
    Status ensure(const std::array<size_t, kPlanes>& bytes);
    // Plane P of R converted between GAME (rows GAME_PITCH bytes apart) and its canonical buffer (after `ensure`);
    // the first time for a plane and format, PATH's log line says so (with NOTE after the format, when given).
    PlaneConversion conversion(const char* path, Plane p, const GameResource& r, abi::CUdeviceptr game,
                               size_t game_pitch, const char* note = nullptr) const;
    abi::CUdeviceptr canonical(Plane plane) const { return m_buffers[static_cast<int>(plane)].pointer; }
    Status convert_inputs(std::span<const PlaneConversion> conversions) const;
    Status convert_output(std::span<const PlaneConversion> conversions) const;
    void release();

private:
    struct Buffer {
        abi::CUdeviceptr pointer = 0;
        size_t bytes = 0;
    };
    const upscaler::CudaFunctions& m_cuda;
    std::unique_ptr<GpuConvert> m_convert;
    std::string m_refusal;
    std::array<Buffer, kPlanes> m_buffers{};
};

} // namespace d4r::shim
