// Bounded decompression of fatbin payloads. The caller states the exact size the output must have (the
// fatbin entry header's uncompressed size, already checked against ContainerLimits); anything else —
// a stream that is corrupt, ends early, would write more, or declares a different content size — is an
// Error. Output memory never exceeds EXPECTED_SIZE.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/status.h"

namespace d4r::ptx {

// LZ4 block format (no frame header), as fatbinary writes it.
Expected<std::string> decompress_lz4_block(std::span<const uint8_t> compressed, uint64_t expected_size);
// One zstd frame (with or without a content-size field).
Expected<std::string> decompress_zstd_frame(std::span<const uint8_t> compressed, uint64_t expected_size);

} // namespace d4r::ptx
