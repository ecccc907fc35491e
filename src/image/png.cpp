#include "image/png.h"

#include <png.h>

#include "core/files.h"
#include "image/tonemap.h"

namespace d4r::image {

Expected<std::vector<uint8_t>> encode_png(const Image& display) {
    if (display.channels != 3 && display.channels != 4)
        return make_error(ErrorCode::Invalid, "PNG needs 3 or 4 channels, the image has {}", display.channels);
    if (display.width == 0 || display.height == 0)
        return make_error(ErrorCode::Invalid, "PNG of an empty image ({}x{})", display.width, display.height);
    if (!display.consistent())
        return make_error(ErrorCode::Invalid, "image data holds {} values, {}x{}x{} expected", display.data.size(),
                          display.width, display.height, display.channels);
    std::vector<uint8_t> pixels = to_8bit(display);

    png_image header{};
    header.version = PNG_IMAGE_VERSION;
    header.width = display.width;
    header.height = display.height;
    header.format = display.channels == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&header, nullptr, &size, 0, pixels.data(), 0, nullptr)) {
        std::string reason = header.message;
        png_image_free(&header);
        return make_error(ErrorCode::Internal, "libpng: {}", reason);
    }
    std::vector<uint8_t> encoded(size);
    if (!png_image_write_to_memory(&header, encoded.data(), &size, 0, pixels.data(), 0, nullptr)) {
        std::string reason = header.message;
        png_image_free(&header);
        return make_error(ErrorCode::Internal, "libpng: {}", reason);
    }
    encoded.resize(size);
    return encoded;
}

Status write_png(const std::filesystem::path& path, const Image& display) {
    std::vector<uint8_t> encoded = D4R_TRY_CTX(encode_png(display), "writing {}", path.string());
    return write_file_atomic(path, encoded); // its errors name the path already
}

} // namespace d4r::image
