// The Vulkan front end's view of a frame's resources (src/shim/vulkan/resources.h): VkFormat to DXGI, what the VRAM
// path takes, and validate_frame's refusals (type, view, format, region), each with the NGX result a game gets.
#include <gtest/gtest.h>

#include "shim/vulkan/path_choice.h"
#include "shim/vulkan/resources.h"

using namespace d4r;
using namespace d4r::abi;
using namespace d4r::shim;
using namespace d4r::shim::vulkan;

namespace {

NVSDK_NGX_Resource_VK image(VkFormat format, unsigned w, unsigned h) {
    NVSDK_NGX_Resource_VK r{};
    r.Type = NVSDK_NGX_RESOURCE_VK_TYPE_VK_IMAGEVIEW;
    r.Resource.ImageViewInfo.ImageView = reinterpret_cast<VkImageView>(uintptr_t(0x100));
    r.Resource.ImageViewInfo.Image = reinterpret_cast<VkImage>(uintptr_t(0x200));
    r.Resource.ImageViewInfo.SubresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    r.Resource.ImageViewInfo.Format = format;
    r.Resource.ImageViewInfo.Width = w;
    r.Resource.ImageViewInfo.Height = h;
    return r;
}

ResourceHandle handle_of(NVSDK_NGX_Resource_VK& r) { return reinterpret_cast<ResourceHandle>(&r); }

struct Frame {
    NVSDK_NGX_Resource_VK color = image(VK_FORMAT_R16G16B16A16_SFLOAT, 32, 18);
    NVSDK_NGX_Resource_VK depth = image(VK_FORMAT_D32_SFLOAT, 32, 18);
    NVSDK_NGX_Resource_VK motion = image(VK_FORMAT_R16G16_SFLOAT, 32, 18);
    NVSDK_NGX_Resource_VK output = image(VK_FORMAT_R16G16B16A16_SFLOAT, 64, 36);
    GameFrame game() {
        GameFrame f;
        f.color = {handle_of(color), 0, {0, 0, 32, 18}, 32};
        f.depth = {handle_of(depth), 0, {0, 0, 32, 18}, 32};
        f.motion = {handle_of(motion), 0, {0, 0, 32, 18}, 32};
        f.output = {handle_of(output), 0, {0, 0, 64, 36}, 64};
        return f;
    }
};

} // namespace

TEST(ShimVulkanResources, FormatsMapToTheirDxgiTwins) {
    EXPECT_EQ(dxgi_of(VK_FORMAT_R16G16B16A16_SFLOAT), Dxgi::R16G16B16A16_Float);
    EXPECT_EQ(dxgi_of(VK_FORMAT_B10G11R11_UFLOAT_PACK32), Dxgi::R11G11B10_Float);
    EXPECT_EQ(dxgi_of(VK_FORMAT_A2B10G10R10_UNORM_PACK32), Dxgi::R10G10B10A2_Unorm);
    EXPECT_EQ(dxgi_of(VK_FORMAT_B8G8R8A8_SRGB), Dxgi::B8G8R8A8_Unorm_Srgb);
    EXPECT_EQ(dxgi_of(VK_FORMAT_D32_SFLOAT), Dxgi::D32_Float);
    EXPECT_EQ(dxgi_of(VK_FORMAT_D24_UNORM_S8_UINT), Dxgi::D24_Unorm_S8_Uint);
    EXPECT_EQ(dxgi_of(VK_FORMAT_R16G16_SFLOAT), Dxgi::R16G16_Float);
    EXPECT_EQ(dxgi_of(VK_FORMAT_R64_SFLOAT), Dxgi::Unknown);
}

// Every format the shim accepts for a plane (those not canonical converted on the GPU), nothing else.
TEST(ShimVulkanResources, TheVramPathTakesEveryFormatThePlaneAccepts) {
    EXPECT_TRUE(vram_accepts(Plane::Color, VK_FORMAT_R16G16B16A16_SFLOAT));
    EXPECT_TRUE(vram_accepts(Plane::Color, VK_FORMAT_R8G8B8A8_UNORM));
    EXPECT_TRUE(vram_accepts(Plane::Color, VK_FORMAT_B10G11R11_UFLOAT_PACK32));
    EXPECT_TRUE(vram_accepts(Plane::Depth, VK_FORMAT_D32_SFLOAT));
    EXPECT_TRUE(vram_accepts(Plane::Depth, VK_FORMAT_D24_UNORM_S8_UINT));
    EXPECT_TRUE(vram_accepts(Plane::Motion, VK_FORMAT_R32G32_SFLOAT));
    EXPECT_TRUE(vram_accepts(Plane::Output, VK_FORMAT_R8G8B8A8_SRGB));
    EXPECT_FALSE(vram_accepts(Plane::Motion, VK_FORMAT_R8G8B8A8_UNORM)); // not a motion format
    EXPECT_FALSE(vram_accepts(Plane::Output, VK_FORMAT_D32_SFLOAT));
    EXPECT_FALSE(vram_accepts(Plane::Color, VK_FORMAT_R8_UNORM)); // no DXGI twin the shim knows
}

