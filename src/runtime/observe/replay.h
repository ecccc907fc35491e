// libd4rcuda: re-running a replay dump (dump_format.h) through a CUDA driver API table.
//
// Promise: loads DUMP/manifest.txt and the files it names (sizes checked against the manifest),
// creates a context on device 0, loads the module, allocates and fills every allocation, creates and
// fills every array (same descriptor), creates every texture and surface object over its array or over
// the new allocation at the recorded delta (same texture and view descriptors), rewrites the pointers
// and object handles of args.bin, launches the kernel with the recorded shape, waits, and writes
// OUT/alloc-<i>.bin and OUT/array-<j>.bin (the allocations and arrays after the launch, nothing else),
// so that `d4r compare DUMP/after OUT` compares the replay with the original run. An object over a
// mipmapped array (not captured) keeps its dumped handle, with a progress line saying so. Everything it
// created is freed, also on failure; errors name the file or the CUDA call and its result.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "core/status.h"
#include "runtime/api_table.h"
#include "runtime/observe/dump_format.h"

namespace d4r::runtime {

struct ReplayResult {
    DumpManifest manifest;
    double gpu_ms = 0; // the launch, by events
};

enum class ArrayCopy { ToHost, FromHost };

// Copies all of ARRAY (described by DESC) to or from HOST, DESC.bytes() bytes in the order of
// array-<j>.bin (cuMemcpy3D; shared with the dump layer).
CUresult copy_array(const ApiTable& cuda, CUarray array, const DumpArray& desc, void* host, ArrayCopy direction);

Expected<ReplayResult> replay_dump(const ApiTable& cuda, const std::filesystem::path& dump,
                                   const std::filesystem::path& out,
                                   const std::function<void(const std::string&)>& progress);

} // namespace d4r::runtime
