// libd4rcuda: the replay dump format (docs/runtime.md, "Observability"), written by the dump layer and read by `d4r
// replay`.
//
// A dump is a folder `replay-<seq>-<kernel>/` holding
//   manifest.txt   the lines below, one fact each
//   args.bin       the kernel's parameter block as the launch passed it
//   alloc-<i>.bin  every device allocation an 8-byte-aligned word of args.bin points into, or a texture
//                  object of the launch reads, before the launch
//   array-<j>.bin  every CUDA array a texture or surface object of the launch uses, before the launch: the
//                  texels row by row, slice by slice, without padding (width x texel bytes per row,
//                  max(height, 1) rows per slice, max(depth, 1) slices)
//   module.ptx     the PTX module that defines the kernel (d4r's addition: a replay needs the code)
//   after/alloc-<i>.bin, after/array-<j>.bin  the same after the launch on the dumping backend (d4r's
//                  addition: `d4r compare DUMP/after OUT` checks a replay against the original run)
// manifest.txt lines (docs/runtime.md, "Observability"; `#` starts a comment; numbers decimal or 0x… hex):
//   kernel NAME
//   launch GX GY GZ BX BY BZ SHARED
//   args BYTES
//   alloc I BASE BYTES          BASE in hex (0x…) as the dumping process saw it
//   pointer ARG_OFFSET I DELTA  the u64 at ARG_OFFSET of args.bin is alloc I's BASE + DELTA
//   array J WIDTH HEIGHT DEPTH FORMAT CHANNELS FLAGS
//                               CUDA array J (cuArray3DGetDescriptor's fields; FORMAT a CUarray_format,
//                               FLAGS CUDA_ARRAY3D_*), content array-<j>.bin
//   texture ARG_OFFSET RESOURCE [KEY=VALUE…]
//   surface ARG_OFFSET RESOURCE
//                               the u64 at ARG_OFFSET is a texture / surface object over RESOURCE, one of
//       array J
//       pitch2d I DELTA FORMAT CHANNELS WIDTH HEIGHT PITCH   memory at alloc I's BASE + DELTA
//       linear I DELTA FORMAT CHANNELS BYTES                 memory at alloc I's BASE + DELTA
//       mipmapped                   a mipmapped array: not captured (a replay leaves the handle as dumped)
//                               and, for textures, the CUDA_TEXTURE_DESC (keys left out are 0):
//       address=A0,A1,A2 filter=F flags=F max_anisotropy=N mipmap_filter=F mipmap_bias=X
//       min_mipmap_clamp=X max_mipmap_clamp=X border=R,G,B,A
//                               (X are floats in the shortest form that reads back to the same value) and
//                               when the object was created with a resource view
//       view=FORMAT,WIDTH,HEIGHT,DEPTH,FIRST_MIP,LAST_MIP,FIRST_LAYER,LAST_LAYER
//   module FILE                 (d4r) the PTX file in the folder
// Promise: parse_dump_manifest accepts exactly what write_dump_manifest writes (and comments, blank
// lines, unknown keys skipped with a note; manifests without array/texture/surface lines, as older
// versions wrote them, are complete dumps) and rejects anything inconsistent with an error naming the
// line: an alloc or array index out of order, a pointer or texture into an unknown alloc or array or past
// its end (allocs and arrays are declared before the lines naming them), an array format whose texel
// size is unknown, an unknown texture key, a second `args` line, missing keys.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace d4r::runtime {

struct DumpAlloc {
    uint64_t base = 0;
    uint64_t bytes = 0;
};

struct DumpPointer {
    uint64_t arg_offset = 0;
    uint32_t alloc = 0;
    uint64_t delta = 0;
};

// A CUDA array (CUDA_ARRAY3D_DESCRIPTOR).
struct DumpArray {
    uint64_t width = 0, height = 0, depth = 0;
    uint32_t format = 0; // CUarray_format
    uint32_t channels = 0;
    uint32_t flags = 0; // CUDA_ARRAY3D_*
    // Bytes of one texel (0 for a format whose size this version does not know) and of the content file.
    uint64_t texel_bytes() const;
    uint64_t row_bytes() const { return width * texel_bytes(); }
    uint64_t rows() const { return height ? height : 1; }
    uint64_t slices() const { return depth ? depth : 1; }
    uint64_t bytes() const { return row_bytes() * rows() * slices(); }
};

// What a texture or surface object reads (CUDA_RESOURCE_DESC): an array of the dump, or memory of one of
// its allocations.
struct DumpResource {
    enum class Kind { Array, Pitch2D, Linear, Mipmapped };
    Kind kind = Kind::Array;
    uint32_t array = 0;                        // Array: index into DumpManifest::arrays
    uint32_t alloc = 0;                        // Pitch2D, Linear: index into DumpManifest::allocs
    uint64_t delta = 0;                        //   and the offset of the memory in it
    uint32_t format = 0;                       // Pitch2D, Linear: CUarray_format
    uint32_t channels = 0;                     // Pitch2D, Linear
    uint64_t width = 0, height = 0, pitch = 0; // Pitch2D: texels, rows, bytes between rows
    uint64_t bytes = 0;                        // Linear
};

// CUDA_TEXTURE_DESC, field by field.
struct DumpTextureDesc {
    std::array<uint32_t, 3> address{};
    uint32_t filter = 0;
    uint32_t flags = 0;
    uint32_t max_anisotropy = 0;
    uint32_t mipmap_filter = 0;
    float mipmap_bias = 0;
    float min_mipmap_clamp = 0;
    float max_mipmap_clamp = 0;
    std::array<float, 4> border{};
};

// CUDA_RESOURCE_VIEW_DESC, field by field.
struct DumpViewDesc {
    uint32_t format = 0;
    uint64_t width = 0, height = 0, depth = 0;
    uint32_t first_mipmap = 0, last_mipmap = 0, first_layer = 0, last_layer = 0;
};

// A texture or surface object handle in the parameter block.
struct DumpObject {
    bool surface = false;
    uint64_t arg_offset = 0;
    DumpResource resource;
    DumpTextureDesc texture;          // textures only
    std::optional<DumpViewDesc> view; // textures created with a resource view
};

struct DumpManifest {
    std::string kernel;
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t shared = 0;
    uint64_t args_bytes = 0;
    std::vector<DumpAlloc> allocs;
    std::vector<DumpPointer> pointers;
    std::vector<DumpArray> arrays;
    std::vector<DumpObject> objects; // texture and surface lines, in order
    std::string module = "module.ptx";
    std::vector<std::string> notes; // lines skipped as unknown
};

// "array-<j>.bin", "alloc-<i>.bin": the content files of a dump (and of after/ and a replay's output).
std::string dump_array_file(size_t j);
std::string dump_alloc_file(size_t i);

// Whether R's array or memory is one M declares (memory inside its allocation, a format whose texel size
// is known); PREFIX starts the error ("m.txt:7").
Status check_dump_resource(const DumpResource& r, const DumpManifest& m, std::string_view prefix);

std::string write_dump_manifest(const DumpManifest& m);
// WHAT names the file in errors ("dump/manifest.txt").
Expected<DumpManifest> parse_dump_manifest(std::string_view text, std::string_view what);

// "replay-<seq>-<kernel>" with the kernel name cut to 96 characters and anything outside [A-Za-z0-9_$.]
// replaced by '_'.
std::string dump_folder_name(uint64_t seq, std::string_view kernel);

} // namespace d4r::runtime
