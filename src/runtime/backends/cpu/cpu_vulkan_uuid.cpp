// The CPU Vulkan device's UUID (see cpu_vulkan_uuid.h): a Vulkan instance of our own over the loader the process
// already loaded, asked for its CPU physical device's VkPhysicalDeviceIDProperties.
#include "runtime/backends/cpu/cpu_vulkan_uuid.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/log.h"

#if __has_include(<vulkan/vulkan_core.h>)
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>
#define D4R_HAVE_VULKAN_HEADERS 1
#endif

namespace d4r::runtime::cpu {

namespace {

using Uuid = std::array<uint8_t, 16>;

#ifdef D4R_HAVE_VULKAN_HEADERS
// The probe itself: the UUID, or nothing with WHY filled in.
std::optional<Uuid> probe(void* loader, std::string& why) {
    auto get = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(loader, "vkGetInstanceProcAddr"));
    if (!get) {
        why = "libvulkan.so.1 has no vkGetInstanceProcAddr";
        return std::nullopt;
    }
    auto create = reinterpret_cast<PFN_vkCreateInstance>(get(nullptr, "vkCreateInstance"));
    if (!create) {
        why = "the Vulkan loader gives no vkCreateInstance";
        return std::nullopt;
    }
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "d4r cpu backend device UUID";
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    if (VkResult r = create(&info, nullptr, &instance); r != VK_SUCCESS) {
        why = fmt::format("vkCreateInstance (Vulkan 1.1) failed: VkResult {}", int(r));
        return std::nullopt;
    }
    auto destroy = reinterpret_cast<PFN_vkDestroyInstance>(get(instance, "vkDestroyInstance"));
    auto enumerate = reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(get(instance, "vkEnumeratePhysicalDevices"));
    auto properties =
        reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(get(instance, "vkGetPhysicalDeviceProperties2"));
    std::optional<Uuid> found;
    why = "no Vulkan physical device of type CPU";
    uint32_t n = 0;
    if (!enumerate || !properties || enumerate(instance, &n, nullptr) != VK_SUCCESS) {
        why = "vkEnumeratePhysicalDevices failed";
    } else {
        std::vector<VkPhysicalDevice> devices(n);
        if (enumerate(instance, &n, devices.data()) >= 0) {
            for (uint32_t i = 0; i < n && !found; ++i) {
                VkPhysicalDeviceIDProperties id{};
                id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
                VkPhysicalDeviceProperties2 p{};
                p.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
                p.pNext = &id;
                properties(devices[i], &p);
                if (p.properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU) continue;
                Uuid u;
                std::memcpy(u.data(), id.deviceUUID, u.size());
                found = u;
                log::info("cpu backend: the device's UUID is that of the CPU Vulkan device '{}', so that Vulkan "
                          "programs find it",
                          p.properties.deviceName);
            }
        }
    }
    if (destroy) destroy(instance, nullptr);
    return found;
}
#endif

} // namespace

std::optional<Uuid> cpu_vulkan_device_uuid() {
    static std::mutex mutex;
    static bool probed = false;
    static std::optional<Uuid> uuid;
    std::lock_guard lock(mutex);
    if (probed) return uuid;
    void* loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!loader) return std::nullopt; // Vulkan not loaded (yet): nobody to match
    probed = true;
    std::string why;
#ifdef D4R_HAVE_VULKAN_HEADERS
    uuid = probe(loader, why);
#else
    why = "d4r was built without Vulkan's headers (libvulkan-dev)";
#endif
    dlclose(loader);
    if (!uuid) log::info("cpu backend: the device keeps its own UUID, not a Vulkan device's: {}", why);
    return uuid;
}

} // namespace d4r::runtime::cpu
