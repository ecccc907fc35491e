// cpu backend: what memory a Mesa CPU Vulkan driver (lavapipe) exports as an OPAQUE_FD looks like.
//
// Promise: data_offset() recognises Mesa's exported memory (a memfd whose first bytes are Mesa's header: the file's
// size, the data's offset, a whole number of pages, and the driver's UUID, with the offset repeated in the 8 bytes
// before the data; Mesa's util/os_memory_fd.c on a 64-bit system) and says where the memory starts, or why the file
// is not one. llvmpipe_image_level() is where llvmpipe keeps a mip level of a 2D image in its memory: every tiling
// (OPTIMAL too) is linear, rows of align(align(width, 4) x texel bytes, 64) bytes, align(height, 4) rows a level,
// levels back to back from the image's bind offset. Measured on Mesa 22.3.6 (Debian 12) for 25 formats and sizes
// from 3x1 to 2560x1440, mips included, against vkGetImageSubresourceLayout and the pixels themselves; other Mesa
// versions may lay images out differently (docs/runtime.md, "External memory").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace d4r::runtime::cpu::mesa {

struct MemoryFdHeader {
    uint64_t file_size;
    uint64_t data_offset;
    uint8_t driver_uuid[16];
};

// The offset of the memory in MAP (the whole file, FILE_SIZE bytes) when it is Mesa's exported memory with room for
// SIZE bytes after the header; otherwise nothing, and WHY says what did not match.
std::optional<uint64_t> data_offset(const uint8_t* map, uint64_t file_size, uint64_t size, std::string& why);

struct ImageLevel {
    uint32_t width = 0, height = 0; // texels of the level
    uint64_t offset = 0;            // from the image's bind offset
    uint64_t pitch = 0;             // bytes between rows
    uint64_t bytes = 0;             // the level's size in memory
};
// Mip LEVEL of a 2D (HEIGHT 1: 1D) image of WIDTH x HEIGHT texels of TEXEL_BYTES.
ImageLevel llvmpipe_image_level(uint32_t width, uint32_t height, uint32_t texel_bytes, uint32_t level);

} // namespace d4r::runtime::cpu::mesa
