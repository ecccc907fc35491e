// LZ4 and zstd decoding for fatbin payloads, always into a buffer of the size the header promised.
#include "ptx/decompress.h"

#include <climits>

#include <lz4.h>
#include <zstd.h>

namespace d4r::ptx {

Expected<std::string> decompress_lz4_block(std::span<const uint8_t> compressed, uint64_t expected_size) {
    // liblz4 takes int sizes; ContainerLimits keeps real modules far below this.
    if (compressed.size() > INT_MAX || expected_size > INT_MAX)
        return make_error(ErrorCode::Invalid, "lz4: sizes too large (compressed {}, uncompressed {})",
                          compressed.size(), expected_size);
    std::string out(expected_size, '\0');
    int written = LZ4_decompress_safe(reinterpret_cast<const char*>(compressed.data()), out.data(),
                                      static_cast<int>(compressed.size()), static_cast<int>(expected_size));
    if (written < 0)
        return make_error(ErrorCode::Invalid, "lz4: corrupt block ({} compressed bytes, {} expected out)",
                          compressed.size(), expected_size);
    if (static_cast<uint64_t>(written) != expected_size)
        return make_error(ErrorCode::Invalid, "lz4: decompressed to {} bytes, header says {}", written, expected_size);
    return out;
}

Expected<std::string> decompress_zstd_frame(std::span<const uint8_t> compressed, uint64_t expected_size) {
    unsigned long long declared = ZSTD_getFrameContentSize(compressed.data(), compressed.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR)
        return make_error(ErrorCode::Invalid, "zstd: not a zstd frame ({} bytes)", compressed.size());
    // Checked before allocating: a frame that claims more than the header is a lie either way.
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != expected_size)
        return make_error(ErrorCode::Invalid, "zstd: frame declares {} bytes, header says {}", declared, expected_size);
    std::string out(expected_size, '\0');
    size_t written = ZSTD_decompress(out.data(), out.size(), compressed.data(), compressed.size());
    if (ZSTD_isError(written))
        return make_error(ErrorCode::Invalid, "zstd: {} ({} compressed bytes, {} expected out)",
                          ZSTD_getErrorName(written), compressed.size(), expected_size);
    if (written != expected_size)
        return make_error(ErrorCode::Invalid, "zstd: decompressed to {} bytes, header says {}", written, expected_size);
    return out;
}

} // namespace d4r::ptx
