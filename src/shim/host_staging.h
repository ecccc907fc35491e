// d4r NGX shim: the API-independent half of the host data path — the frame's planes in host memory, their
// conversion to and from the core's canonical formats, the shim's passes, and the CUDA upload, evaluation and
// download on the worker.
//
// Promise: no graphics-API type here; an API's host path (d3d12/host_path.h) reads the game's textures back
// into memory it can map, hands each input's texels to `read_input`, calls `evaluate`, and puts what
// `write_output` writes into its own upload memory back into the game's texture. `read_input` converts the
// region into the canonical layout (rows GameResource::row_texels wide); `evaluate` applies motion-vector
// dilation to the canonical planes (HostPasses), uploads them, calls the core on the CUDA worker, waits for it
// (core_wait.h) and downloads the output; `write_output` draws the watermark
// (HostPasses) and converts the output to the game's format. The canonical planes live in pinned host memory
// (cuMemHostAlloc on the worker; pageable memory, said once, when the library refuses). CUDA buffers and host
// planes are kept for the next frame and grown when a frame needs more; while an evaluation the stall watchdog gave up
// on still owns them, the next frame (`begin_frame`) gets new ones, and the abandoned task frees the old ones when it
// ends.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bridge/d4r_helpers.h"
#include "shim/core_wait.h"
#include "shim/cuda_worker.h"
#include "shim/data_path.h"
#include "shim/formats.h"
#include "shim/frame_passes.h"
#include "upscaler/cuda_functions.h"

namespace d4r::shim {

// The shim's own passes over the canonical planes (frame_passes.h) for one feature: motion-vector dilation
// on the inputs after their conversion, the watermark on the output before its conversion to the game's format.
struct HostPasses {
    unsigned motion_dilation = 0; // radius; 0: off
    bool depth_inverted = false;  // the feature's NVSDK_NGX_DLSS_Feature_Flags_DepthInverted
    bool watermark = false;
};

// How a feature's data path waits for the core, which passes it applies, and what it may use.
struct HostOptions {
    bool blocking_sync = false;
    abi::PFN_d4r_EventWait event_wait = nullptr; // the bridge's, if nvcuda.dll is d4r's
    HostPasses passes;
    std::string cuda_library; // the CUDA driver the shim loaded (for data paths that need more of its functions)
    std::string no_vram; // why no data path may share memory with CUDA here (D4R_SHIM_VRAM_INTEROP=0, ...), or empty
};

class HostStaging {
public:
    HostStaging(CudaWorker& worker, const upscaler::CudaFunctions& cuda, HostOptions options);
    ~HostStaging(); // frees the CUDA buffers on the worker (queued, not waited for, on a stuck worker)
    HostStaging(const HostStaging&) = delete;
    HostStaging& operator=(const HostStaging&) = delete;

    // Before a frame: new buffers if an abandoned evaluation still owns the current ones.
    void begin_frame();
    // The input PLANE (Color, Depth, Motion or Exposure) of IN: FIRST is its region's top-left texel in the
    // game's format, rows PITCH bytes apart. An absent input (no resource): `clear_input`.
    Status read_input(Plane plane, const GameResource& in, const uint8_t* first, size_t pitch);
    void clear_input(Plane plane);
    // Passes, upload, CORE on the worker, download. FRAME: the regions read_input was given.
    Status evaluate(const GameFrame& frame, const CoreCall& core);
    // The output region, in OUT's format, into DST (rows PITCH bytes apart), after the watermark.
    Status write_output(const GameResource& out, uint8_t* dst, size_t pitch);

    struct Buffers; // CUDA buffers and host copies, shared with worker tasks

private:
    std::shared_ptr<Buffers> fresh() const;

    CudaWorker& m_worker;
    const upscaler::CudaFunctions& m_cuda;
    HostOptions m_options;
    DilationScratch m_dilation; // kept from frame to frame (frame_passes.h)
    std::shared_ptr<Buffers> m_buffers;
};

} // namespace d4r::shim
