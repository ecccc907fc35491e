// The frame's D3D12 resources, checked (d3d12/resources.h).
#include "shim/d3d12/resources.h"

#include <fmt/format.h>

#include "shim/formats.h"

namespace d4r::shim::d3d12 {

using namespace abi;

namespace {

// One input or output: a 2D single-sample texture of a format the plane accepts, large enough for its region.
std::optional<Refusal> check(Plane plane, GameResource& out) {
    D3D12_RESOURCE_DESC desc = resource(out.resource)->GetDesc();
    out.format = static_cast<uint32_t>(desc.Format);
    const std::string what =
        fmt::format("{} {}x{} {}", plane_name(plane), desc.Width, desc.Height, format_name(out.format));
    if (desc.Dimension != D3D12_RESOURCE_DIMENSION_TEXTURE2D || desc.SampleDesc.Count != 1)
        return Refusal{NVSDK_NGX_Result_FAIL_UnsupportedInputFormat,
                       fmt::format("{}: only single-sample 2D textures are accepted", what)};
    if (!accepted(plane, out.format))
        return Refusal{NVSDK_NGX_Result_FAIL_UnsupportedFormat, fmt::format("{}: unsupported format", what)};
    const Region& r = out.region;
    if (uint64_t(r.x) + r.width > desc.Width || uint64_t(r.y) + r.height > desc.Height)
        return Refusal{
            NVSDK_NGX_Result_FAIL_InvalidParameter,
            fmt::format("{}: the region {}x{} at ({}, {}) lies outside it", what, r.width, r.height, r.x, r.y)};
    return std::nullopt;
}

} // namespace

std::optional<Refusal> validate_frame(GameFrame& frame) { return check_planes(frame, check); }

} // namespace d4r::shim::d3d12
