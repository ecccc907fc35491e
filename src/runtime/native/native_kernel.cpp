// Loading a native kernel's code object and launching its phases (see native_kernel.h). The HIP kind
// lives in hip_kernel.cpp.
#include "runtime/native/native_kernel.h"

#include <fmt/format.h>

#include "core/files.h"
#include "runtime/native/hip_kernel.h"
#include "runtime/native/hip_runtime.h"

namespace d4r::runtime {

namespace {

std::optional<uint32_t> read_u32_global(const ApiTable& in, CUmodule module, const std::string& name) {
    CUdeviceptr p = 0;
    size_t bytes = 0;
    if (in.cuModuleGetGlobal_v2(&p, &bytes, module, name.c_str()) != CUDA_SUCCESS || bytes < 4) return std::nullopt;
    uint32_t v = 0;
    if (in.cuMemcpyDtoH_v2(&v, p, 4) != CUDA_SUCCESS) return std::nullopt;
    return v;
}

Expected<std::shared_ptr<NativeKernel>> load_cubin(const ApiTable& in, const std::string& name,
                                                   const std::string& path) {
    auto bytes = read_file(path, 1ull << 30);
    if (!bytes) return std::move(bytes).error();
    bytes->push_back(0); // a cubin carries its size; a PTX text image needs its end marked
    auto k = std::make_shared<NativeKernel>();
    k->name = name;
    k->path = path;
    k->kind = NativeKind::Backend;
    CUresult r = in.cuModuleLoadData(&k->module, bytes->data());
    if (r != CUDA_SUCCESS)
        return make_error(ErrorCode::Invalid, "{}: the backend refused the code object ({})", path,
                          error_name(r) ? error_name(r) : "?");
    if (in.cuModuleGetFunction(&k->main.function, k->module, name.c_str()) != CUDA_SUCCESS) {
        in.cuModuleUnload(k->module);
        return make_error(ErrorCode::Invalid, "{}: defines no kernel {}", path, name);
    }
    CUfunction f = nullptr;
    if (in.cuModuleGetFunction(&f, k->module, (name + "_prep").c_str()) == CUDA_SUCCESS) k->prep.function = f;
    for (int i = 1; i <= 8; ++i) {
        if (in.cuModuleGetFunction(&f, k->module, fmt::format("{}_post{}", name, i).c_str()) != CUDA_SUCCESS) break;
        NativePhase phase;
        phase.function = f;
        k->posts.push_back(phase);
    }
    k->symbols =
        read_native_symbols([&](const std::string& s) { return read_u32_global(in, k->module, s); }, k->posts.size());
    // More than the default 48 KB of dynamic shared memory needs the function's limit raised first, as on NVIDIA.
    if (k->symbols.dynamic_shared) {
        r = in.cuFuncSetAttribute(k->main.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  static_cast<int>(std::min<uint32_t>(*k->symbols.dynamic_shared, INT32_MAX)));
        if (r != CUDA_SUCCESS) {
            in.cuModuleUnload(k->module);
            return make_error(ErrorCode::Unsupported,
                              "{}: asks for {} bytes of dynamic shared memory (d4r_dynamic_shared), which the device "
                              "refuses ({})",
                              path, *k->symbols.dynamic_shared, error_name(r) ? error_name(r) : "?");
        }
    }
    CUdeviceptr slot = 0;
    size_t slot_bytes = 0;
    if (in.cuModuleGetGlobal_v2(&slot, &slot_bytes, k->module, "d4r_prep_slot") == CUDA_SUCCESS && slot_bytes >= 4)
        k->slot_global = slot;
    return k;
}

// A `.cpu` file is a version line, `1`, optionally followed by a variant word (`1 fast`): the kernel served is
// the registry's NAME, or NAME@VARIANT.
Expected<std::string> cpu_registry_name(const std::string& name, const std::string& path) {
    auto text = read_text_file(path, 4096);
    if (!text) return text.error();
    std::string line = text->substr(0, text->find('\n'));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "1") return name;
    if (line.starts_with("1 ") && line.size() > 2 && line.find(' ', 2) == std::string::npos)
        return name + "@" + line.substr(2);
    return make_error(ErrorCode::Invalid, "{}: the first line is '{}'; accepted: '1' or '1 VARIANT'", path, line);
}

Expected<std::shared_ptr<NativeKernel>> load_cpu(const std::string& name, const std::string& path) {
    auto registry_name = cpu_registry_name(name, path);
    if (!registry_name) return registry_name.error();
    const CpuNativeKernel* reg = find_cpu_kernel(*registry_name);
    if (!reg)
        return make_error(ErrorCode::NotFound, "{}: no CPU native kernel named {} is registered", path, *registry_name);
    auto k = std::make_shared<NativeKernel>();
    k->name = name;
    k->path = path;
    k->kind = NativeKind::Cpu;
    k->main.cpu = reg->main;
    k->prep.cpu = reg->prep;
    for (const CpuKernelFn& f : reg->posts) {
        NativePhase p;
        p.cpu = f;
        k->posts.push_back(p);
    }
    k->symbols = reg->symbols;
    return k;
}

CUresult launch_cpu_phase(const ApiTable& in, const NativePhase& phase, const PhaseLaunch& a) {
    struct Job {
        CpuKernelFn fn;
        CpuLaunch launch;
        std::vector<uint8_t> params;
    };
    auto* job = new Job{phase.cpu, {}, *a.block_bytes};
    job->launch.grid = {a.grid[0], a.grid[1], a.grid[2]};
    job->launch.block = {a.block[0], a.block[1], a.block[2]};
    job->launch.shared_bytes = a.shared;
    job->launch.slot = a.slot;
    CUresult r = in.cuLaunchHostFunc(
        a.stream,
        [](void* p) {
            std::unique_ptr<Job> j(static_cast<Job*>(p));
            j->launch.params = j->params;
            j->fn(j->launch);
        },
        job);
    if (r != CUDA_SUCCESS) delete job;
    return r;
}

} // namespace

