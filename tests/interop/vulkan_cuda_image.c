/* A Vulkan program that shares an image with CUDA as the CUDA programming guide's Vulkan interop recipe does: an
 * OPTIMAL RGBA8 image of 67x45 texels with 3 mip levels (odd sizes, so rows have padding) in memory allocated
 * exportable, exported as an OPAQUE_FD, imported with cuImportExternalMemory and mapped with
 * cuExternalMemoryGetMappedMipmappedArray; CUDA reaches each level through cuMipmappedArrayGetLevel. Built against
 * NVIDIA's cuda.h and Vulkan's own headers; nothing in it knows d4r. Checks:
 *   1. CUDA reads every level as Vulkan wrote it (vkCmdCopyBufferToImage), through cuMemcpy2D from the level;
 *   2. Vulkan reads what a CUDA kernel wrote through a surface object over level 0, and what cuMemcpy2D wrote into
 *      level 1 (vkCmdCopyImageToBuffer);
 *   3. CUDA sees a later Vulkan clear of level 2 through the same array: no copy was taken at import.
 * Prints "vulkan_cuda_image: PASS" and exits 0, or names what failed and exits 1. */
#define PROGRAM "vulkan_cuda_image"
#include "interop_vk.h"

enum { kWidth = 67, kHeight = 45, kLevels = 3 };

static uint32_t level_width(int level) { return kWidth >> level ? kWidth >> level : 1; }
static uint32_t level_height(int level) { return kHeight >> level ? kHeight >> level : 1; }

/* paint(surface, w, h): texel (x, y) = 0x5a000000 | y << 8 | x, through a surface store. */
static const char* kPtx = ".version 7.0\n.target sm_50\n.address_size 64\n"
                          ".visible .entry paint(.param .u64 surf, .param .u32 w, .param .u32 h) {\n"
                          "  .reg .u32 %r<10>; .reg .u64 %rd1; .reg .pred %q;\n"
                          "  ld.param.u64 %rd1, [surf]; ld.param.u32 %r1, [w]; ld.param.u32 %r2, [h];\n"
                          "  mov.u32 %r3, %tid.x; mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ntid.x;\n"
                          "  mad.lo.u32 %r3, %r4, %r5, %r3; mov.u32 %r6, %ctaid.y;\n"
                          "  setp.ge.u32 %q, %r3, %r1; @%q ret;\n"
                          "  setp.ge.u32 %q, %r6, %r2; @%q ret;\n"
                          "  shl.b32 %r7, %r3, 2; shl.b32 %r8, %r6, 8; or.b32 %r8, %r8, %r3;\n"
                          "  or.b32 %r8, %r8, 0x5a000000;\n"
                          "  sust.b.2d.b32.trap [%rd1, {%r7, %r6}], {%r8};\n"
                          "  ret;\n}\n";

static uint32_t vulkan_texel(int level, uint32_t x, uint32_t y) { return 0x01000000u * (level + 1) + y * 1000u + x; }
static uint32_t painted_texel(uint32_t x, uint32_t y) { return 0x5a000000u | y << 8 | x; }
static uint32_t copied_texel(uint32_t x, uint32_t y) { return 0xc0000000u + y * 7u + x * 3u; }
#define kClearTexel 0x80402010u /* RGBA8 UNORM clear to (16, 32, 64, 128) / 255 */

/* Buffer offset of LEVEL in a staging buffer holding every level tightly packed. */
static VkDeviceSize packed_offset(int level) {
    VkDeviceSize offset = 0;
    for (int l = 0; l < level; ++l) offset += (VkDeviceSize)level_width(l) * level_height(l) * 4;
    return offset;
}

struct Transfer {
    VkImage image;
    VkBuffer buffer;
    VkImageLayout from; /* the image's layout before */
    int to_image;       /* buffer -> image (else image -> buffer) */
    int clear_level;    /* >= 0: clear that level instead */
};

static void barrier(VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to) {
    VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = (VkImageSubresourceRange){VK_IMAGE_ASPECT_COLOR_BIT, 0, kLevels, 0, 1};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
                         NULL, 1, &b);
}

