#include "runtime/observe/dump_format.h"

#include <fmt/format.h>

#include <cctype>

#include "core/strings.h"

namespace d4r::runtime {

std::string write_dump_manifest(const DumpManifest& m) {
    std::string out = "# d4r replay dump (SPEC 7)\n";
    out += fmt::format("kernel {}\n", m.kernel);
    out += fmt::format("launch {} {} {} {} {} {} {}\n", m.grid[0], m.grid[1], m.grid[2], m.block[0], m.block[1],
                       m.block[2], m.shared);
    out += fmt::format("args {}\n", m.args_bytes);
    for (size_t i = 0; i < m.allocs.size(); ++i)
        out += fmt::format("alloc {} 0x{:x} {}\n", i, m.allocs[i].base, m.allocs[i].bytes);
    for (const DumpPointer& p : m.pointers) out += fmt::format("pointer {} {} {}\n", p.arg_offset, p.alloc, p.delta);
    out += fmt::format("module {}\n", m.module);
    return out;
}

namespace {

std::vector<std::string_view> split_words(std::string_view line) {
    std::vector<std::string_view> words;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
        if (i > start) words.push_back(line.substr(start, i - start));
    }
    return words;
}

Expected<uint64_t> number(std::string_view word, std::string_view what, size_t line, std::string_view field) {
    uint64_t v = 0;
    bool ok = false;
    if (word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X')) {
        ok = true;
        for (char c : word.substr(2)) {
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0 || v >> 60) {
                ok = false;
                break;
            }
            v = v * 16 + static_cast<uint64_t>(d);
        }
    } else if (auto parsed = parse_u64(word)) {
        v = *parsed;
        ok = true;
    }
    if (!ok) return make_error(ErrorCode::Invalid, "{}:{}: {} '{}' is not a number", what, line, field, word);
    return v;
}

} // namespace

Expected<DumpManifest> parse_dump_manifest(std::string_view text, std::string_view what) {
    DumpManifest m;
    bool have_kernel = false, have_launch = false, have_args = false;
    size_t line_no = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        auto w = split_words(line);
        if (w.empty()) continue;
        auto expect = [&](size_t n) -> Status {
            if (w.size() != n)
                return make_error(ErrorCode::Invalid, "{}:{}: '{}' takes {} values, found {}", what, line_no, w[0], n - 1,
                                  w.size() - 1);
            return {};
        };
        auto num = [&](size_t i, std::string_view field) { return number(w[i], what, line_no, field); };
        if (w[0] == "kernel") {
            D4R_TRY(expect(2));
            m.kernel = std::string(w[1]);
            have_kernel = true;
        } else if (w[0] == "launch") {
            D4R_TRY(expect(8));
            for (int i = 0; i < 3; ++i) {
                uint64_t g = D4R_TRY(num(1 + i, "grid"));
                uint64_t b = D4R_TRY(num(4 + i, "block"));
                if (g == 0 || g > 0xffffffffu || b == 0 || b > 1024)
                    return make_error(ErrorCode::Invalid, "{}:{}: launch shape {} x {} is out of range", what, line_no, g, b);
                m.grid[i] = static_cast<uint32_t>(g);
                m.block[i] = static_cast<uint32_t>(b);
            }
            uint64_t s = D4R_TRY(num(7, "shared"));
            if (s > 0xffffffffu) return make_error(ErrorCode::Invalid, "{}:{}: shared bytes out of range", what, line_no);
            m.shared = static_cast<uint32_t>(s);
            have_launch = true;
        } else if (w[0] == "args") {
            D4R_TRY(expect(2));
            uint64_t a = D4R_TRY(num(1, "args"));
            if (a > 1u << 20) return make_error(ErrorCode::Invalid, "{}:{}: args {} exceeds 1 MiB", what, line_no, a);
            m.args_bytes = a;
            have_args = true;
        } else if (w[0] == "alloc") {
            D4R_TRY(expect(4));
            uint64_t i = D4R_TRY(num(1, "alloc index"));
            if (i != m.allocs.size())
                return make_error(ErrorCode::Invalid, "{}:{}: alloc {} out of order (expected {})", what, line_no, i,
                                  m.allocs.size());
            uint64_t base = D4R_TRY(num(2, "base"));
            uint64_t bytes = D4R_TRY(num(3, "bytes"));
            m.allocs.push_back({base, bytes});
        } else if (w[0] == "pointer") {
            D4R_TRY(expect(4));
            uint64_t off = D4R_TRY(num(1, "arg offset"));
            uint64_t a = D4R_TRY(num(2, "alloc index"));
            uint64_t delta = D4R_TRY(num(3, "delta"));
            if (a >= m.allocs.size())
                return make_error(ErrorCode::Invalid, "{}:{}: pointer names alloc {} but only {} are declared before it",
                                  what, line_no, a, m.allocs.size());
            if (delta > m.allocs[a].bytes)
                return make_error(ErrorCode::Invalid, "{}:{}: delta {} is past the end of alloc {} ({} bytes)", what,
                                  line_no, delta, a, m.allocs[a].bytes);
            if (!have_args || off + 8 > m.args_bytes)
                return make_error(ErrorCode::Invalid, "{}:{}: pointer at offset {} is outside args ({} bytes)", what,
                                  line_no, off, m.args_bytes);
            m.pointers.push_back({off, static_cast<uint32_t>(a), delta});
        } else if (w[0] == "module") {
            D4R_TRY(expect(2));
            if (w[1].find('/') != std::string_view::npos || w[1] == "..")
                return make_error(ErrorCode::Invalid, "{}:{}: module must be a file name in the dump folder", what, line_no);
            m.module = std::string(w[1]);
        } else {
            m.notes.push_back(fmt::format("{}:{}: '{}' skipped (not known to this version)", what, line_no, w[0]));
        }
    }
    if (!have_kernel || !have_launch || !have_args)
        return make_error(ErrorCode::Invalid, "{}: missing {}", what,
                          !have_kernel ? "'kernel NAME'" : !have_launch ? "'launch GX GY GZ BX BY BZ SHARED'" : "'args BYTES'");
    return m;
}

std::string dump_folder_name(uint64_t seq, std::string_view kernel) {
    std::string name(kernel.substr(0, 96));
    for (char& c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.')) c = '_';
    if (name.empty() || name == "." || name == "..") name = "kernel";
    return fmt::format("replay-{}-{}", seq, name);
}

} // namespace d4r::runtime
