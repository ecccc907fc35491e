// libd4rcuda: the replay dump format (SPEC §7), written by the dump layer and read by `d4r replay`.
//
// A dump is a folder `replay-<seq>-<kernel>/` holding
//   manifest.txt   the lines below, one fact each
//   args.bin       the kernel's parameter block as the launch passed it
//   alloc-<i>.bin  every device allocation an 8-byte-aligned word of args.bin points into, before the launch
//   module.ptx     the PTX module that defines the kernel (d4r's addition: a replay needs the code)
//   after/alloc-<i>.bin  the same allocations after the launch on the dumping backend (d4r's addition:
//                  `d4r compare DUMP/after OUT` checks a replay against the original run)
// manifest.txt lines (SPEC §7; `#` starts a comment):
//   kernel NAME
//   launch GX GY GZ BX BY BZ SHARED
//   args BYTES
//   alloc I BASE BYTES          BASE in hex (0x…) as the dumping process saw it
//   pointer ARG_OFFSET I DELTA  the u64 at ARG_OFFSET of args.bin is alloc I's BASE + DELTA
//   module FILE                 (d4r) the PTX file in the folder
// Promise: parse_dump_manifest accepts exactly what write_dump_manifest writes (and comments, blank
// lines, unknown keys skipped with a note) and rejects anything inconsistent with an error naming the
// line: an alloc index out of order, a pointer into an unknown alloc or past its end, missing keys.
#pragma once

#include <array>
#include <cstdint>
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

struct DumpManifest {
    std::string kernel;
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t shared = 0;
    uint64_t args_bytes = 0;
    std::vector<DumpAlloc> allocs;
    std::vector<DumpPointer> pointers;
    std::string module = "module.ptx";
    std::vector<std::string> notes; // lines skipped as unknown
};

std::string write_dump_manifest(const DumpManifest& m);
// WHAT names the file in errors ("dump/manifest.txt").
Expected<DumpManifest> parse_dump_manifest(std::string_view text, std::string_view what);

// "replay-<seq>-<kernel>" with the kernel name cut to 96 characters and anything outside [A-Za-z0-9_$.]
// replaced by '_'.
std::string dump_folder_name(uint64_t seq, std::string_view kernel);

} // namespace d4r::runtime