/* Every level between the image and the packed buffer (or a clear of one level), leaving the image GENERAL. */
static void record_transfer(VkCommandBuffer cb, void* user) {
    const struct Transfer* t = user;
    const VkImageLayout work = t->clear_level >= 0 ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
                               : t->to_image       ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
                                                   : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    barrier(cb, t->image, t->from, work);
    if (t->clear_level >= 0) {
        VkClearColorValue colour = {.float32 = {16 / 255.0f, 32 / 255.0f, 64 / 255.0f, 128 / 255.0f}};
        VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, (uint32_t)t->clear_level, 1, 0, 1};
        vkCmdClearColorImage(cb, t->image, work, &colour, 1, &range);
    } else {
        VkBufferImageCopy regions[kLevels];
        for (int l = 0; l < kLevels; ++l) {
            regions[l] = (VkBufferImageCopy){.bufferOffset = packed_offset(l)};
            regions[l].imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, (uint32_t)l, 0, 1};
            regions[l].imageExtent = (VkExtent3D){level_width(l), level_height(l), 1};
        }
        if (t->to_image)
            vkCmdCopyBufferToImage(cb, t->buffer, t->image, work, kLevels, regions);
        else
            vkCmdCopyImageToBuffer(cb, t->image, work, t->buffer, kLevels, regions);
    }
    barrier(cb, t->image, work, VK_IMAGE_LAYOUT_GENERAL);
}

/* LEVEL of ARRAY into HOST (tightly packed rows). */
static void read_level(CUarray array, int level, uint32_t* host) {
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = array;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = host;
    c.dstPitch = level_width(level) * 4;
    c.WidthInBytes = level_width(level) * 4;
    c.Height = level_height(level);
    CHECK_CU(cuMemcpy2D(&c));
}

