// cpu backend: CUDA arrays. 1D and 2D arrays are ptxsim arrays (ptxsim_texture.h), which texture and surface
// objects can use; 3D, layered and cubemap arrays (which ptxsim cannot sample) are packed texels in device
// memory that only copies reach.
#include "runtime/backends/cpu/cpu_array.h"
#include "core/log.h"
#include "ptxsim/ptxsim_texture.h"
#include "runtime/backends/cpu/cpu_memory_budget.h"
#include "runtime/backends/cpu/cpu_ops.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

uint64_t format_bytes_plain(CUarray_format f) {
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
        return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
        return 4;
    default:
        return 0;
    }
}

} // namespace

bool to_channel_format(CUarray_format f, ptxsim::ChannelFormat& out) {
    using F = ptxsim::ChannelFormat;
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
        out = F::U8;
        return true;
    case CU_AD_FORMAT_UNSIGNED_INT16:
        out = F::U16;
        return true;
    case CU_AD_FORMAT_UNSIGNED_INT32:
        out = F::U32;
        return true;
    case CU_AD_FORMAT_SIGNED_INT8:
        out = F::S8;
        return true;
    case CU_AD_FORMAT_SIGNED_INT16:
        out = F::S16;
        return true;
    case CU_AD_FORMAT_SIGNED_INT32:
        out = F::S32;
        return true;
    case CU_AD_FORMAT_HALF:
        out = F::F16;
        return true;
    case CU_AD_FORMAT_FLOAT:
        out = F::F32;
        return true;
    case CU_AD_FORMAT_UNORM_INT_101010_2:
        out = F::RGB10A2;
        return true;
    default:
        return false;
    }
}

namespace {

constexpr unsigned kArrayFlags =
    CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_TEXTURE_GATHER;

CUresult create_array(CUarray* ph, const CUDA_ARRAY3D_DESCRIPTOR& d, bool created_3d) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    ptxsim::ChannelFormat sim_format;
    bool mappable = to_channel_format(d.Format, sim_format);
    uint64_t element = mappable ? ptxsim::texel_bytes(sim_format, d.NumChannels) : 0;
    D4R_CPU_REFUSE_IF(!ph || element == 0, CUDA_ERROR_INVALID_VALUE);
    D4R_CPU_REFUSE_IF(d.Width == 0 || (d.Flags & ~kArrayFlags), CUDA_ERROR_INVALID_VALUE);
    bool layered = d.Flags & CUDA_ARRAY3D_LAYERED;
    if (d.Depth && !d.Height && !layered) return CUDA_ERROR_INVALID_VALUE; // 3D needs a height
    if ((d.Flags & CUDA_ARRAY3D_CUBEMAP) && (d.Width != d.Height || (layered ? d.Depth % 6 : d.Depth != 6)))
        return CUDA_ERROR_INVALID_VALUE;
    D4R_CPU_REFUSE_IF(d.Width > 131072 || d.Height > 65536 || d.Depth > 16384, CUDA_ERROR_INVALID_VALUE);
    auto a = std::make_shared<Array>();
    a->ctx = ctx.get();
    a->desc = d;
    a->created_3d = created_3d;
    a->element_bytes = element;
    if (!d.Depth && !(d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP))) {
        ptxsim::ArrayDesc sd;
        sd.width = static_cast<uint32_t>(d.Width);
        sd.height = static_cast<uint32_t>(d.Height ? d.Height : 1);
        sd.format = sim_format;
        sd.channels = d.NumChannels;
        sd.surface = d.Flags & CUDA_ARRAY3D_SURFACE_LDST;
        // ptxsim keeps the texels itself (zero-filled): checked against the budget, not counted in it.
        if (CUresult r = budget_check(a->row_bytes() * a->height(), "cuArrayCreate")) return r;
        auto id = ptxsim::create_array(state().device, sd);
        if (!id) {
            log::warn("cpu backend: cuArrayCreate: {}", id.error().text());
            return CUDA_ERROR_INVALID_VALUE;
        }
        a->sim = *id;
    } else {
        if (format_bytes_plain(d.Format) == 0) return CUDA_ERROR_INVALID_VALUE; // packed formats: 2D only
        uint64_t bytes = a->row_bytes() * a->height() * a->depth();
        if (CUresult r = budget_alloc(bytes, "cuArray3DCreate", a->base)) return r;
        add_region(Region{a->base, bytes, RegionKind::Array, ctx.get(), 0, 0});
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.arrays[a.get()] = a;
    *ph = reinterpret_cast<CUarray>(a.get());
    return CUDA_SUCCESS;
}

