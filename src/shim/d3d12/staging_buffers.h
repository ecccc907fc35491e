// d4r NGX shim, D3D12: what both D3D12 data paths (d3d12/host_path.h, d3d12/mapped_path.h) use to move a frame
// between the game's textures and buffers the CPU can map: the frame's input planes in order, readback and upload
// buffers kept from frame to frame, where a texture lands in a buffer, and state transitions.
//
// Promise: `HeapBuffer::ensure` keeps a buffer of at least the size asked for (a new one when it must grow: the old
// one is released, so anything that refers to its memory must let go first).
// `footprint_of` is D3D12's own placement (GetCopyableFootprints) of subresource 0.
#pragma once

#include <d3d12.h>

#include <array>
#include <span>

#include "core/status.h"
#include "shim/data_path.h"
#include "shim/formats.h"

namespace d4r::shim::d3d12 {

inline constexpr D3D12_RESOURCE_STATES kInputState = D3D12_RESOURCE_STATES(
    int(D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE) | int(D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE));
inline constexpr D3D12_RESOURCE_STATES kOutputState = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;

// The inputs in the order the data paths keep them: colour, depth, motion, exposure.
inline constexpr int kInputPlanes = 4;
inline constexpr std::array<Plane, kInputPlanes> kInputOrder = {Plane::Color, Plane::Depth, Plane::Motion,
                                                                Plane::Exposure};
const GameResource& input_of(const GameFrame& frame, int index);

D3D12_RESOURCE_BARRIER transition(ID3D12Resource* resource, D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after);

// A D3D12 buffer on a readback or upload heap, kept and grown.
struct HeapBuffer {
    ID3D12Resource* buffer = nullptr;
    UINT64 size = 0;
    HeapBuffer() = default;
    HeapBuffer(const HeapBuffer&) = delete;
    HeapBuffer& operator=(const HeapBuffer&) = delete;
    ~HeapBuffer() { reset(); }
    Status ensure(ID3D12Device* device, D3D12_HEAP_TYPE heap, UINT64 bytes);
    void reset() {
        if (buffer) buffer->Release();
        buffer = nullptr;
        size = 0;
    }
};

// Where subresource 0 of a resource lands in a buffer (a whole-subresource copy: D3D12 allows no source box for
// depth-stencil resources, so every input is copied whole).
struct Footprint {
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT placed{};
    UINT64 bytes = 0;
};
Footprint footprint_of(ID3D12Device* device, const D3D12_RESOURCE_DESC& desc);
// An input's whole subresource; the output's region, as a texture of the output's format.
Footprint input_footprint(ID3D12Device* device, const GameResource& in);
Footprint output_footprint(ID3D12Device* device, const GameResource& output);

// Records into LIST the copies of the frame's present inputs (each whole, from kInputState, put back there) into
// BUFFERS at FOOTPRINTS (input_footprint's; each buffer at least that large).
void record_input_copies(ID3D12GraphicsCommandList* list, const GameFrame& frame,
                         const std::array<ID3D12Resource*, kInputPlanes>& buffers,
                         std::span<const Footprint, kInputPlanes> footprints);

// Records into LIST the copy of UPLOAD (at FOOTPRINT) into the output's region of TARGET (kOutputState, put back).
void record_output_copy(ID3D12GraphicsCommandList* list, ID3D12Resource* target, const Region& region,
                        ID3D12Resource* upload, const Footprint& footprint);

} // namespace d4r::shim::d3d12
