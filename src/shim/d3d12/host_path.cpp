// The D3D12 host data path (d3d12/host_path.h).
#include "shim/d3d12/host_path.h"

#include <array>

#include <fmt/format.h>

#include "shim/d3d12/resources.h"
#include "shim/formats.h"

namespace d4r::shim::d3d12 {

using namespace abi;

namespace {

constexpr int kInputPlanes = 4; // colour, depth, motion, exposure (indexes into the arrays below)
constexpr Plane kPlanes[kInputPlanes] = {Plane::Color, Plane::Depth, Plane::Motion, Plane::Exposure};

const GameResource& input(const GameFrame& frame, int i) {
    switch (i) {
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

// A D3D12 buffer on a readback or upload heap, kept and grown.
struct HeapBuffer {
    ID3D12Resource* buffer = nullptr;
    UINT64 size = 0;
    ~HeapBuffer() {
        if (buffer) buffer->Release();
    }
    Status ensure(ID3D12Device* device, D3D12_HEAP_TYPE heap, UINT64 bytes) {
        if (buffer && size >= bytes) return {};
        if (buffer) buffer->Release();
        buffer = nullptr;
        size = 0;
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
};

// Where subresource 0 of RESOURCE lands in a buffer (a whole-subresource copy: D3D12 allows no source box
// for depth-stencil resources, so every input is copied whole and the region is picked out on the CPU).
struct Footprint {
    D3D12_PLACED_SUBRESOURCE_FOOTPRINT placed{};
    UINT64 bytes = 0;
};
Footprint footprint_of(ID3D12Device* device, const D3D12_RESOURCE_DESC& desc) {
    Footprint f;
    UINT rows = 0;
    UINT64 row_bytes = 0;
    device->GetCopyableFootprints(&desc, 0, 1, 0, &f.placed, &rows, &row_bytes, &f.bytes);
    return f;
}

} // namespace

struct HostPath::Staging {
    std::array<HeapBuffer, kInputPlanes> readback;
    std::array<Footprint, kInputPlanes> footprints;
    HeapBuffer upload;
};

HostPath::HostPath(Submitter& submitter, CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options)
    : m_submitter(submitter), m_staging(std::make_unique<Staging>()), m_host(worker, cuda, options) {}

HostPath::~HostPath() = default;

Status HostPath::evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) {
    m_host.begin_frame();
    D4R_TRY(read_back(command_list(list), frame));
    D4R_TRY(m_host.evaluate(frame, core));
    return upload_output(frame.output);
}

// Copies of the inputs into readback buffers, recorded into the game's list; the game's list run up to there
// on the shim's queue; the inputs read on the CPU.
Status HostPath::read_back(ID3D12GraphicsCommandList* list, const GameFrame& frame) {
    ID3D12Device* device = m_submitter.device();
    std::array<D3D12_RESOURCE_BARRIER, kInputPlanes> to_copy{}, back{};
    int n = 0;
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input(frame, i);
        if (!in.resource) continue;
        D3D12_RESOURCE_DESC desc = resource(in.resource)->GetDesc();
        m_staging->footprints[i] = footprint_of(device, desc);
        D4R_TRY_CTX(m_staging->readback[i].ensure(device, D3D12_HEAP_TYPE_READBACK, m_staging->footprints[i].bytes),
                    "{}", plane_name(kPlanes[i]));
        to_copy[n] = transition(resource(in.resource), kInputState, D3D12_RESOURCE_STATE_COPY_SOURCE);
        back[n] = transition(resource(in.resource), D3D12_RESOURCE_STATE_COPY_SOURCE, kInputState);
        ++n;
    }
    list->ResourceBarrier(n, to_copy.data());
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input(frame, i);
        if (!in.resource) continue;
        D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
        dst.pResource = m_staging->readback[i].buffer;
        dst.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
        dst.PlacedFootprint = m_staging->footprints[i].placed;
        src.pResource = resource(in.resource);
        src.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
        src.SubresourceIndex = 0;
        list->CopyTextureRegion(&dst, 0, 0, 0, &src, nullptr);
    }
    list->ResourceBarrier(n, back.data());

    D4R_TRY_CTX(m_submitter.split(list, kGiveUpMs), "reading the inputs back");
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input(frame, i);
        const Plane plane = kPlanes[i];
        if (!in.resource) {
            m_host.clear_input(plane);
            continue;
        }
        const Region& r = in.region;
        const UINT pitch = m_staging->footprints[i].placed.Footprint.RowPitch;
        D3D12_RANGE read{0, static_cast<SIZE_T>(m_staging->footprints[i].bytes)};
        void* mapped = nullptr;
        HRESULT hr = m_staging->readback[i].buffer->Map(0, &read, &mapped);
        if (FAILED(hr))
            return make_error(ErrorCode::Io, "mapping the {} readback buffer: {}", plane_name(plane), hresult_text(hr));
        const uint8_t* at = static_cast<const uint8_t*>(mapped) + m_staging->footprints[i].placed.Offset +
                            size_t(r.y) * pitch + size_t(r.x) * texel_bytes(in.format);
        Status converted = m_host.read_input(plane, in, at, pitch);
        D3D12_RANGE none{0, 0};
        m_staging->readback[i].buffer->Unmap(0, &none);
        D4R_TRY(std::move(converted));
    }
    return {};
}

// The output into the game's texture, through an upload buffer, before evaluate returns.
Status HostPath::upload_output(const GameResource& output) {
    ID3D12Device* device = m_submitter.device();
    const Region& out = output.region;
    ID3D12Resource* target = resource(output.resource);
    D3D12_RESOURCE_DESC desc = target->GetDesc();
    desc.Width = out.width;
    desc.Height = out.height;
    desc.DepthOrArraySize = 1;
    desc.MipLevels = 1;
    Footprint fp = footprint_of(device, desc);
    D4R_TRY_CTX(m_staging->upload.ensure(device, D3D12_HEAP_TYPE_UPLOAD, fp.bytes), "Output");
    void* mapped = nullptr;
    D3D12_RANGE none{0, 0};
    HRESULT hr = m_staging->upload.buffer->Map(0, &none, &mapped);
    if (FAILED(hr)) return make_error(ErrorCode::Io, "mapping the output upload buffer: {}", hresult_text(hr));
    Status written =
        m_host.write_output(output, static_cast<uint8_t*>(mapped) + fp.placed.Offset, fp.placed.Footprint.RowPitch);
    m_staging->upload.buffer->Unmap(0, nullptr);
    D4R_TRY(std::move(written));
    ID3D12Resource* upload = m_staging->upload.buffer;
    return m_submitter.run(
        [&](ID3D12GraphicsCommandList* own) {
            D3D12_RESOURCE_BARRIER b = transition(target, kOutputState, D3D12_RESOURCE_STATE_COPY_DEST);
            own->ResourceBarrier(1, &b);
            D3D12_TEXTURE_COPY_LOCATION dst{}, src{};
            dst.pResource = target;
            dst.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
            dst.SubresourceIndex = 0;
            src.pResource = upload;
            src.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
            src.PlacedFootprint = fp.placed;
            own->CopyTextureRegion(&dst, out.x, out.y, 0, &src, nullptr);
            b = transition(target, D3D12_RESOURCE_STATE_COPY_DEST, kOutputState);
            own->ResourceBarrier(1, &b);
        },
        kGiveUpMs);
}

} // namespace d4r::shim::d3d12
