// A native Linux Vulkan "game" for the Vulkan front end of d4r's NGX shim (libd4r_nvngx.so): creates a Vulkan 1.1
// device on Mesa's lavapipe with the extensions the shim asks for, uploads the frames that
// tests/bridge/programs/scene_frames.cpp wrote (colour, depth, motion vectors, jitter, exposure) into images, and
// calls the shim's NGX Vulkan API as a game does: Init, capability parameters, CreateFeature in a command buffer,
// per frame the uploads, the layout transitions and EvaluateFeature in one command buffer followed by a copy of the
// output image, then ReleaseFeature, DestroyParameters and Shutdown1. The shim is loaded at run time from --shim
// (so this builds before the library does) and every NVSDK_NGX_VULKAN_* function is resolved by name.
//   vulkan_harness --shim LIBD4R_NVNGX.SO FRAMES_DIR [--color F] [--output F] [--depth F] [--motion F]
//                  [--scenario frames|refusals|timing] [--repeat N] [--out DIR] [--gpu]
//     --gpu: the first GPU with Vulkan 1.1 instead of Mesa's lavapipe (a device script on real hardware)
//     --color, --output: a name of formats_encode.h, as the D3D12 harness takes them (default rgba16f): rgba16f
//              R16G16B16A16_SFLOAT, rgba32f R32G32B32A32_SFLOAT, r11g11b10f B10G11R11_UFLOAT_PACK32, rgb10a2
//              A2B10G10R10_UNORM_PACK32, rgba8 R8G8B8A8_UNORM, rgba8srgb R8G8B8A8_SRGB, bgra8 B8G8R8A8_UNORM,
//              bgra8srgb B8G8R8A8_SRGB, rgb9e5 E5B9G9R9_UFLOAT_PACK32 (VK_FORMAT_*)
//     --depth: r32f R32_SFLOAT (default), d32f D32_SFLOAT, d24s8 D24_UNORM_S8_UINT (the last two depth-stencil
//              attachments, as a game's depth buffer is; D24S8 is uploaded by aspect: DEPTH from 4 bytes a
//              texel, the depth in the low 24 bits, and STENCIL 0x5A, which the shim must ignore; its view and
//              NGX resource are of the DEPTH aspect)
//     --motion: rg16f R16G16_SFLOAT (default), rg32f R32G32_SFLOAT
//              Each plane is encoded into its format with formats_encode.h exactly as the D3D12 harness does;
//              run-vulkan-harness.sh makes the matching reference with shim_reference.
//     --out: where frame_<i>.bin go (default $PROGRAM_OUT; none written when neither is set)
//     scenarios: frames (default) — every frame, printing one line per frame as ngx_frames does and writing
//                OUT/frame_<i>.bin (the output image's raw bytes in its format, rows packed);
//                refusals — null out-parameters, a null command buffer, a null and an unknown handle, a missing
//                colour, an unsupported colour format and a colour image smaller than the render size must each
//                give an NGX failure and not crash; then frame 0 evaluates (with Reset) and is written as
//                OUT/frame_0.bin, the released handle is refused;
//                timing — N evaluations (--repeat, default 40) of the frames in turn, each frame's uploads submitted
//                on their own first, then the evaluation alone between two timestamps in a command buffer of its
//                own: prints the GPU time between the timestamps and the wall time from vkQueueSubmit to the
//                fence (end to end: what the game's frame waits), median and mean over all but the first 4
//                evaluations (the feature's first frames allocate). The numbers of docs/performance.md.
// The images: colour, depth and motion vectors at render size in the formats asked for, exposure
// VK_FORMAT_R32_SFLOAT 1x1, usage TRANSFER_SRC|TRANSFER_DST|SAMPLED (depth-stencil formats also
// DEPTH_STENCIL_ATTACHMENT), in VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL at EvaluateFeature; the output at output
// size, usage TRANSFER_SRC|TRANSFER_DST|STORAGE|SAMPLED, in VK_IMAGE_LAYOUT_GENERAL, filled with 0xFF bytes before
// each evaluation (an RGBA16F half or R11G11B10F texel never written is a failure; in RGBA8 and RGB10A2 0xFF bytes
// are white, left to the comparison with the reference).
// Each is passed as a pointer to an NVSDK_NGX_Resource_VK (an image view; the output ReadWrite).
// Exit status 0 when every check held; 1 with "vulkan_harness: WHAT" on stderr otherwise (a refused evaluation
// names the NGX result and the four formats); 77 (with a SKIPPED line) when the Vulkan device cannot create an
// image of a format asked for with the usage above (vkGetPhysicalDeviceImageFormatProperties).
#include "vulkan/harness_vulkan.h" // first: the Vulkan functions as loaded pointers (VK_NO_PROTOTYPES)

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "formats_encode.h"
#include "harness_util.h"
#include "shim/vulkan/ngx_vulkan.h"

using namespace d4r::abi;
namespace enc = d4r::test::encode;

