// CPU native kernels of the refine network (d4r_nn_*): registered in libd4rcuda's CPU registry at static
// initialisation and served by the override layer when a kernel set vouches for the refine PTX. Each receives
// the PTX kernel's parameter block and runs the host kernels (src/network/host_kernels.h) over the launch's
// grid on every core: the accuracy set, bit-identical to the PTX path.
#include "network/host_kernels.h"
#include "runtime/native/cpu_registry.h"

namespace d4r::refine_cpu {
namespace {

struct Registration {
    Registration() {
        for (network::Kernel k : network::kAllKernels) {
            runtime::CpuNativeKernel kernel;
            kernel.name = network::kernel_name(k);
            kernel.main = [k](const runtime::CpuLaunch& l) { network::run_kernel(k, l.params, l.grid); };
            runtime::register_cpu_kernel(std::move(kernel));
        }
    }
};
const Registration g_registration;

} // namespace
} // namespace d4r::refine_cpu
