// Parameters, the CUDA parameter-block layout, the PTX entry check and run_case() (corpus.h).
#include "corpus.h"

#include <cctype>
#include <cstring>
#include <memory>

namespace d4r::corpus {

// ---- image formats ---------------------------------------------------------------------------

const char* format_name(Format f) {
    switch (f) {
    case Format::rgba16f:
        return "rgba16f";
    case Format::rg16f:
        return "rg16f";
    case Format::r32f:
        return "r32f";
    case Format::rgba8:
        return "rgba8";
    case Format::rgb10a2:
        return "rgb10a2";
    }
    return "?";
}

size_t texel_bytes(Format f) {
    switch (f) {
    case Format::rgba16f:
        return 8;
    case Format::rg16f:
        return 4;
    case Format::r32f:
        return 4;
    case Format::rgba8:
        return 4;
    case Format::rgb10a2:
        return 4;
    }
    return 0;
}

uint32_t format_channels(Format f) {
    switch (f) {
    case Format::rgba16f:
        return 4;
    case Format::rg16f:
        return 2;
    case Format::r32f:
        return 1;
    case Format::rgba8:
        return 4;
    case Format::rgb10a2:
        return 4;
    }
    return 0;
}

Elem format_elem(Format f) {
    switch (f) {
    case Format::rgba16f:
    case Format::rg16f:
        return Elem::f16;
    case Format::r32f:
        return Elem::f32;
    case Format::rgba8:
        return Elem::u8;
    case Format::rgb10a2:
        return Elem::u32;
    }
    return Elem::u8;
}

size_t format_elems_per_texel(Format f) { return texel_bytes(f) / elem_size(format_elem(f)); }

// ---- parameters ------------------------------------------------------------------------------

bool Param::is_output() const {
    if (kind == ParamKind::buffer) return buffer.dir != Dir::in;
    if (kind == ParamKind::image) return image.dir != Dir::in;
    return false;
}

size_t Param::output_bytes() const {
    if (!is_output()) return 0;
    if (kind == ParamKind::buffer) return buffer.count * elem_size(buffer.elem);
    return image.data_bytes();
}

size_t Case::output_bytes() const {
    size_t total = 0;
    for (const auto& p : params) total += p.output_bytes();
    return total;
}

const Case* find_case(const std::string& name) {
    for (const auto& c : all_cases())
        if (c.name == name) return &c;
    return nullptr;
}

uint64_t param_seed(const Case& c, size_t index) {
    uint64_t h = fnv1a64(c.name.data(), c.name.size());
    uint8_t idx[4] = {uint8_t(index), uint8_t(index >> 8), 0x5e, 0xed};
    return fnv1a64(idx, sizeof idx, h);
}

std::vector<uint8_t> initial_bytes(const Case& c, size_t index) {
    const Param& p = c.params.at(index);
    if (p.kind == ParamKind::buffer) {
        const BufferParam& b = p.buffer;
        if (b.dir == Dir::out) return std::vector<uint8_t>(b.count * elem_size(b.elem), kPoison);
        return generate(b.gen, b.elem, b.count, param_seed(c, index));
    }
    if (p.kind == ParamKind::image) {
        const ImageParam& im = p.image;
        if (im.dir == Dir::out) return std::vector<uint8_t>(im.data_bytes(), kPoison);
        size_t count = size_t(im.width) * im.height * format_elems_per_texel(im.format);
        return generate(im.gen, format_elem(im.format), count, param_seed(c, index));
    }
    return {};
}

// ---- parameter block -------------------------------------------------------------------------

static uint32_t param_size(const Param& p) {
    if (p.kind == ParamKind::scalar) return uint32_t(elem_size(p.scalar.elem));
    return 8; // device pointers and texture/surface object handles
}

std::vector<ParamSlot> param_layout(const Case& c) {
    std::vector<ParamSlot> slots;
    uint32_t offset = 0;
    for (const auto& p : c.params) {
        uint32_t size = param_size(p);
        uint32_t align = size;
        offset = (offset + align - 1) / align * align;
        slots.push_back({offset, size, align});
        offset += size;
    }
    return slots;
}

std::vector<uint8_t> build_param_block(const Case& c, const std::vector<uint64_t>& values) {
    auto slots = param_layout(c);
    size_t total = slots.empty() ? 0 : slots.back().offset + slots.back().size;
    total = (total + 7) / 8 * 8;
    std::vector<uint8_t> block(total, 0);
    for (size_t i = 0; i < slots.size() && i < values.size(); ++i)
        for (uint32_t b = 0; b < slots[i].size; ++b) block[slots[i].offset + b] = uint8_t(values[i] >> (8 * b));
    return block;
}

// ---- PTX entry parameters --------------------------------------------------------------------

static uint32_t ptx_type_size(const std::string& t) {
    if (t == ".b8" || t == ".u8" || t == ".s8") return 1;
    if (t == ".b16" || t == ".u16" || t == ".s16" || t == ".f16" || t == ".bf16") return 2;
    if (t == ".b32" || t == ".u32" || t == ".s32" || t == ".f32" || t == ".f16x2" || t == ".bf16x2") return 4;
    if (t == ".b64" || t == ".u64" || t == ".s64" || t == ".f64") return 8;
    if (t == ".texref" || t == ".surfref" || t == ".samplerref") return 8;
    return 0;
}

static std::vector<std::string> split_tokens(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char ch : s) {
        if (std::isspace(static_cast<unsigned char>(ch))) {
            if (!cur.empty()) out.push_back(cur), cur.clear();
        } else {
            cur += ch;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

static std::string strip_comments(const std::string& ptx) {
    std::string out;
    out.reserve(ptx.size());
    for (size_t i = 0; i < ptx.size(); ++i) {
        if (ptx[i] == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') {
            while (i < ptx.size() && ptx[i] != '\n') ++i;
            out += '\n';
        } else if (ptx[i] == '/' && i + 1 < ptx.size() && ptx[i + 1] == '*') {
            i += 2;
            while (i + 1 < ptx.size() && !(ptx[i] == '*' && ptx[i + 1] == '/')) ++i;
            ++i;
            out += ' ';
        } else {
            out += ptx[i];
        }
    }
    return out;
}

bool parse_entry_params(const std::string& ptx_text, const std::string& entry, std::vector<PtxParam>* out,
                        std::string* error) {
    out->clear();
    const std::string ptx = strip_comments(ptx_text);
    size_t pos = 0;
    bool found = false;
    size_t open = std::string::npos; // the '(' of the parameter list; npos for an entry without one
    while (!found && (pos = ptx.find(".entry", pos)) != std::string::npos) {
        size_t p = pos + 6;
        while (p < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[p]))) ++p;
        size_t name_end = p;
        while (name_end < ptx.size() && (std::isalnum(static_cast<unsigned char>(ptx[name_end])) ||
                                         ptx[name_end] == '_' || ptx[name_end] == '$'))
            ++name_end;
        if (name_end - p == entry.size() && ptx.compare(p, entry.size(), entry) == 0) {
            found = true;
            size_t q = name_end;
            while (q < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[q]))) ++q;
            if (q < ptx.size() && ptx[q] == '(') open = q;
        }
        pos = name_end;
    }
    if (!found) {
        *error = "no .entry " + entry + " in the PTX";
        return false;
    }
    if (open == std::string::npos) return true;
    size_t close = ptx.find(')', open);
    if (close == std::string::npos) {
        *error = ".entry " + entry + ": unterminated parameter list";
        return false;
    }
    std::string list = ptx.substr(open + 1, close - open - 1);
    size_t start = 0;
    while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? list.size() + 1 : comma + 1;
        auto tokens = split_tokens(item);
        if (tokens.empty()) continue;
        if (tokens[0] != ".param") {
            *error = ".entry " + entry + ": unexpected parameter '" + item + "'";
            return false;
        }
        PtxParam prm;
        prm.text = item;
        uint32_t type_size = 0, explicit_align = 0, count = 1;
        bool after_ptr = false;
        for (size_t t = 1; t < tokens.size(); ++t) {
            const std::string& tok = tokens[t];
            if (tok == ".ptr") {
                after_ptr = true;
            } else if (tok == ".align" && t + 1 < tokens.size()) {
                uint32_t a = uint32_t(std::strtoul(tokens[t + 1].c_str(), nullptr, 10));
                if (!after_ptr) explicit_align = a; // after .ptr it is the pointee's alignment
                ++t;
            } else if (ptx_type_size(tok) != 0) {
                type_size = ptx_type_size(tok);
            } else if (tok[0] != '.') {
                size_t br = tok.find('[');
                if (br != std::string::npos) count = uint32_t(std::strtoul(tok.c_str() + br + 1, nullptr, 10));
            }
        }
        if (type_size == 0) {
            *error = ".entry " + entry + ": cannot size parameter '" + item + "'";
            return false;
        }
        prm.size = type_size * count;
        prm.align = explicit_align ? explicit_align : type_size;
        out->push_back(prm);
    }
    return true;
}

