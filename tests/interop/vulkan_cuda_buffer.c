/* A Vulkan program that shares a buffer with CUDA as the CUDA programming guide's Vulkan interop recipe does,
 * with nothing d4r-specific: the CUDA device is the one whose UUID equals the Vulkan device's deviceUUID; the
 * Vulkan buffer's memory is allocated exportable, exported as an OPAQUE_FD, imported with cuImportExternalMemory
 * and mapped with cuExternalMemoryGetMappedBuffer. Built against NVIDIA's cuda.h and Vulkan's own headers.
 * Checks, each from the other side and without any copy between the two APIs:
 *   1. CUDA reads what Vulkan wrote before the import (through a mapping and with vkCmdFillBuffer);
 *   2. Vulkan sees what CUDA wrote (cuMemsetD32 and a kernel), through a vkCmdCopyBuffer on its queue;
 *   3. CUDA reads what Vulkan wrote after the import: the device pointer aliases the memory, no copy was taken.
 * Prints "vulkan_cuda_buffer: PASS" and exits 0, or names what failed and exits 1. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define FAIL(...)                            \
    do {                                     \
        printf("vulkan_cuda_buffer: FAIL "); \
        printf(__VA_ARGS__);                 \
        printf("\n");                        \
        exit(1);                             \
    } while (0)
#define CHECK_CU(call)                            \
    do {                                          \
        CUresult r_ = (call);                     \
        if (r_ != CUDA_SUCCESS) {                 \
            const char* s_ = NULL;                \
            cuGetErrorName(r_, &s_);              \
            FAIL("%s: %s", #call, s_ ? s_ : "?"); \
        }                                         \
    } while (0)
#define CHECK_VK(call)                                                 \
    do {                                                               \
        VkResult r_ = (call);                                          \
        if (r_ != VK_SUCCESS) FAIL("%s: VkResult %d", #call, (int)r_); \
    } while (0)

enum { kWords = 64 * 1024, kBytes = kWords * 4 };

/* add_one(p, n): p[i] += 1 for i < n. */
static const char* kPtx = ".version 7.0\n.target sm_50\n.address_size 64\n"
                          ".visible .entry add_one(.param .u64 p, .param .u32 n) {\n"
                          "  .reg .u32 %r<6>; .reg .u64 %rd<4>; .reg .pred %q;\n"
                          "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];\n"
                          "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
                          "  mad.lo.u32 %r2, %r2, %r3, %r4;\n"
                          "  setp.ge.u32 %q, %r2, %r1; @%q ret;\n"
                          "  cvta.to.global.u64 %rd1, %rd1; mul.wide.u32 %rd2, %r2, 4; add.u64 %rd3, %rd1, %rd2;\n"
                          "  ld.global.u32 %r5, [%rd3]; add.u32 %r5, %r5, 1; st.global.u32 [%rd3], %r5;\n"
                          "  ret;\n}\n";

struct Vk {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkPhysicalDeviceMemoryProperties memory;
};

static uint32_t host_visible_type(const struct Vk* vk, uint32_t bits) {
    for (uint32_t i = 0; i < vk->memory.memoryTypeCount; ++i) {
        VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        if ((bits & (1u << i)) && (vk->memory.memoryTypes[i].propertyFlags & want) == want) return i;
    }
    FAIL("no host-visible coherent memory type");
}

