// d4r image: PNG output (libpng).
//
// Promise: encode_png turns a display image (values [0,1], 3 or 4 channels) into an 8-bit RGB or
// RGBA PNG in memory, quantised as to_8bit() does; write_png writes it with write_file_atomic, so a
// reader never sees a half-written file. Errors are values naming the path and libpng's reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/status.h"
#include "image/image.h"

namespace d4r::image {

Expected<std::vector<uint8_t>> encode_png(const Image& display);
Status write_png(const std::filesystem::path& path, const Image& display);

} // namespace d4r::image
