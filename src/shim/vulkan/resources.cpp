// The frame's Vulkan resources, checked (vulkan/resources.h).
#include "shim/vulkan/resources.h"

#include <fmt/format.h>

namespace d4r::shim::vulkan {

using namespace abi;

Dxgi dxgi_of(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R16G16B16A16_SFLOAT:
        return Dxgi::R16G16B16A16_Float;
    case VK_FORMAT_R32G32B32A32_SFLOAT:
        return Dxgi::R32G32B32A32_Float;
    case VK_FORMAT_B10G11R11_UFLOAT_PACK32:
        return Dxgi::R11G11B10_Float;
    case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
        return Dxgi::R10G10B10A2_Unorm;
    case VK_FORMAT_R8G8B8A8_UNORM:
        return Dxgi::R8G8B8A8_Unorm;
    case VK_FORMAT_R8G8B8A8_SRGB:
        return Dxgi::R8G8B8A8_Unorm_Srgb;
    case VK_FORMAT_B8G8R8A8_UNORM:
        return Dxgi::B8G8R8A8_Unorm;
    case VK_FORMAT_B8G8R8A8_SRGB:
        return Dxgi::B8G8R8A8_Unorm_Srgb;
    case VK_FORMAT_E5B9G9R9_UFLOAT_PACK32:
        return Dxgi::R9G9B9E5_SharedExp;
    case VK_FORMAT_D32_SFLOAT:
        return Dxgi::D32_Float;
    case VK_FORMAT_D24_UNORM_S8_UINT:
        return Dxgi::D24_Unorm_S8_Uint;
    case VK_FORMAT_D16_UNORM:
        return Dxgi::D16_Unorm;
    case VK_FORMAT_R32_SFLOAT:
        return Dxgi::R32_Float;
    case VK_FORMAT_R16_SFLOAT:
        return Dxgi::R16_Float;
    case VK_FORMAT_R16G16_SFLOAT:
        return Dxgi::R16G16_Float;
    case VK_FORMAT_R32G32_SFLOAT:
        return Dxgi::R32G32_Float;
    default:
        return Dxgi::Unknown;
    }
}

bool vram_accepts(Plane plane, VkFormat format) {
    const Dxgi d = dxgi_of(format);
    return d != Dxgi::Unknown && accepted(plane, static_cast<uint32_t>(d));
}

namespace {

std::optional<Refusal> check(Plane plane, GameResource& out) {
    const NVSDK_NGX_Resource_VK& r = *resource(out.resource);
    if (r.Type != NVSDK_NGX_RESOURCE_VK_TYPE_VK_IMAGEVIEW)
        return Refusal{
            NVSDK_NGX_Result_FAIL_UnsupportedInputFormat,
            fmt::format("{}: a VkBuffer (type {}); only image views are accepted", plane_name(plane), int(r.Type))};
    const NVSDK_NGX_ImageViewInfo_VK& v = r.Resource.ImageViewInfo;
    const Dxgi dxgi = dxgi_of(v.Format);
    out.format = static_cast<uint32_t>(dxgi);
    const std::string what = fmt::format("{} {}x{} VkFormat {} ({})", plane_name(plane), v.Width, v.Height,
                                         int(v.Format), dxgi == Dxgi::Unknown ? "unknown" : format_name(out.format));
    if (v.Image == VK_NULL_HANDLE)
        return Refusal{NVSDK_NGX_Result_FAIL_InvalidParameter, fmt::format("{}: its VkImage is null", what)};
    if (v.SubresourceRange.levelCount != 1 || v.SubresourceRange.layerCount != 1)
        return Refusal{NVSDK_NGX_Result_FAIL_UnsupportedInputFormat,
                       fmt::format("{}: the view covers {} mip levels and {} layers; one of each is accepted", what,
                                   v.SubresourceRange.levelCount, v.SubresourceRange.layerCount)};
    if (dxgi == Dxgi::Unknown || !accepted(plane, out.format))
        return Refusal{NVSDK_NGX_Result_FAIL_UnsupportedFormat, fmt::format("{}: unsupported format", what)};
    const Region& g = out.region;
    if (uint64_t(g.x) + g.width > v.Width || uint64_t(g.y) + g.height > v.Height)
        return Refusal{
            NVSDK_NGX_Result_FAIL_InvalidParameter,
            fmt::format("{}: the region {}x{} at ({}, {}) lies outside it", what, g.width, g.height, g.x, g.y)};
    return std::nullopt;
}

} // namespace

std::optional<Refusal> validate_frame(GameFrame& frame) { return check_planes(frame, check); }

} // namespace d4r::shim::vulkan
