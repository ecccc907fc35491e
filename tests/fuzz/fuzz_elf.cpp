// libFuzzer target: the ELF section-table reader and find_ptx_modules on ELF-shaped input. Inputs that do
// not start with "\x7fELF" get it prepended, so every run exercises the ELF path.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "ptx/container.h"
#include "ptx/elf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace d4r::ptx;
    std::vector<uint8_t> bytes(data, data + size);
    if (size < 4 || std::memcmp(data,
                                "\x7f"
                                "ELF",
                                4) != 0)
        bytes.insert(bytes.begin(), {0x7f, 'E', 'L', 'F'});
    ContainerLimits limits;
    limits.max_module_bytes = 1 << 20;
    limits.max_total_bytes = 4 << 20;
    limits.max_modules = 64;
    (void)read_elf_sections(bytes);
    (void)find_ptx_modules(bytes, limits);
    return 0;
}
