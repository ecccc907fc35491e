// d4r-rj-run: one dispatch on rocjitsu's functional model of an AMD GPU, in process, with no ROCm and no KFD.
//
// Promise: run_dispatch() builds a fresh simulated GPU from a rocjitsu JSON config, loads the memory image it
// is given (every block at its address), sends one AQL kernel dispatch packet (the barrier bit set, the
// descriptor's static LDS plus the dynamic bytes, the hidden arguments filled as HIP fills them), runs the
// simulation until it is idle, flushes the caches and reads every block back into the image. A fresh GPU per
// dispatch: rocjitsu's engine cannot run again once a run has ended (simdojo's done_ is reset only by build()),
// and it keeps every launch independent of cache state. Errors (an instruction rocjitsu does not implement, a
// dispatch that did not run, a write into a guard band) are std::runtime_error.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "code_object.h"

namespace d4r::rj {

// Host copy of the simulated GPU's memory: blocks by address. Each block is surrounded by guard bands of
// kGuardByte that must survive every dispatch.
struct MemoryImage {
    std::map<uint64_t, std::vector<uint8_t>> blocks;
    uint8_t* find(uint64_t addr, uint64_t bytes); // the block holding [addr, addr + bytes), else nullptr
};

inline constexpr uint64_t kGuardBytes = 4096;
inline constexpr uint8_t kGuardByte = 0xA5;

struct Dispatch {
    const CodeObject* code = nullptr;
    uint64_t code_base = 0; // where the code object's segments are in the image
    std::string kernel;
    std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1}; // in workgroups, in threads
    uint32_t shared_bytes = 0;                             // dynamic LDS
    std::vector<uint8_t> params;                           // the explicit arguments, from offset 0
};

struct Config {
    std::string path, target; // target: "gfx1100" from the config's gfx_target_version
};
Config read_config(const std::string& path);

void run_dispatch(const Config& config, MemoryImage& image, const Dispatch& d);

// Loads the code object's segments into the image at `base` (each with guard bands).
void add_code_object(MemoryImage& image, const CodeObject& code, uint64_t base);

} // namespace d4r::rj
