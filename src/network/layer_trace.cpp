// A forward pass launch by launch, its trace file, and the comparison of two traces.
#include "network/layer_trace.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "kernels/common/f16.h"
#include "kernels/refine/ptx/refine_math.h"
#include "kernels/upscaler/ptx/upscaler_math.h"
#include "network/plan.h"
#include "network/refine_pipeline.h"

namespace d4r::network {

using namespace abi;
using upscaler::cuda_error;

namespace {

// The device memory of one traced pass: weights | scratch | image.
struct DeviceMemory {
    const upscaler::CudaFunctions& cuda;
    CUdeviceptr base = 0;
    std::vector<std::pair<const char*, CUmodule>> modules; // by the PTX text's address
    ~DeviceMemory() {
        if (base) cuda.cuMemFree_v2(base);
        for (auto& [text, module] : modules) cuda.cuModuleUnload(module);
    }
};

// f16 bits on a line where neighbours differ by one ulp (-0 and +0 are 0 apart).
int32_t ordered(uint16_t h) { return (h & 0x8000u) ? -int32_t(h & 0x7fffu) : int32_t(h); }
bool is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); }

} // namespace

Expected<LayerTrace> trace_forward(const upscaler::CudaFunctions& cuda, const Model& model,
                                   const std::vector<uint16_t>& rgba, uint32_t width, uint32_t height) {
    return trace_forward(cuda, model, rgba, width, height, kernel_ptx);
}

namespace {

// The value of a module's u32 global NAME; 0 for a module without it.
Expected<uint32_t> u32_global(const upscaler::CudaFunctions& cuda, CUmodule module, const char* name) {
    CUdeviceptr at = 0;
    size_t size = 0;
    if (!cuda.cuModuleGetGlobal_v2 || cuda.cuModuleGetGlobal_v2(&at, &size, module, name) != CUDA_SUCCESS || size != 4)
        return 0u;
    uint32_t value = 0;
    if (CUresult r = cuda.cuMemcpyDtoH_v2(&value, at, 4); r != CUDA_SUCCESS)
        return cuda_error(cuda, "cuMemcpyDtoH_v2", r).add_context(name);
    return value;
}

// A native kernel's code compiled to PTX (the tests run the fast sm_90 kernels so) is launched as the override layer
// serves a native code object (docs/runtime.md): a u32 global `d4r_dynamic_shared` asks for that many bytes of dynamic
// shared memory (the function's limit is raised), `d4r_grid_x` for a persistent grid (the launch becomes
// d4r_grid_x x 1 x 1 blocks, each walking its share of the work) and `d4r_block_z` for the block's z (the plan's is 1).
struct LaunchShape {
    uint32_t shared = 0, grid_x = 0, block_z = 0; // 0: none, the plan's grid and block
};
Expected<LaunchShape> launch_shape_of(const upscaler::CudaFunctions& cuda, CUmodule module, CUfunction f) {
    LaunchShape shape;
    shape.shared = D4R_TRY(u32_global(cuda, module, "d4r_dynamic_shared"));
    shape.grid_x = D4R_TRY(u32_global(cuda, module, "d4r_grid_x"));
    shape.block_z = D4R_TRY(u32_global(cuda, module, "d4r_block_z"));
    if (shape.shared) {
        if (!cuda.cuFuncSetAttribute) return make_error(ErrorCode::Unsupported, "no cuFuncSetAttribute");
        CUresult r =
            cuda.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(shape.shared));
        if (r != CUDA_SUCCESS)
            return cuda_error(cuda, "cuFuncSetAttribute", r)
                .add_context(fmt::format("{} bytes of dynamic shared memory", shape.shared));
    }
    return shape;
}