namespace {

[[noreturn]] void fail(const std::string& why) {
    std::fflush(stdout);
    std::fprintf(stderr, "vulkan_harness: %s\n", why.c_str());
    std::exit(1);
}

std::string hex(unsigned v) {
    char text[16];
    std::snprintf(text, sizeof text, "%#x", v);
    return text;
}

void check_vk(VkResult r, const char* what) {
    if (r != VK_SUCCESS) fail(std::string(what) + " failed with VkResult " + std::to_string(int(r)));
}

void check_ngx(NVSDK_NGX_Result r, const char* what) {
    if (r != NVSDK_NGX_Result_Success) fail(std::string(what) + " gave NGX result " + hex(unsigned(r)));
}

// A refusal: any NGX failure result (not Success) is what the game must get.
void expect_failure(NVSDK_NGX_Result r, const char* what) {
    if (!NVSDK_NGX_FAILED(r)) fail(std::string(what) + ": expected an NGX failure, got " + hex(unsigned(r)));
    std::printf("%s: refused with %#x\n", what, unsigned(r));
}

using harness::fnv1a;
using harness::from_bits;

const char* result_name(NVSDK_NGX_Result r) {
    switch (r) {
    case NVSDK_NGX_Result_FAIL_UnsupportedFormat:
        return "FAIL_UnsupportedFormat";
    case NVSDK_NGX_Result_FAIL_UnsupportedInputFormat:
        return "FAIL_UnsupportedInputFormat";
    case NVSDK_NGX_Result_FAIL_InvalidParameter:
        return "FAIL_InvalidParameter";
    case NVSDK_NGX_Result_FAIL_MissingInput:
        return "FAIL_MissingInput";
    case NVSDK_NGX_Result_FAIL_NotImplemented:
        return "FAIL_NotImplemented";
    case NVSDK_NGX_Result_Fail:
        return "Fail";
    default:
        return "an NGX failure";
    }
}

// ---- The formats of --color, --output, --depth and --motion (formats_encode.h's names) ----------------------

struct VkFormatOf {
    uint32_t dxgi; // formats_encode.h's Format::dxgi
    VkFormat format;
    const char* name;
};
constexpr VkFormatOf kVkFormats[] = {
    {10, VK_FORMAT_R16G16B16A16_SFLOAT, "VK_FORMAT_R16G16B16A16_SFLOAT"},
    {2, VK_FORMAT_R32G32B32A32_SFLOAT, "VK_FORMAT_R32G32B32A32_SFLOAT"},
    {26, VK_FORMAT_B10G11R11_UFLOAT_PACK32, "VK_FORMAT_B10G11R11_UFLOAT_PACK32"},
    {24, VK_FORMAT_A2B10G10R10_UNORM_PACK32, "VK_FORMAT_A2B10G10R10_UNORM_PACK32"},
    {28, VK_FORMAT_R8G8B8A8_UNORM, "VK_FORMAT_R8G8B8A8_UNORM"},
    {29, VK_FORMAT_R8G8B8A8_SRGB, "VK_FORMAT_R8G8B8A8_SRGB"},
    {87, VK_FORMAT_B8G8R8A8_UNORM, "VK_FORMAT_B8G8R8A8_UNORM"},
    {91, VK_FORMAT_B8G8R8A8_SRGB, "VK_FORMAT_B8G8R8A8_SRGB"},
    {67, VK_FORMAT_E5B9G9R9_UFLOAT_PACK32, "VK_FORMAT_E5B9G9R9_UFLOAT_PACK32"},
    {41, VK_FORMAT_R32_SFLOAT, "VK_FORMAT_R32_SFLOAT"},
    {40, VK_FORMAT_D32_SFLOAT, "VK_FORMAT_D32_SFLOAT"},
    {45, VK_FORMAT_D24_UNORM_S8_UINT, "VK_FORMAT_D24_UNORM_S8_UINT"},
    {34, VK_FORMAT_R16G16_SFLOAT, "VK_FORMAT_R16G16_SFLOAT"},
    {16, VK_FORMAT_R32G32_SFLOAT, "VK_FORMAT_R32G32_SFLOAT"},
};

const VkFormatOf& vk_of(const enc::Format& f) {
    for (const VkFormatOf& v : kVkFormats)
        if (v.dxgi == f.dxgi) return v;
    fail(std::string("no VkFormat for the format ") + f.name);
}

// "rgba8 (VK_FORMAT_R8G8B8A8_UNORM)"
std::string describe(const enc::Format& f) { return std::string(f.name) + " (" + vk_of(f).name + ")"; }

// ---- The shim's API, resolved by name from --shim ----------------------------------------------------------

// clang-format off
#define SHIM_FUNCTIONS(X)                                                                                              \
    X(NVSDK_NGX_VULKAN_GetFeatureInstanceExtensionRequirements)                                                        \
    X(NVSDK_NGX_VULKAN_GetFeatureDeviceExtensionRequirements) X(NVSDK_NGX_VULKAN_Init) X(NVSDK_NGX_VULKAN_Shutdown1)   \
    X(NVSDK_NGX_VULKAN_GetCapabilityParameters) X(NVSDK_NGX_VULKAN_AllocateParameters)                                 \
    X(NVSDK_NGX_VULKAN_DestroyParameters) X(NVSDK_NGX_VULKAN_CreateFeature) X(NVSDK_NGX_VULKAN_EvaluateFeature_C)      \
    X(NVSDK_NGX_VULKAN_ReleaseFeature) X(NVSDK_NGX_VULKAN_GetScratchBufferSize)
// clang-format on

struct Shim {
    void* library = nullptr;
#define SHIM_MEMBER(name) decltype(&::name) name = nullptr;
    SHIM_FUNCTIONS(SHIM_MEMBER)
#undef SHIM_MEMBER
};

Shim load_shim(const std::string& path) {
    const bool bare_name = path.find_first_of("/\\") == std::string::npos; // found by the system's search order
    if (!bare_name && !std::filesystem::exists(path)) fail("the shim library " + path + " does not exist (--shim)");
    Shim s;
    std::string why;
    s.library = harness_open_library(path, why);
    if (!s.library) fail("cannot load the shim " + path + ": " + why);
#define SHIM_RESOLVE(name)                                                         \
    s.name = reinterpret_cast<decltype(s.name)>(harness_symbol(s.library, #name)); \
    if (!s.name) fail("the shim " + path + " does not export " #name);
    SHIM_FUNCTIONS(SHIM_RESOLVE)
#undef SHIM_RESOLVE
    return s;
}

// What GetFeature*ExtensionRequirements ask about: SuperSampling for this application.
NVSDK_NGX_FeatureDiscoveryInfo discovery_info(const wchar_t* data_path) {
    NVSDK_NGX_FeatureDiscoveryInfo info{};
    info.SDKVersion = NVSDK_NGX_Version_API;
    info.FeatureID = NVSDK_NGX_Feature_SuperSampling;
    info.Identifier.IdentifierType = NVSDK_NGX_Application_Identifier_Type_Application_Id;
    info.Identifier.v.ApplicationId = 0xd4;
    info.ApplicationDataPath = data_path;
    return info;
}

// The extension names of an NGX answer (COUNT entries of PROPS), printed as "WHICH extensions the shim asks for".
std::vector<std::string> extension_names(uint32_t count, const VkExtensionProperties* props, const char* which) {
    if (count && !props)
        fail(std::string(which) + " extension requirements: a count of " + std::to_string(count) + " and no list");
    std::vector<std::string> names;
    for (uint32_t i = 0; i < count; ++i) names.emplace_back(props[i].extensionName);
    std::printf("%s extensions the shim asks for:", which);
    for (const std::string& n : names) std::printf(" %s", n.c_str());
    std::printf("%s\n", names.empty() ? " (none)" : "");
    return names;
}

// ---- Vulkan -------------------------------------------------------------------------------------------------

// A Vulkan structure of type T, zeroed, with its sType.
template <typename T>
T make(VkStructureType type) {
    T s{};
    s.sType = type;
    return s;
}

constexpr uint64_t kFenceTimeoutNs = 60ull * 1000 * 1000 * 1000;

struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint8_t* mapped = nullptr; // host-visible, coherent, mapped for the buffer's life
    VkDeviceSize bytes = 0;
};

struct Image {
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;      // the view's (and what NGX is given)
    VkImageAspectFlags all_aspects = VK_IMAGE_ASPECT_COLOR_BIT; // the image's: DEPTH|STENCIL for D24S8 (barriers)
    uint32_t width = 0, height = 0;
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED; // as of the last barrier recorded

    VkImageSubresourceRange range() const { return {aspect, 0, 1, 0, 1}; }
    VkImageSubresourceRange whole_range() const { return {all_aspects, 0, 1, 0, 1}; }

    // What the game passes to NGX: this image's view at its full size.
    NVSDK_NGX_Resource_VK resource(bool read_write) const {
        NVSDK_NGX_Resource_VK r{};
        r.Type = NVSDK_NGX_RESOURCE_VK_TYPE_VK_IMAGEVIEW;
        r.Resource.ImageViewInfo.ImageView = view;
        r.Resource.ImageViewInfo.Image = image;
        r.Resource.ImageViewInfo.SubresourceRange = range();
        r.Resource.ImageViewInfo.Format = format;
        r.Resource.ImageViewInfo.Width = width;
        r.Resource.ImageViewInfo.Height = height;
        r.ReadWrite = read_write;
        return r;
    }
};

constexpr VkImageUsageFlags kInputUsage =
    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
constexpr VkImageUsageFlags kOutputUsage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                           VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;

struct Gpu {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE; // always recording between submit_and_wait calls
    VkFence fence = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties memory{};

    void create_instance(const std::vector<std::string>& extensions) {
        auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
        app.pApplicationName = "vulkan_harness";
        app.apiVersion = VK_API_VERSION_1_1;
        std::vector<const char*> names;
        for (const std::string& e : extensions) names.push_back(e.c_str());
        auto info = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
        info.pApplicationInfo = &app;
        info.enabledExtensionCount = uint32_t(names.size());
        info.ppEnabledExtensionNames = names.data();
        check_vk(vkCreateInstance(&info, nullptr, &instance), "vkCreateInstance (Vulkan 1.1)");
        if (std::string why = harness_load_instance_functions(instance); !why.empty()) fail(why);
    }

    // Mesa's lavapipe: the CPU Vulkan device (VK_ICD_FILENAMES names only it in the tests).
    void pick_device(bool want_gpu) {
        uint32_t n = 0;
        check_vk(vkEnumeratePhysicalDevices(instance, &n, nullptr), "vkEnumeratePhysicalDevices");
        std::vector<VkPhysicalDevice> devices(n);
        check_vk(vkEnumeratePhysicalDevices(instance, &n, devices.data()), "vkEnumeratePhysicalDevices");
        for (VkPhysicalDevice d : devices) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(d, &p);
            const bool cpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
            if (cpu != want_gpu && p.apiVersion >= VK_API_VERSION_1_1) {
                physical = d;
                std::printf("Vulkan device: %s\n", p.deviceName);
                vkGetPhysicalDeviceMemoryProperties(physical, &memory);
                return;
            }
        }
        if (want_gpu) fail("no GPU with Vulkan 1.1 among " + std::to_string(n) + " devices (--gpu)");
        fail("no CPU Vulkan 1.1 device (Mesa's lavapipe) among " + std::to_string(n) +
             " devices; set VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json");
    }

    void create_device(const std::vector<std::string>& extensions) {
        uint32_t n = 0;
        check_vk(vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr),
                 "vkEnumerateDeviceExtensionProperties");
        std::vector<VkExtensionProperties> offered(n);
        check_vk(vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, offered.data()),
                 "vkEnumerateDeviceExtensionProperties");
        std::vector<const char*> names;
        for (const std::string& e : extensions) {
            bool found = false;
            for (const VkExtensionProperties& o : offered) found = found || e == o.extensionName;
            if (!found) fail("the shim asks for the device extension " + e + ", which this Vulkan device lacks");
            names.push_back(e.c_str());
        }
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
        std::vector<VkQueueFamilyProperties> family(families);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, family.data());
        const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        if (families == 0 || (family[0].queueFlags & want) != want)
            fail("queue family 0 of the Vulkan device cannot do graphics and compute");
        float priority = 1.0f;
        auto q = make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
        q.queueFamilyIndex = 0;
        q.queueCount = 1;
        q.pQueuePriorities = &priority;
        auto info = make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
        info.queueCreateInfoCount = 1;
        info.pQueueCreateInfos = &q;
        info.enabledExtensionCount = uint32_t(names.size());
        info.ppEnabledExtensionNames = names.data();
        check_vk(vkCreateDevice(physical, &info, nullptr, &device), "vkCreateDevice");
        vkGetDeviceQueue(device, 0, 0, &queue);
        auto p = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
        p.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        p.queueFamilyIndex = 0;
        check_vk(vkCreateCommandPool(device, &p, nullptr, &pool), "vkCreateCommandPool");
        auto a = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
        a.commandPool = pool;
        a.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        a.commandBufferCount = 1;
        check_vk(vkAllocateCommandBuffers(device, &a, &cmd), "vkAllocateCommandBuffers");
        auto f = make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
        check_vk(vkCreateFence(device, &f, nullptr, &fence), "vkCreateFence");
        begin();
    }

    void begin() {
        auto b = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
        b.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        check_vk(vkBeginCommandBuffer(cmd, &b), "vkBeginCommandBuffer");
    }

    // Ends the command buffer, submits it with the fence, waits (at most 60 s) and begins it again, as a game's
    // frame loop does.
    void submit_and_wait() {
        check_vk(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
        auto s = make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
        s.commandBufferCount = 1;
        s.pCommandBuffers = &cmd;
        check_vk(vkQueueSubmit(queue, 1, &s, fence), "vkQueueSubmit");
        VkResult r = vkWaitForFences(device, 1, &fence, VK_TRUE, kFenceTimeoutNs);
        if (r == VK_TIMEOUT) fail("the command buffer did not finish within 60 s");
        check_vk(r, "vkWaitForFences");
        check_vk(vkResetFences(device, 1, &fence), "vkResetFences");
        check_vk(vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
        begin();
    }

    uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags want) const {
        for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
            if ((bits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want) return i;
        fail("no Vulkan memory type with properties " + hex(unsigned(want)));
    }

    Buffer buffer(VkDeviceSize bytes) {
        Buffer b;
        b.bytes = bytes;
        auto info = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
        info.size = bytes;
        info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        check_vk(vkCreateBuffer(device, &info, nullptr, &b.buffer), "vkCreateBuffer");
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, b.buffer, &req);
        auto alloc = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex =
            memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
        check_vk(vkAllocateMemory(device, &alloc, nullptr, &b.memory), "vkAllocateMemory (buffer)");
        check_vk(vkBindBufferMemory(device, b.buffer, b.memory, 0), "vkBindBufferMemory");
        void* mapped = nullptr;
        check_vk(vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");
        b.mapped = static_cast<uint8_t*>(mapped);
        return b;
    }

    void destroy(Buffer& b) {
        if (b.memory) vkUnmapMemory(device, b.memory);
        vkDestroyBuffer(device, b.buffer, nullptr);
        vkFreeMemory(device, b.memory, nullptr);
        b = Buffer{};
    }

    bool can_create(VkFormat format, VkImageUsageFlags usage) const {
        VkImageFormatProperties p;
        return vkGetPhysicalDeviceImageFormatProperties(physical, format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
                                                        usage, 0, &p) == VK_SUCCESS;
    }

    // An optimal-tiling 2D image of one mip level and layer in device-local memory, with a view of ASPECT of it
    // (ALL_ASPECTS: the image's aspects when it has more than the view's, as D24S8 has).
    Image image(uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                VkImageAspectFlags all_aspects = 0) {
        Image im;
        im.format = format, im.aspect = aspect, im.width = width, im.height = height;
        im.all_aspects = all_aspects ? all_aspects : aspect;
        auto info = make<VkImageCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO);
        info.imageType = VK_IMAGE_TYPE_2D;
        info.format = format;
        info.extent = {width, height, 1};
        info.mipLevels = 1;
        info.arrayLayers = 1;
        info.samples = VK_SAMPLE_COUNT_1_BIT;
        info.tiling = VK_IMAGE_TILING_OPTIMAL;
        info.usage = usage;
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        check_vk(vkCreateImage(device, &info, nullptr, &im.image),
                 ("vkCreateImage (VkFormat " + std::to_string(int(format)) + ")").c_str());
        VkMemoryRequirements req;
        vkGetImageMemoryRequirements(device, im.image, &req);
        auto alloc = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
        alloc.allocationSize = req.size;
        alloc.memoryTypeIndex = memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        check_vk(vkAllocateMemory(device, &alloc, nullptr, &im.memory), "vkAllocateMemory (image)");
        check_vk(vkBindImageMemory(device, im.image, im.memory, 0), "vkBindImageMemory");
        auto v = make<VkImageViewCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO);
        v.image = im.image;
        v.viewType = VK_IMAGE_VIEW_TYPE_2D;
        v.format = format;
        v.subresourceRange = im.range();
        check_vk(vkCreateImageView(device, &v, nullptr, &im.view), "vkCreateImageView");
        return im;
    }

    void destroy(Image& im) {
        vkDestroyImageView(device, im.view, nullptr);
        vkDestroyImage(device, im.image, nullptr);
        vkFreeMemory(device, im.memory, nullptr);
        im = Image{};
    }

    void destroy() {
        vkDestroyFence(device, fence, nullptr);
        vkDestroyCommandPool(device, pool, nullptr); // frees the command buffer, still recording
        vkDestroyDevice(device, nullptr);
        vkDestroyInstance(instance, nullptr);
    }
};

