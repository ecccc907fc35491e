// d4r open NGX core: the CPU reference of the upscaler, for tests and comparisons.
//
// Promise: ReferenceUpscaler runs the same algorithm as Pipeline (the same parameter block, launch plan
// and per-pixel math, see src/kernels/upscaler/ptx/upscaler_math.h) over host memory, with its own history, and gives
// bit-identical outputs to the PTX kernels for the same frames. FrameParams' buffer fields hold host
// addresses here (reinterpret_cast<uintptr_t>(pointer)), laid out in the canonical formats of pipeline.h.
#pragma once

#include <vector>

#include "core/status.h"
#include "upscaler/frame_setup.h"
#include "upscaler/pipeline.h"

namespace d4r::upscaler {

class ReferenceUpscaler {
public:
    static Expected<ReferenceUpscaler> create(const PipelineConfig& config);
    // Runs one frame synchronously; THREADS as run_host_kernel (the result does not depend on it). With TERMS,
    // also the accumulate step's intermediates of every output pixel (accumulate_term_planes, for frame dumps).
    Status evaluate(const FrameParams& host_frame, unsigned threads = 1, std::vector<float>* terms = nullptr);
    const PipelineConfig& config() const { return m_config; }
    // The last evaluated frame's parameter block (Pipeline::frame_params()), or nullptr before the first: its
    // buffers still hold that frame and the history it read, so a network can run after the core.
    const math::Params* frame_params() const { return m_evaluated ? &m_last : nullptr; }

private:
    explicit ReferenceUpscaler(const PipelineConfig& config);
    PipelineConfig m_config;
    BufferLayout m_layout;
    std::vector<float> m_work; // every work buffer, as in the Pipeline's single allocation
    SequenceState m_state;
    math::Params m_last{};
    bool m_evaluated = false;
};

// Convenience for host buffers.
template <typename T>
CUdeviceptr host_address(T* p) {
    return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

} // namespace d4r::upscaler