int main(void) {
    struct Vk vk;
    vk_open(&vk);

    /* The shared image, in exportable memory of the first type it may use. */
    VkExternalMemoryImageCreateInfo external = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .pNext = &external};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = VK_FORMAT_R8G8B8A8_UNORM;
    info.extent = (VkExtent3D){kWidth, kHeight, 1};
    info.mipLevels = kLevels;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImage image;
    CHECK_VK(vkCreateImage(vk.device, &info, NULL, &image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(vk.device, image, &req);
    VkDeviceMemory image_memory = vk_allocate(&vk, &req, 1, 0);
    CHECK_VK(vkBindImageMemory(vk.device, image, image_memory, 0));

    /* Vulkan writes every level from a staging buffer. */
    const VkDeviceSize packed = packed_offset(kLevels);
    VkBuffer staging;
    VkDeviceMemory staging_memory;
    vk_buffer(&vk, packed, 0, &staging, &staging_memory, NULL);
    uint32_t* mapped = NULL;
    CHECK_VK(vkMapMemory(vk.device, staging_memory, 0, VK_WHOLE_SIZE, 0, (void**)&mapped));
    for (int l = 0; l < kLevels; ++l) {
        uint32_t* level = mapped + packed_offset(l) / 4;
        for (uint32_t y = 0; y < level_height(l); ++y)
            for (uint32_t x = 0; x < level_width(l); ++x) level[y * level_width(l) + x] = vulkan_texel(l, x, y);
    }
    vkUnmapMemory(vk.device, staging_memory);
    struct Transfer upload = {image, staging, VK_IMAGE_LAYOUT_UNDEFINED, 1, -1};
    vk_submit_and_wait(&vk, record_transfer, &upload);

    CUcontext ctx;
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, vk.cuda_device));
    CUexternalMemory memory = vk_import(&vk, image_memory, req.size);
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC desc;
    memset(&desc, 0, sizeof desc);
    desc.arrayDesc.Width = kWidth;
    desc.arrayDesc.Height = kHeight;
    desc.arrayDesc.Format = CU_AD_FORMAT_UNSIGNED_INT8;
    desc.arrayDesc.NumChannels = 4;
    desc.arrayDesc.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    desc.numLevels = kLevels;
    CUmipmappedArray mipmapped;
    CHECK_CU(cuExternalMemoryGetMappedMipmappedArray(&mipmapped, memory, &desc));
    CUarray levels[kLevels];
    for (int l = 0; l < kLevels; ++l) CHECK_CU(cuMipmappedArrayGetLevel(&levels[l], mipmapped, (unsigned)l));

    /* 1. CUDA reads every level as Vulkan wrote it. */
    uint32_t* host = malloc(packed);
    for (int l = 0; l < kLevels; ++l) {
        read_level(levels[l], l, host);
        for (uint32_t y = 0; y < level_height(l); ++y)
            for (uint32_t x = 0; x < level_width(l); ++x)
                if (host[y * level_width(l) + x] != vulkan_texel(l, x, y))
                    FAIL("CUDA reading level %d texel (%u, %u): 0x%08x, want 0x%08x", l, x, y,
                         host[y * level_width(l) + x], vulkan_texel(l, x, y));
    }

    /* 2. A kernel paints level 0 through a surface; cuMemcpy2D writes level 1; Vulkan reads both back. */
    CUDA_RESOURCE_DESC resource;
    memset(&resource, 0, sizeof resource);
    resource.resType = CU_RESOURCE_TYPE_ARRAY;
    resource.res.array.hArray = levels[0];
    CUsurfObject surface;
    CHECK_CU(cuSurfObjectCreate(&surface, &resource));
    CUmodule module;
    CUfunction paint;
    CHECK_CU(cuModuleLoadData(&module, kPtx));
    CHECK_CU(cuModuleGetFunction(&paint, module, "paint"));
    unsigned w = kWidth, h = kHeight;
    void* args[] = {&surface, &w, &h};
    CHECK_CU(cuLaunchKernel(paint, (kWidth + 31) / 32, kHeight, 1, 32, 1, 1, 0, NULL, args, NULL));
    for (uint32_t y = 0; y < level_height(1); ++y)
        for (uint32_t x = 0; x < level_width(1); ++x) host[y * level_width(1) + x] = copied_texel(x, y);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = host;
    c.srcPitch = level_width(1) * 4;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = levels[1];
    c.WidthInBytes = level_width(1) * 4;
    c.Height = level_height(1);
    CHECK_CU(cuMemcpy2D(&c));
    CHECK_CU(cuCtxSynchronize());
    struct Transfer download = {image, staging, VK_IMAGE_LAYOUT_GENERAL, 0, -1};
    vk_submit_and_wait(&vk, record_transfer, &download);
    CHECK_VK(vkMapMemory(vk.device, staging_memory, 0, VK_WHOLE_SIZE, 0, (void**)&mapped));
    for (int l = 0; l < kLevels; ++l) {
        const uint32_t* level = mapped + packed_offset(l) / 4;
        for (uint32_t y = 0; y < level_height(l); ++y)
            for (uint32_t x = 0; x < level_width(l); ++x) {
                uint32_t want = l == 0 ? painted_texel(x, y) : l == 1 ? copied_texel(x, y) : vulkan_texel(l, x, y);
                if (level[y * level_width(l) + x] != want)
                    FAIL("Vulkan reading level %d texel (%u, %u): 0x%08x, want 0x%08x", l, x, y,
                         level[y * level_width(l) + x], want);
            }
    }
    vkUnmapMemory(vk.device, staging_memory);

    /* 3. Vulkan clears level 2; CUDA sees it through the same array. */
    struct Transfer clear = {image, staging, VK_IMAGE_LAYOUT_GENERAL, 1, 2};
    vk_submit_and_wait(&vk, record_transfer, &clear);
    read_level(levels[2], 2, host);
    for (uint32_t i = 0; i < level_width(2) * level_height(2); ++i)
        if (host[i] != kClearTexel) FAIL("CUDA reading the cleared level 2, texel %u: 0x%08x", i, host[i]);

    free(host);
    CHECK_CU(cuSurfObjectDestroy(surface));
    CHECK_CU(cuModuleUnload(module));
    CHECK_CU(cuMipmappedArrayDestroy(mipmapped));
    CHECK_CU(cuDestroyExternalMemory(memory));
    CHECK_CU(cuCtxDestroy(ctx));
    vkDestroyImage(vk.device, image, NULL);
    vkDestroyBuffer(vk.device, staging, NULL);
    vkFreeMemory(vk.device, image_memory, NULL);
    vkFreeMemory(vk.device, staging_memory, NULL);
    vk_close(&vk);
    printf("vulkan_cuda_image: PASS (%dx%d RGBA8, %d levels, %llu bytes shared)\n", kWidth, kHeight, kLevels,
           (unsigned long long)req.size);
    return 0;
}