// Moves IMAGE to layout TO: every earlier command's memory access done and visible to every later one (a test
// needs no finer stages).
void transition(VkCommandBuffer cmd, Image& image, VkImageLayout to) {
    auto b = make<VkImageMemoryBarrier>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER);
    b.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    b.oldLayout = image.layout;
    b.newLayout = to;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image.image;
    b.subresourceRange = image.whole_range();
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0,
                         nullptr, 1, &b);
    image.layout = to;
}

// The copy of ASPECT (default: the view's) of the whole image from or to packed rows at OFFSET in a buffer.
VkBufferImageCopy whole_image(const Image& image, VkImageAspectFlags aspect = 0, VkDeviceSize offset = 0) {
    VkBufferImageCopy c{};
    c.bufferOffset = offset;
    c.imageSubresource = {aspect ? aspect : image.aspect, 0, 0, 1}; // rows packed: bufferRowLength, Height 0
    c.imageExtent = {image.width, image.height, 1};
    return c;
}

// An image the harness fills from the CPU each frame through a staging buffer of its own. A D24S8 depth image
// takes two copies: the DEPTH aspect from 4 bytes a texel (depth in the low 24 bits, the high 8 ignored), then
// the STENCIL aspect from 1 byte a texel, packed after them.
struct Input {
    Image image;
    Buffer staging;
    std::vector<VkBufferImageCopy> copies;

