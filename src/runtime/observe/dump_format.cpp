#include "runtime/observe/dump_format.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

#include "core/strings.h"

namespace d4r::runtime {

uint64_t DumpArray::texel_bytes() const {
    uint64_t per_channel = 0;
    switch (format) {
    case 0x01: // CU_AD_FORMAT_UNSIGNED_INT8
    case 0x08: // CU_AD_FORMAT_SIGNED_INT8
        per_channel = 1;
        break;
    case 0x02: // CU_AD_FORMAT_UNSIGNED_INT16
    case 0x09: // CU_AD_FORMAT_SIGNED_INT16
    case 0x10: // CU_AD_FORMAT_HALF
        per_channel = 2;
        break;
    case 0x03: // CU_AD_FORMAT_UNSIGNED_INT32
    case 0x0a: // CU_AD_FORMAT_SIGNED_INT32
    case 0x20: // CU_AD_FORMAT_FLOAT
        per_channel = 4;
        break;
    case 0x50: // CU_AD_FORMAT_UNORM_INT_101010_2: one packed 32-bit texel
        return 4;
    default:
        return 0;
    }
    return per_channel * channels;
}

Status check_dump_resource(const DumpResource& r, const DumpManifest& m, std::string_view prefix) {
    if (r.kind == DumpResource::Kind::Mipmapped) return {};
    if (r.kind == DumpResource::Kind::Array) {
        if (r.array >= m.arrays.size())
            return make_error(ErrorCode::Invalid, "{}: resource names array {} but only {} are declared before it",
                              prefix, r.array, m.arrays.size());
        return {};
    }
    if (r.alloc >= m.allocs.size())
        return make_error(ErrorCode::Invalid, "{}: resource names alloc {} but only {} are declared before it", prefix,
                          r.alloc, m.allocs.size());
    const uint64_t alloc_bytes = m.allocs[r.alloc].bytes;
    if (r.delta > alloc_bytes)
        return make_error(ErrorCode::Invalid, "{}: delta {} is past the end of alloc {} ({} bytes)", prefix, r.delta,
                          r.alloc, alloc_bytes);
    if (r.channels < 1 || r.channels > 4)
        return make_error(ErrorCode::Invalid, "{}: {} channels (1 to 4)", prefix, r.channels);
    DumpArray texel{1, 0, 0, r.format, r.channels, 0};
    const unsigned __int128 tb = texel.texel_bytes();
    if (tb == 0)
        return make_error(ErrorCode::Invalid, "{}: format 0x{:x} is not one this version knows", prefix, r.format);
    unsigned __int128 extent = r.bytes;
    if (r.kind == DumpResource::Kind::Pitch2D) {
        if (r.width == 0 || r.height == 0)
            return make_error(ErrorCode::Invalid, "{}: pitch2d of {} x {} texels", prefix, r.width, r.height);
        extent =
            static_cast<unsigned __int128>(r.pitch) * (r.height - 1) + static_cast<unsigned __int128>(r.width) * tb;
    }
    if (extent > alloc_bytes - r.delta)
        return make_error(ErrorCode::Invalid, "{}: the resource's memory ends past alloc {} ({} bytes, from delta {})",
                          prefix, r.alloc, alloc_bytes, r.delta);
    return {};
}

std::string dump_array_file(size_t j) { return fmt::format("array-{}.bin", j); }
std::string dump_alloc_file(size_t i) { return fmt::format("alloc-{}.bin", i); }

namespace {

std::string write_resource(const DumpResource& r) {
    switch (r.kind) {
    case DumpResource::Kind::Array:
        return fmt::format("array {}", r.array);
    case DumpResource::Kind::Pitch2D:
        return fmt::format("pitch2d {} {} 0x{:x} {} {} {} {}", r.alloc, r.delta, r.format, r.channels, r.width,
                           r.height, r.pitch);
    case DumpResource::Kind::Linear:
        return fmt::format("linear {} {} 0x{:x} {} {}", r.alloc, r.delta, r.format, r.channels, r.bytes);
    case DumpResource::Kind::Mipmapped:
        break;
    }
    return "mipmapped";
}

std::string write_object(const DumpObject& o) {
    std::string line =
        fmt::format("{} {} {}", o.surface ? "surface" : "texture", o.arg_offset, write_resource(o.resource));
    if (o.surface) return line;
    const DumpTextureDesc& t = o.texture;
    // fmt writes a float in the shortest form that reads back to the same value.
    line += fmt::format(" address={},{},{} filter={} flags=0x{:x} max_anisotropy={} mipmap_filter={} mipmap_bias={} "
                        "min_mipmap_clamp={} max_mipmap_clamp={} border={},{},{},{}",
                        t.address[0], t.address[1], t.address[2], t.filter, t.flags, t.max_anisotropy, t.mipmap_filter,
                        t.mipmap_bias, t.min_mipmap_clamp, t.max_mipmap_clamp, t.border[0], t.border[1], t.border[2],
                        t.border[3]);
    if (o.view) {
        const DumpViewDesc& v = *o.view;
        line += fmt::format(" view=0x{:x},{},{},{},{},{},{},{}", v.format, v.width, v.height, v.depth, v.first_mipmap,
                            v.last_mipmap, v.first_layer, v.last_layer);
    }
    return line;
}

} // namespace

std::string write_dump_manifest(const DumpManifest& m) {
    std::string out = "# d4r replay dump (format: docs/runtime.md, Observability)\n";
    out += fmt::format("kernel {}\n", m.kernel);
    out += fmt::format("launch {} {} {} {} {} {} {}\n", m.grid[0], m.grid[1], m.grid[2], m.block[0], m.block[1],
                       m.block[2], m.shared);
    out += fmt::format("args {}\n", m.args_bytes);
    for (size_t i = 0; i < m.allocs.size(); ++i)
        out += fmt::format("alloc {} 0x{:x} {}\n", i, m.allocs[i].base, m.allocs[i].bytes);
    for (const DumpPointer& p : m.pointers) out += fmt::format("pointer {} {} {}\n", p.arg_offset, p.alloc, p.delta);
    for (size_t j = 0; j < m.arrays.size(); ++j) {
        const DumpArray& a = m.arrays[j];
        out += fmt::format("array {} {} {} {} 0x{:x} {} 0x{:x}\n", j, a.width, a.height, a.depth, a.format, a.channels,
                           a.flags);
    }
    for (const DumpObject& o : m.objects) out += write_object(o) + "\n";
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
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
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

Expected<float> float_number(std::string_view word, std::string_view what, size_t line, std::string_view field) {
    float v = 0;
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc() || end != word.data() + word.size() || word.empty())
        return make_error(ErrorCode::Invalid, "{}:{}: {} '{}' is not a number", what, line, field, word);
    return v;
}

// "a,b,c" with exactly N parts.
Expected<std::vector<std::string_view>> list(std::string_view value, size_t n, std::string_view what, size_t line,
                                             std::string_view key) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
        size_t comma = value.find(',', start);
        parts.push_back(value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    if (parts.size() != n)
        return make_error(ErrorCode::Invalid, "{}:{}: {} takes {} comma-separated values, found {}", what, line, key, n,
                          parts.size());
    return parts;
}

Expected<uint32_t> u32_number(std::string_view word, std::string_view what, size_t line, std::string_view field) {
    uint64_t v = D4R_TRY(number(word, what, line, field));
    if (v > 0xffffffffu) return make_error(ErrorCode::Invalid, "{}:{}: {} {} is out of range", what, line, field, v);
    return static_cast<uint32_t>(v);
}

// "texture|surface OFFSET RESOURCE [KEY=VALUE...]" (W: the line's words).
Expected<DumpObject> parse_object(const std::vector<std::string_view>& w, const DumpManifest& m, bool have_args,
                                  std::string_view what, size_t line) {
    DumpObject o;
    o.surface = w[0] == "surface";
    auto num = [&](size_t i, std::string_view field) -> Expected<uint64_t> {
        if (i >= w.size())
            return make_error(ErrorCode::Invalid, "{}:{}: {} line ends before its {}", what, line, w[0], field);
        return number(w[i], what, line, field);
    };
    auto u32 = [&](size_t i, std::string_view field) -> Expected<uint32_t> {
        if (i >= w.size())
            return make_error(ErrorCode::Invalid, "{}:{}: {} line ends before its {}", what, line, w[0], field);
        return u32_number(w[i], what, line, field);
    };
    o.arg_offset = D4R_TRY(num(1, "arg offset"));
    if (!have_args || o.arg_offset > m.args_bytes || m.args_bytes - o.arg_offset < 8)
        return make_error(ErrorCode::Invalid, "{}:{}: {} at offset {} is outside args ({} bytes)", what, line, w[0],
                          o.arg_offset, m.args_bytes);
    if (w.size() < 3)
        return make_error(ErrorCode::Invalid,
                          "{}:{}: {} line ends before its resource (array, pitch2d, linear or "
                          "mipmapped)",
                          what, line, w[0]);
    DumpResource& r = o.resource;
    size_t next = 0;
    if (w[2] == "array") {
        r.kind = DumpResource::Kind::Array;
        r.array = D4R_TRY(u32(3, "array index"));
        D4R_TRY(check_dump_resource(r, m, fmt::format("{}:{}", what, line)));
        next = 4;
    } else if (w[2] == "pitch2d" || w[2] == "linear") {
        r.kind = w[2] == "pitch2d" ? DumpResource::Kind::Pitch2D : DumpResource::Kind::Linear;
        r.alloc = D4R_TRY(u32(3, "alloc index"));
        r.delta = D4R_TRY(num(4, "delta"));
        r.format = D4R_TRY(u32(5, "format"));
        r.channels = D4R_TRY(u32(6, "channels"));
        if (r.kind == DumpResource::Kind::Pitch2D) {
            r.width = D4R_TRY(num(7, "width"));
            r.height = D4R_TRY(num(8, "height"));
            r.pitch = D4R_TRY(num(9, "pitch"));
            next = 10;
        } else {
            r.bytes = D4R_TRY(num(7, "bytes"));
            next = 8;
        }
        D4R_TRY(check_dump_resource(r, m, fmt::format("{}:{}", what, line)));
    } else if (w[2] == "mipmapped") {
        r.kind = DumpResource::Kind::Mipmapped;
        next = 3;
    } else {
        return make_error(ErrorCode::Invalid, "{}:{}: unknown resource '{}' (array, pitch2d, linear or mipmapped)",
                          what, line, w[2]);
    }
    if (o.surface && next < w.size())
        return make_error(ErrorCode::Invalid, "{}:{}: surface takes no '{}' after its resource", what, line, w[next]);
    DumpTextureDesc& t = o.texture;
    for (size_t i = next; i < w.size(); ++i) {
        size_t eq = w[i].find('=');
        std::string_view key = w[i].substr(0, eq), value = eq == std::string_view::npos ? "" : w[i].substr(eq + 1);
        if (eq == std::string_view::npos)
            return make_error(ErrorCode::Invalid, "{}:{}: '{}' is not KEY=VALUE", what, line, w[i]);
        if (key == "address") {
            auto parts = D4R_TRY(list(value, 3, what, line, key));
            for (size_t k = 0; k < 3; ++k) t.address[k] = D4R_TRY(u32_number(parts[k], what, line, key));
        } else if (key == "filter") {
            t.filter = D4R_TRY(u32_number(value, what, line, key));
        } else if (key == "flags") {
            t.flags = D4R_TRY(u32_number(value, what, line, key));
        } else if (key == "max_anisotropy") {
            t.max_anisotropy = D4R_TRY(u32_number(value, what, line, key));
        } else if (key == "mipmap_filter") {
            t.mipmap_filter = D4R_TRY(u32_number(value, what, line, key));
        } else if (key == "mipmap_bias") {
            t.mipmap_bias = D4R_TRY(float_number(value, what, line, key));
        } else if (key == "min_mipmap_clamp") {
            t.min_mipmap_clamp = D4R_TRY(float_number(value, what, line, key));
        } else if (key == "max_mipmap_clamp") {
            t.max_mipmap_clamp = D4R_TRY(float_number(value, what, line, key));
        } else if (key == "border") {
            auto parts = D4R_TRY(list(value, 4, what, line, key));
            for (size_t k = 0; k < 4; ++k) t.border[k] = D4R_TRY(float_number(parts[k], what, line, key));
        } else if (key == "view") {
            auto parts = D4R_TRY(list(value, 8, what, line, key));
            DumpViewDesc v;
            v.format = D4R_TRY(u32_number(parts[0], what, line, "view format"));
            v.width = D4R_TRY(number(parts[1], what, line, "view width"));
            v.height = D4R_TRY(number(parts[2], what, line, "view height"));
            v.depth = D4R_TRY(number(parts[3], what, line, "view depth"));
            v.first_mipmap = D4R_TRY(u32_number(parts[4], what, line, "view first mipmap"));
            v.last_mipmap = D4R_TRY(u32_number(parts[5], what, line, "view last mipmap"));
            v.first_layer = D4R_TRY(u32_number(parts[6], what, line, "view first layer"));
            v.last_layer = D4R_TRY(u32_number(parts[7], what, line, "view last layer"));
            o.view = v;
        } else {
            return make_error(ErrorCode::Invalid, "{}:{}: unknown texture key '{}'", what, line, key);
        }
    }
    return o;
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
                return make_error(ErrorCode::Invalid, "{}:{}: '{}' takes {} values, found {}", what, line_no, w[0],
                                  n - 1, w.size() - 1);
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
                    return make_error(ErrorCode::Invalid, "{}:{}: launch shape {} x {} is out of range", what, line_no,
                                      g, b);
                m.grid[i] = static_cast<uint32_t>(g);
                m.block[i] = static_cast<uint32_t>(b);
            }
            uint64_t s = D4R_TRY(num(7, "shared"));
            if (s > 0xffffffffu)
                return make_error(ErrorCode::Invalid, "{}:{}: shared bytes out of range", what, line_no);
            m.shared = static_cast<uint32_t>(s);
            have_launch = true;
        } else if (w[0] == "args") {
            D4R_TRY(expect(2));
            // Pointers and objects are checked against the size when they are read: it cannot change after.
            if (have_args) return make_error(ErrorCode::Invalid, "{}:{}: a second 'args' line", what, line_no);
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
                return make_error(ErrorCode::Invalid,
                                  "{}:{}: pointer names alloc {} but only {} are declared before it", what, line_no, a,
                                  m.allocs.size());
            if (delta > m.allocs[a].bytes)
                return make_error(ErrorCode::Invalid, "{}:{}: delta {} is past the end of alloc {} ({} bytes)", what,
                                  line_no, delta, a, m.allocs[a].bytes);
            // off + 8 would wrap for an offset near 2^64 (and pass): compare without adding.
            if (!have_args || off > m.args_bytes || m.args_bytes - off < 8)
                return make_error(ErrorCode::Invalid, "{}:{}: pointer at offset {} is outside args ({} bytes)", what,
                                  line_no, off, m.args_bytes);
            m.pointers.push_back({off, static_cast<uint32_t>(a), delta});
        } else if (w[0] == "array") {
            D4R_TRY(expect(8));
            uint64_t j = D4R_TRY(num(1, "array index"));
            if (j != m.arrays.size())
                return make_error(ErrorCode::Invalid, "{}:{}: array {} out of order (expected {})", what, line_no, j,
                                  m.arrays.size());
            DumpArray a;
            a.width = D4R_TRY(num(2, "width"));
            a.height = D4R_TRY(num(3, "height"));
            a.depth = D4R_TRY(num(4, "depth"));
            a.format = D4R_TRY(u32_number(w[5], what, line_no, "format"));
            a.channels = D4R_TRY(u32_number(w[6], what, line_no, "channels"));
            a.flags = D4R_TRY(u32_number(w[7], what, line_no, "flags"));
            if (a.channels < 1 || a.channels > 4)
                return make_error(ErrorCode::Invalid, "{}:{}: array of {} channels (1 to 4)", what, line_no,
                                  a.channels);
            if (a.texel_bytes() == 0)
                return make_error(ErrorCode::Invalid, "{}:{}: array format 0x{:x} is not one this version knows", what,
                                  line_no, a.format);
            // Keeps bytes() from overflowing (and a fuzzed manifest from asking for absurd buffers).
            constexpr uint64_t kLimit = 1ull << 24;
            if (a.width == 0 || a.width > kLimit || a.height > kLimit || a.depth > kLimit ||
                static_cast<unsigned __int128>(a.width) * a.texel_bytes() * a.rows() * a.slices() > (1ull << 40))
                return make_error(ErrorCode::Invalid, "{}:{}: array of {} x {} x {} texels is out of range", what,
                                  line_no, a.width, a.height, a.depth);
            m.arrays.push_back(a);
        } else if (w[0] == "texture" || w[0] == "surface") {
            m.objects.push_back(D4R_TRY(parse_object(w, m, have_args, what, line_no)));
        } else if (w[0] == "module") {
            D4R_TRY(expect(2));
            if (w[1].find('/') != std::string_view::npos || w[1] == "..")
                return make_error(ErrorCode::Invalid, "{}:{}: module must be a file name in the dump folder", what,
                                  line_no);
            m.module = std::string(w[1]);
        } else {
            m.notes.push_back(fmt::format("{}:{}: '{}' skipped (not known to this version)", what, line_no, w[0]));
        }
    }
    if (!have_kernel || !have_launch || !have_args)
        return make_error(ErrorCode::Invalid, "{}: missing {}", what,
                          !have_kernel   ? "'kernel NAME'"
                          : !have_launch ? "'launch GX GY GZ BX BY BZ SHARED'"
                                         : "'args BYTES'");
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
