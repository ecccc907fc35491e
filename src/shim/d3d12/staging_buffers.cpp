// The D3D12 staging buffers and copies (d3d12/staging_buffers.h).
#include "shim/d3d12/staging_buffers.h"

#include "shim/d3d12/resources.h"
#include "shim/d3d12/submit.h"

namespace d4r::shim::d3d12 {

const GameResource& input_of(const GameFrame& frame, int index) {
    switch (index) {
    case 0:
        return frame.color;
    case 1:
        return frame.depth;
    case 2:
        return frame.motion;
    default:
        return frame.exposure;
    }
}

D3D12_RESOURCE_BARRIER transition(ID3D12Resource* resource, D3D12_RESOURCE_STATES before, D3D12_RESOURCE_STATES after) {
    D3D12_RESOURCE_BARRIER b{};
    b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
    b.Transition.pResource = resource;
    b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
    b.Transition.StateBefore = before;
    b.Transition.StateAfter = after;
    return b;
}

Status HeapBuffer::ensure(ID3D12Device* device, D3D12_HEAP_TYPE heap, UINT64 bytes) {
    if (buffer && size >= bytes) return {};
    reset();
    D3D12_HEAP_PROPERTIES props{};
    props.Type = heap;
    D3D12_RESOURCE_DESC desc{};
    desc.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
    desc.Width = bytes;
    desc.Height = 1;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    desc.SampleDesc.Count = 1;
    desc.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
    D3D12_RESOURCE_STATES state =
        heap == D3D12_HEAP_TYPE_READBACK ? D3D12_RESOURCE_STATE_COPY_DEST : D3D12_RESOURCE_STATE_GENERIC_READ;
    HRESULT hr = device->CreateCommittedResource(&props, D3D12_HEAP_FLAG_NONE, &desc, state, nullptr,
                                                 __uuidof(ID3D12Resource), reinterpret_cast<void**>(&buffer));
    if (FAILED(hr)) {
        buffer = nullptr;
        return make_error(ErrorCode::Io, "creating a {} byte {} buffer: {}", bytes,
                          heap == D3D12_HEAP_TYPE_READBACK ? "readback" : "upload", hresult_text(hr));
    }
    size = bytes;
    return {};
}

Footprint footprint_of(ID3D12Device* device, const D3D12_RESOURCE_DESC& desc) {
    Footprint f;
    UINT rows = 0;
    UINT64 row_bytes = 0;
    device->GetCopyableFootprints(&desc, 0, 1, 0, &f.placed, &rows, &row_bytes, &f.bytes);
    return f;
}

Footprint input_footprint(ID3D12Device* device, const GameResource& in) {
    return footprint_of(device, resource(in.resource)->GetDesc());
}

Footprint output_footprint(ID3D12Device* device, const GameResource& output) {
    D3D12_RESOURCE_DESC desc = resource(output.resource)->GetDesc();
    desc.Width = output.region.width;
    desc.Height = output.region.height;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    return footprint_of(device, desc);
}

void record_input_copies(ID3D12GraphicsCommandList* list, const GameFrame& frame,
                         const std::array<ID3D12Resource*, kInputPlanes>& buffers,
                         std::span<const Footprint, kInputPlanes> footprints) {
    std::array<D3D12_RESOURCE_BARRIER, kInputPlanes> to_copy{}, back{};
    int n = 0;
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input_of(frame, i);
        if (!in.resource) continue;
        to_copy[n] = transition(resource(in.resource), kInputState, D3D12_RESOURCE_STATE_COPY_SOURCE);
        back[n] = transition(resource(in.resource), D3D12_RESOURCE_STATE_COPY_SOURCE, kInputState);
        ++n;
    }
    list->ResourceBarrier(n, to_copy.data());
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input_of(frame, i);
        if (!in.resource) continue;
        D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
        dst.pResource = buffers[i];
        dst.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
        dst.PlacedFootprint = footprints[i].placed;
        src.pResource = resource(in.resource);
        src.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
        src.SubresourceIndex = 0;
        list->CopyTextureRegion(&dst, 0, 0, 0, &src, nullptr);
    }
    list->ResourceBarrier(n, back.data());
}

void record_output_copy(ID3D12GraphicsCommandList* list, ID3D12Resource* target, const Region& region,
                        ID3D12Resource* upload, const Footprint& footprint) {
    D3D12_RESOURCE_BARRIER b = transition(target, kOutputState, D3D12_RESOURCE_STATE_COPY_DEST);
    list->ResourceBarrier(1, &b);
    D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
    dst.pResource = target;
    dst.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
    dst.SubresourceIndex = 0;
    src.pResource = upload;
    src.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
    src.PlacedFootprint = footprint.placed;
    list->CopyTextureRegion(&dst, region.x, region.y, 0, &src, nullptr);
    b = transition(target, D3D12_RESOURCE_STATE_COPY_DEST, kOutputState);
    list->ResourceBarrier(1, &b);
}

} // namespace d4r::shim::d3d12
