// libFuzzer target: the fatbin reader on arbitrary bytes, both as a fatbin sequence (what a raw fatbin
// file or an ELF .nv_fatbin section gets) and through the magic scan (what PE sections get). Small limits
// keep each run fast; any crash, leak, sanitizer report or unbounded allocation is a bug.
#include <cstddef>
#include <cstdint>
#include <span>

#include "ptx/container.h"
#include "ptx/fatbin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace d4r::ptx;
    ContainerLimits limits;
    limits.max_module_bytes = 1 << 20;
    limits.max_total_bytes = 4 << 20;
    limits.max_modules = 64;
    std::span<const uint8_t> bytes(data, size);
    {
        ModuleCollector out(limits);
        (void)read_fatbin_sequence(bytes, 0, size, "fuzz", out);
    }
    {
        ModuleCollector out(limits);
        (void)scan_fatbins(bytes, 0, size, "fuzz", out);
    }
    (void)find_ptx_modules(bytes, limits);
    return 0;
}
