#include "runtime/observe/replay.h"

#include <cstring>

#include <fmt/format.h>

#include "core/files.h"

namespace d4r::runtime {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxDumpFile = 16ull << 30;

Error cuda_failure(const char* call, CUresult r) {
    const char* name = error_name(r);
    return make_error(ErrorCode::Invalid, "{} failed: {}", call, name ? name : fmt::format("CUresult {}", static_cast<int>(r)));
}

// Frees what a replay allocated, whatever happens.
struct ReplayResources {
    explicit ReplayResources(const ApiTable& c) : cuda(c) {}
    const ApiTable& cuda;
    CUcontext context = nullptr;
    CUmodule module = nullptr;
    std::vector<CUdeviceptr> allocs;
    CUevent start = nullptr, end = nullptr;
    ~ReplayResources() {
        if (!context) return;
        for (CUdeviceptr p : allocs)
            if (p) cuda.cuMemFree_v2(p);
        if (start) cuda.cuEventDestroy_v2(start);
        if (end) cuda.cuEventDestroy_v2(end);
        if (module) cuda.cuModuleUnload(module);
        cuda.cuCtxDestroy_v2(context);
    }
};

Expected<std::string> read_named(const fs::path& path, uint64_t expected) {
    std::vector<uint8_t> raw = D4R_TRY(read_file(path, kMaxDumpFile));
    std::string bytes(raw.begin(), raw.end());
    if (expected != UINT64_MAX && bytes.size() != expected)
        return make_error(ErrorCode::Invalid, "{}: {} bytes, but the manifest says {}", path.string(), bytes.size(), expected);
    return bytes;
}

} // namespace

#define D4R_CU(call)                                                                                                   \
    do {                                                                                                               \
        CUresult r_ = (call);                                                                                          \
        if (r_ != CUDA_SUCCESS) return cuda_failure(#call, r_);                                                        \
    } while (0)

Expected<ReplayResult> replay_dump(const ApiTable& cuda, const fs::path& dump, const fs::path& out,
                                   const std::function<void(const std::string&)>& progress) {
    fs::path manifest_path = dump / "manifest.txt";
    std::string manifest_text = D4R_TRY(read_named(manifest_path, UINT64_MAX));
    DumpManifest m = D4R_TRY(parse_dump_manifest(manifest_text, manifest_path.string()));
    std::string args = D4R_TRY(read_named(dump / "args.bin", m.args_bytes));
    std::string module_text = D4R_TRY(read_named(dump / m.module, UINT64_MAX));
    std::vector<std::string> inputs;
    for (size_t i = 0; i < m.allocs.size(); ++i)
        inputs.push_back(D4R_TRY(read_named(dump / fmt::format("alloc-{}.bin", i), m.allocs[i].bytes)));
    progress(fmt::format("replaying {} ({} x {} x {} blocks of {} x {} x {}, {} allocations)", m.kernel, m.grid[0],
                         m.grid[1], m.grid[2], m.block[0], m.block[1], m.block[2], m.allocs.size()));

    ReplayResources res(cuda);
    D4R_CU(cuda.cuInit(0));
    CUdevice device = 0;
    D4R_CU(cuda.cuDeviceGet(&device, 0));
    D4R_CU(cuda.cuCtxCreate_v2(&res.context, 0, device));
    D4R_CU(cuda.cuModuleLoadData(&res.module, module_text.c_str()));
    CUfunction function = nullptr;
    D4R_CU(cuda.cuModuleGetFunction(&function, res.module, m.kernel.c_str()));
    for (size_t i = 0; i < m.allocs.size(); ++i) {
        CUdeviceptr p = 0;
        D4R_CU(cuda.cuMemAlloc_v2(&p, std::max<uint64_t>(m.allocs[i].bytes, 1)));
        res.allocs.push_back(p);
        if (!inputs[i].empty()) D4R_CU(cuda.cuMemcpyHtoD_v2(p, inputs[i].data(), inputs[i].size()));
    }
    for (const DumpPointer& p : m.pointers) {
        uint64_t v = res.allocs[p.alloc] + p.delta;
        std::memcpy(args.data() + p.arg_offset, &v, 8);
    }
    size_t args_size = args.size();
    void* extra[] = {D4R_CU_LAUNCH_PARAM_BUFFER_POINTER, args.data(), D4R_CU_LAUNCH_PARAM_BUFFER_SIZE, &args_size,
                     D4R_CU_LAUNCH_PARAM_END};
    D4R_CU(cuda.cuEventCreate(&res.start, CU_EVENT_DEFAULT));
    D4R_CU(cuda.cuEventCreate(&res.end, CU_EVENT_DEFAULT));
    D4R_CU(cuda.cuEventRecord(res.start, nullptr));
    D4R_CU(cuda.cuLaunchKernel(function, m.grid[0], m.grid[1], m.grid[2], m.block[0], m.block[1], m.block[2], m.shared,
                               nullptr, nullptr, args_size ? extra : nullptr));
    D4R_CU(cuda.cuEventRecord(res.end, nullptr));
    D4R_CU(cuda.cuCtxSynchronize());
    ReplayResult result;
    float ms = 0;
    if (cuda.cuEventElapsedTime(&ms, res.start, res.end) == CUDA_SUCCESS) result.gpu_ms = ms;

    std::error_code ec;
    fs::create_directories(out, ec);
    if (ec) return make_error(ErrorCode::Io, "cannot create {}: {}", out.string(), ec.message());
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i < m.allocs.size(); ++i) {
        bytes.resize(m.allocs[i].bytes);
        if (!bytes.empty()) D4R_CU(cuda.cuMemcpyDtoH_v2(bytes.data(), res.allocs[i], bytes.size()));
        D4R_TRY(write_file_atomic(out / fmt::format("alloc-{}.bin", i), bytes));
    }
    result.manifest = std::move(m);
    return result;
}

} // namespace d4r::runtime