/* A buffer of kBytes with host-visible memory; EXPORT: its memory exportable as an OPAQUE_FD. */
static void make_buffer(const struct Vk* vk, int export_fd, VkBuffer* buffer, VkDeviceMemory* memory,
                        VkDeviceSize* allocation_size) {
    VkExternalMemoryBufferCreateInfo external = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.pNext = export_fd ? &external : NULL;
    info.size = kBytes;
    info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    CHECK_VK(vkCreateBuffer(vk->device, &info, NULL, buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(vk->device, *buffer, &req);
    VkExportMemoryAllocateInfo export_info = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.pNext = export_fd ? &export_info : NULL;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = host_visible_type(vk, req.memoryTypeBits);
    CHECK_VK(vkAllocateMemory(vk->device, &alloc, NULL, memory));
    CHECK_VK(vkBindBufferMemory(vk->device, *buffer, *memory, 0));
    *allocation_size = req.size;
}

/* Records what RECORD_FN records into a one-time command buffer, submits it and waits for the queue. */
static void submit_and_wait(const struct Vk* vk, void (*record_fn)(VkCommandBuffer, void*), void* user) {
    VkCommandBufferAllocateInfo a = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    a.commandPool = vk->pool;
    a.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    a.commandBufferCount = 1;
    VkCommandBuffer cb;
    CHECK_VK(vkAllocateCommandBuffers(vk->device, &a, &cb));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(cb, &begin));
    record_fn(cb, user);
    CHECK_VK(vkEndCommandBuffer(cb));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    CHECK_VK(vkQueueSubmit(vk->queue, 1, &submit, VK_NULL_HANDLE));
    CHECK_VK(vkQueueWaitIdle(vk->queue));
    vkFreeCommandBuffers(vk->device, vk->pool, 1, &cb);
}

struct Fill {
    VkBuffer buffer;
    VkDeviceSize offset, size;
    uint32_t value;
};
static void record_fill(VkCommandBuffer cb, void* user) {
    const struct Fill* f = user;
    vkCmdFillBuffer(cb, f->buffer, f->offset, f->size, f->value);
}
struct Copy {
    VkBuffer from, to;
};
static void record_copy(VkCommandBuffer cb, void* user) {
    const struct Copy* c = user;
    VkBufferCopy region = {0, 0, kBytes};
    vkCmdCopyBuffer(cb, c->from, c->to, 1, &region);
}

/* The Vulkan physical device whose deviceUUID is CUDA device DEV's UUID, or NULL. */
static VkPhysicalDevice matching_device(VkInstance instance, CUdevice dev) {
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
            printf("vulkan_cuda_buffer: CUDA device %d is Vulkan device '%s'\n", (int)dev, p.properties.deviceName);
            return devices[i];
        }
    }
    return VK_NULL_HANDLE;
}

static void check_words(const uint32_t* words, size_t from, size_t to, uint32_t (*want)(size_t), const char* what) {
    for (size_t i = from; i < to; ++i)
        if (words[i] != want(i)) FAIL("%s: word %zu is 0x%08x, want 0x%08x", what, i, words[i], want(i));
}
static uint32_t pattern(size_t i) { return (uint32_t)(i * 3u + 1u); }
static uint32_t fill_a5(size_t i) {
    (void)i;
    return 0xa5a5a5a5u;
}
static uint32_t cuda_written(size_t i) {
    if (i < 1024) return 0x0c0da000u + 1u;      /* cuMemsetD32, then add_one */
    if (i < kWords / 2) return pattern(i) + 1u; /* add_one over Vulkan's pattern */
    return 0xa5a5a5a5u;                         /* left as Vulkan filled it */
}
static uint32_t fill_5a(size_t i) {
    (void)i;
    return 0x5a5a5a5au;
}

