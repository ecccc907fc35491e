// Helpers shared by the release tools' CLI tests: a whole folder tree as data, and a tiny ELF file that
// asks for a chosen GLIBC version. Promise: snapshot() lists every file (path -> content) and folder
// (path/ -> "") under ROOT, paths relative and '/'-separated; elf_needing() builds an ELF whose only need is
// libc.so.6 at GLIBC_2.2.5 and GLIBC_<GLIBC>.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "elf_builder.h"
#include "test_support.h"

namespace d4r::release::test_release {

inline std::map<std::string, std::string> snapshot(const std::filesystem::path& root) {
    std::map<std::string, std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
        const std::string rel = e.path().lexically_relative(root).generic_string();
        if (e.is_directory())
            out[rel + "/"] = "";
        else
            out[rel] = test::read_file_text(e.path());
    }
    return out;
}

inline std::string elf_needing(const std::string& glibc) {
    const auto b = test_elf::make_elf({{"libc.so.6", {"GLIBC_2.2.5", "GLIBC_" + glibc}}});
    return std::string(b.begin(), b.end());
}

} // namespace d4r::release::test_release
