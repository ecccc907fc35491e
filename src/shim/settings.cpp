// The shim's settings (settings.h).
#include "shim/settings.h"

#include <string>

#include "core/env_vars.h"
#include "core/log.h"

namespace d4r::shim {

// Every variable is read through the table (core/env_vars.h): a bad value warns once there, naming the
// variable, the value and what is accepted, and the default (3 evaluations; false; no dilation; no watermark) is kept.
Settings read_settings(const Environment& env) {
    Settings s;
    s.max_in_flight = static_cast<unsigned>(env_int(env, EnvVar::ShimMaxInFlight));
    s.blocking_sync = env_bool(env, EnvVar::ShimBlockingSync);
    s.motion_dilation = static_cast<unsigned>(env_int(env, EnvVar::MotionDilation));
    s.watermark = env_bool(env, EnvVar::ShimWatermark);
    s.vram_off = env_raw(env, EnvVar::ShimVramInterop) && !env_bool(env, EnvVar::ShimVramInterop);
    if (auto split = env_raw(env, EnvVar::ShimSplitFrame); split && !env_bool(env, EnvVar::ShimSplitFrame))
        s.notices.push_back(std::string(env_name(EnvVar::ShimSplitFrame)) + "=" + split->text +
                            " asks for pipelined results (d4r.ini [Latency] FrameAge above 0), which this shim does "
                            "not do yet: every frame gets its own result, as with FrameAge 0");
    if (auto vram = env_raw(env, EnvVar::ShimVramInterop); vram && env_bool(env, EnvVar::ShimVramInterop))
        s.notices.push_back(std::string(env_name(EnvVar::ShimVramInterop)) + "=" + vram->text +
                            " asks for memory shared with CUDA: the Vulkan front end's VRAM path; in D3D12 the mapped "
                            "path (CUDA reads and writes D3D12's readback and upload buffers, no CPU copy) where a "
                            "frame's layout allows it, else the host path, said per feature (a D3D12 VRAM path through "
                            "vkd3d-proton is not there yet)");
    return s;
}

} // namespace d4r::shim
