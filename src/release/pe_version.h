// d4r release: the file version a Windows DLL declares (its version resource).
//
// Promise: finds the VS_VERSION_INFO block of a PE file's version resource by its UTF-16 key and
// reads the file version of the VS_FIXEDFILEINFO that follows (signature 0xFEEF04BD), as
// "major.minor.build.revision". Bounded: reads only inside BYTES; no block, or a block without the
// signature, is an empty optional (the DLL declares no version), never a crash.
// pe_version_string() reads one string of the same block's StringFileInfo (CompanyName, ProductName,
// ...): the first String child with that UTF-16 key inside the block's declared length, its value up
// to the first NUL or its declared length, as UTF-8. Same bounds: never a read outside BYTES.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace d4r::release {

std::optional<std::string> pe_file_version(std::span<const uint8_t> bytes);

// The value of the version resource's string KEY ("CompanyName"), or nullopt when there is none.
std::optional<std::string> pe_version_string(std::span<const uint8_t> bytes, std::string_view key);

} // namespace d4r::release
