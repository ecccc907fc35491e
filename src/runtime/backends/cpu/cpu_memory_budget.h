// cpu backend internals: the memory budget. Device memory is host memory that is zero-filled when it is
// allocated, so an allocation the machine cannot hold gets the process killed by the kernel's OOM killer
// (a 6 GiB cuMemAlloc in a 4 GiB cgroup) instead of answering CUDA_ERROR_OUT_OF_MEMORY. Every
// allocation of the backend is checked against the budget first:
//   total = the smallest of physical memory, every cgroup v2 `memory.max` above the process, and
//           D4R_CPU_MEMORY_LIMIT (bytes, with an optional K, M, G or T suffix: powers of 1024);
//   free  = the smallest of total minus what d4r holds (device, page-locked, managed and array memory,
//           module variables), MemAvailable of /proc/meminfo, and each cgroup's memory.max minus
//           memory.current.
// cuMemGetInfo reports free and total.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/backends/cpu/cpu_state.h"

namespace d4r::runtime::cpu {

struct MemoryBudget {
    uint64_t total = 0;
    uint64_t free = 0;
};
MemoryBudget memory_budget();

// D4R_CPU_MEMORY_LIMIT's syntax: "6442450944", "6G", "512M", "4096k"; nullopt when malformed or 0.
std::optional<uint64_t> parse_memory_size(std::string_view text);

// ptxsim device memory of BYTES (zero-filled) within the budget: CUDA_ERROR_OUT_OF_MEMORY, logged at
// debug level naming WHAT, when it does not fit.
CUresult budget_alloc(uint64_t bytes, const char* what, uint64_t& out);
// CUDA_ERROR_OUT_OF_MEMORY, logged as above, when BYTES more would not fit; nothing is reserved.
CUresult budget_check(uint64_t bytes, const char* what);

// Module variables: ptxsim allocates them itself, so the modules report what they hold.
void charge_module_memory(uint64_t bytes);
void release_module_memory(uint64_t bytes);

} // namespace d4r::runtime::cpu
