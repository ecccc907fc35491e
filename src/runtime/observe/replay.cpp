#include "runtime/observe/replay.h"

#include <cstring>

#include <fmt/format.h>

#include "core/files.h"
#include "runtime/observe/dump_descriptors.h"

namespace d4r::runtime {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxDumpFile = 16ull << 30;

Error cuda_failure(const char* call, CUresult r) {
    const char* name = error_name(r);
    return make_error(ErrorCode::Invalid, "{} failed: {}", call,
                      name ? name : fmt::format("CUresult {}", static_cast<int>(r)));
}

// Frees what a replay allocated, whatever happens.
struct ReplayResources {
    explicit ReplayResources(const ApiTable& c) : cuda(c) {}
    const ApiTable& cuda;
    CUcontext context = nullptr;
    CUmodule module = nullptr;
    std::vector<CUdeviceptr> allocs;
    std::vector<CUarray> arrays;
    std::vector<CUtexObject> textures;
    std::vector<CUsurfObject> surfaces;
    CUevent start = nullptr, end = nullptr;
    ~ReplayResources() {
        if (!context) return;
        for (CUtexObject t : textures) cuda.cuTexObjectDestroy(t);
        for (CUsurfObject s : surfaces) cuda.cuSurfObjectDestroy(s);
        for (CUarray a : arrays) cuda.cuArrayDestroy(a);
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
        return make_error(ErrorCode::Invalid, "{}: {} bytes, but the manifest says {}", path.string(), bytes.size(),
                          expected);
    return bytes;
}

CUDA_RESOURCE_DESC resource_desc(const DumpResource& r, const ReplayResources& res) {
    CUDA_RESOURCE_DESC d{};
    switch (r.kind) {
    case DumpResource::Kind::Array:
        d.resType = CU_RESOURCE_TYPE_ARRAY;
        d.res.array.hArray = res.arrays[r.array];
        break;
    case DumpResource::Kind::Pitch2D:
        d.resType = CU_RESOURCE_TYPE_PITCH2D;
        d.res.pitch2D.devPtr = res.allocs[r.alloc] + r.delta;
        d.res.pitch2D.format = static_cast<CUarray_format>(r.format);
        d.res.pitch2D.numChannels = r.channels;
        d.res.pitch2D.width = r.width;
        d.res.pitch2D.height = r.height;
        d.res.pitch2D.pitchInBytes = r.pitch;
        break;
    case DumpResource::Kind::Linear:
        d.resType = CU_RESOURCE_TYPE_LINEAR;
        d.res.linear.devPtr = res.allocs[r.alloc] + r.delta;
        d.res.linear.format = static_cast<CUarray_format>(r.format);
        d.res.linear.numChannels = r.channels;
        d.res.linear.sizeInBytes = r.bytes;
        break;
    case DumpResource::Kind::Mipmapped:
        d.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
        break;
    }
    return d;
}

} // namespace

CUresult copy_array(const ApiTable& cuda, CUarray array, const DumpArray& desc, void* host, ArrayCopy direction) {
    CUDA_MEMCPY3D c{};
    if (direction == ArrayCopy::ToHost) {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = array;
        c.dstMemoryType = CU_MEMORYTYPE_HOST;
        c.dstHost = host;
        c.dstPitch = desc.row_bytes();
        c.dstHeight = desc.rows();
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = host;
        c.srcPitch = desc.row_bytes();
        c.srcHeight = desc.rows();
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = array;
    }
    c.WidthInBytes = desc.row_bytes();
    c.Height = desc.rows();
    c.Depth = desc.slices();
    return cuda.cuMemcpy3D_v2(&c);
}

#define D4R_CU(call)                                            \
    do {                                                        \
        CUresult r_ = (call);                                   \
        if (r_ != CUDA_SUCCESS) return cuda_failure(#call, r_); \
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
        inputs.push_back(D4R_TRY(read_named(dump / dump_alloc_file(i), m.allocs[i].bytes)));
    std::vector<std::string> array_inputs;
    for (size_t j = 0; j < m.arrays.size(); ++j)
        array_inputs.push_back(D4R_TRY(read_named(dump / dump_array_file(j), m.arrays[j].bytes())));
    progress(fmt::format("replaying {} ({} x {} x {} blocks of {} x {} x {}, {} allocations, {} arrays, {} texture or "
                         "surface objects)",
                         m.kernel, m.grid[0], m.grid[1], m.grid[2], m.block[0], m.block[1], m.block[2], m.allocs.size(),
                         m.arrays.size(), m.objects.size()));

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
    for (size_t j = 0; j < m.arrays.size(); ++j) {
        const DumpArray& a = m.arrays[j];
        CUDA_ARRAY3D_DESCRIPTOR d{a.width,    a.height, a.depth, static_cast<CUarray_format>(a.format),
                                  a.channels, a.flags};
        CUarray array = nullptr;
        D4R_CU(cuda.cuArray3DCreate_v2(&array, &d));
        res.arrays.push_back(array);
        D4R_CU(copy_array(cuda, array, a, array_inputs[j].data(), ArrayCopy::FromHost));
    }
    for (const DumpPointer& p : m.pointers) {
        uint64_t v = res.allocs[p.alloc] + p.delta;
        std::memcpy(args.data() + p.arg_offset, &v, 8);
    }
    for (const DumpObject& o : m.objects) {
        if (o.resource.kind == DumpResource::Kind::Mipmapped) {
            progress(fmt::format("warning: the {} at argument offset {} is over a mipmapped array, which dumps do not "
                                 "capture: its handle stays as dumped",
                                 o.surface ? "surface" : "texture", o.arg_offset));
            continue;
        }
        CUDA_RESOURCE_DESC rd = resource_desc(o.resource, res);
        uint64_t handle = 0;
        if (o.surface) {
            CUsurfObject s = 0;
            D4R_CU(cuda.cuSurfObjectCreate(&s, &rd));
            res.surfaces.push_back(s);
            handle = s;
        } else {
            CUDA_TEXTURE_DESC td = cuda_texture_desc(o.texture);
            CUDA_RESOURCE_VIEW_DESC vd{};
            if (o.view) vd = cuda_view_desc(*o.view);
            CUtexObject t = 0;
            D4R_CU(cuda.cuTexObjectCreate(&t, &rd, &td, o.view ? &vd : nullptr));
            res.textures.push_back(t);
            handle = t;
        }
        std::memcpy(args.data() + o.arg_offset, &handle, 8);
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
        D4R_TRY(write_file_atomic(out / dump_alloc_file(i), bytes));
    }
    for (size_t j = 0; j < m.arrays.size(); ++j) {
        bytes.resize(m.arrays[j].bytes());
        D4R_CU(copy_array(cuda, res.arrays[j], m.arrays[j], bytes.data(), ArrayCopy::ToHost));
        D4R_TRY(write_file_atomic(out / dump_array_file(j), bytes));
    }
    result.manifest = std::move(m);
    return result;
}

} // namespace d4r::runtime
