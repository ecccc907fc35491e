// Which D3D12 data path a frame takes (d3d12/path_choice.h).
#include "shim/d3d12/path_choice.h"

#include "core/log.h"
#include "shim/d3d12/host_path.h"
#include "shim/d3d12/mapped_path.h"

namespace d4r::shim::d3d12 {

ChosenPath::ChosenPath(Submitter& submitter, CudaWorker& worker, const upscaler::CudaFunctions& cuda,
                       HostOptions options)
    : m_submitter(submitter), m_worker(worker), m_cuda(cuda), m_options(std::move(options)) {
    if (!m_options.no_vram.empty())
        m_feature_refusal = m_options.no_vram;
    else if (std::string why = mapped_unavailable(m_options.cuda_library); !why.empty())
        m_feature_refusal = why;
    else if (m_options.passes.motion_dilation || m_options.passes.watermark)
        m_feature_refusal = "the shim's CPU passes (motion-vector dilation, the watermark) are on";
    if (!m_feature_refusal.empty()) m_last = "host";
}

ChosenPath::~ChosenPath() = default;

Status ChosenPath::evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) {
    std::string why = m_feature_refusal;
    MappedPath::Layout layout{};
    if (why.empty()) {
        layout = MappedPath::layout_of(m_submitter.device(), frame);
        if (!m_mapped) m_mapped = std::make_unique<MappedPath>(m_submitter, m_worker, m_cuda, m_options);
        Status prepared = m_mapped->prepare(frame, layout);
        if (prepared) {
            m_last = "mapped";
            return m_mapped->run(list, frame, layout, core);
        }
        if (prepared.error().code() != ErrorCode::Unsupported) return prepared;
        m_feature_refusal = why = prepared.error().text(); // CUDA cannot map this memory: not again
        m_mapped.reset();
    }
    if (log::once("shim-d3d12-host-path-" + why))
        log::info("shim: D3D12: the host path (the frame's texels copied and converted by the CPU): {} (said once)",
                  why);
    if (!m_host) m_host = std::make_unique<HostPath>(m_submitter, m_worker, m_cuda, m_options);
    m_last = "host";
    return m_host->evaluate(list, frame, core);
}

} // namespace d4r::shim::d3d12
