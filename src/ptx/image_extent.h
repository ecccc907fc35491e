// d4r PTX toolkit: how many bytes a module image handed to the CUDA driver spans.
//
// cuModuleLoadData and friends receive a bare pointer: PTX text (NUL-terminated), a fatbin (its
// header holds its size), the fatbin wrapper nvcc emits (magic 0x466243b1, pointing at the fatbin), or
// a 64-bit ELF (its headers bound it). Promise: image_extent() returns the byte range to read for
// find_ptx_modules without reading past what the format declares; an unknown format is an error.
// The pointer is trusted to be readable as far as its own format says (the driver does the same).
#pragma once

#include <cstdint>
#include <span>

#include "core/status.h"

namespace d4r::ptx {

inline constexpr uint32_t kFatbinWrapperMagic = 0x466243b1;
// Upper bound for a NUL-terminated PTX image (larger is refused rather than scanned).
inline constexpr uint64_t kMaxImageTextBytes = 1ull << 30;

Expected<std::span<const uint8_t>> image_extent(const void* image);

} // namespace d4r::ptx
