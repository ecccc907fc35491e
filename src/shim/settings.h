// d4r NGX shim: the environment variables that tune how the shim evaluates.
//
// Promise: `read_settings` reads them once (at Init) from ENV and never fails: a value it cannot use is
// reported (one warning naming the variable, the value and what is accepted) and the default is kept.
//   D4R_SHIM_MAX_IN_FLIGHT  evaluations allowed outstanding on the CUDA worker before the game's thread
//                           waits for one to finish (1-16, default 3; d4r.ini's [Latency] FrameAge sets it)
//   D4R_SHIM_BLOCKING_SYNC  wait for the core's output with a blocking event instead of a context
//                           synchronisation (true/false, on/off, yes/no, 1/0; default false)
//   D4R_MOTION_DILATION     dilate the motion vectors over this radius before the core sees them (0-8, default
//                           0 = off; d4r.ini [Interop] MotionVectorDilation; frame_passes.h)
//   D4R_SHIM_WATERMARK      draw d4r's watermark into every output (default false; d4r.ini [DLSS] ShowWatermark)
// and two that ask for what this shim does not do yet, so `notices` says, for the log, what happens
// instead (never a silent fallback):
//   D4R_SHIM_SPLIT_FRAME=0  pipelined results (d4r.ini [Latency] FrameAge N > 0): every frame still gets
//                           its own result, as with FrameAge 0
//   D4R_SHIM_VRAM_INTEROP   memory shared with CUDA (default on in d4r.ini): the Vulkan front end's VRAM path,
//                           D3D12's mapped path (no VRAM path through vkd3d-proton yet); set to 0, `vram_off`,
//                           every frame takes the host path
// Pure code with no Windows dependency (unit-tested on Linux).
#pragma once

#include <string>
#include <vector>

#include "core/env.h"

namespace d4r::shim {

// The names, ranges and defaults live in the table of variables (core/env_vars.h); these repeat two of them
// (a test checks they agree).
inline constexpr unsigned kDefaultMaxInFlight = 3;
inline constexpr unsigned kMaxMaxInFlight = 16;

struct Settings {
    unsigned max_in_flight = kDefaultMaxInFlight;
    bool blocking_sync = false;
    unsigned motion_dilation = 0; // 0: off
    bool watermark = false;
    bool vram_off = false;            // D4R_SHIM_VRAM_INTEROP set and false: no VRAM data path, whatever the API
    std::vector<std::string> notices; // what was asked for and is not done, and what is done instead
};

Settings read_settings(const Environment& env);

} // namespace d4r::shim
