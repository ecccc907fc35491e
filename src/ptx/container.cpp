// Dispatch: decide what kind of file we have and hand it to the matching reader (fatbin.cpp, elf.cpp,
// pe.cpp). Where a container's structure does not say where fatbins are, fall back to scanning.
#include "ptx/container.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "ptx/elf.h"
#include "ptx/fatbin.h"
#include "ptx/pe.h"

namespace d4r::ptx {

const char* container_kind_name(ContainerKind kind) {
    switch (kind) {
    case ContainerKind::PtxText:
        return "PTX text";
    case ContainerKind::Fatbin:
        return "fatbin";
    case ContainerKind::Elf:
        return "ELF";
    case ContainerKind::Pe:
        return "PE/COFF";
    case ContainerKind::Unknown:
        return "unknown";
    }
    return "unknown";
}

namespace {

bool is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Offset of the first byte that is neither whitespace nor inside a // or /* */ comment.
size_t skip_space_and_comments(std::span<const uint8_t> bytes, size_t i) {
    const size_t n = bytes.size();
    while (i < n) {
        if (is_space(bytes[i])) {
            ++i;
        } else if (bytes[i] == '/' && i + 1 < n && bytes[i + 1] == '/') {
            const void* nl = std::memchr(bytes.data() + i, '\n', n - i);
            i = nl ? static_cast<size_t>(static_cast<const uint8_t*>(nl) - bytes.data()) : n;
        } else if (bytes[i] == '/' && i + 1 < n && bytes[i + 1] == '*') {
            std::string_view rest(reinterpret_cast<const char*>(bytes.data()) + i + 2, n - i - 2);
            size_t close = rest.find("*/");
            i = close == std::string_view::npos ? n : i + 2 + close + 2;
        } else {
            break;
        }
    }
    return i;
}

bool is_ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// "sm_89" from the first ".target sm_89[, ...]" directive, or "".
std::string target_of(std::string_view text) {
    for (size_t at = text.find(".target"); at != std::string_view::npos; at = text.find(".target", at + 1)) {
        size_t i = at + 7;
        if (i >= text.size() || (text[i] != ' ' && text[i] != '\t')) continue;
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
        size_t end = i;
        while (end < text.size() && is_ident(text[end])) ++end;
        if (end > i) return std::string(text.substr(i, end - i));
    }
    return {};
}

Status read_ptx_text(std::span<const uint8_t> bytes, ModuleCollector& out) {
    PtxModuleBlob blob;
    D4R_TRY(out.check_size(bytes.size()));
    blob.text.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    blob.sm = target_of(blob.text);
    blob.offset = 0;
    blob.origin = "PTX text";
    return out.add(std::move(blob));
}

bool is_fatbin_section(const ElfSection& section) {
    return section.name == ".nv_fatbin" || section.name == "__nv_relfatbin";
}

Status read_elf(std::span<const uint8_t> bytes, ModuleCollector& out) {
    Expected<ElfImage> image = read_elf_sections(bytes);
    if (!image && image.error().code() == ErrorCode::Unsupported) {
        // ELF32 or big-endian: no CUDA toolkit makes those today; a scan still finds any fatbin.
        return scan_fatbins(bytes, 0, bytes.size(), "ELF (scan)", out);
    }
    if (!image) return std::move(image).error();
    std::vector<const ElfSection*> fatbin_sections;
    for (const ElfSection& section : image->sections) {
        if (is_fatbin_section(section) && section.type != kElfSectionNobits) fatbin_sections.push_back(&section);
    }
    if (fatbin_sections.empty()) {
        // Section headers stripped, or fatbins placed elsewhere: the magic scan is the fallback.
        return scan_fatbins(bytes, 0, bytes.size(),
                            image->has_section_table ? "ELF (no fatbin section, scan)" : "ELF (no section table, scan)",
                            out);
    }
    // File order (modules come out in file order), and no byte read twice: overlapping fatbin sections
    // never occur in real files and would let a small file cost a lot of work.
    std::stable_sort(fatbin_sections.begin(), fatbin_sections.end(),
                     [](const ElfSection* a, const ElfSection* b) { return a->offset < b->offset; });
    uint64_t covered = 0;
    const ElfSection* previous = nullptr;
    for (const ElfSection* section : fatbin_sections) {
        const std::string place = fmt::format("ELF section {} [{}]", section->name, section->index);
        if (section->offset > bytes.size() || section->size > bytes.size() - section->offset)
            return make_error(ErrorCode::Invalid,
                              "{}: at 0x{:x} ({} bytes) extends past the end of the file ({} "
                              "bytes)",
                              place, section->offset, section->size, bytes.size());
        if (section->size == 0) continue;
        if (previous != nullptr && section->offset < covered)
            return make_error(ErrorCode::Invalid, "{}: at 0x{:x} overlaps section {} [{}] (which ends at 0x{:x})",
                              place, section->offset, previous->name, previous->index, covered);
        D4R_TRY(read_fatbin_sequence(bytes, section->offset, section->offset + section->size, place, out));
        covered = section->offset + section->size;
        previous = section;
    }
    return ok_status();
}

Status read_pe(std::span<const uint8_t> bytes, ModuleCollector& out) {
    Expected<std::vector<PeSection>> sections = read_pe_sections(bytes);
    if (!sections && sections.error().code() == ErrorCode::Unsupported)
        return scan_fatbins(bytes, 0, bytes.size(), "MZ file (scan)", out);
    if (!sections) return std::move(sections).error();
    // NVIDIA's DLLs use ".nv_fatb", but neither the name nor the offset inside the section is fixed: scan
    // every section, in file order, each byte once (sections sharing raw data would otherwise repeat work).
    std::vector<PeSection>& list = *sections;
    std::stable_sort(list.begin(), list.end(),
                     [](const PeSection& a, const PeSection& b) { return a.raw_offset < b.raw_offset; });
    uint64_t covered = 0;
    for (const PeSection& section : list) {
        const uint64_t end = section.raw_offset + section.raw_size;
        if (section.raw_size == 0 || end <= covered) continue;
        const std::string place = fmt::format("PE section {} '{}'", section.index, section.name);
        D4R_TRY(scan_fatbins(bytes, std::max(section.raw_offset, covered), end, place, out));
        covered = end;
    }
    return ok_status();
}

} // namespace

ContainerKind detect_container(std::span<const uint8_t> bytes) {
    if (bytes.size() >= 4 && bytes[0] == 0x50 && bytes[1] == 0xED && bytes[2] == 0x55 && bytes[3] == 0xBA)
        return ContainerKind::Fatbin;
    if (bytes.size() >= 4 && std::memcmp(bytes.data(),
                                         "\x7f"
                                         "ELF",
                                         4) == 0)
        return ContainerKind::Elf;
    if (bytes.size() >= 2 && bytes[0] == 'M' && bytes[1] == 'Z') return ContainerKind::Pe;
    // PTX text starts, after whitespace and comments, with a directive (".version", ".target", ...).
    const size_t first = skip_space_and_comments(bytes, 0);
    if (first < bytes.size() && bytes[first] == '.') return ContainerKind::PtxText;
    return ContainerKind::Unknown;
}

Expected<std::vector<PtxModuleBlob>> find_ptx_modules(std::span<const uint8_t> bytes, const ContainerLimits& limits) {
    ModuleCollector out(limits);
    switch (detect_container(bytes)) {
    case ContainerKind::PtxText:
        D4R_TRY(read_ptx_text(bytes, out));
        break;
    case ContainerKind::Fatbin:
        D4R_TRY(read_fatbin_sequence(bytes, 0, bytes.size(), "", out));
        break;
    case ContainerKind::Elf:
        D4R_TRY(read_elf(bytes, out));
        break;
    case ContainerKind::Pe:
        D4R_TRY(read_pe(bytes, out));
        break;
    case ContainerKind::Unknown:
        D4R_TRY(scan_fatbins(bytes, 0, bytes.size(), "scan", out));
        break;
    }
    return std::move(out).take();
}

} // namespace d4r::ptx
