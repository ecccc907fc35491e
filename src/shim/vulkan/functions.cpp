// The front end's Vulkan functions (vulkan/functions.h).
#include "shim/vulkan/functions.h"

#include "upscaler/platform.h"

namespace d4r::shim::vulkan {

namespace {
#if defined(_WIN32)
constexpr const char* kLoaderName = "vulkan-1.dll";
#else
constexpr const char* kLoaderName = "libvulkan.so.1";
#endif
} // namespace

Expected<Functions> load_functions(VkInstance instance, VkDevice device, PFN_vkGetInstanceProcAddr gipa,
                                   PFN_vkGetDeviceProcAddr gdpa) {
    if (!gipa) {
        void* loader = D4R_TRY_CTX(upscaler::platform::open_library(kLoaderName),
                                   "the game passed no vkGetInstanceProcAddr, and the Vulkan loader");
        gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
            upscaler::platform::find_symbol(loader, "vkGetInstanceProcAddr"));
        if (!gipa) return make_error(ErrorCode::NotFound, "{} does not export vkGetInstanceProcAddr", kLoaderName);
    }
    if (!gdpa) gdpa = reinterpret_cast<PFN_vkGetDeviceProcAddr>(gipa(instance, "vkGetDeviceProcAddr"));
    if (!gdpa) return make_error(ErrorCode::NotFound, "the Vulkan instance has no vkGetDeviceProcAddr");
    Functions f;
#define D4R_SHIM_VK_INSTANCE(name)                                \
    f.name = reinterpret_cast<PFN_##name>(gipa(instance, #name)); \
    if (!f.name) return make_error(ErrorCode::NotFound, "the Vulkan instance has no {}", #name);
#define D4R_SHIM_VK_DEVICE(name)                                \
    f.name = reinterpret_cast<PFN_##name>(gdpa(device, #name)); \
    if (!f.name) return make_error(ErrorCode::NotFound, "the Vulkan device has no {}", #name);
#define D4R_SHIM_VK_OPTIONAL(name) f.name = reinterpret_cast<PFN_##name>(gdpa(device, #name));
    D4R_SHIM_VK_INSTANCE_FUNCTIONS(D4R_SHIM_VK_INSTANCE)
    D4R_SHIM_VK_DEVICE_FUNCTIONS(D4R_SHIM_VK_DEVICE)
    D4R_SHIM_VK_OPTIONAL_DEVICE_FUNCTIONS(D4R_SHIM_VK_OPTIONAL)
#undef D4R_SHIM_VK_INSTANCE
#undef D4R_SHIM_VK_DEVICE
#undef D4R_SHIM_VK_OPTIONAL
    return f;
}

} // namespace d4r::shim::vulkan
