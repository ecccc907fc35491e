// d4r's PTX JIT: a compiled kernel as the compile cache keeps it (kernel_cache.h): its object code and everything
// ptxsim::CompiledKernel holds besides the function's address.
//
// Promise: parse_kernel_record(serialize_kernel_record(r)) gives R back; anything else that is not a whole record
// (short, a count past the end, bytes left over) is an Invalid error saying what is wrong. Every field of
// CompiledKernel and CollectiveSite is written here and nowhere else: a field added there must be added to both
// functions (a static_assert on their sizes in kernel_record.cpp says so when one is forgotten).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "ptxsim/compiled.h"

namespace d4r::jit {

struct KernelRecord {
    std::string symbol;                 // the function's name in the object
    std::vector<uint8_t> object;        // an ELF relocatable object for the target of the cache key
    ptxsim::CompiledKernel kernel;      // fn, variables and owner unset: they are the loading process's
    std::vector<std::string> variables; // the module variables the code reads (LoweredKernel::variables)
};

std::vector<uint8_t> serialize_kernel_record(const KernelRecord& record);
Expected<KernelRecord> parse_kernel_record(std::span<const uint8_t> bytes);

} // namespace d4r::jit