// The pass over IMAGE (device memory, PITCH bytes a row) or, when RGBA is given, over a copy of it made here; CORE as
// plan_forward takes it.
Expected<LayerTrace> trace_pass(const upscaler::CudaFunctions& cuda, const Model& model,
                                const std::vector<uint16_t>* rgba, CUdeviceptr image_at, uint32_t pitch, uint32_t width,
                                uint32_t height, const upscaler::math::Params* core, const PtxForKernel& ptx_for,
                                PlanOptions options) {
    const Geometry g = geometry_for(width, height);
    const std::vector<uint8_t> weights = pack_weights(model);
    const uint64_t scratch = weights.size(), image = scratch + scratch_layout(g, model.arch).total;
    const uint64_t total = image + (rgba ? rgba->size() * 2 : 0);
    DeviceMemory mem{cuda, 0, {}};
    CUresult r = CUDA_SUCCESS;
    std::array<CUfunction, kAllKernels.size()> fn{};
    std::array<LaunchShape, kAllKernels.size()> shape{};
    for (Kernel k : plan_kernels(model.arch, options)) { // only those: ptx_for need not define the others
        const char* text = ptx_for(k).data();
        auto loaded = std::find_if(mem.modules.begin(), mem.modules.end(), [&](auto& m) { return m.first == text; });
        if (loaded == mem.modules.end()) {
            CUmodule module = nullptr;
            if ((r = cuda.cuModuleLoadData(&module, text)) != CUDA_SUCCESS)
                return cuda_error(cuda, "cuModuleLoadData", r)
                    .add_context(fmt::format("the PTX of {}", kernel_name(k)));
            loaded = mem.modules.insert(mem.modules.end(), {text, module});
        }
        if ((r = cuda.cuModuleGetFunction(&fn[size_t(k)], loaded->second, kernel_name(k))) != CUDA_SUCCESS)
            return cuda_error(cuda, kernel_name(k), r).add_context("cuModuleGetFunction");
        auto s = launch_shape_of(cuda, loaded->second, fn[size_t(k)]);
        if (!s) return std::move(s).error().add_context(kernel_name(k));
        shape[size_t(k)] = *s;
    }
    if ((r = cuda.cuMemAlloc_v2(&mem.base, total)) != CUDA_SUCCESS) return cuda_error(cuda, "cuMemAlloc_v2", r);
    if ((r = cuda.cuMemsetD8_v2(mem.base, 0, total)) != CUDA_SUCCESS) return cuda_error(cuda, "cuMemsetD8_v2", r);
    if ((r = cuda.cuMemcpyHtoD_v2(mem.base, weights.data(), weights.size())) != CUDA_SUCCESS ||
        (rgba && (r = cuda.cuMemcpyHtoD_v2(mem.base + image, rgba->data(), rgba->size() * 2)) != CUDA_SUCCESS))
        return cuda_error(cuda, "cuMemcpyHtoD_v2", r);
    if (rgba) image_at = mem.base + image;
    LayerTrace trace;
    for (const Launch& l : plan_forward(g, image_at, pitch, mem.base, mem.base + scratch, model.arch, core, options)) {
        void* args[] = {const_cast<uint8_t*>(l.params.data())};
        const LaunchShape& ls = shape[size_t(l.kernel)];
        const std::array<uint32_t, 3> grid = ls.grid_x ? std::array<uint32_t, 3>{ls.grid_x, 1, 1} : l.grid;
        const uint32_t block_z = ls.block_z ? ls.block_z : l.block[2];
        r = cuda.cuLaunchKernel(fn[size_t(l.kernel)], grid[0], grid[1], grid[2], l.block[0], l.block[1], block_z,
                                ls.shared, nullptr, args, nullptr);
        if (r == CUDA_SUCCESS) r = cuda.cuCtxSynchronize();
        if (r != CUDA_SUCCESS) return cuda_error(cuda, "cuLaunchKernel", r).add_context(l.what);
        TraceEntry e{kernel_name(l.kernel), l.what, std::vector<uint8_t>(l.out_bytes)};
        if ((r = cuda.cuMemcpyDtoH_v2(e.bytes.data(), l.out, l.out_bytes)) != CUDA_SUCCESS)
            return cuda_error(cuda, "cuMemcpyDtoH_v2", r).add_context(l.what);
        trace.push_back(std::move(e));
    }
    return trace;
}

} // namespace

Expected<LayerTrace> trace_forward(const upscaler::CudaFunctions& cuda, const Model& model,
                                   const std::vector<uint16_t>& rgba, uint32_t width, uint32_t height,
                                   const PtxForKernel& ptx_for, PlanOptions options) {
    if (rgba.size() != size_t(width) * height * 4)
        return make_error(ErrorCode::Invalid, "trace: {} values for a {}x{} RGBA image", rgba.size(), width, height);
    if (reads_core_frame(model.arch))
        return make_error(ErrorCode::Invalid,
                          "trace: {} reads the core's frame, not an image (traces take refine-v1 "
                          "models)",
                          model.arch);
    return trace_pass(cuda, model, &rgba, 0, width * 8, width, height, nullptr, ptx_for, options);
}

Expected<LayerTrace> trace_forward_after_core(const upscaler::CudaFunctions& cuda, const Model& model,
                                              const upscaler::math::Params& core, const PtxForKernel& ptx_for,
                                              PlanOptions options) {
    if (!reads_core_frame(model.arch))
        return make_error(ErrorCode::Invalid, "trace after the core: {} refines an image (traces of it take the image)",
                          model.arch);
    return trace_pass(cuda, model, nullptr, core.output, core.output_pitch, core.output_w, core.output_h, &core,
                      ptx_for, options);
}

