// d4r PTX toolkit: finding PTX modules in whatever file NVIDIA's toolchain put them in.
//
// Promise: given the bytes of a file (raw PTX text, a fatbin, an ELF object/executable/shared
// library, or a PE/COFF DLL/EXE), returns every PTX module it carries, in file order, decompressed
// (LZ4 or zstd) where the fatbin entry says so. Input is untrusted: every offset and size is checked,
// decompression is bounded by ContainerLimits, and a malformed container is an Error naming what is
// wrong and where (offsets in hex); nothing crashes, hangs or allocates without bound.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace d4r::ptx {

enum class ContainerKind { PtxText, Fatbin, Elf, Pe, Unknown };
const char* container_kind_name(ContainerKind kind);

// What kind of file BYTES are, from their first bytes.
ContainerKind detect_container(std::span<const uint8_t> bytes);

struct ContainerLimits {
    uint64_t max_module_bytes = 256ull << 20; // one decompressed PTX module
    uint64_t max_total_bytes = 1024ull << 20; // all modules of one file together
    uint32_t max_modules = 65536;
};

struct PtxModuleBlob {
    std::string text;    // the module text exactly as stored (trailing NULs included if present)
    std::string sm;      // target architecture, e.g. "sm_89" (from the fatbin entry, else .target)
    uint64_t offset = 0; // where the module (or its compressed form) starts in the file
    std::string origin;  // human-readable place: "fatbin 0 @0x1a40, entry 2 (sm_89 PTX, zstd)"
};

// All PTX modules in BYTES, in file order. A file with no PTX at all is not an error (empty vector);
// a container that is present but malformed is.
Expected<std::vector<PtxModuleBlob>> find_ptx_modules(std::span<const uint8_t> bytes,
                                                      const ContainerLimits& limits = {});

} // namespace d4r::ptx
