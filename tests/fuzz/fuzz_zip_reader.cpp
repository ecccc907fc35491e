// libFuzzer target: the zip reader on arbitrary bytes in memory. A zip it opens must list only entries it
// promised to (safe relative names, sizes within the limits), and reading every entry must end in the
// declared bytes or an error, never more than the entry declares.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "release/zip_reader.h"

namespace {
void check(bool condition) {
    if (!condition) __builtin_trap();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace d4r::release;
    ZipLimits limits; // small, so a bomb inflates for milliseconds, not seconds
    limits.max_entry_bytes = 1 << 20;
    limits.max_total_bytes = 4 << 20;
    limits.max_entries = 256;
    auto zip = ZipReader::open_memory(std::span<const uint8_t>(data, size), "fuzz.zip", limits);
    if (!zip) {
        check(zip.error().text().rfind("fuzz.zip", 0) == 0);
        return 0;
    }
    uint64_t total = 0;
    for (const ZipItem& item : zip->entries()) {
        check(!item.name.empty() && item.name.front() != '/' && item.name.find('\\') == std::string::npos);
        check(("/" + item.name + "/").find("/../") == std::string::npos);
        check(item.size <= limits.max_entry_bytes);
        total += item.size;
        uint64_t got = 0;
        const ZipSink count = [&got](std::span<const uint8_t> chunk) -> d4r::Status {
            got += chunk.size();
            return d4r::ok_status();
        };
        auto read = zip->read(item, count);
        check(got <= item.size);
        if (read) check(got == item.size);
    }
    check(total == zip->total_size() && total <= limits.max_total_bytes);
    return 0;
}
