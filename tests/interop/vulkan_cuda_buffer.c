/* A Vulkan program that shares a buffer with CUDA as the CUDA programming guide's Vulkan interop recipe does,
 * with nothing d4r-specific: the CUDA device is the one whose UUID equals the Vulkan device's deviceUUID; the
 * Vulkan buffer's memory is allocated exportable, exported as an OPAQUE_FD, imported with cuImportExternalMemory
 * and mapped with cuExternalMemoryGetMappedBuffer. Built against NVIDIA's cuda.h and Vulkan's own headers.
 * Checks, each from the other side and without any copy between the two APIs:
 *   1. CUDA reads what Vulkan wrote before the import (through a mapping and with vkCmdFillBuffer);
 *   2. Vulkan sees what CUDA wrote (cuMemsetD32 and a kernel), through a vkCmdCopyBuffer on its queue;
 *   3. CUDA reads what Vulkan wrote after the import: the device pointer aliases the memory, no copy was taken.
 * Prints "vulkan_cuda_buffer: PASS" and exits 0, or names what failed and exits 1. */
#define PROGRAM "vulkan_cuda_buffer"
#include "interop_vk.h"

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
    vk_open(&vk);

    /* The shared buffer: Vulkan writes a pattern through its mapping, then fills the upper half on its queue. */
    VkBuffer shared, readback;
    VkDeviceMemory shared_memory, readback_memory;
    VkDeviceSize shared_size;
    vk_buffer(&vk, kBytes, 1, &shared, &shared_memory, &shared_size);
    vk_buffer(&vk, kBytes, 0, &readback, &readback_memory, NULL);
    uint32_t* mapped = NULL;
    CHECK_VK(vkMapMemory(vk.device, shared_memory, 0, VK_WHOLE_SIZE, 0, (void**)&mapped));
    for (size_t i = 0; i < kWords; ++i) mapped[i] = pattern(i);
    vkUnmapMemory(vk.device, shared_memory);
    struct Fill fill = {shared, kBytes / 2, kBytes / 2, 0xa5a5a5a5u};
    vk_submit_and_wait(&vk, record_fill, &fill);

    CUcontext ctx;
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, vk.cuda_device));
    CUexternalMemory external = vk_import(&vk, shared_memory, shared_size);
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
    vk_submit_and_wait(&vk, record_copy, &copy);
    CHECK_VK(vkMapMemory(vk.device, readback_memory, 0, VK_WHOLE_SIZE, 0, (void**)&mapped));
    check_words(mapped, 0, kWords, cuda_written, "Vulkan's copy of what CUDA wrote");
    vkUnmapMemory(vk.device, readback_memory);

    /* 3. Vulkan writes again; CUDA sees it through the same device pointer: no copy was taken at import. */
    fill.offset = 0;
    fill.size = kBytes;
    fill.value = 0x5a5a5a5au;
    vk_submit_and_wait(&vk, record_fill, &fill);
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
    vk_close(&vk);
    printf("vulkan_cuda_buffer: PASS (%llu bytes shared)\n", (unsigned long long)shared_size);
    return 0;
}