bool NativeKernel::needs_param_block() const {
    return kind == NativeKind::Cpu || (prep && (symbols.prep_key_offset || symbols.prep_key_at));
}

NativeKernel::~NativeKernel() {
    if (kind == NativeKind::Hip && hip_module && hip_runtime && hip_runtime->module_unload)
        hip_runtime->module_unload(hip_module);
}

NativeSymbols read_native_symbols(const std::function<std::optional<uint32_t>(const std::string&)>& read,
                                  size_t posts) {
    NativeSymbols s;
    s.prep_blocks = read("d4r_prep_blocks");
    s.prep_key_offset = read("d4r_prep_key_offset");
    s.prep_key_at = read("d4r_prep_key_at");
    s.prep_key_slots = read("d4r_prep_key_slots");
    s.block_z = read("d4r_block_z");
    s.grid_x = read("d4r_grid_x");
    s.dynamic_shared = read("d4r_dynamic_shared");
    for (size_t i = 0; i < posts && i < s.posts.size(); ++i) {
        auto sym = [&](const char* what) { return read(fmt::format("d4r_post{}_{}", i + 1, what)); };
        s.posts[i] = {sym("grid_x"), sym("grid_y"), sym("block_x"), sym("block_y"), sym("block_z")};
    }
    return s;
}

Expected<std::shared_ptr<NativeKernel>> load_native_kernel(const ApiTable& inner, const HipRuntime* hip,
                                                           const std::string& extension, const std::string& name,
                                                           const std::string& path) {
    Expected<std::shared_ptr<NativeKernel>> k = [&]() -> Expected<std::shared_ptr<NativeKernel>> {
        if (extension == "cpu") return load_cpu(name, path);
        if (extension == "hsaco") {
            if (!hip) return make_error(ErrorCode::Unsupported, "{}: .hsaco code objects need the HIP runtime", path);
            return load_hip_kernel(*hip, name, path);
        }
        return load_cubin(inner, name, path);
    }();
    if (!k) return k;
    for (size_t i = 0; i < (*k)->posts.size(); ++i) (*k)->posts[i].dims = (*k)->symbols.posts[i];
    return k;
}

CUresult launch_native_phase(const ApiTable& inner, NativeKernel& k, const NativePhase& phase, const PhaseLaunch& a) {
    switch (k.kind) {
    case NativeKind::Backend:
        return inner.cuLaunchKernel(phase.function, a.grid[0], a.grid[1], a.grid[2], a.block[0], a.block[1], a.block[2],
                                    a.shared, a.stream, a.params, a.extra);
    case NativeKind::Hip:
        return launch_hip_phase(k, phase, a);
    case NativeKind::Cpu:
        return launch_cpu_phase(inner, phase, a);
    }
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult write_prep_slot(const ApiTable& inner, NativeKernel& k, uint32_t slot, CUstream stream) {
    if (!k.slot_global) return CUDA_SUCCESS;
    if (k.kind == NativeKind::Hip) return write_hip_slot(k, slot, stream);
    return inner.cuMemsetD32Async(k.slot_global, slot, 1, stream);
}

} // namespace d4r::runtime
