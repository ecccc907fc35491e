// The code-object kind and architecture for the backend (see native_target.h).
#include "runtime/native/native_target.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/env_vars.h"
#include "core/log.h"
#include "core/strings.h"
#include "kernelset/gpu_topology.h"

namespace d4r::runtime {

bool is_zluda_backend(const std::string& name, const Environment& env) {
    if (name.rfind("driver:", 0) != 0) return false;
    std::string path = name.substr(7);
    if (to_lower(path).find("zluda") != std::string::npos) return true;
    auto dir = env_text(env, EnvVar::ZludaDir);
    if (!dir) return false;
    std::error_code ec;
    std::filesystem::path root = std::filesystem::weakly_canonical(*dir, ec);
    if (ec) return false;
    std::filesystem::path lib = std::filesystem::weakly_canonical(path, ec);
    if (ec) return false;
    auto [r, l] = std::mismatch(root.begin(), root.end(), lib.begin(), lib.end());
    return r == root.end();
}

NativeTarget native_target_for(const Backend& backend, const Environment& env, const std::filesystem::path& kfd_root) {
    if (backend.name() == "cpu") return {"cpu", "cpu", "the cpu backend runs CPU native kernels"};
    if (is_zluda_backend(backend.name(), env)) {
        NativeTarget t{"hsaco", "", ""};
        auto decision = kernels::decide_gpu_arch(env, kfd_root);
        if (decision && !decision->arch.empty()) {
            t.arch = decision->arch;
            t.why = fmt::format("ZLUDA runs AMD code objects; {} from {}", t.arch, decision->source);
        } else {
            t.why = fmt::format("ZLUDA runs AMD code objects; the GPU architecture is unknown ({})",
                                decision ? "no GPU in the KFD topology and no D4R_GPU_ARCH" : decision.error().text());
        }
        return t;
    }
    const ApiTable& t = backend.table();
    int major = 0, minor = 0;
    if (t.cuInit(0) == CUDA_SUCCESS &&
        t.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0) == CUDA_SUCCESS &&
        t.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0) == CUDA_SUCCESS) {
        std::string arch = fmt::format("sm_{}{}", major, minor);
        kernels::ForcedArch forced = kernels::forced_gpu_arch(env, kernels::GpuVendor::Nvidia);
        if (!forced.warning.empty() && log::once("native:forced-arch")) log::warn("native kernels: {}", forced.warning);
        if (forced.arch)
            return {"cubin", *forced.arch,
                    fmt::format("NVIDIA code objects; {} from D4R_GPU_ARCH (device 0 is {})", *forced.arch, arch)};
        return {"cubin", arch, fmt::format("NVIDIA code objects for device 0 ({})", arch)};
    }
    return {"cubin", "", "NVIDIA code objects; device 0's compute capability is unknown"};
}

} // namespace d4r::runtime
