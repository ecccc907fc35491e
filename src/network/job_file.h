// d4r refine network: a forward pass as a self-contained job file, for running native kernels where d4r's runtime
// does not run (AMD's emulator rocjitsu, tools/rocjitsu; docs/network.md "Checking AMD kernels on rocjitsu").
//
// Promise: refine_job() lays the pass out in a fixed address space (weights, scratch and image at kJob*Address,
// far from anything a process or a GPU model maps by itself) and lists plan_forward()'s launches with those
// addresses, so a runner that puts the regions at their addresses and runs the launches in order, dumping
// [out, out + out_bytes) after each, produces the trace trace_forward() would (layer_trace.h). write_job() and
// read_job() are exact inverses; read_job() checks every size against the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "network/core_frame.h"
#include "network/model_file.h"
#include "network/plan.h"

namespace d4r::network {

// Regions start at 32 TiB: user-space on x86-64 and AMD GPUs (47/48-bit), above AddressSanitizer's shadow
// memory, below where Linux places mappings by default, and above the 4 GiB a runner keeps for itself.
inline constexpr uint64_t kJobWeightsAddress = 0x2000'0000'0000ull;
inline constexpr uint64_t kJobScratchAddress = 0x2001'0000'0000ull;
inline constexpr uint64_t kJobImageAddress = 0x2002'0000'0000ull;
inline constexpr uint64_t kJobCoreAddress = 0x2003'0000'0000ull; // refine-v2: the core's buffers, one after another

struct JobRegion {
    uint64_t address = 0, size = 0;
    std::vector<uint8_t> init; // the first init.size() bytes; the rest of the region is zero
};

struct JobLaunch {
    std::string kernel, layer;
    std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
    uint32_t shared_bytes = 0;
    std::vector<uint8_t> params;
    uint64_t out = 0, out_bytes = 0;
};

struct Job {
    std::string note; // what the job is, for logs and results: "refine 72x40 seed 7 test model"
    std::vector<JobRegion> regions;
    std::vector<JobLaunch> launches;
};

// The refine forward pass over the width x height RGBA16F image (packed rows) with the model's weights.
Job refine_job(const Model& model, const std::vector<uint16_t>& rgba, uint32_t width, uint32_t height,
               std::string note);

// refine-v2's pass over the core's frame: the core's buffers in one region at kJobCoreAddress (each at a 256-byte
// aligned offset, in CORE's order), the parameter block's pointers moved there, the output image the core's own.
// Error when a pointer of the block lies in none of CORE's buffers or MODEL does not read the core's frame.
Expected<Job> refine_job_after_core(const Model& model, const CoreFrame& core, std::string note);

// The file (little endian): "d4rjob\0\0", u32 version 1, u32 region count, u32 launch count, u32 note length,
// note; per region u64 address, u64 size, u64 init length, init bytes; per launch u32 kernel length, kernel,
// u32 layer length, layer, u32 grid[3], u32 block[3], u32 shared bytes, u32 parameter bytes, parameters,
// u64 out, u64 out bytes.
Status write_job(const std::filesystem::path& path, const Job& job);
Expected<Job> read_job(const std::filesystem::path& path);

} // namespace d4r::network
