// d4r NGX shim: how one evaluation's inputs get from the game's resources into CUDA memory in the core's
// canonical formats, and the core's output back into the game's output texture.
//
// Promise: no graphics-API type appears here: resources and command lists are opaque handles that the API's
// part (d3d12/, vulkan/) gives meaning to. A DataPath is one way of doing that for one feature. The
// feature hands it the game's command list,
// the frame's resources and regions (GameFrame, already validated: non-null resources of accepted formats,
// regions inside them) and a CoreCall; the path makes the inputs available in CUDA memory (CudaFrame:
// colour RGBA16F and depth R32F at the render size, motion RG16F at the render size or the output size,
// exposure one R32F, output RGBA16F at the output size; each region at the buffer's start, in rows of
// GameResource::row_texels texels — the created size, where an NGX core expects them when the render size
// is smaller), calls CORE on the CUDA worker, and
// puts the output into the game's texture so that what the game records after the evaluation sees it.
// The host path (d3d12/host_path.h over host_staging.h) reads back and uploads through the CPU and works on any
// D3D12; the Vulkan VRAM path (vulkan/vram_path.h: memory shared between Vulkan and CUDA) implements the same
// interface, asynchronously (it records, and the core runs once the game has submitted).
#pragma once

#include <cstdint>
#include <functional>

#include "abi/cuda.h"
#include "core/status.h"

namespace d4r::shim {

// What the game passed: an ID3D12Resource* or ID3D12GraphicsCommandList* for D3D12 (d3d12/resources.h).
struct OpaqueResource;
struct OpaqueCommandList;
using ResourceHandle = OpaqueResource*;
using CommandListHandle = OpaqueCommandList*;

struct Region {
    uint32_t x = 0, y = 0, width = 0, height = 0;
};

struct GameResource {
    ResourceHandle resource = nullptr;
    uint32_t format = 0;     // the resource's format as a DXGI_FORMAT (formats.h)
    Region region;           // the texels the core reads (inputs) or the shim writes (output)
    uint32_t row_texels = 0; // texels per row of its CUDA buffer (at least region.width; 0: region.width)

    uint32_t row() const { return row_texels ? row_texels : region.width; } // row_texels, 0 read as region.width
};

struct GameFrame {
    GameResource color, depth, motion, exposure, output; // exposure.resource may be null (no texture)
};

struct CudaFrame {
    abi::CUdeviceptr color = 0, depth = 0, motion = 0, exposure = 0, output = 0; // exposure 0 when absent
};

// Runs on the CUDA worker, with the feature's context current.
using CoreCall = std::function<Status(const CudaFrame&)>;

class DataPath {
public:
    virtual ~DataPath() = default;
    virtual const char* name() const = 0;
    // True when `evaluate` only records and queues the work: the core runs later on the worker, so the caller learns
    // nothing of its outcome (the CoreCall must log what it needs to say itself).
    virtual bool asynchronous() const { return false; }
    virtual Status evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) = 0;
};

} // namespace d4r::shim
