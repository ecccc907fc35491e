// cpu backend internals: whether host memory the API does not know can really be read or written.
//
// With unified addressing cuMemcpy takes an address inside no allocation for pageable host memory, and
// the explicit host sides of copies are host pointers nothing was told about. A wild value (0x10, a
// freed block, a guard page, read-only code) must be refused with CUDA_ERROR_INVALID_VALUE instead of
// faulting the process (NVIDIA's driver crashes there). The checks ask the kernel, page by page, without
// touching the memory: mincore for "mapped", then process_vm_readv / process_vm_writev of one byte per
// page on our own process for "readable" / "writable", which honour the pages' protection and fail
// with EFAULT where a load or store would fault.
#pragma once

#include <cstdint>

namespace d4r::runtime::cpu {

// Whether every byte of [ADDRESS, ADDRESS + BYTES) is readable host memory (BYTES 0: true).
bool host_readable(uint64_t address, uint64_t bytes);
// Whether every byte of [ADDRESS, ADDRESS + BYTES) is writable host memory (BYTES 0: true). The probe
// writes back, to one byte of each page inside the range, the value it just read there: only memory the
// caller is about to overwrite may be probed this way.
bool host_writable(uint64_t address, uint64_t bytes);
// Whether every byte of [ADDRESS, ADDRESS + BYTES) lies in mappings the process may write, from
// /proc/self/maps, without touching the memory (for registrations, which must not write the caller's
// memory). False when the maps cannot be read.
bool host_mapped_writable(uint64_t address, uint64_t bytes);

} // namespace d4r::runtime::cpu
