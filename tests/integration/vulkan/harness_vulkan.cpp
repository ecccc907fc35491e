// Loading the Vulkan harness's Vulkan functions and the shim (harness_vulkan.h).
#include "harness_vulkan.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

void* harness_open_library(const std::string& path, std::string& why) {
#if defined(_WIN32)
    HMODULE m = LoadLibraryA(path.c_str());
    if (!m) why = "LoadLibrary failed with Windows error " + std::to_string(GetLastError());
    return reinterpret_cast<void*>(m);
#else
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* text = dlerror();
        why = text ? text : "dlopen failed";
    }
    return h;
#endif
}

void* harness_symbol(void* library, const char* name) {
#if defined(_WIN32)
    return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(library), name));
#else
    return dlsym(library, name);
#endif
}

std::string harness_load_vulkan() {
#if defined(_WIN32)
    const char* loader = "vulkan-1.dll";
#else
    const char* loader = "libvulkan.so.1";
#endif
    std::string why;
    void* library = harness_open_library(loader, why);
    if (!library) return std::string("cannot load the Vulkan loader ") + loader + ": " + why;
    vkGetInstanceProcAddr =
        reinterpret_cast<PFN_vkGetInstanceProcAddr>(harness_symbol(library, "vkGetInstanceProcAddr"));
    if (!vkGetInstanceProcAddr) return std::string(loader) + " has no vkGetInstanceProcAddr";
#define HARNESS_VK_LOAD(name)                                                          \
    name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(VK_NULL_HANDLE, #name)); \
    if (!name) return std::string("the Vulkan loader has no ") + #name;
    HARNESS_VK_GLOBAL(HARNESS_VK_LOAD)
#undef HARNESS_VK_LOAD
    return {};
}

std::string harness_load_instance_functions(VkInstance instance) {
#define HARNESS_VK_LOAD(name)                                                    \
    name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name)); \
    if (!name) return std::string("the Vulkan instance has no ") + #name;
    HARNESS_VK_INSTANCE(HARNESS_VK_LOAD)
#undef HARNESS_VK_LOAD
    return {};
}