CUresult cu_array_create(CUarray* ph, const CUDA_ARRAY_DESCRIPTOR* d) {
    if (!d) return check_init() ? check_init() : CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d3{d->Width, d->Height, 0, d->Format, d->NumChannels, 0};
    return create_array(ph, d3, false);
}

CUresult cu_array_3d_create(CUarray* ph, const CUDA_ARRAY3D_DESCRIPTOR* d) {
    if (!d) return check_init() ? check_init() : CUDA_ERROR_INVALID_VALUE;
    return create_array(ph, *d, true);
}

} // namespace

std::shared_ptr<Array> find_array(CUarray h) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.arrays.find(h);
    return it == s.arrays.end() ? nullptr : it->second;
}

namespace {

CUresult cu_array_get_descriptor(CUDA_ARRAY_DESCRIPTOR* out, CUarray h) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    auto a = find_array(h);
    D4R_CPU_REFUSE_IF(!a, CUDA_ERROR_INVALID_HANDLE);
    // A 3D array too: its width, height, format and channels (NVIDIA's driver 580 answers so).
    *out = CUDA_ARRAY_DESCRIPTOR{a->desc.Width, a->desc.Height, a->desc.Format, a->desc.NumChannels};
    return CUDA_SUCCESS;
}

CUresult cu_array_3d_get_descriptor(CUDA_ARRAY3D_DESCRIPTOR* out, CUarray h) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    auto a = find_array(h);
    D4R_CPU_REFUSE_IF(!a, CUDA_ERROR_INVALID_HANDLE);
    *out = a->desc;
    return CUDA_SUCCESS;
}

CUresult cu_array_destroy(CUarray h) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Array> a;
    {
        State& s = state();
        std::lock_guard lock(s.mutex);
        auto it = s.arrays.find(h);
        D4R_CPU_REFUSE_IF(it == s.arrays.end(), CUDA_ERROR_INVALID_HANDLE);
        D4R_CPU_REFUSE_IF(it->second->mipmap_level, CUDA_ERROR_INVALID_VALUE); // cuMipmappedArrayDestroy frees it
        a = it->second;
        s.arrays.erase(it);
    }
    if (auto ctx = find_context(reinterpret_cast<CUcontext>(a->ctx))) ctx->drain();
    if (a->sim)
        (void)ptxsim::destroy_array(state().device, a->sim);
    else if (remove_region(a->base))
        (void)state().device.free(a->base);
    return CUDA_SUCCESS;
}

} // namespace

CUresult array_layout(CUarray h, ArrayLayout& out) {
    auto a = find_array(h);
    D4R_CPU_REFUSE_IF(!a, CUDA_ERROR_INVALID_HANDLE);
    out.base = a->base;
    out.sim = a->sim;
    out.row_bytes = a->row_bytes();
    out.element_bytes = std::max<uint64_t>(a->element_bytes, 1);
    out.height = a->height();
    out.depth = a->depth();
    return CUDA_SUCCESS;
}

void fill_array(ApiTable& t) {
    t.cuArrayCreate_v2 = cu_array_create;
    t.cuArray3DCreate_v2 = cu_array_3d_create;
    t.cuArrayGetDescriptor_v2 = cu_array_get_descriptor;
    t.cuArray3DGetDescriptor_v2 = cu_array_3d_get_descriptor;
    t.cuArrayDestroy = cu_array_destroy;
}

} // namespace d4r::runtime::cpu