    void create(Gpu& gpu, uint32_t w, uint32_t h, VkFormat format, size_t texel_bytes, VkImageUsageFlags usage,
                VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT) {
        const VkDeviceSize n = VkDeviceSize(w) * h;
        if (format == VK_FORMAT_D24_UNORM_S8_UINT) {
            image = gpu.image(w, h, format, usage, VK_IMAGE_ASPECT_DEPTH_BIT,
                              VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT);
            staging = gpu.buffer(n * 4 + n);
            copies = {whole_image(image, VK_IMAGE_ASPECT_DEPTH_BIT, 0),
                      whole_image(image, VK_IMAGE_ASPECT_STENCIL_BIT, n * 4)};
        } else {
            image = gpu.image(w, h, format, usage, aspect);
            staging = gpu.buffer(n * texel_bytes);
            copies = {whole_image(image)};
        }
    }
    // Writes BYTES (packed rows, staging.bytes of them) into the staging buffer and records their copy into the
    // image, which ends in VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL (what NGX reads inputs in).
    void record_upload(VkCommandBuffer cmd, const uint8_t* bytes) {
        std::memcpy(staging.mapped, bytes, size_t(staging.bytes));
        transition(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        vkCmdCopyBufferToImage(cmd, staging.buffer, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               uint32_t(copies.size()), copies.data());
        transition(cmd, image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    }
    void destroy(Gpu& gpu) {
        gpu.destroy(image);
        gpu.destroy(staging);
    }
};

struct Frames : harness::FrameSet {
    void open(const std::string& d) {
        if (std::string why = FrameSet::open(d); !why.empty()) fail(why);
    }
    std::vector<uint8_t> frame(unsigned i) const {
        std::vector<uint8_t> bytes;
        if (std::string why = read(i, bytes); !why.empty()) fail("frame " + std::to_string(i) + ": " + why);
        return bytes;
    }
};

constexpr const char* kUsage =
    "usage: vulkan_harness --shim LIBD4R_NVNGX.SO FRAMES_DIR [--color F] [--output F] [--depth r32f|d32f|d24s8] "
    "[--motion rg16f|rg32f] [--scenario frames|refusals|timing] [--repeat N] [--out DIR] [--gpu]";

struct Options {
    std::string shim, frames, out, scenario = "frames";
    bool gpu = false;     // the first GPU (not lavapipe) with Vulkan 1.1
    unsigned repeat = 40; // evaluations of the timing scenario
    const enc::Format* color = enc::find("rgba16f");
    const enc::Format* output = enc::find("rgba16f");
    const enc::Format* depth = enc::find_depth("r32f");
    const enc::Format* motion = enc::find_motion("rg16f");
};

Options parse(int argc, char** argv) {
    Options o;
    if (const char* env = std::getenv("PROGRAM_OUT")) o.out = env;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) fail(a + " needs a value (" + kUsage + ")");
            return argv[++i];
        };
        if (a == "-h" || a == "--help") {
            std::printf("%s\n", kUsage);
            std::exit(0);
        } else if (a == "--shim") {
            o.shim = value();
        } else if (a == "--color") {
            std::string v = value();
            if (!(o.color = enc::find(v))) fail("unknown colour format " + v);
        } else if (a == "--output") {
            std::string v = value();
            if (!(o.output = enc::find(v))) fail("unknown output format " + v);
        } else if (a == "--depth") {
            std::string v = value();
            if (!(o.depth = enc::find_depth(v))) fail("unknown depth format " + v + " (r32f, d32f or d24s8)");
        } else if (a == "--motion") {
            std::string v = value();
            if (!(o.motion = enc::find_motion(v))) fail("unknown motion format " + v + " (rg16f or rg32f)");
        } else if (a == "--scenario") {
            o.scenario = value();
            if (o.scenario != "frames" && o.scenario != "refusals" && o.scenario != "timing")
                fail("unknown scenario " + o.scenario + " (frames, refusals or timing)");
        } else if (a == "--repeat") {
            const std::string v = value();
            char* end = nullptr;
            const unsigned long n = std::strtoul(v.c_str(), &end, 10);
            if (v.empty() || *end || n < 5 || n > 100000) fail("--repeat " + v + ": a count from 5 to 100000");
            o.repeat = unsigned(n);
        } else if (a == "--out") {
            o.out = value();
        } else if (a == "--gpu") {
            o.gpu = true;
        } else if (!a.empty() && a[0] == '-') {
            fail("unknown option " + a + " (" + kUsage + ")");
        } else if (o.frames.empty()) {
            o.frames = a;
        } else {
            fail("unexpected argument " + a + " (" + kUsage + ")");
        }
    }
