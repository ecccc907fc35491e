// d4r NGX shim: the host data path (data_path.h) — the inputs read back to the CPU through D3D12 readback
// buffers, converted to the canonical formats (formats.h) and uploaded to CUDA; the output downloaded,
// converted to the output texture's format and copied in through an upload buffer.
//
// Promise: works on any D3D12 implementation. The copies out of the game's resources are recorded into the
// game's command list, which is then split (d3d12_submit.h) so that they run after what the game recorded
// before the evaluation; the output copy runs on the shim's queue and is finished before evaluate returns,
// so everything the game records afterwards sees the result in the same frame. Inputs are expected in the
// shader-resource states (NON_PIXEL_SHADER_RESOURCE | PIXEL_SHADER_RESOURCE) and the output in
// UNORDERED_ACCESS, as for DLSS; each is put back in that state. Staging buffers (D3D12 and CUDA) are kept
// for the next frame and grown when a frame needs more; while an evaluation the stall watchdog gave up on
// still owns the CUDA ones, the next frame gets new ones (the old are freed on the worker when it ends).
// With BLOCKING_SYNC the worker waits for the core's work with a CU_EVENT_BLOCKING_SYNC event (through the
// bridge's d4r_EventWait, which is never elided; without it cuEventSynchronize, said once) instead of
// cuCtxSynchronize. Either way `evaluate` returns only after the output is in the game's texture. Between the
// CPU conversions and the copies the host path applies the shim's passes (HostPasses), so they work for
// every NGX core.
#pragma once

#include <memory>

#include "bridge/d4r_helpers.h"
#include "shim/cuda_worker.h"
#include "shim/d3d12_submit.h"
#include "shim/data_path.h"
#include "shim/frame_passes.h"
#include "upscaler/cuda_functions.h"

namespace d4r::shim {

inline constexpr D3D12_RESOURCE_STATES kInputState = D3D12_RESOURCE_STATES(
    int(D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE) | int(D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE));
inline constexpr D3D12_RESOURCE_STATES kOutputState = D3D12_RESOURCE_STATE_UNORDERED_ACCESS;

// The shim's own passes over the canonical planes (frame_passes.h) for one feature: motion-vector dilation
// on the inputs after their conversion, the watermark on the output before its conversion to the game's format.
struct HostPasses {
    unsigned motion_dilation = 0; // radius; 0: off
    bool depth_inverted = false;  // the feature's NVSDK_NGX_DLSS_Feature_Flags_DepthInverted
    bool watermark = false;
};

class HostPath final : public DataPath {
public:
    HostPath(Submitter& submitter, CudaWorker& worker, const upscaler::CudaFunctions& cuda, bool blocking_sync,
             abi::PFN_d4r_EventWait event_wait, HostPasses passes = {});
    ~HostPath() override;
    const char* name() const override { return "host"; }
    Status evaluate(ID3D12GraphicsCommandList* list, const GameFrame& frame, const CoreCall& core) override;

    struct Staging; // D3D12 buffers, per plane
    struct Cuda;    // CUDA buffers and the host copies, shared with worker tasks

private:
    Submitter& m_submitter;
    CudaWorker& m_worker;
    const upscaler::CudaFunctions& m_cuda;
    bool m_blocking_sync;
    abi::PFN_d4r_EventWait m_event_wait;
    HostPasses m_passes;
    DilationScratch m_dilation; // kept from frame to frame (frame_passes.h)
    std::unique_ptr<Staging> m_staging;
    std::shared_ptr<Cuda> m_device;
    std::shared_ptr<Cuda> fresh_cuda() const;
};

} // namespace d4r::shim
