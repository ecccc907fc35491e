// d4r NGX shim, D3D12: the mapped data path (data_path.h) — the frame's planes in D3D12 readback and upload buffers
// that CUDA maps, so that no CPU copies or converts a texel.
//
// Promise: the inputs are copied by the GPU into readback buffers (recorded into the game's list, which is then split
// as on the host path: d3d12/submit.h) and the core reads them where they landed; the core writes its output into an
// upload buffer, which the shim's queue copies into the game's output texture before `evaluate` returns. Each buffer
// stays mapped and registered with CUDA (cuMemHostRegister with CU_MEMHOSTREGISTER_DEVICEMAP, then
// cuMemHostGetDevicePointer) from frame to frame; a buffer that must grow is unregistered first. On d4r's cpu backend
// under Wine the core's pointers are the very pages D3D12 mapped: zero copies, as Wine's vkd3d on lavapipe allows
// (docs/proton.md, "Data paths"). Every plane is read (the output written) where it lies in its buffer when its
// format's texels are the canonical bytes (formats.h: canonical) and its rows are placed as the core reads them (the
// row pitch of D3D12's placement equal to GameResource::row_texels texels); any other plane is converted on the GPU
// between there and a canonical CUDA buffer (gpu_planes.h: on the core's stream, before the core for inputs, after it
// for the output), said once per plane and format. `prepare` maps, registers and loads the conversions before
// anything is recorded, so a refusal there (a CUDA driver that cannot map that memory, conversions that cannot load:
// ErrorCode::Unsupported) leaves the game's list untouched for the host path. Inputs are expected in the
// shader-resource states and the output in UNORDERED_ACCESS, as on the host path, and the core waited for as there
// (core_wait.h); the shim's CPU passes do not run here (d3d12/path_choice.h).
#pragma once

#include <d3d12.h>

#include <memory>
#include <string>

#include "shim/cuda_worker.h"
#include "shim/d3d12/staging_buffers.h"
#include "shim/d3d12/submit.h"
#include "shim/data_path.h"
#include "shim/host_staging.h"
#include "upscaler/cuda_functions.h"

namespace d4r::shim::d3d12 {

// Why CUDA_LIBRARY cannot map host memory for the core (it lacks the functions), or empty.
std::string mapped_unavailable(const std::string& cuda_library);

class MappedPath final : public DataPath {
public:
    MappedPath(Submitter& submitter, CudaWorker& worker, const upscaler::CudaFunctions& cuda,
               const HostOptions& options);
    ~MappedPath() override;
    const char* name() const override { return "mapped"; }

    // Where each plane of FRAME lands in its buffer (colour, depth, motion, exposure: the whole subresource; the
    // output: its region), D3D12's placement, made once per frame for the calls below.
    using Layout = std::array<Footprint, kInputPlanes + 1>;
    static Layout layout_of(ID3D12Device* device, const GameFrame& frame);
    // Whether plane INDEX of FRAME (colour, depth, motion, exposure, output) is converted on the GPU: present, and
    // its format's texels or D3D12's rows in the buffer (LAYOUT) not the core's.
    static bool converted(const GameFrame& frame, const Layout& layout, int index);
    // Maps and registers the buffers FRAME needs (nothing recorded yet): an error here leaves the game's list as it
    // was.
    Status prepare(const GameFrame& frame, const Layout& layout);
    // After `prepare`: the copies, the core and the output copy.
    Status run(CommandListHandle list, const GameFrame& frame, const Layout& layout, const CoreCall& core);
    // All three of the above.
    Status evaluate(CommandListHandle list, const GameFrame& frame, const CoreCall& core) override;

    struct Shared; // the buffers and their CUDA registrations, shared with the worker's tasks

private:
    Submitter& m_submitter;
    CudaWorker& m_worker;
    std::shared_ptr<Shared> m_shared;
};

} // namespace d4r::shim::d3d12