Status write_trace(const std::filesystem::path& path, const LayerTrace& trace) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    auto u32 = [&](uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
    auto text = [&](const std::string& s) {
        u32(static_cast<uint32_t>(s.size()));
        out.write(s.data(), std::streamsize(s.size()));
    };
    u32(static_cast<uint32_t>(trace.size()));
    for (const TraceEntry& e : trace) {
        text(e.kernel);
        text(e.layer);
        uint64_t n = e.bytes.size();
        out.write(reinterpret_cast<const char*>(&n), 8);
        out.write(reinterpret_cast<const char*>(e.bytes.data()), std::streamsize(n));
    }
    out.close();
    if (!out) return make_error(ErrorCode::Io, "cannot write the trace {}", path.string());
    return ok_status();
}

Expected<LayerTrace> read_trace(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(ErrorCode::NotFound, "trace {}: cannot open it", path.string());
    auto bad = [&] { return make_error(ErrorCode::Invalid, "trace {}: truncated or malformed", path.string()); };
    auto u32 = [&](uint32_t& v) { return bool(in.read(reinterpret_cast<char*>(&v), 4)); };
    auto text = [&](std::string& s) {
        uint32_t n = 0;
        if (!u32(n) || n > 4096) return false;
        s.resize(n);
        return bool(in.read(s.data(), n));
    };
    uint32_t count = 0;
    if (!u32(count) || count > 4096) return bad();
    LayerTrace trace(count);
    for (TraceEntry& e : trace) {
        uint64_t n = 0;
        if (!text(e.kernel) || !text(e.layer) || !in.read(reinterpret_cast<char*>(&n), 8) || n > (1ull << 32))
            return bad();
        e.bytes.resize(n);
        if (!in.read(reinterpret_cast<char*>(e.bytes.data()), std::streamsize(n))) return bad();
    }
    return trace;
}

double displayed_psnr(const std::vector<uint8_t>& reference, const std::vector<uint8_t>& other) {
    const size_t n = std::min(reference.size(), other.size()) / 2;
    double sum = 0;
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i % 4 == 3) continue; // alpha
        uint16_t a, b;
        std::memcpy(&a, reference.data() + 2 * i, 2);
        std::memcpy(&b, other.data() + 2 * i, 2);
        const double d = double(refine::math::tone(kernels::half_to_float(a))) -
                         double(refine::math::tone(kernels::half_to_float(b)));
        sum += d * d;
        ++count;
    }
    return sum == 0 || count == 0 ? 200.0 : 10.0 * std::log10(double(count) / sum);
}

Expected<std::vector<LayerComparison>> compare_traces(const LayerTrace& reference, const LayerTrace& other) {
    if (reference.size() != other.size())
        return make_error(ErrorCode::Invalid, "the traces have {} and {} launches", reference.size(), other.size());
    std::vector<LayerComparison> out;
    for (size_t i = 0; i < reference.size(); ++i) {
        const TraceEntry &a = reference[i], &b = other[i];
        if (a.layer != b.layer || a.bytes.size() != b.bytes.size())
            return make_error(ErrorCode::Invalid, "launch {}: {} ({} bytes) against {} ({} bytes)", i, a.layer,
                              a.bytes.size(), b.layer, b.bytes.size());
        LayerComparison c{a.kernel, a.layer};
        c.values = a.bytes.size() / 2;
        double se = 0, peak = 0;
        for (uint64_t v = 0; v < c.values; ++v) {
            uint16_t x, y;
            std::memcpy(&x, a.bytes.data() + 2 * v, 2);
            std::memcpy(&y, b.bytes.data() + 2 * v, 2);
            const float fx = kernels::half_to_float(x), fy = kernels::half_to_float(y);
            if (std::isfinite(fx)) peak = std::max(peak, double(std::fabs(fx)));
            if (x == y) continue;
            ++c.differ;
            uint32_t ulp = is_nan(x) || is_nan(y) ? 0xffffu : static_cast<uint32_t>(std::abs(ordered(x) - ordered(y)));
            c.max_ulp = std::max(c.max_ulp, ulp);
            (ulp <= 1 ? c.ulps_1 : ulp <= 3 ? c.ulps_2_3 : ulp <= 15 ? c.ulps_4_15 : c.ulps_16)++;
            const double d = double(fx) - double(fy);
            se += std::isfinite(d) ? d * d : 1e30;
        }
        c.psnr_db = c.differ == 0 || peak == 0 ? std::numeric_limits<double>::infinity()
                                               : 10.0 * std::log10(peak * peak * double(c.values) / se);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace d4r::network
