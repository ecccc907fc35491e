// cpu backend: texture and surface objects over ptxsim's texture API (ptxsim_texture.h). The handle a
// kernel receives is ptxsim's object id; the resource descriptor is kept for cuTex/SurfObjectGetResourceDesc.
#include <mutex>
#include <unordered_map>

#include "core/log.h"
#include "runtime/backends/cpu/cpu_array.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace {

struct Descs final : StatePart {
    static constexpr PartSlot kSlot = PartSlot::Textures;
    std::mutex mutex;
    std::unordered_map<uint64_t, CUDA_RESOURCE_DESC> textures; // guarded by mutex
    std::unordered_map<uint64_t, CUDA_RESOURCE_DESC> surfaces;
};

Descs& descs() { return state().part<Descs>(); }

// A 3D, layered or cubemap array (its texels in its own device memory) as a ptxsim volume.
CUresult map_volume(const Array& a, ptxsim::ResourceDesc& out) {
    using G = ptxsim::Geometry;
    const unsigned flags = a.desc.Flags;
    const bool layered = flags & CUDA_ARRAY3D_LAYERED;
    if (flags & CUDA_ARRAY3D_CUBEMAP)
        out.geometry = layered ? G::CubemapLayered : G::Cubemap;
    else if (layered)
        out.geometry = a.desc.Height ? G::Layered2D : G::Layered1D;
    else
        out.geometry = G::Volume3D;
    D4R_CPU_REFUSE_IF(!to_channel_format(a.desc.Format, out.format), CUDA_ERROR_INVALID_VALUE);
    out.kind = ptxsim::ResourceDesc::Kind::Volume;
    out.ptr = a.base;
    out.channels = a.desc.NumChannels;
    out.width = static_cast<uint32_t>(a.desc.Width);
    out.height = static_cast<uint32_t>(a.height());
    out.depth = static_cast<uint32_t>(a.depth());
    out.pitch = a.row_bytes();
    out.slice_pitch = a.row_bytes() * a.height();
    return CUDA_SUCCESS;
}

CUresult map_resource(const CUDA_RESOURCE_DESC& r, ptxsim::ResourceDesc& out) {
    using Kind = ptxsim::ResourceDesc::Kind;
    switch (r.resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
        auto a = find_array(r.res.array.hArray);
        D4R_CPU_REFUSE_IF(!a, CUDA_ERROR_INVALID_HANDLE);
        if (!a->sim) return map_volume(*a, out);
        out.kind = Kind::Array;
        out.array = a->sim;
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_PITCH2D:
        D4R_CPU_REFUSE_IF(!to_channel_format(r.res.pitch2D.format, out.format), CUDA_ERROR_INVALID_VALUE);
        out.kind = Kind::Pitch2D;
        out.ptr = r.res.pitch2D.devPtr;
        out.channels = r.res.pitch2D.numChannels;
        out.width = static_cast<uint32_t>(r.res.pitch2D.width);
        out.height = static_cast<uint32_t>(r.res.pitch2D.height);
        out.pitch = r.res.pitch2D.pitchInBytes;
        return CUDA_SUCCESS;
    case CU_RESOURCE_TYPE_LINEAR:
        D4R_CPU_REFUSE_IF(!to_channel_format(r.res.linear.format, out.format), CUDA_ERROR_INVALID_VALUE);
        out.kind = Kind::Linear;
        out.ptr = r.res.linear.devPtr;
        out.channels = r.res.linear.numChannels;
        out.bytes = r.res.linear.sizeInBytes;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_NOT_SUPPORTED; // mipmapped arrays
    }
}

bool small_integer(ptxsim::ChannelFormat f) {
    using F = ptxsim::ChannelFormat;
    return f == F::U8 || f == F::U16 || f == F::S8 || f == F::S16;
}

CUresult map_texture(const CUDA_TEXTURE_DESC& t, ptxsim::ChannelFormat format, ptxsim::TextureDesc& out) {
    for (int i = 0; i < 3; ++i) {
        D4R_CPU_REFUSE_IF(static_cast<unsigned>(t.addressMode[i]) > CU_TR_ADDRESS_MODE_BORDER,
                          CUDA_ERROR_INVALID_VALUE);
        out.address[i] = static_cast<ptxsim::AddressMode>(t.addressMode[i]); // same order as CUaddress_mode
    }
    D4R_CPU_REFUSE_IF(static_cast<unsigned>(t.filterMode) > CU_TR_FILTER_MODE_LINEAR, CUDA_ERROR_INVALID_VALUE);
    out.filter = t.filterMode == CU_TR_FILTER_MODE_LINEAR ? ptxsim::FilterMode::Linear : ptxsim::FilterMode::Point;
    // Without CU_TRSF_READ_AS_INTEGER, 8- and 16-bit integer texels read as normalised floats (CUDA's rule).
    bool as_integer = t.flags & CU_TRSF_READ_AS_INTEGER;
    out.read = !as_integer && small_integer(format) ? ptxsim::ReadMode::NormalizedFloat : ptxsim::ReadMode::ElementType;
    out.normalized_coords = t.flags & CU_TRSF_NORMALIZED_COORDINATES;
    for (int i = 0; i < 4; ++i) out.border[i] = t.borderColor[i];
    if ((t.flags & CU_TRSF_SRGB) && log::once("cpu:srgb"))
        log::warn("cpu backend: cuTexObjectCreate ignores CU_TRSF_SRGB");
    return CUDA_SUCCESS;
}

