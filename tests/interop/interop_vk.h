/* What the Vulkan interop programs (vulkan_cuda_buffer.c, vulkan_cuda_image.c) share: cu_check.h's FAIL and CHECK_CU
 * and CHECK_VK (print "PROGRAM: FAIL <what>" and exit 1; define PROGRAM, a string, first), a Vulkan device picked as
 * the CUDA programming guide's recipe picks it (the physical device whose deviceUUID is a CUDA device's UUID) with
 * VK_KHR_external_memory_fd, buffers, memory types and one-shot command buffers. Written as any Vulkan program would
 * write them: nothing here knows d4r. */
#ifndef D4R_TESTS_INTEROP_INTEROP_VK_H
#define D4R_TESTS_INTEROP_INTEROP_VK_H

#include <stdio.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "cu_check.h"

#define CHECK_VK(call)                                                 \
    do {                                                               \
        VkResult r_ = (call);                                          \
        if (r_ != VK_SUCCESS) FAIL("%s: VkResult %d", #call, (int)r_); \
    } while (0)

struct Vk {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkPhysicalDeviceMemoryProperties memory;
    PFN_vkGetMemoryFdKHR get_memory_fd;
    CUdevice cuda_device;
};

/* The Vulkan physical device whose deviceUUID is CUDA device DEV's UUID, or VK_NULL_HANDLE. */
static VkPhysicalDevice vk_matching_device(VkInstance instance, CUdevice dev) {
    CUuuid uuid;
    CHECK_CU(cuDeviceGetUuid(&uuid, dev));
    uint32_t n = 0;
    CHECK_VK(vkEnumeratePhysicalDevices(instance, &n, NULL));
    VkPhysicalDevice devices[16];
    if (n > 16) n = 16;
    CHECK_VK(vkEnumeratePhysicalDevices(instance, &n, devices));
    for (uint32_t i = 0; i < n; ++i) {
        VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
        vkGetPhysicalDeviceProperties2(devices[i], &p);
        if (memcmp(id.deviceUUID, uuid.bytes, VK_UUID_SIZE) == 0) {
            printf("%s: CUDA device %d is Vulkan device '%s'\n", PROGRAM, (int)dev, p.properties.deviceName);
            return devices[i];
        }
    }
    return VK_NULL_HANDLE;
}

/* cuInit, a Vulkan 1.1 instance, the Vulkan device of the first CUDA device that has one, and its queue 0. */
static void vk_open(struct Vk* vk) {
    memset(vk, 0, sizeof *vk);
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = PROGRAM;
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    instance_info.pApplicationInfo = &app;
    CHECK_VK(vkCreateInstance(&instance_info, NULL, &vk->instance));
    int count = 0;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGetCount(&count));
    for (int d = 0; d < count && !vk->physical; ++d) {
        CHECK_CU(cuDeviceGet(&vk->cuda_device, d));
        vk->physical = vk_matching_device(vk->instance, vk->cuda_device);
    }
    if (!vk->physical) FAIL("no CUDA device has the UUID of a Vulkan device");
    vkGetPhysicalDeviceMemoryProperties(vk->physical, &vk->memory);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = 0; /* graphics, compute and transfer on every device this runs on */
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    const char* extensions[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
    VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue;
    device_info.enabledExtensionCount = 1;
    device_info.ppEnabledExtensionNames = extensions;
    CHECK_VK(vkCreateDevice(vk->physical, &device_info, NULL, &vk->device));
    vkGetDeviceQueue(vk->device, 0, 0, &vk->queue);
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    CHECK_VK(vkCreateCommandPool(vk->device, &pool, NULL, &vk->pool));
    vk->get_memory_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(vk->device, "vkGetMemoryFdKHR");
    if (!vk->get_memory_fd) FAIL("vkGetMemoryFdKHR is missing");
}

static void vk_close(struct Vk* vk) {
    vkDestroyCommandPool(vk->device, vk->pool, NULL);
    vkDestroyDevice(vk->device, NULL);
    vkDestroyInstance(vk->instance, NULL);
}

/* A memory type among BITS with all of WANT. */
static uint32_t vk_memory_type(const struct Vk* vk, uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < vk->memory.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (vk->memory.memoryTypes[i].propertyFlags & want) == want) return i;
    FAIL("no memory type with properties %#x", (unsigned)want);
}

/* Memory for REQ, exportable as an OPAQUE_FD when EXPORT_FD, of a type with WANT. */
static VkDeviceMemory vk_allocate(const struct Vk* vk, const VkMemoryRequirements* req, int export_fd,
                                  VkMemoryPropertyFlags want) {
    VkExportMemoryAllocateInfo export_info = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.pNext = export_fd ? &export_info : NULL;
    alloc.allocationSize = req->size;
    alloc.memoryTypeIndex = vk_memory_type(vk, req->memoryTypeBits, want);
    VkDeviceMemory memory;
    CHECK_VK(vkAllocateMemory(vk->device, &alloc, NULL, &memory));
    return memory;
}

/* A transfer buffer of BYTES with host-visible coherent memory (exportable when EXPORT_FD). */
static void vk_buffer(const struct Vk* vk, VkDeviceSize bytes, int export_fd, VkBuffer* buffer, VkDeviceMemory* memory,
                      VkDeviceSize* allocation_size) {
    VkExternalMemoryBufferCreateInfo external = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.pNext = export_fd ? &external : NULL;
    info.size = bytes;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    CHECK_VK(vkCreateBuffer(vk->device, &info, NULL, buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(vk->device, *buffer, &req);
    *memory =
        vk_allocate(vk, &req, export_fd, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    CHECK_VK(vkBindBufferMemory(vk->device, *buffer, *memory, 0));
    if (allocation_size) *allocation_size = req.size;
}

/* MEMORY as an OPAQUE_FD, imported into CUDA (which owns the descriptor from then on). */
static CUexternalMemory vk_import(const struct Vk* vk, VkDeviceMemory memory, VkDeviceSize size) {
    VkMemoryGetFdInfoKHR fd_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    fd_info.memory = memory;
    fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    CHECK_VK(vk->get_memory_fd(vk->device, &fd_info, &fd));
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC handle;
    memset(&handle, 0, sizeof handle);
    handle.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    handle.handle.fd = fd;
    handle.size = size;
    CUexternalMemory external;
    CHECK_CU(cuImportExternalMemory(&external, &handle));
    return external;
}

/* Records what RECORD records into a one-time command buffer, submits it and waits for the queue. */
static void vk_submit_and_wait(const struct Vk* vk, void (*record)(VkCommandBuffer, void*), void* user) {
    VkCommandBufferAllocateInfo a = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    a.commandPool = vk->pool;
    a.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    a.commandBufferCount = 1;
    VkCommandBuffer cb;
    CHECK_VK(vkAllocateCommandBuffers(vk->device, &a, &cb));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(cb, &begin));
    record(cb, user);
    CHECK_VK(vkEndCommandBuffer(cb));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    CHECK_VK(vkQueueSubmit(vk->queue, 1, &submit, VK_NULL_HANDLE));
    CHECK_VK(vkQueueWaitIdle(vk->queue));
    vkFreeCommandBuffers(vk->device, vk->pool, 1, &cb);
}

#endif
