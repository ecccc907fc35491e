// d4r's companion libraries: NVIDIA compiler libraries' names, d4r's code in between (docs/companions.md).
//
// A companion (libnvrtc.so.13, libnvJitLink.so.13 in build/lib, beside libd4rcuda's libcuda.so.1) is loaded
// instead of NVIDIA's library of the same name by a program run with d4r's library folder first in
// LD_LIBRARY_PATH. It loads NVIDIA's library by path and forwards every call to it unchanged; the calls that
// make machine code also ask NVIDIA's library for the same program's PTX and register it with libd4rcuda as
// that image's twin (abi/d4r_twin_ptx.h), so a backend that runs PTX only can load the image.
//
// Promise (this file, what every companion shares): open_real_library() finds NVIDIA's library and never the
// companion itself; twin_table() asks the process' libcuda.so.1 once and is null where no twin is wanted
// (NVIDIA's driver, libd4rcuda over it), so there the companion costs nothing but the forwarding;
// register_twin() logs what it did.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "abi/d4r_twin_ptx.h"
#include "core/env_vars.h"
#include "core/status.h"

namespace d4r::companion {

// NVIDIA's FILE_NAME ("libnvrtc.so.13"), dlopen'ed by path: the file VAR names when it is set, else the first
// file of that name in the folders of LD_LIBRARY_PATH, $CUDA_HOME/lib64, $CUDA_PATH/lib64,
// /usr/local/cuda/lib64, /usr/local/cuda/targets/x86_64-linux/lib and the system's library folders that is
// not the file holding SELF (an address in the companion). The error names what was tried.
Expected<void*> open_real_library(EnvVar var, std::string_view file_name, const void* self);

// The folders open_real_library() searches, in order (for messages and tests).
std::vector<std::string> search_folders(const Environment& env);

// The twin-PTX table of the process' libcuda.so.1, or null when it refuses the id or cannot be loaded.
const abi::D4rTwinPtxTable* twin_table();

// Registers PTX as IMAGE's twin through twin_table() (which must be non-null); WHAT names the image in logs.
void register_twin(std::span<const uint8_t> image, std::string_view ptx, std::string_view what);

} // namespace d4r::companion

// Exports NAME as a jump through the pointer d4r_slot_NAME (x86-64): the forwarding of a function the companion
// does not intercept, whatever its signature (the arguments stay in their registers and on the stack).
#define D4R_COMPANION_FORWARD(name)                                                                            \
    extern "C" void* d4r_slot_##name;                                                                          \
    asm(".text\n.globl " #name "\n.type " #name ", @function\n" #name ":\n    jmp *d4r_slot_" #name "(%rip)\n" \
        ".size " #name ", .-" #name "\n");
