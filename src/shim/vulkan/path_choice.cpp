// Which Vulkan data path a frame takes (vulkan/path_choice.h).
#include "shim/vulkan/path_choice.h"

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/log.h"
#include "shim/formats.h"
#include "shim/vulkan/host_path.h"
#include "shim/vulkan/resources.h"
#include "shim/vulkan/vram_path.h"

namespace d4r::shim::vulkan {

ChosenPath::ChosenPath(const Context& context, CudaWorker& worker, const upscaler::CudaFunctions& cuda,
                       HostOptions options)
    : m_context(context), m_worker(worker), m_cuda(cuda), m_options(std::move(options)) {
    if (!m_options.no_vram.empty())
        m_device_refusal = m_options.no_vram;
    else if (std::string why = vram_unavailable(context, m_options.cuda_library); !why.empty())
        m_device_refusal = why;
    else if (m_options.passes.motion_dilation || m_options.passes.watermark)
        m_device_refusal = "the shim's CPU passes (motion-vector dilation, the watermark) are on";
    if (!m_device_refusal.empty()) m_last = "host";
}

ChosenPath::~ChosenPath() = default;

std::string ChosenPath::frame_refuses_vram(const GameFrame& frame) {
    const Plane planes[5] = {Plane::Color, Plane::Depth, Plane::Motion, Plane::Exposure, Plane::Output};
    const GameResource* in[5] = {&frame.color, &frame.depth, &frame.motion, &frame.exposure, &frame.output};
    for (int i = 0; i < 5; ++i) {
        if (!in[i]->resource) continue;
        const VkFormat f = resource(in[i]->resource)->Resource.ImageViewInfo.Format;
        if (!vram_accepts(planes[i], f))
            return fmt::format("the {} is VkFormat {}, which the VRAM path does not take", plane_name(planes[i]),
                               int(f));
    }
    return {};
}

Status ChosenPath::evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) {
    std::string why = m_device_refusal.empty() ? frame_refuses_vram(frame) : m_device_refusal;
    if (why.empty()) {
        if (!m_vram) m_vram = std::make_unique<VramPath>(m_context, m_worker, m_cuda, m_options);
        Status s = m_vram->evaluate(list, frame, core);
        if (s || s.error().code() != ErrorCode::Unsupported) {
            m_last = "vram";
            return s;
        }
        why = s.error().text(); // refused before recording anything: the host path takes the frame
    }
    if (log::once("shim-vulkan-host-path-" + why))
        log::info("shim: Vulkan front end: the host path (the frame's texels through host memory and the CPU): {} "
                  "(said once)",
                  why);
    if (!m_host) m_host = std::make_unique<HostPath>(m_context, m_worker, m_cuda, m_options);
    m_last = "host";
    return m_host->evaluate(list, frame, core);
}

} // namespace d4r::shim::vulkan