CUresult cu_tex_object_create(CUtexObject* out, const CUDA_RESOURCE_DESC* res, const CUDA_TEXTURE_DESC* tex,
                              const CUDA_RESOURCE_VIEW_DESC* view) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    D4R_CPU_REFUSE_IF(!out || !res || !tex, CUDA_ERROR_INVALID_VALUE);
    if (view) {
        log::warn("cpu backend: cuTexObjectCreate: resource views are not supported");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    ptxsim::ResourceDesc rd;
    if (CUresult r = map_resource(*res, rd)) return r;
    ptxsim::ChannelFormat format = rd.format;
    if (rd.kind == ptxsim::ResourceDesc::Kind::Array) {
        auto desc = ptxsim::array_desc(state().device, rd.array);
        D4R_CPU_REFUSE_IF(!desc, CUDA_ERROR_INVALID_HANDLE);
        format = desc->format;
    }
    ptxsim::TextureDesc td;
    if (CUresult r = map_texture(*tex, format, td)) return r;
    auto handle = ptxsim::create_texture_object(state().device, rd, td);
    if (!handle) {
        log::warn("cpu backend: cuTexObjectCreate: {}", handle.error().text());
        return handle.error().code() == ErrorCode::Unsupported ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
    }
    std::lock_guard lock(descs().mutex);
    descs().textures[*handle] = *res;
    *out = *handle;
    return CUDA_SUCCESS;
}

CUresult cu_tex_object_destroy(CUtexObject h) {
    if (CUresult r = check_init()) return r;
    {
        std::lock_guard lock(descs().mutex);
        D4R_CPU_REFUSE_IF(!descs().textures.erase(h), CUDA_ERROR_INVALID_HANDLE);
    }
    // Launches already queued keep the object (they hold the table of when they were queued:
    // LaunchConfig::images).
    (void)ptxsim::destroy_texture_object(state().device, h);
    return CUDA_SUCCESS;
}

CUresult get_desc(std::unordered_map<uint64_t, CUDA_RESOURCE_DESC>& map, CUDA_RESOURCE_DESC* out, uint64_t h) {
    if (CUresult r = check_init()) return r;
    D4R_CPU_REFUSE_IF(!out, CUDA_ERROR_INVALID_VALUE);
    std::lock_guard lock(descs().mutex);
    auto it = map.find(h);
    // An unknown or destroyed object is an invalid value, not an invalid handle: NVIDIA's driver (580,
    // H200) answers so for texture and surface objects alike.
    D4R_CPU_REFUSE_IF(it == map.end(), CUDA_ERROR_INVALID_VALUE);
    *out = it->second;
    return CUDA_SUCCESS;
}

CUresult cu_tex_object_get_resource_desc(CUDA_RESOURCE_DESC* out, CUtexObject h) {
    return get_desc(descs().textures, out, h);
}

CUresult cu_surf_object_create(CUsurfObject* out, const CUDA_RESOURCE_DESC* res) {
    if (CUresult r = check_init()) return r;
    std::shared_ptr<Context> ctx;
    if (CUresult r = current_context(ctx)) return r;
    D4R_CPU_REFUSE_IF(!out || !res || res->resType != CU_RESOURCE_TYPE_ARRAY, CUDA_ERROR_INVALID_VALUE);
    auto a = find_array(res->res.array.hArray);
    D4R_CPU_REFUSE_IF(!a, CUDA_ERROR_INVALID_HANDLE);
    D4R_CPU_REFUSE_IF(!(a->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST), CUDA_ERROR_INVALID_VALUE);
    Expected<ptxsim::SurfObject> handle = 0;
    if (a->sim) {
        handle = ptxsim::create_surface_object(state().device, a->sim);
    } else {
        ptxsim::ResourceDesc rd;
        if (CUresult r = map_volume(*a, rd)) return r;
        handle = ptxsim::create_surface_object(state().device, rd);
    }
    if (!handle) {
        log::warn("cpu backend: cuSurfObjectCreate: {}", handle.error().text());
        return CUDA_ERROR_INVALID_VALUE;
    }
    std::lock_guard lock(descs().mutex);
    descs().surfaces[*handle] = *res;
    *out = *handle;
    return CUDA_SUCCESS;
}

CUresult cu_surf_object_destroy(CUsurfObject h) {
    if (CUresult r = check_init()) return r;
    {
        std::lock_guard lock(descs().mutex);
        D4R_CPU_REFUSE_IF(!descs().surfaces.erase(h), CUDA_ERROR_INVALID_HANDLE);
    }
    (void)ptxsim::destroy_surface_object(state().device, h);
    return CUDA_SUCCESS;
}

CUresult cu_surf_object_get_resource_desc(CUDA_RESOURCE_DESC* out, CUsurfObject h) {
    return get_desc(descs().surfaces, out, h);
}

} // namespace

void fill_texture(ApiTable& t) {
    t.cuTexObjectCreate = cu_tex_object_create;
    t.cuTexObjectDestroy = cu_tex_object_destroy;
    t.cuTexObjectGetResourceDesc = cu_tex_object_get_resource_desc;
    t.cuSurfObjectCreate = cu_surf_object_create;
    t.cuSurfObjectDestroy = cu_surf_object_destroy;
    t.cuSurfObjectGetResourceDesc = cu_surf_object_get_resource_desc;
}

} // namespace d4r::runtime::cpu