int main(void) {
    struct Vk vk;
    memset(&vk, 0, sizeof vk);
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vulkan_cuda_buffer";
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    instance_info.pApplicationInfo = &app;
    CHECK_VK(vkCreateInstance(&instance_info, NULL, &vk.instance));

    CUdevice dev = 0;
    int count = 0;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGetCount(&count));
    for (int d = 0; d < count && !vk.physical; ++d) {
        CHECK_CU(cuDeviceGet(&dev, d));
        vk.physical = matching_device(vk.instance, dev);
    }
    if (!vk.physical) FAIL("no CUDA device has the UUID of a Vulkan device");
    vkGetPhysicalDeviceMemoryProperties(vk.physical, &vk.memory);

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
    CHECK_VK(vkCreateDevice(vk.physical, &device_info, NULL, &vk.device));
    vkGetDeviceQueue(vk.device, 0, 0, &vk.queue);
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    CHECK_VK(vkCreateCommandPool(vk.device, &pool, NULL, &vk.pool));
    PFN_vkGetMemoryFdKHR get_memory_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(vk.device, "vkGetMemoryFdKHR");
    if (!get_memory_fd) FAIL("vkGetMemoryFdKHR is missing");

    /* The shared buffer: Vulkan writes a pattern through its mapping, then fills the upper half on its queue. */
    VkBuffer shared, readback;
    VkDeviceMemory shared_memory, readback_memory;
    VkDeviceSize shared_size, readback_size;
    make_buffer(&vk, 1, &shared, &shared_memory, &shared_size);
    make_buffer(&vk, 0, &readback, &readback_memory, &readback_size);
    uint32_t* mapped = NULL;
    CHECK_VK(vkMapMemory(vk.device, shared_memory, 0, VK_WHOLE_SIZE, 0, (void**)&mapped));
    for (size_t i = 0; i < kWords; ++i) mapped[i] = pattern(i);
    vkUnmapMemory(vk.device, shared_memory);
    struct Fill fill = {shared, kBytes / 2, kBytes / 2, 0xa5a5a5a5u};
    submit_and_wait(&vk, record_fill, &fill);

    VkMemoryGetFdInfoKHR fd_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    fd_info.memory = shared_memory;
    fd_info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    CHECK_VK(get_memory_fd(vk.device, &fd_info, &fd));

    CUcontext ctx;
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, dev));
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC handle;
    memset(&handle, 0, sizeof handle);
    handle.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    handle.handle.fd = fd;
    handle.size = shared_size;
    CUexternalMemory external;
    CHECK_CU(cuImportExternalMemory(&external, &handle)); /* CUDA owns the descriptor now */
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC buffer_desc;
    memset(&buffer_desc, 0, sizeof buffer_desc);
    buffer_desc.size = kBytes;
    CUdeviceptr d = 0;
    CHECK_CU(cuExternalMemoryGetMappedBuffer(&d, external, &buffer_desc));

    /* 1. CUDA reads what Vulkan wrote. */
    uint32_t* host = malloc(kBytes);
    CHECK_CU(cuMemcpyDtoH(host, d, kBytes));
    check_words(host, 0, kWords / 2, pattern, "CUDA reading Vulkan's mapped writes");
    check_words(host, kWords / 2, kWords, fill_a5, "CUDA reading Vulkan's vkCmdFillBuffer");

    /* 2. CUDA writes; Vulkan copies the shared buffer on its queue and sees CUDA's values. */
    CUmodule module;
    CUfunction add_one;
    CHECK_CU(cuModuleLoadData(&module, kPtx));
    CHECK_CU(cuModuleGetFunction(&add_one, module, "add_one"));
    CHECK_CU(cuMemsetD32(d, 0x0c0da000u, 1024));
    unsigned n = kWords / 2;
    void* args[] = {&d, &n};
    CHECK_CU(cuLaunchKernel(add_one, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CHECK_CU(cuCtxSynchronize());
    struct Copy copy = {shared, readback};
    submit_and_wait(&vk, record_copy, &copy);
    CHECK_VK(vkMapMemory(vk.device, readback_memory, 0, VK_WHOLE_SIZE, 0, (void**)&mapped));
    check_words(mapped, 0, kWords, cuda_written, "Vulkan's copy of what CUDA wrote");
    vkUnmapMemory(vk.device, readback_memory);

    /* 3. Vulkan writes again; CUDA sees it through the same device pointer: no copy was taken at import. */
    fill.offset = 0;
    fill.size = kBytes;
    fill.value = 0x5a5a5a5au;
    submit_and_wait(&vk, record_fill, &fill);
    CHECK_CU(cuMemcpyDtoH(host, d, kBytes));
    check_words(host, 0, kWords, fill_5a, "CUDA reading Vulkan's fill after the import");

    free(host);
    CHECK_CU(cuModuleUnload(module));
    CHECK_CU(cuMemFree(d));
    CHECK_CU(cuDestroyExternalMemory(external));
    CHECK_CU(cuCtxDestroy(ctx));
    vkDestroyBuffer(vk.device, shared, NULL);
    vkDestroyBuffer(vk.device, readback, NULL);
    vkFreeMemory(vk.device, shared_memory, NULL);
    vkFreeMemory(vk.device, readback_memory, NULL);
    vkDestroyCommandPool(vk.device, vk.pool, NULL);
    vkDestroyDevice(vk.device, NULL);
    vkDestroyInstance(vk.instance, NULL);
    printf("vulkan_cuda_buffer: PASS (%llu bytes shared)\n", (unsigned long long)shared_size);
    return 0;
}