#if defined(_WIN32)
    if (o.shim.empty()) o.shim = "d4r_nvngx.dll"; // beside the program, as a game has it (the DLL search order)
#endif
    if (o.shim.empty()) fail(std::string("--shim PATH is required (") + kUsage + ")");
    if (o.frames.empty()) fail(std::string("FRAMES_DIR is required (") + kUsage + ")");
    return o;
}

constexpr uint8_t kOutputPoison = 0xFF; // NaN halves: what the output holds where the shim wrote nothing

// Everything one run of the frames needs.
struct Session {
    Options options;
    Frames frames;
    Shim shim;
    Gpu gpu;
    std::wstring data_path;
    Input color, depth, motion, exposure;
    Image output;
    Buffer poison, readback; // the output's bytes: 0xFF before each evaluation, and read back after it
    // What the parameter object points at during an evaluation: they live as long as the session.
    NVSDK_NGX_Resource_VK color_res{}, depth_res{}, motion_res{}, exposure_res{}, output_res{};
    NVSDK_NGX_Parameter* params = nullptr;
    NVSDK_NGX_Handle* feature = nullptr;

    // The instance and device with the extensions the shim asks for, NGX initialised on them.
    void open() {
        data_path = std::filesystem::temp_directory_path().wstring();
        NVSDK_NGX_FeatureDiscoveryInfo info = discovery_info(data_path.c_str());
        uint32_t n = 0;
        VkExtensionProperties* props = nullptr;
        check_ngx(shim.NVSDK_NGX_VULKAN_GetFeatureInstanceExtensionRequirements(&info, &n, &props),
                  "NVSDK_NGX_VULKAN_GetFeatureInstanceExtensionRequirements");
        gpu.create_instance(extension_names(n, props, "instance"));
        gpu.pick_device(options.gpu);
        n = 0, props = nullptr;
        check_ngx(
            shim.NVSDK_NGX_VULKAN_GetFeatureDeviceExtensionRequirements(gpu.instance, gpu.physical, &info, &n, &props),
            "NVSDK_NGX_VULKAN_GetFeatureDeviceExtensionRequirements");
        std::vector<std::string> device_extensions = extension_names(n, props, "device");
        // On Linux the VRAM path needs it; a Windows program's front end has the host path only and asks for none.
        bool fd = false;
        for (const std::string& e : device_extensions) fd = fd || e == VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
#if defined(_WIN32)
        if (fd)
            fail("the Windows front end asks for " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME ", which it cannot use");
#else
        if (!fd) fail("the shim's device extensions do not include " VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
#endif
        gpu.create_device(device_extensions);

        check_ngx(shim.NVSDK_NGX_VULKAN_Init(0xd4, data_path.c_str(), gpu.instance, gpu.physical, gpu.device,
                                             vkGetInstanceProcAddr, vkGetDeviceProcAddr, nullptr,
                                             NVSDK_NGX_Version_API),
                  "NVSDK_NGX_VULKAN_Init");
        NVSDK_NGX_Parameter* caps = nullptr;
        check_ngx(shim.NVSDK_NGX_VULKAN_GetCapabilityParameters(&caps), "NVSDK_NGX_VULKAN_GetCapabilityParameters");
        if (!caps) fail("NVSDK_NGX_VULKAN_GetCapabilityParameters gave no parameter object");
        unsigned int available = 0;
        check_ngx(caps->Get(NVSDK_NGX_Parameter_SuperSampling_Available, &available),
                  "reading SuperSampling.Available");
        if (available != 1) fail("SuperSampling.Available is " + std::to_string(available) + ", not 1");
        check_ngx(shim.NVSDK_NGX_VULKAN_DestroyParameters(caps), "NVSDK_NGX_VULKAN_DestroyParameters (capabilities)");
        check_ngx(shim.NVSDK_NGX_VULKAN_AllocateParameters(&params), "NVSDK_NGX_VULKAN_AllocateParameters");
        if (!params) fail("NVSDK_NGX_VULKAN_AllocateParameters gave no parameter object");
    }

    bool depth_is_attachment() const {
        const VkFormat f = vk_of(*options.depth).format;
        return f == VK_FORMAT_D32_SFLOAT || f == VK_FORMAT_D24_UNORM_S8_UINT;
    }

    // Exits 77 with a SKIPPED line when the Vulkan device cannot make an image of F (the WHICH plane's) with USAGE.
    void require_image(const enc::Format& f, const char* which, VkImageUsageFlags usage) const {
        if (gpu.can_create(vk_of(f).format, usage)) return;
        std::printf("SKIPPED: this Vulkan device cannot create a %s %s image with usage %s "
                    "(vkGetPhysicalDeviceImageFormatProperties)\n",
                    which, describe(f).c_str(), hex(unsigned(usage)).c_str());
        std::exit(77);
    }

    void create_resources() {
        const uint32_t rw = frames.rw, rh = frames.rh;
        // A game's depth buffer is a depth-stencil attachment; the shim reads it as it is.
        const VkImageUsageFlags depth_usage =
            kInputUsage | (depth_is_attachment() ? VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT : 0);
        require_image(*options.color, "colour", kInputUsage);
        require_image(*options.depth, "depth", depth_usage);
        require_image(*options.motion, "motion-vector", kInputUsage);
        require_image(*options.output, "output", kOutputUsage);
        color.create(gpu, rw, rh, vk_of(*options.color).format, options.color->bytes, kInputUsage);
        depth.create(gpu, rw, rh, vk_of(*options.depth).format, options.depth->bytes, depth_usage,
                     depth_is_attachment() ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT);
        motion.create(gpu, rw, rh, vk_of(*options.motion).format, options.motion->bytes, kInputUsage);
        exposure.create(gpu, 1, 1, VK_FORMAT_R32_SFLOAT, 4, kInputUsage);
        output =
            gpu.image(frames.ow, frames.oh, vk_of(*options.output).format, kOutputUsage, VK_IMAGE_ASPECT_COLOR_BIT);
        const VkDeviceSize out_bytes = VkDeviceSize(frames.ow) * frames.oh * options.output->bytes;
        poison = gpu.buffer(out_bytes);
        std::memset(poison.mapped, kOutputPoison, size_t(out_bytes));
        readback = gpu.buffer(out_bytes);
        color_res = color.image.resource(false);
        depth_res = depth.image.resource(false);
        motion_res = motion.image.resource(false);
        exposure_res = exposure.image.resource(false);
        output_res = output.resource(true);
    }

    // The creation parameters of the D3D12 harness (and ngx_frames): HDR colour, motion vectors at render size.
    void create_feature() {
        params->Set(NVSDK_NGX_Parameter_Width, frames.rw);
        params->Set(NVSDK_NGX_Parameter_Height, frames.rh);
        params->Set(NVSDK_NGX_Parameter_OutWidth, frames.ow);
        params->Set(NVSDK_NGX_Parameter_OutHeight, frames.oh);
        params->Set(NVSDK_NGX_Parameter_PerfQualityValue, int(NVSDK_NGX_PerfQuality_Value_MaxQuality));
        params->Set(NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags,
                    int(NVSDK_NGX_DLSS_Feature_Flags_IsHDR | NVSDK_NGX_DLSS_Feature_Flags_MVLowRes));
        check_ngx(shim.NVSDK_NGX_VULKAN_CreateFeature(gpu.cmd, NVSDK_NGX_Feature_SuperSampling, params, &feature),
                  "NVSDK_NGX_VULKAN_CreateFeature");
        if (!feature) fail("NVSDK_NGX_VULKAN_CreateFeature gave no handle");
        gpu.submit_and_wait();
    }

    void set_resources(const NVSDK_NGX_Resource_VK* c, const NVSDK_NGX_Resource_VK* d, const NVSDK_NGX_Resource_VK* m,
                       const NVSDK_NGX_Resource_VK* e, const NVSDK_NGX_Resource_VK* o) {
        auto res = [](const NVSDK_NGX_Resource_VK* r) {
            return static_cast<void*>(const_cast<NVSDK_NGX_Resource_VK*>(r));
        };
        params->Set(NVSDK_NGX_Parameter_Color, res(c));
        params->Set(NVSDK_NGX_Parameter_Depth, res(d));
        params->Set(NVSDK_NGX_Parameter_MotionVectors, res(m));
        params->Set(NVSDK_NGX_Parameter_ExposureTexture, res(e));
        params->Set(NVSDK_NGX_Parameter_Output, res(o));
    }
    void set_good_resources() { set_resources(&color_res, &depth_res, &motion_res, &exposure_res, &output_res); }

    // Frame I's uploads and per-frame parameters, recorded into the open command buffer: the inputs end in
    // SHADER_READ_ONLY_OPTIMAL, the output (filled with 0xFF bytes) in GENERAL. Each plane is encoded into its
    // format by formats_encode.h as the D3D12 harness does (what a game would have rendered).
    void record_frame_inputs(unsigned i, bool reset) {
        std::vector<uint8_t> in = frames.frame(i);
        const size_t n = size_t(frames.rw) * frames.rh;
        const uint8_t* at = in.data() + 12;
        std::vector<uint8_t> color_bytes = enc::encode_color(*options.color, reinterpret_cast<const uint16_t*>(at), n);
        std::vector<uint8_t> depth_bytes =
            enc::encode_depth(*options.depth, reinterpret_cast<const float*>(at + n * 8), n);
        std::vector<uint8_t> motion_bytes =
            enc::encode_motion(*options.motion, reinterpret_cast<const uint16_t*>(at + n * 12), n);
        if (vk_of(*options.depth).format == VK_FORMAT_D24_UNORM_S8_UINT) {
            // The stencil byte (the high 8 bits of each word, which the DEPTH aspect's copy ignores) as the
            // STENCIL aspect's bytes after the words: the shim must ignore the stencil either way.
            depth_bytes.resize(n * 5);
            for (size_t t = 0; t < n; ++t) depth_bytes[n * 4 + t] = depth_bytes[t * 4 + 3];
        }
        color.record_upload(gpu.cmd, color_bytes.data());
        depth.record_upload(gpu.cmd, depth_bytes.data());
        motion.record_upload(gpu.cmd, motion_bytes.data());
        exposure.record_upload(gpu.cmd, in.data() + 8);
        transition(gpu.cmd, output, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
        VkBufferImageCopy c = whole_image(output);
        vkCmdCopyBufferToImage(gpu.cmd, poison.buffer, output.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &c);
        transition(gpu.cmd, output, VK_IMAGE_LAYOUT_GENERAL);
        set_good_resources();
        params->Set(NVSDK_NGX_Parameter_Jitter_Offset_X, from_bits(in.data()));
        params->Set(NVSDK_NGX_Parameter_Jitter_Offset_Y, from_bits(in.data() + 4));
        params->Set(NVSDK_NGX_Parameter_MV_Scale_X, 1.0f);
        params->Set(NVSDK_NGX_Parameter_MV_Scale_Y, 1.0f);
        params->Set(NVSDK_NGX_Parameter_Reset, reset ? 1 : 0);
        // The render size each frame, as the SDK's evaluation helper sets it (here the created size).
        params->Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width, frames.rw);
        params->Set(NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height, frames.rh);
    }

    // Uploads frame I, evaluates in the same command buffer, records the copy of the output (still GENERAL) into
    // the readback buffer after it, submits and waits; returns the output's bytes, every half written.
    std::vector<uint8_t> run_frame(unsigned i, bool reset) {
        record_frame_inputs(i, reset);
        NVSDK_NGX_Result r = shim.NVSDK_NGX_VULKAN_EvaluateFeature_C(gpu.cmd, feature, params, nullptr);
        if (r != NVSDK_NGX_Result_Success) fail("frame " + std::to_string(i) + ": " + evaluation_failure(r));
        transition(gpu.cmd, output, VK_IMAGE_LAYOUT_GENERAL); // the evaluation's writes before the copy
        VkBufferImageCopy c = whole_image(output);
        vkCmdCopyImageToBuffer(gpu.cmd, output.image, VK_IMAGE_LAYOUT_GENERAL, readback.buffer, 1, &c);
        auto host = make<VkBufferMemoryBarrier>(VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER);
        host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        host.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        host.buffer = readback.buffer;
        host.size = VK_WHOLE_SIZE;
        vkCmdPipelineBarrier(gpu.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1,
                             &host, 0, nullptr);
        gpu.submit_and_wait();
        std::vector<uint8_t> out(readback.mapped, readback.mapped + readback.bytes);
        // Texels still all 0xFF bytes were never written where no output can be that: an RGBA16F half 0xFFFF
        // (a NaN) or an R11G11B10F word 0xFFFFFFFF (NaNs the conversion never makes). In RGBA8 or RGB10A2 it is
        // opaque white; there the comparison with the reference tells.
        const VkFormat of = vk_of(*options.output).format;
        const size_t unit = of == VK_FORMAT_R16G16B16A16_SFLOAT ? 2 : of == VK_FORMAT_B10G11R11_UFLOAT_PACK32 ? 4 : 0;
        size_t unwritten = 0;
        for (size_t b = 0; unit && b + unit <= out.size(); b += unit) {
            size_t poisoned = 0;
            for (size_t k = 0; k < unit; ++k) poisoned += out[b + k] == kOutputPoison;
            unwritten += poisoned == unit;
        }
        if (unwritten)
            fail("frame " + std::to_string(i) + ": " + std::to_string(unwritten) + " output " +
                 (unit == 2 ? "halves" : "texels") + " never written");
        return out;
    }

    void write_output(unsigned i, const std::vector<uint8_t>& out) const {
        if (options.out.empty()) return;
        std::string path = options.out + "/frame_" + std::to_string(i) + ".bin";
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f || std::fwrite(out.data(), 1, out.size(), f) != out.size()) fail("cannot write " + path);
        std::fclose(f);
    }

