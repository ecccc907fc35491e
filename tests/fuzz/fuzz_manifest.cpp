// libFuzzer target: the d4r-kernels.txt parser on arbitrary bytes. A manifest that parses must write
// back to text that parses to the same manifest, and the queries must agree with each other.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ptx/manifest.h"

namespace {
void check(bool condition) {
    if (!condition) __builtin_trap();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto manifest = d4r::ptx::Manifest::parse(text);
    if (!manifest.ok()) {
        check(manifest.error().text().rfind("d4r-kernels.txt:", 0) == 0);
        return 0;
    }
    size_t pairs = 0;
    for (const std::string& name : manifest->names()) {
        check(d4r::ptx::is_kernel_name(name));
        for (uint64_t hash : manifest->hashes_for(name)) {
            check(manifest->allows(name, hash));
            ++pairs;
        }
    }
    check(pairs == manifest->entry_count());
    std::string written = manifest->to_text("fuzz");
    auto again = d4r::ptx::Manifest::parse(written);
    check(again.ok());
    check(*again == *manifest);
    check(again->to_text("fuzz") == written);
    return 0;
}
