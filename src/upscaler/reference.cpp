// The CPU reference: the Pipeline's launch plan run by run_host_kernel over host buffers.
#include "upscaler/reference.h"

#include "upscaler/accumulate_terms.h"

namespace d4r::upscaler {

ReferenceUpscaler::ReferenceUpscaler(const PipelineConfig& config)
    : m_config(config), m_layout(buffer_layout(config)), m_work(m_layout.total / sizeof(float) + 64, 0.0f) {}

Expected<ReferenceUpscaler> ReferenceUpscaler::create(const PipelineConfig& config) {
    D4R_TRY(validate_config(config));
    return ReferenceUpscaler(config);
}

Status ReferenceUpscaler::evaluate(const FrameParams& frame, unsigned threads, std::vector<float>* terms) {
    D4R_TRY(validate_frame(m_config, frame));
    // 256-byte aligned base inside the vector, as a device allocation would be.
    uint64_t base = (host_address(m_work.data()) + 255) & ~uint64_t(255);
    math::Params params = make_params(m_config, frame, m_state, work_buffers_at(base, m_layout));
    for (const PlannedLaunch& l : plan_launches(params)) run_host_kernel(l.kernel, params, l.shape, threads);
    if (terms) *terms = accumulate_term_planes(params); // the previous history is still in history_in
    advance(m_state, frame);
    m_last = params;
    m_evaluated = true;
    return ok_status();
}

} // namespace d4r::upscaler
