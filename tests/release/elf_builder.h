// Test helper: minimal ELF64 files with chosen version needs (GLIBC_x.y) and needed libraries, for the
// GLIBC and dependency checks and the packager's tests. Promise: make_elf() returns a little-endian
// ELF64 shared object whose .gnu.version_r asks each library for the given versions and, when NEEDED is
// not empty, whose .dynamic names those libraries (DT_NEEDED); nothing else in it is meant to load.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace d4r::release::test_elf {

using Bytes = std::vector<uint8_t>;

inline void put16(Bytes& b, size_t at, uint16_t v) { std::memcpy(b.data() + at, &v, 2); }
inline void put32(Bytes& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
inline void put64(Bytes& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

struct Library {
    std::string name;
    std::vector<std::string> versions;
};

// A minimal little-endian ELF64 shared object with sections [0] null, [1] .dynstr, [2] .gnu.version_r
// (linked to 1) and [3] .shstrtab, asking LIBS for their versions; with NEEDED also [4] .dynamic (linked
// to 1: DT_NEEDED for each, then DT_NULL). The section headers come last.
inline Bytes make_elf(const std::vector<Library>& libs, const std::vector<std::string>& needed = {}) {
    std::string dynstr(1, '\0');
    auto add_string = [&](const std::string& s) {
        uint32_t at = uint32_t(dynstr.size());
        dynstr += s;
        dynstr += '\0';
        return at;
    };
    Bytes verneed;
    for (size_t i = 0; i < libs.size(); ++i) {
        size_t vn = verneed.size();
        verneed.resize(vn + 16 + 16 * libs[i].versions.size());
        put16(verneed, vn, 1);
        put16(verneed, vn + 2, uint16_t(libs[i].versions.size()));
        put32(verneed, vn + 4, add_string(libs[i].name));
        put32(verneed, vn + 8, 16);
        put32(verneed, vn + 12, i + 1 < libs.size() ? uint32_t(16 + 16 * libs[i].versions.size()) : 0);
        for (size_t k = 0; k < libs[i].versions.size(); ++k) {
            size_t va = vn + 16 + 16 * k;
            put32(verneed, va, 0x0d696910); // the hash is not read
            put32(verneed, va + 8, add_string(libs[i].versions[k]));
            put32(verneed, va + 12, k + 1 < libs[i].versions.size() ? 16 : 0);
        }
    }
    Bytes dynamic;
    for (const std::string& library : needed) {
        const size_t d = dynamic.size();
        dynamic.resize(d + 16);
        put64(dynamic, d, 1); // DT_NEEDED
        put64(dynamic, d + 8, add_string(library));
    }
    if (!needed.empty()) dynamic.resize(dynamic.size() + 16); // DT_NULL
    const std::string shstrtab = std::string("\0.dynstr\0.gnu.version_r\0.shstrtab\0.dynamic\0", 43);
    const int sections = needed.empty() ? 4 : 5;
    Bytes f(64);
    std::memcpy(f.data(),
                "\x7f"
                "ELF",
                4);
    f[4] = 2; // ELFCLASS64
    f[5] = 1; // little-endian
    f[6] = 1;
    put16(f, 16, 3);    // ET_DYN
    put16(f, 18, 0x3e); // x86-64
    auto append = [&](const void* data, size_t n) {
        size_t at = f.size();
        f.insert(f.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + n);
        return at;
    };
    const size_t dynstr_at = append(dynstr.data(), dynstr.size());
    const size_t verneed_at = append(verneed.data(), verneed.size());
    const size_t shstrtab_at = append(shstrtab.data(), shstrtab.size());
    const size_t dynamic_at = append(dynamic.data(), dynamic.size());
    const size_t shoff = f.size();
    f.resize(shoff + size_t(sections) * 64);
    auto section = [&](int i, uint32_t name, uint32_t type, size_t offset, size_t size, uint32_t link, uint32_t info) {
        size_t h = shoff + 64 * i;
        put32(f, h, name);
        put32(f, h + 4, type);
        put64(f, h + 0x18, offset);
        put64(f, h + 0x20, size);
        put32(f, h + 0x28, link);
        put32(f, h + 0x2c, info);
    };
    section(1, 1, 3, dynstr_at, dynstr.size(), 0, 0);
    section(2, 9, 0x6ffffffe, verneed_at, verneed.size(), 1, uint32_t(libs.size()));
    section(3, 24, 3, shstrtab_at, shstrtab.size(), 0, 0);
    if (!needed.empty()) section(4, 34, 6, dynamic_at, dynamic.size(), 1, 0);
    put64(f, 0x28, shoff);
    put16(f, 0x3a, 64);
    put16(f, 0x3c, uint16_t(sections));
    put16(f, 0x3e, 3);
    return f;
}

} // namespace d4r::release::test_elf