    void print_frame(unsigned i, const std::vector<uint8_t>& out) const {
        const bool rgba16f = vk_of(*options.output).format == VK_FORMAT_R16G16B16A16_SFLOAT;
        std::printf("frame %u: output %ux%u %s, fnv1a %016llx\n", i, frames.ow, frames.oh,
                    rgba16f ? "RGBA16F" : options.output->name,
                    static_cast<unsigned long long>(fnv1a(out.data(), out.size())));
    }

    // "colour rgba8 (VK_FORMAT_R8G8B8A8_UNORM), depth ..., motion ..., output ..."
    std::string formats() const {
        return "colour " + describe(*options.color) + ", depth " + describe(*options.depth) + ", motion " +
               describe(*options.motion) + ", output " + describe(*options.output);
    }

    // The planes not in the front end's canonical (VRAM path) formats: "colour rgba8 (VK_FORMAT_R8G8B8A8_UNORM)",
    // empty when all are.
    std::string noncanonical() const {
        std::string list;
        auto add = [&](const char* plane, const enc::Format& f, bool canonical) {
            if (!canonical) list += (list.empty() ? "" : ", ") + std::string(plane) + " " + describe(f);
        };
        const VkFormat depth_format = vk_of(*options.depth).format;
        add("colour", *options.color, vk_of(*options.color).format == VK_FORMAT_R16G16B16A16_SFLOAT);
        add("depth", *options.depth, depth_format == VK_FORMAT_R32_SFLOAT || depth_format == VK_FORMAT_D32_SFLOAT);
        add("motion", *options.motion, vk_of(*options.motion).format == VK_FORMAT_R16G16_SFLOAT);
        add("output", *options.output, vk_of(*options.output).format == VK_FORMAT_R16G16B16A16_SFLOAT);
        return list;
    }

