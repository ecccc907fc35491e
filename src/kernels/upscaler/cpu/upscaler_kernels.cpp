// Native CPU kernels for the upscaler's PTX kernels (d4r_up_*): registered in libd4rcuda's CPU registry at
// static initialisation and served by the override layer when the cpu kernel set the build generates
// (build/share/d4r/native/cpu, src/kernels/upscaler/CMakeLists.txt) vouches for the upscaler's PTX. Each receives the
// PTX kernel's parameter block (the bytes of math::Params) and runs the same per-pixel math as the PTX over the
// launch's grid, rows spread over every core, so its results are bit-identical to ptxsim's.
#include <cstring>

#include "core/log.h"
#include "runtime/native/cpu_registry.h"
#include "upscaler/host_kernels.h"

namespace d4r::native_cpu {
namespace {

using upscaler::KernelId;

void run(KernelId kernel, const runtime::CpuLaunch& launch) {
    upscaler::math::Params p;
    if (launch.params.size() < sizeof(p)) {
        log::error("native kernel {}: parameter block of {} bytes, expected {}", upscaler::kernel_name(kernel),
                   launch.params.size(), sizeof(p));
        return;
    }
    std::memcpy(&p, launch.params.data(), sizeof(p));
    upscaler::LaunchShape shape;
    shape.grid = launch.grid;
    shape.block = launch.block;
    upscaler::run_host_kernel(kernel, p, shape, 0);
}

struct Registration {
    Registration() {
        for (KernelId k : upscaler::kAllKernels) {
            runtime::CpuNativeKernel kernel;
            kernel.name = upscaler::kernel_name(k);
            kernel.main = [k](const runtime::CpuLaunch& l) { run(k, l); };
            runtime::register_cpu_kernel(std::move(kernel));
        }
    }
};
const Registration g_registration;

} // namespace
} // namespace d4r::native_cpu
