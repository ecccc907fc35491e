// Mesa's exported memory and llvmpipe's image layout (see mesa_memory_fd.h).
#include "runtime/backends/cpu/mesa_memory_fd.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace d4r::runtime::cpu::mesa {

std::optional<uint64_t> data_offset(const uint8_t* map, uint64_t file_size, uint64_t size, std::string& why) {
    MemoryFdHeader h{};
    if (file_size < sizeof h + sizeof(uint64_t)) {
        why = fmt::format("{} bytes: too small for Mesa's header", file_size);
        return std::nullopt;
    }
    std::memcpy(&h, map, sizeof h);
    if (h.file_size != file_size) {
        why =
            fmt::format("the first 8 bytes ({}) are not the file's size ({}): no Mesa header", h.file_size, file_size);
        return std::nullopt;
    }
    if (h.data_offset % 4096 != 0 || h.data_offset < sizeof h + sizeof(uint64_t) || h.data_offset > file_size) {
        why = fmt::format("Mesa header's data offset {} is not a page inside the file", h.data_offset);
        return std::nullopt;
    }
    uint64_t repeated = 0;
    std::memcpy(&repeated, map + h.data_offset - sizeof repeated, sizeof repeated);
    if (repeated != h.data_offset) {
        why = fmt::format("the 8 bytes before the data ({}) do not repeat the data offset {}", repeated, h.data_offset);
        return std::nullopt;
    }
    if (size > file_size - h.data_offset) {
        why = fmt::format("size {} exceeds the {} bytes after Mesa's header", size, file_size - h.data_offset);
        return std::nullopt;
    }
    return h.data_offset;
}

namespace {
uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
} // namespace

ImageLevel llvmpipe_image_level(uint32_t width, uint32_t height, uint32_t texel_bytes, uint32_t level) {
    ImageLevel l;
    for (uint32_t i = 0; i <= level; ++i) {
        l.offset += l.bytes;
        l.width = std::max(1u, width >> std::min(i, 31u));
        l.height = std::max(1u, height >> std::min(i, 31u));
        l.pitch = align_up(align_up(l.width, 4) * texel_bytes, 64);
        l.bytes = l.pitch * align_up(l.height, 4);
    }
    return l;
}

} // namespace d4r::runtime::cpu::mesa