    // What a failed evaluation (R) says: the result, and for FAIL_UnsupportedFormat the formats refused.
    std::string evaluation_failure(NVSDK_NGX_Result r) const {
        std::string what = "NVSDK_NGX_VULKAN_EvaluateFeature_C gave " + hex(unsigned(r)) + " (" + result_name(r) + ")";
        const std::string odd = noncanonical();
        if (r == NVSDK_NGX_Result_FAIL_UnsupportedFormat)
            what += odd.empty() ? ": the Vulkan front end refused a format, though all are canonical"
                                : ": the Vulkan front end refused " + odd;
        what += " (formats: " + formats();
        if (const char* interop = std::getenv("D4R_SHIM_VRAM_INTEROP"))
            what += std::string("; D4R_SHIM_VRAM_INTEROP=") + interop;
        return what + ")";
    }

    void close() {
        check_ngx(shim.NVSDK_NGX_VULKAN_DestroyParameters(params), "NVSDK_NGX_VULKAN_DestroyParameters");
        params = nullptr;
        check_ngx(shim.NVSDK_NGX_VULKAN_Shutdown1(gpu.device), "NVSDK_NGX_VULKAN_Shutdown1");
        check_vk(vkDeviceWaitIdle(gpu.device), "vkDeviceWaitIdle");
        for (Input* in : {&color, &depth, &motion, &exposure}) in->destroy(gpu);
        gpu.destroy(output);
        gpu.destroy(poison);
        gpu.destroy(readback);
        gpu.destroy();
    }
};

// A colour format the shim does not take: the first of R64_SFLOAT and R16G16B16A16_UNORM that the Vulkan device can
// make a sampled image of, or null (NAME: its name).
struct NamedFormat {
    VkFormat format;
    const char* name;
};
const NamedFormat* unsupported_color_format(const Gpu& gpu) {
    static const NamedFormat kCandidates[] = {{VK_FORMAT_R64_SFLOAT, "R64_SFLOAT"},
                                              {VK_FORMAT_R16G16B16A16_UNORM, "R16G16B16A16_UNORM"}};
    for (const NamedFormat& f : kCandidates)
        if (gpu.can_create(f.format, kInputUsage)) return &f;
    return nullptr;
}

