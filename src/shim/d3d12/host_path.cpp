// The D3D12 host data path (d3d12/host_path.h).
#include "shim/d3d12/host_path.h"

#include "shim/d3d12/resources.h"
#include "shim/formats.h"

namespace d4r::shim::d3d12 {

using namespace abi;

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
    std::array<ID3D12Resource*, kInputPlanes> buffers{};
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input_of(frame, i);
        if (!in.resource) continue;
        m_staging->footprints[i] = input_footprint(device, in);
        D4R_TRY_CTX(m_staging->readback[i].ensure(device, D3D12_HEAP_TYPE_READBACK, m_staging->footprints[i].bytes),
                    "{}", plane_name(kInputOrder[i]));
        buffers[i] = m_staging->readback[i].buffer;
    }
    record_input_copies(list, frame, buffers, m_staging->footprints);
    D4R_TRY_CTX(m_submitter.split(list, kGiveUpMs), "reading the inputs back");
    for (int i = 0; i < kInputPlanes; ++i) {
        const GameResource& in = input_of(frame, i);
        const Plane plane = kInputOrder[i];
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
    Footprint fp = output_footprint(device, output);
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
    return m_submitter.run([&](ID3D12GraphicsCommandList* own) { record_output_copy(own, target, out, upload, fp); },
                           kGiveUpMs);
}

} // namespace d4r::shim::d3d12
