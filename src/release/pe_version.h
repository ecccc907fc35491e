// d4r release: the file version a Windows DLL declares (its version resource).
//
// Promise: finds the VS_VERSION_INFO block of a PE file's version resource by its UTF-16 key and
// reads the file version of the VS_FIXEDFILEINFO that follows (signature 0xFEEF04BD), as
// "major.minor.build.revision". Bounded: reads only inside BYTES; no block, or a block without the
// signature, is an empty optional (the DLL declares no version), never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace d4r::release {

std::optional<std::string> pe_file_version(std::span<const uint8_t> bytes);

} // namespace d4r::release