void scenario_refusals(Session& s) {
    Shim& shim = s.shim;
    VkCommandBuffer cmd = s.gpu.cmd;
    // Null out-parameters.
    expect_failure(shim.NVSDK_NGX_VULKAN_AllocateParameters(nullptr), "AllocateParameters(null)");
    expect_failure(shim.NVSDK_NGX_VULKAN_GetCapabilityParameters(nullptr), "GetCapabilityParameters(null)");
    expect_failure(shim.NVSDK_NGX_VULKAN_GetScratchBufferSize(NVSDK_NGX_Feature_SuperSampling, s.params, nullptr),
                   "GetScratchBufferSize(null size)");
    expect_failure(shim.NVSDK_NGX_VULKAN_CreateFeature(cmd, NVSDK_NGX_Feature_SuperSampling, s.params, nullptr),
                   "CreateFeature(null handle out-parameter)");
    // Null and unknown handles, no command buffer.
    s.record_frame_inputs(0, true);
    NVSDK_NGX_Handle bogus{4242};
    expect_failure(shim.NVSDK_NGX_VULKAN_EvaluateFeature_C(cmd, &bogus, s.params, nullptr),
                   "EvaluateFeature(unknown handle)");
    expect_failure(shim.NVSDK_NGX_VULKAN_EvaluateFeature_C(cmd, nullptr, s.params, nullptr),
                   "EvaluateFeature(null handle)");
    expect_failure(shim.NVSDK_NGX_VULKAN_EvaluateFeature_C(VK_NULL_HANDLE, s.feature, s.params, nullptr),
                   "EvaluateFeature(null command buffer)");
    expect_failure(shim.NVSDK_NGX_VULKAN_EvaluateFeature_C(cmd, s.feature, nullptr, nullptr),
                   "EvaluateFeature(null parameters)");
    // A missing colour.
    s.set_resources(nullptr, &s.depth_res, &s.motion_res, &s.exposure_res, &s.output_res);
    expect_failure(shim.NVSDK_NGX_VULKAN_EvaluateFeature_C(cmd, s.feature, s.params, nullptr),
                   "EvaluateFeature(no colour)");
    // An unsupported colour format, and a colour image smaller than the render size, each in
    // SHADER_READ_ONLY_OPTIMAL as a game leaves its inputs.
    std::vector<Image> refused;
    NVSDK_NGX_Resource_VK bad_res{}, small_res{};
    if (const NamedFormat* bad = unsupported_color_format(s.gpu)) {
        refused.push_back(s.gpu.image(s.frames.rw, s.frames.rh, bad->format, kInputUsage, VK_IMAGE_ASPECT_COLOR_BIT));
        transition(cmd, refused.back(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        bad_res = refused.back().resource(false);
        s.set_resources(&bad_res, &s.depth_res, &s.motion_res, &s.exposure_res, &s.output_res);
        const std::string what = std::string("EvaluateFeature(") + bad->name + " colour)";
        expect_failure(shim.NVSDK_NGX_VULKAN_EvaluateFeature_C(cmd, s.feature, s.params, nullptr), what.c_str());
    } else {
        std::printf("unsupported colour format: not checked, this Vulkan device makes neither an R64_SFLOAT nor an "
                    "R16G16B16A16_UNORM sampled image\n");
    }
    refused.push_back(s.gpu.image(s.frames.rw / 2, s.frames.rh, VK_FORMAT_R16G16B16A16_SFLOAT, kInputUsage,
                                  VK_IMAGE_ASPECT_COLOR_BIT));
    transition(cmd, refused.back(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    small_res = refused.back().resource(false);
    s.set_resources(&small_res, &s.depth_res, &s.motion_res, &s.exposure_res, &s.output_res);
    expect_failure(shim.NVSDK_NGX_VULKAN_EvaluateFeature_C(cmd, s.feature, s.params, nullptr),
                   "EvaluateFeature(colour smaller than the render size)");
    // The command buffer still runs, and a good frame evaluates after the refusals.
    s.gpu.submit_and_wait();
    for (Image& im : refused) s.gpu.destroy(im);
    std::vector<uint8_t> out = s.run_frame(0, true);
    s.write_output(0, out);
    s.print_frame(0, out);
    check_ngx(shim.NVSDK_NGX_VULKAN_ReleaseFeature(s.feature), "NVSDK_NGX_VULKAN_ReleaseFeature");
    expect_failure(shim.NVSDK_NGX_VULKAN_ReleaseFeature(s.feature), "ReleaseFeature(released handle)");
    expect_failure(shim.NVSDK_NGX_VULKAN_ReleaseFeature(nullptr), "ReleaseFeature(null)");
    s.feature = nullptr;
}

// The timing scenario (see the top of this file).
void scenario_timing(Session& s) {
    Gpu& gpu = s.gpu;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(gpu.physical, &props);
    if (props.limits.timestampComputeAndGraphics != VK_TRUE) fail("this Vulkan device has no timestamps on its queues");
    auto q = make<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = 2;
    VkQueryPool pool = VK_NULL_HANDLE;
    check_vk(vkCreateQueryPool(gpu.device, &q, nullptr, &pool), "vkCreateQueryPool");
    std::vector<double> gpu_ms, wall_ms;
    for (unsigned i = 0; i < s.options.repeat; ++i) {
        const unsigned frame = i % s.frames.count;
        s.record_frame_inputs(frame, i == 0);
        gpu.submit_and_wait(); // the uploads: not timed
        vkCmdResetQueryPool(gpu.cmd, pool, 0, 2);
        vkCmdWriteTimestamp(gpu.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 0);
        NVSDK_NGX_Result r = s.shim.NVSDK_NGX_VULKAN_EvaluateFeature_C(gpu.cmd, s.feature, s.params, nullptr);
        if (r != NVSDK_NGX_Result_Success) fail("evaluation " + std::to_string(i) + ": " + s.evaluation_failure(r));
        vkCmdWriteTimestamp(gpu.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 1);
        const auto start = std::chrono::steady_clock::now();
        gpu.submit_and_wait();
        const std::chrono::duration<double, std::milli> wall = std::chrono::steady_clock::now() - start;
        uint64_t ts[2] = {};
        check_vk(vkGetQueryPoolResults(gpu.device, pool, 0, 2, sizeof ts, ts, sizeof ts[0],
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                 "vkGetQueryPoolResults");
        if (i < 4) continue;
        gpu_ms.push_back(double(ts[1] - ts[0]) * double(props.limits.timestampPeriod) / 1.0e6);
        wall_ms.push_back(wall.count());
    }
    vkDestroyQueryPool(gpu.device, pool, nullptr);
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    auto mean = [](const std::vector<double>& v) {
        return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    };
    const char* path = std::getenv("D4R_SHIM_VRAM_INTEROP");
    std::printf("timing: %zu evaluations %ux%u -> %ux%u (D4R_SHIM_VRAM_INTEROP=%s): GPU ms median %.3f mean %.3f, "
                "end to end ms median %.3f mean %.3f\n",
                gpu_ms.size(), s.frames.rw, s.frames.rh, s.frames.ow, s.frames.oh, path ? path : "unset",
                median(gpu_ms), mean(gpu_ms), median(wall_ms), mean(wall_ms));
    check_ngx(s.shim.NVSDK_NGX_VULKAN_ReleaseFeature(s.feature), "NVSDK_NGX_VULKAN_ReleaseFeature");
    s.feature = nullptr;
}

} // namespace

int main(int argc, char** argv) {
    Session s;
    s.options = parse(argc, argv);
    if (std::string why = harness_load_vulkan(); !why.empty()) fail(why);
    s.frames.open(s.options.frames);
    s.shim = load_shim(s.options.shim);
    s.open();
    s.create_resources();
    s.create_feature();
    if (s.options.scenario == "refusals") {
        scenario_refusals(s);
    } else if (s.options.scenario == "timing") {
        scenario_timing(s);
    } else {
        for (unsigned i = 0; i < s.frames.count; ++i) {
            std::vector<uint8_t> out = s.run_frame(i, i == 0);
            s.write_output(i, out);
            s.print_frame(i, out);
        }
        check_ngx(s.shim.NVSDK_NGX_VULKAN_ReleaseFeature(s.feature), "NVSDK_NGX_VULKAN_ReleaseFeature");
        s.feature = nullptr;
    }
    s.close();
    std::printf("vulkan_harness: %s, %u frames %ux%u -> %ux%u, colour %s, depth %s, motion %s, output %s, ok\n",
                s.options.scenario.c_str(),
                s.options.scenario == "refusals" ? 1u
                : s.options.scenario == "timing" ? s.options.repeat
                                                 : s.frames.count,
                s.frames.rw, s.frames.rh, s.frames.ow, s.frames.oh, s.options.color->name, s.options.depth->name,
                s.options.motion->name, s.options.output->name);
    return 0;
}