TEST(ShimVulkanResources, AGoodFrameIsAcceptedAndItsFormatsFilled) {
    Frame f;
    GameFrame g = f.game();
    EXPECT_FALSE(validate_frame(g).has_value());
    EXPECT_EQ(g.color.format, uint32_t(Dxgi::R16G16B16A16_Float));
    EXPECT_EQ(g.depth.format, uint32_t(Dxgi::D32_Float));
    EXPECT_EQ(g.motion.format, uint32_t(Dxgi::R16G16_Float));
}

TEST(ShimVulkanResources, RefusalsNameThePlaneAndGiveTheirResult) {
    {
        Frame f;
        f.color.Type = NVSDK_NGX_RESOURCE_VK_TYPE_VK_BUFFER;
        GameFrame g = f.game();
        auto r = validate_frame(g);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->result, NVSDK_NGX_Result_FAIL_UnsupportedInputFormat);
        EXPECT_NE(r->message.find("VkBuffer"), std::string::npos) << r->message;
    }
    {
        Frame f;
        f.color.Resource.ImageViewInfo.Format = VK_FORMAT_R8G8B8A8_UNORM; // a format the shim converts: accepted
        GameFrame g = f.game();
        EXPECT_FALSE(validate_frame(g).has_value());
        EXPECT_EQ(g.color.format, uint32_t(Dxgi::R8G8B8A8_Unorm));
    }
    {
        Frame f;
        f.depth.Resource.ImageViewInfo.Format = VK_FORMAT_R8G8B8A8_UNORM; // not a depth format
        GameFrame g = f.game();
        auto r = validate_frame(g);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->result, NVSDK_NGX_Result_FAIL_UnsupportedFormat);
        EXPECT_NE(r->message.find("Depth"), std::string::npos) << r->message;
    }
    {
        Frame f;
        f.motion.Resource.ImageViewInfo.Format = VK_FORMAT_R64_SFLOAT;
        GameFrame g = f.game();
        auto r = validate_frame(g);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->result, NVSDK_NGX_Result_FAIL_UnsupportedFormat);
        EXPECT_NE(r->message.find("MotionVectors"), std::string::npos) << r->message;
    }
    {
        Frame f;
        f.depth.Resource.ImageViewInfo.SubresourceRange.levelCount = 2;
        GameFrame g = f.game();
        auto r = validate_frame(g);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->result, NVSDK_NGX_Result_FAIL_UnsupportedInputFormat);
    }
    {
        Frame f;
        f.output.Resource.ImageViewInfo.Width = 63; // smaller than the output region
        GameFrame g = f.game();
        auto r = validate_frame(g);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->result, NVSDK_NGX_Result_FAIL_InvalidParameter);
        EXPECT_NE(r->message.find("outside"), std::string::npos) << r->message;
    }
    {
        Frame f;
        f.color.Resource.ImageViewInfo.Image = VK_NULL_HANDLE;
        GameFrame g = f.game();
        auto r = validate_frame(g);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->result, NVSDK_NGX_Result_FAIL_InvalidParameter);
    }
}

// The per-frame half of the path choice: every format validate_frame accepts may take the VRAM path.
TEST(ShimVulkanPathChoice, EveryAcceptedFormatMayTakeTheVramPath) {
    Frame f;
    GameFrame g = f.game();
    ASSERT_FALSE(validate_frame(g).has_value());
    EXPECT_EQ(ChosenPath::frame_refuses_vram(g), "");
    f.output.Resource.ImageViewInfo.Format = VK_FORMAT_R8G8B8A8_UNORM;
    f.color.Resource.ImageViewInfo.Format = VK_FORMAT_B10G11R11_UFLOAT_PACK32;
    g = f.game();
    ASSERT_FALSE(validate_frame(g).has_value());
    EXPECT_EQ(ChosenPath::frame_refuses_vram(g), "");
}