std::string check_case_against_ptx(const Case& c, const std::string& ptx) {
    std::vector<PtxParam> params;
    std::string error;
    if (!parse_entry_params(ptx, c.entry, &params, &error)) return error;
    auto slots = param_layout(c);
    if (params.size() != slots.size())
        return ".entry " + c.entry + " has " + std::to_string(params.size()) + " parameters, the case has " +
               std::to_string(slots.size());
    for (size_t i = 0; i < slots.size(); ++i) {
        if (params[i].size != slots[i].size || params[i].align != slots[i].align)
            return ".entry " + c.entry + " parameter " + std::to_string(i) + " (" + c.params[i].name + "): PTX says " +
                   "size " + std::to_string(params[i].size) + " align " + std::to_string(params[i].align) +
                   ", the case says size " + std::to_string(slots[i].size) + " align " + std::to_string(slots[i].align);
    }
    return "";
}

// ---- run_case --------------------------------------------------------------------------------

namespace {
struct ReleaseGuard {
    Launcher& launcher;
    ~ReleaseGuard() { launcher.release(); }
};
} // namespace

std::string run_case(const Case& c, const std::string& ptx, Launcher& launcher, CaseResult* result) {
    *result = CaseResult{};
    std::string err = check_case_against_ptx(c, ptx);
    if (!err.empty()) return c.name + ": " + err;
    ReleaseGuard guard{launcher};

    std::vector<uint64_t> values(c.params.size(), 0);
    for (size_t i = 0; i < c.params.size(); ++i) {
        const Param& p = c.params[i];
        const std::string where = c.name + ": parameter " + std::to_string(i) + " (" + p.name + "): ";
        if (p.kind == ParamKind::scalar) {
            values[i] = p.scalar.bits;
            continue;
        }
        std::vector<uint8_t> data = initial_bytes(c, i);
        if (p.kind == ParamKind::buffer) {
            data.resize(data.size() + kGuardBytes, kPoison);
            err = launcher.alloc(data.size(), &values[i]);
            if (err.empty()) err = launcher.upload(values[i], data.data(), data.size());
        } else {
            err = launcher.create_image(p.image, data, &values[i]);
        }
        if (!err.empty()) return where + err;
    }
    err = launcher.launch(ptx, c, build_param_block(c, values));
    if (!err.empty()) return c.name + ": " + err;

    for (size_t i = 0; i < c.params.size(); ++i) {
        const Param& p = c.params[i];
        if (!p.is_output()) continue;
        const std::string where = c.name + ": parameter " + std::to_string(i) + " (" + p.name + "): ";
        const size_t bytes = p.output_bytes();
        std::vector<uint8_t> data;
        if (p.kind == ParamKind::buffer) {
            data.resize(bytes + kGuardBytes);
            err = launcher.download(values[i], data.data(), data.size());
            if (!err.empty()) return where + err;
            for (size_t b = bytes; b < data.size(); ++b)
                if (data[b] != kPoison)
                    return where + "the kernel wrote " + std::to_string(b - bytes) + " bytes past the end";
            data.resize(bytes);
        } else {
            err = launcher.read_image(values[i], &data);
            if (!err.empty()) return where + err;
            if (data.size() != bytes)
                return where + "image read back " + std::to_string(data.size()) + " bytes, expected " +
                       std::to_string(bytes);
        }
        OutputSlice slice;
        slice.param = i;
        slice.offset = result->output.size();
        slice.bytes = bytes;
        if (p.kind == ParamKind::buffer) {
            slice.compare = p.buffer.compare;
            slice.elem = p.buffer.elem;
        } else {
            slice.elem = format_elem(p.image.format);
        }
        result->slices.push_back(slice);
        result->output.insert(result->output.end(), data.begin(), data.end());
    }
    for (size_t w = 0; w + 4 <= result->output.size(); w += 4)
        if (result->output[w] == kPoison && result->output[w + 1] == kPoison && result->output[w + 2] == kPoison &&
            result->output[w + 3] == kPoison)
            ++result->poison_words;
    return "";
}

} // namespace d4r::corpus
