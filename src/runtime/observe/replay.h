// libd4rcuda: re-running a replay dump (dump_format.h) through a CUDA driver API table.
//
// Promise: loads DUMP/manifest.txt and the files it names (sizes checked against the manifest),
// creates a context on device 0, loads the module, allocates and fills every allocation, rewrites the
// pointers of args.bin to the new allocations, launches the kernel with the recorded shape, waits,
// and writes OUT/alloc-<i>.bin (the allocations after the launch, nothing else), so that
// `d4r compare DUMP/after OUT` compares the replay with the original run. Everything it
// allocated is freed, also on failure; errors name the file or the CUDA call and its result.
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

Expected<ReplayResult> replay_dump(const ApiTable& cuda, const std::filesystem::path& dump,
                                   const std::filesystem::path& out,
                                   const std::function<void(const std::string&)>& progress);

} // namespace d4r::runtime
