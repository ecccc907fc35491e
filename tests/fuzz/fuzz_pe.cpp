// libFuzzer target: the PE/COFF section-table reader and find_ptx_modules on PE-shaped input. Inputs that
// do not start with "MZ" get it prepended, so every run exercises the PE path.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ptx/container.h"
#include "ptx/pe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace d4r::ptx;
    std::vector<uint8_t> bytes(data, data + size);
    if (size < 2 || data[0] != 'M' || data[1] != 'Z') bytes.insert(bytes.begin(), {'M', 'Z'});
    ContainerLimits limits;
    limits.max_module_bytes = 1 << 20;
    limits.max_total_bytes = 4 << 20;
    limits.max_modules = 64;
    (void)read_pe_sections(bytes);
    (void)find_ptx_modules(bytes, limits);
    return 0;
}
