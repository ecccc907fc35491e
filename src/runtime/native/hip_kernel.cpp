// `.hsaco` native kernels: loaded with hipModuleLoadData and launched with hipModuleLaunchKernel on the
// application's stream. Under ZLUDA the CUstream and CUdeviceptr values the application holds are
// HIP's, so they are handed over unchanged.
#include "runtime/native/hip_kernel.h"

#include <fmt/format.h>

#include "core/files.h"
#include "core/log.h"

namespace d4r::runtime {

namespace {

abi::hipStream_t hip_stream(CUstream s) { return reinterpret_cast<abi::hipStream_t>(s); }

CUresult to_cuda(const HipRuntime& hip, abi::hipError_t e, const NativeKernel& k, const char* what) {
    if (e == D4R_HIP_SUCCESS) return CUDA_SUCCESS;
    if (log::once(fmt::format("hip.{}.{}.{}", k.name, what, e)))
        log::warn("native kernels: {}: {} failed in HIP: {}", k.name, what, hip.error_text(e));
    return e == D4R_HIP_ERROR_INVALID_VALUE ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_LAUNCH_FAILED;
}

std::optional<uint32_t> read_u32(const HipRuntime& hip, abi::hipModule_t module, const std::string& name) {
    abi::hipDeviceptr_t p = nullptr;
    size_t bytes = 0;
    if (hip.module_get_global(&p, &bytes, module, name.c_str()) != D4R_HIP_SUCCESS || bytes < 4) return std::nullopt;
    uint32_t v = 0;
    if (hip.memcpy_dtoh(&v, p, 4) != D4R_HIP_SUCCESS) return std::nullopt;
    return v;
}

} // namespace

Expected<std::shared_ptr<NativeKernel>> load_hip_kernel(const HipRuntime& hip, const std::string& name,
                                                        const std::string& path) {
    auto bytes = read_file(path, 1ull << 30);
    if (!bytes) return std::move(bytes).error();
    bytes->push_back(0); // an ELF code object carries its size; a text image (tests) needs its end marked
    auto k = std::make_shared<NativeKernel>();
    k->name = name;
    k->path = path;
    k->kind = NativeKind::Hip;
    k->hip_runtime = &hip;
    if (abi::hipError_t e = hip.module_load_data(&k->hip_module, bytes->data()); e != D4R_HIP_SUCCESS) {
        k->hip_module = nullptr; // nothing to unload
        return make_error(ErrorCode::Invalid, "{}: HIP refused the code object ({})", path, hip.error_text(e));
    }
    // From here on the NativeKernel unloads the module when it goes (a refusal below included).
    if (hip.module_get_function(&k->main.hip, k->hip_module, name.c_str()) != D4R_HIP_SUCCESS)
        return make_error(ErrorCode::Invalid, "{}: defines no kernel {}", path, name);
    abi::hipFunction_t f = nullptr;
    if (hip.module_get_function(&f, k->hip_module, (name + "_prep").c_str()) == D4R_HIP_SUCCESS) k->prep.hip = f;
    for (int i = 1; i <= 8; ++i) {
        if (hip.module_get_function(&f, k->hip_module, fmt::format("{}_post{}", name, i).c_str()) != D4R_HIP_SUCCESS)
            break;
        NativePhase phase;
        phase.hip = f;
        k->posts.push_back(phase);
    }
    k->symbols =
        read_native_symbols([&](const std::string& s) { return read_u32(hip, k->hip_module, s); }, k->posts.size());
    abi::hipDeviceptr_t slot = nullptr;
    size_t slot_bytes = 0;
    if (hip.module_get_global(&slot, &slot_bytes, k->hip_module, "d4r_prep_slot") == D4R_HIP_SUCCESS && slot_bytes >= 4)
        k->slot_global = reinterpret_cast<uint64_t>(slot);
    return k;
}

CUresult launch_hip_phase(NativeKernel& k, const NativePhase& phase, const PhaseLaunch& a) {
    const HipRuntime& hip = *k.hip_runtime;
    void** extra = nullptr;
    std::vector<void*> hip_extra;
    if (a.extra) {
        for (size_t i = 0;; i += 2) {
            void* key = a.extra[i];
            if (key == D4R_CU_LAUNCH_PARAM_END) break;
            if (key != D4R_CU_LAUNCH_PARAM_BUFFER_POINTER && key != D4R_CU_LAUNCH_PARAM_BUFFER_SIZE) {
                if (log::once("hip.extra." + k.name))
                    log::warn("native kernels: {}: launch option {} in `extra` has no HIP equivalent", k.name, key);
                return CUDA_ERROR_INVALID_VALUE;
            }
            // BUFFER_POINTER and BUFFER_SIZE have the same values in both APIs.
            hip_extra.push_back(key);
            hip_extra.push_back(a.extra[i + 1]);
        }
        hip_extra.push_back(D4R_HIP_LAUNCH_PARAM_END);
        extra = hip_extra.data();
    }
    abi::hipError_t e = hip.module_launch_kernel(phase.hip, a.grid[0], a.grid[1], a.grid[2], a.block[0], a.block[1],
                                                 a.block[2], a.shared, hip_stream(a.stream), a.params, extra);
    return to_cuda(hip, e, k, "hipModuleLaunchKernel");
}

CUresult write_hip_slot(NativeKernel& k, uint32_t slot, CUstream stream) {
    const HipRuntime& hip = *k.hip_runtime;
    abi::hipError_t e = hip.memset_d32_async(reinterpret_cast<abi::hipDeviceptr_t>(k.slot_global),
                                             static_cast<int>(slot), 1, hip_stream(stream));
    return to_cuda(hip, e, k, "hipMemsetD32Async");
}

} // namespace d4r::runtime
