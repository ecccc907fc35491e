// d4r PTX toolkit: the hash that names a PTX module in kernel manifests (docs/runtime.md, "Native-kernel overrides").
//
// Promise: FNV-1a 64 over the bytes of the module text with trailing NUL bytes removed (fatbins pad
// PTX with NULs; the hash must not depend on the padding), written as 16 lowercase hex digits.
// The runtime, the manifest writer and `d4r ptx` all hash through here, so they always agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace d4r::ptx {

// TEXT without its trailing NUL bytes.
std::string_view strip_trailing_nuls(std::string_view text);

uint64_t module_hash(std::string_view module_text);
std::string module_hash_hex(std::string_view module_text); // "0123456789abcdef"

// Exactly 16 hex digits (either case) -> the value; anything else -> nullopt.
std::optional<uint64_t> parse_module_hash(std::string_view text);

} // namespace d4r::ptx
