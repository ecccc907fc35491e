// The planes a data path converts on the GPU (gpu_planes.h).
#include "shim/gpu_planes.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/log.h"

namespace d4r::shim {

using namespace abi;

size_t GpuPlanes::canonical_bytes(Plane p, const GameResource& r) {
    return std::max<size_t>(size_t(r.row()) * std::max(r.region.height, 1u) * canonical_texel_bytes(p), 16);
}

bool GpuPlanes::ready_for(const std::array<size_t, kPlanes>& bytes) const {
    if (!m_convert) return false;
    for (int i = 0; i < kPlanes; ++i)
        if (bytes[i] > m_buffers[i].bytes) return false;
    return true;
}

PlaneConversion GpuPlanes::conversion(const char* path, Plane p, const GameResource& r, CUdeviceptr game,
                                      size_t game_pitch, const char* note) const {
    if (log::once(fmt::format("shim-gpu-convert-{}-{}-{}", path, int(p), r.format)))
        log::info("shim: {}: the {} ({}{}{}) is converted on the GPU (said once)", path, plane_name(p),
                  format_name(r.format), note ? ", " : "", note ? note : "");
    return {p,    r.format,     r.region.width, r.region.height,
            game, canonical(p), game_pitch,     size_t(r.row()) * canonical_texel_bytes(p)};
}

Status GpuPlanes::ensure(const std::array<size_t, kPlanes>& bytes) {
    if (!m_refusal.empty()) return make_error(ErrorCode::Unsupported, "{}", m_refusal);
    if (!m_convert) {
        auto c = GpuConvert::load(m_cuda);
        if (!c) {
            m_refusal = "the GPU format conversions cannot be loaded: " + c.error().text();
            return make_error(ErrorCode::Unsupported, "{}", m_refusal);
        }
        m_convert = std::move(*c);
    }
    for (int i = 0; i < kPlanes; ++i) {
        Buffer& b = m_buffers[i];
        if (bytes[i] == 0 || b.bytes >= bytes[i]) continue;
        if (b.pointer) m_cuda.cuMemFree_v2(b.pointer); // the worker runs one task at a time: no frame uses it now
        b = Buffer{};
        if (CUresult r = m_cuda.cuMemAlloc_v2(&b.pointer, bytes[i]); r != CUDA_SUCCESS)
            return upscaler::cuda_error(m_cuda, "cuMemAlloc of a converted plane", r);
        b.bytes = bytes[i];
    }
    return {};
}

Status GpuPlanes::convert_inputs(std::span<const PlaneConversion> conversions) const {
    if (!m_convert && !conversions.empty())
        return make_error(ErrorCode::Internal, "GPU conversions queued before GpuPlanes::ensure loaded them");
    for (const PlaneConversion& c : conversions)
        if (c.plane != Plane::Output)
            D4R_TRY(m_convert->to_canonical(c.plane, c.format, c.game, c.game_pitch, c.width, c.height, c.canonical,
                                            c.canonical_pitch, nullptr));
    return {};
}

Status GpuPlanes::convert_output(std::span<const PlaneConversion> conversions) const {
    if (!m_convert && !conversions.empty())
        return make_error(ErrorCode::Internal, "GPU conversions queued before GpuPlanes::ensure loaded them");
    for (const PlaneConversion& c : conversions)
        if (c.plane == Plane::Output)
            D4R_TRY(m_convert->from_canonical(c.format, c.canonical, c.canonical_pitch, c.width, c.height, c.game,
                                              c.game_pitch, nullptr));
    return {};
}

void GpuPlanes::release() {
    for (Buffer& b : m_buffers) {
        if (b.pointer) m_cuda.cuMemFree_v2(b.pointer);
        b = Buffer{};
    }
    m_convert.reset();
}

} // namespace d4r::shim
