// libFuzzer target: the replay dump manifest and the kernel profile log parsers on arbitrary bytes. A dump
// manifest that parses must write back to text that parses to the same manifest and writes back to the
// same text; its pointers must lie inside args and their allocations, and its texture and surface objects
// must name arrays and allocations it declares.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/observe/dump_format.h"
#include "runtime/observe/profile_summary.h"

namespace {
void check(bool condition) {
    if (!condition) __builtin_trap();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto m = d4r::runtime::parse_dump_manifest(text, "manifest.txt");
    if (m) {
        for (const auto& p : m->pointers) {
            check(p.alloc < m->allocs.size());
            check(p.arg_offset + 8 <= m->args_bytes);
            check(p.delta <= m->allocs[p.alloc].bytes);
        }
        auto again = d4r::runtime::parse_dump_manifest(d4r::runtime::write_dump_manifest(*m), "again");
        check(again.ok());
        check(again->kernel == m->kernel && again->grid == m->grid && again->block == m->block);
        check(again->shared == m->shared && again->args_bytes == m->args_bytes && again->module == m->module);
        check(again->allocs.size() == m->allocs.size() && again->pointers.size() == m->pointers.size());
        check(again->arrays.size() == m->arrays.size() && again->objects.size() == m->objects.size());
        check(d4r::runtime::write_dump_manifest(*again) == d4r::runtime::write_dump_manifest(*m));
        for (const auto& o : m->objects) {
            using Kind = d4r::runtime::DumpResource::Kind;
            check(o.arg_offset + 8 <= m->args_bytes);
            if (o.resource.kind == Kind::Array) check(o.resource.array < m->arrays.size());
            if (o.resource.kind == Kind::Pitch2D || o.resource.kind == Kind::Linear)
                check(o.resource.alloc < m->allocs.size());
        }
    } else {
        check(m.error().text().rfind("manifest.txt", 0) == 0);
    }
    auto lines = d4r::runtime::parse_profile_log(text, "p.log");
    if (lines) {
        auto s = d4r::runtime::summarise_profile(*lines, "");
        check(s.launches == lines->size());
        (void)d4r::runtime::format_profile_summary(s);
    }
    return 0;
}
