// The module index: a recursive-descent reader of PTX module scope over the token stream. Bodies of
// functions and debug sections are skipped by brace matching, so instruction syntax never matters here.
#include "ptx/module_index.h"

#include <algorithm>
#include <unordered_map>

#include "core/files.h"
#include "core/strings.h"
#include "ptx/module_hash.h"
#include "ptx/ptx_lexer.h"

namespace d4r::ptx {

namespace {

// No single parameter, variable or parameter block is allowed past this (2^40 bytes): far above any
// real PTX, low enough that sums of sizes can never overflow 64 bits.
constexpr uint64_t kMaxObjectBytes = 1ull << 40;
constexpr uint64_t kMaxAlign = 1ull << 20;

struct TypeSize {
    std::string_view name;
    unsigned bytes;
};
constexpr TypeSize kTypeSizes[] = {
    {".b8", 1},    {".u8", 1},     {".s8", 1},     {".b16", 2},        {".u16", 2},     {".s16", 2},
    {".f16", 2},   {".bf16", 2},   {".b32", 4},    {".u32", 4},        {".s32", 4},     {".f32", 4},
    {".f16x2", 4}, {".bf16x2", 4}, {".tf32", 4},   {".b64", 8},        {".u64", 8},     {".s64", 8},
    {".f64", 8},   {".b128", 16},  {".texref", 8}, {".samplerref", 8}, {".surfref", 8},
};

bool is_linkage(const Token& t) {
    return t.is_directive(".visible") || t.is_directive(".extern") || t.is_directive(".weak") ||
           t.is_directive(".common");
}

bool is_state_space(std::string_view text) {
    return text == ".global" || text == ".const" || text == ".local" || text == ".shared";
}

unsigned vector_width(std::string_view text) {
    if (text == ".v2") return 2;
    if (text == ".v4") return 4;
    if (text == ".v8") return 8;
    return 0;
}

// Multiplies, refusing results above kMaxObjectBytes.
bool checked_mul(uint64_t a, uint64_t b, uint64_t& out) {
    if (a != 0 && b > kMaxObjectBytes / a) return false;
    out = a * b;
    return out <= kMaxObjectBytes;
}

class Indexer {
public:
    Indexer(std::string_view text, const IndexLimits& limits) : m_ts(text), m_limits(limits) {}

    Expected<ModuleIndex> run() {
        for (;;) {
            const Token t = m_ts.peek();
            if (t.kind == TokenKind::End) break;
            D4R_TRY(module_statement());
        }
        if (m_dropped_notes > 0) m_index.notes.push_back(fmt::format("{} more notes not shown", m_dropped_notes));
        return std::move(m_index);
    }

private:
    // An error at token T: the lexer's own error when T is an Error token.
    Error expected(const Token& t, std::string_view what) {
        if (t.kind == TokenKind::Error && m_ts.lexer_error()) return *m_ts.lexer_error();
        return make_error(ErrorCode::Invalid, "line {}: expected {}, got {}", t.line, what, describe_token(t));
    }
    Error error_at(uint32_t line, std::string message) {
        return Error(ErrorCode::Invalid, fmt::format("line {}: {}", line, message));
    }
    void note(std::string text) {
        if (m_index.notes.size() < m_limits.max_notes)
            m_index.notes.push_back(std::move(text));
        else
            ++m_dropped_notes;
    }

    Expected<uint64_t> expect_integer(std::string_view what) {
        Token t = m_ts.next();
        if (t.kind != TokenKind::Integer) return expected(t, what);
        auto value = parse_integer_literal(t.text);
        if (!value) return error_at(t.line, fmt::format("integer '{}' is malformed or too large", t.text));
        return *value;
    }
    Expected<uint32_t> expect_u32(std::string_view what) {
        Token at = m_ts.peek();
        uint64_t value = D4R_TRY(expect_integer(what));
        if (value > UINT32_MAX) return error_at(at.line, fmt::format("{} is too large", at.text));
        return static_cast<uint32_t>(value);
    }
    Expected<uint64_t> expect_alignment() {
        Token at = m_ts.peek();
        uint64_t value = D4R_TRY(expect_integer("an alignment after '.align'"));
        if (value == 0 || value > kMaxAlign || (value & (value - 1)) != 0)
            return error_at(at.line, fmt::format("alignment {} is not a power of two up to {}", at.text, kMaxAlign));
        return value;
    }

    Status module_statement() {
        Token t = m_ts.peek();
        if (t.kind == TokenKind::Error) return expected(t, "a directive");
        if (t.kind != TokenKind::Directive)
            return error_at(t.line, fmt::format("unexpected {} at module scope (expected a directive such as "
                                                "'.entry' or '.global')",
                                                describe_token(t)));
        std::string linkage;
        while (is_linkage(m_ts.peek())) linkage = std::string(m_ts.next().text);
        Token d = m_ts.next();
        if (d.is_directive(".entry")) return parse_entry(linkage, d);
        if (d.is_directive(".func")) return parse_func(linkage, d);
        if (d.is_directive(".global") || d.is_directive(".const") || d.is_directive(".shared") ||
            d.is_directive(".local") || d.is_directive(".tex"))
            return parse_variable(linkage, d);
        if (!linkage.empty()) return expected(d, fmt::format("'.entry', '.func' or a variable after '{}'", linkage));
        if (d.is_directive(".version")) return parse_version(d);
        if (d.is_directive(".target")) return parse_target();
        if (d.is_directive(".address_size")) {
            m_index.address_size = D4R_TRY(expect_u32("a number after '.address_size'"));
            return ok_status();
        }
        if (d.is_directive(".file")) return parse_file();
        if (d.is_directive(".section")) return parse_section(d);
        if (d.is_directive(".loc")) return skip_line(d);
        if (d.is_directive(".pragma") || d.is_directive(".alias")) return skip_statement(d, false);
        if (d.kind == TokenKind::Error) return expected(d, "a directive");
        return skip_statement(d, true);
    }

    Status parse_version(const Token& d) {
        Token t = m_ts.next();
        auto parts = split(t.text, '.');
        std::optional<uint64_t> major, minor;
        if (t.kind == TokenKind::Float && parts.size() == 2) {
            major = parse_u64(parts[0]);
            minor = parse_u64(parts[1]);
        }
        if (!major || !minor || *major > UINT32_MAX || *minor > UINT32_MAX)
            return expected(t, "a version 'MAJOR.MINOR' after '.version'");
        if (m_index.version) note(fmt::format("line {}: second .version (the last one counts)", d.line));
        m_index.version = std::pair<uint32_t, uint32_t>(static_cast<uint32_t>(*major), static_cast<uint32_t>(*minor));
        return ok_status();
    }

    Status parse_target() {
        for (;;) {
            Token t = m_ts.next();
            if (t.kind != TokenKind::Identifier) return expected(t, "a target name such as 'sm_89' after '.target'");
            m_index.targets.emplace_back(t.text);
            if (!m_ts.accept_punct(",")) return ok_status();
        }
    }

    // .file N "name" [, timestamp, size]
    Status parse_file() {
        D4R_TRY(expect_integer("a file number after '.file'"));
        Token name = m_ts.next();
        if (name.kind != TokenKind::String) return expected(name, "a file name string after '.file N'");
        while (m_ts.accept_punct(",")) D4R_TRY(expect_integer("a number in '.file'"));
        return ok_status();
    }

    // .section .debug_info { ... }
    Status parse_section(const Token& d) {
        Token name = m_ts.next();
        if (name.kind != TokenKind::Directive && name.kind != TokenKind::Identifier)
            return expected(name, "a section name after '.section'");
        Token open = m_ts.next();
        if (!open.is_punct("{")) return expected(open, fmt::format("'{{' after '.section {}'", name.text));
        return skip_body(fmt::format("section {}", name.text), open.line);
    }

    // Skips the rest of D's line (directives without a terminator, like '.loc').
    Status skip_line(const Token& d) {
        while (m_ts.peek().line == d.line && m_ts.peek().kind != TokenKind::End) {
            if (m_ts.peek().kind == TokenKind::Error) return expected(m_ts.peek(), "a token");
            m_ts.next();
        }
        return ok_status();
    }

    // Skips a statement this index does not read: up to ';' or a balanced {...}; an unknown directive
    // without either ends where the next line starts with a directive.
    Status skip_statement(const Token& d, bool unknown) {
        if (unknown) note(fmt::format("line {}: skipped unknown directive '{}'", d.line, d.text));
        for (;;) {
            const Token t = m_ts.peek();
            if (t.kind == TokenKind::End) return ok_status();
            if (t.kind == TokenKind::Error) return expected(t, "a token");
            if (unknown && t.kind == TokenKind::Directive && t.line != d.line) return ok_status();
            Token taken = m_ts.next();
            if (taken.is_punct(";")) return ok_status();
            if (taken.is_punct("{")) return skip_body(fmt::format("directive '{}'", d.text), taken.line);
            if (taken.is_punct("}")) return error_at(taken.line, "'}' without a matching '{'");
        }
    }

    // Called after '{': skips to the matching '}'.
    Status skip_body(const std::string& what, uint32_t open_line) {
        uint64_t depth = 1;
        for (;;) {
            Token t = m_ts.next();
            if (t.kind == TokenKind::End)
                return error_at(open_line, fmt::format("'{{' opening the body of {} is never closed", what));
            if (t.kind == TokenKind::Error) return expected(t, "a token");
            if (t.is_punct("{"))
                ++depth;
            else if (t.is_punct("}") && --depth == 0)
                return ok_status();
        }
    }

    // Type and attribute directives shared by parameters and variables. Returns false when T is not one.
    struct TypeSpec {
        std::string type;
        unsigned vector = 1;
        uint64_t align = 0; // 0: natural
    };
    Expected<bool> type_attribute(const Token& t, TypeSpec& spec, std::string_view where) {
        if (t.is_directive(".align")) {
            m_ts.next();
            spec.align = D4R_TRY(expect_alignment());
            return true;
        }
        if (unsigned width = vector_width(t.text); t.kind == TokenKind::Directive && width != 0) {
            m_ts.next();
            spec.vector = width;
            return true;
        }
        if (t.kind == TokenKind::Directive && ptx_type_size(t.text) != 0) {
            m_ts.next();
            if (!spec.type.empty())
                return error_at(t.line, fmt::format("second type '{}' in {} (already '{}')", t.text, where, spec.type));
            spec.type = std::string(t.text);
            return true;
        }
        return false;
    }

    // NAME[N][M]...; an unsized dimension is 0 (allowed only where ALLOW_UNSIZED).
    Expected<std::vector<uint64_t>> parse_dims(const std::string& name, bool allow_unsized) {
        std::vector<uint64_t> dims;
        while (m_ts.peek().is_punct("[")) {
            Token open = m_ts.next();
            if (m_ts.accept_punct("]")) {
                if (!allow_unsized || !dims.empty())
                    return error_at(open.line, fmt::format("'{}' has an array dimension without a size", name));
                dims.push_back(0);
                continue;
            }
            uint64_t n = D4R_TRY(expect_integer(fmt::format("an array size after '{}['", name)));
            if (n > kMaxObjectBytes) return error_at(open.line, fmt::format("array '{}' is too large", name));
            Token close = m_ts.next();
            if (!close.is_punct("]")) return expected(close, fmt::format("']' after the size of '{}'", name));
            dims.push_back(n);
        }
        return dims;
    }

    Expected<uint64_t> object_size(const std::string& name, unsigned element, unsigned vector,
                                   const std::vector<uint64_t>& dims, uint32_t line) {
        uint64_t size = 0;
        if (!checked_mul(element, vector, size)) return error_at(line, fmt::format("'{}' is too large", name));
        for (uint64_t d : dims)
            if (!checked_mul(size, d, size)) return error_at(line, fmt::format("'{}' is too large", name));
        return size;
    }

    // One parameter; '.param' (and for functions '.reg') has not been consumed yet.
    Expected<ParamInfo> parse_param(bool entry) {
        Token space = m_ts.next();
        if (!space.is_directive(".param") && !(!entry && space.is_directive(".reg")))
            return expected(space, "'.param' to start a parameter");
        ParamInfo p;
        p.line = space.line;
        TypeSpec spec;
        for (;;) {
            const Token t = m_ts.peek();
            if (t.kind != TokenKind::Directive) break;
            if (p.is_pointer) {
                // After .ptr: the state space and alignment of what the pointer points to (PTX ISA 5.1.6.1).
                if (is_state_space(t.text)) {
                    p.pointer_space = std::string(m_ts.next().text);
                    continue;
                }
                if (t.is_directive(".align")) {
                    m_ts.next();
                    p.pointer_align = D4R_TRY(expect_alignment());
                    continue;
                }
            }
            if (t.is_directive(".ptr")) {
                m_ts.next();
                p.is_pointer = true;
                continue;
            }
            if (!D4R_TRY(type_attribute(t, spec, "a parameter")))
                return error_at(t.line, fmt::format("unexpected '{}' in a parameter declaration", t.text));
        }
        Token name = m_ts.next();
        if (name.kind != TokenKind::Identifier) return expected(name, "a parameter name");
        p.name = std::string(name.text);
        if (spec.type.empty()) return error_at(name.line, fmt::format("parameter '{}' has no type", p.name));
        p.type = spec.type;
        p.vector = spec.vector;
        p.dims = D4R_TRY(parse_dims(p.name, !entry));
        unsigned element = ptx_type_size(p.type);
        p.size = D4R_TRY(object_size(p.name, element, p.vector, p.dims, name.line));
        p.explicit_align = spec.align != 0;
        p.align = spec.align != 0 ? spec.align : static_cast<uint64_t>(element) * p.vector;
        return p;
    }

    // After '(': parameters up to and including ')'.
    Status parse_params(std::vector<ParamInfo>* out, bool entry) {
        if (m_ts.accept_punct(")")) return ok_status();
        for (;;) {
            ParamInfo p = D4R_TRY(parse_param(entry));
            if (out) out->push_back(std::move(p));
            if (m_ts.accept_punct(",")) continue;
            Token t = m_ts.next();
            if (t.is_punct(")")) return ok_status();
            return expected(t, "')' after parameter list");
        }
    }

    Status layout(EntryInfo& e) {
        uint64_t offset = 0;
        for (ParamInfo& p : e.params) {
            offset = (offset + p.align - 1) / p.align * p.align;
            p.offset = offset;
            offset += p.size;
            if (offset > kMaxObjectBytes)
                return error_at(p.line, fmt::format("parameter block of entry '{}' is too large", e.name));
            e.param_block_align = std::max(e.param_block_align, p.align);
        }
        e.param_block_size = offset;
        return ok_status();
    }

    // .maxntid / .reqntid: 1 to 3 dimensions.
    Expected<std::array<uint32_t, 3>> parse_dim3(std::string_view directive) {
        std::array<uint32_t, 3> dims{1, 1, 1};
        for (size_t i = 0; i < 3; ++i) {
            dims[i] = D4R_TRY(expect_u32(fmt::format("a number after '{}'", directive)));
            if (!m_ts.accept_punct(",")) break;
        }
        return dims;
    }

    Status parse_entry(const std::string& linkage, const Token& d) {
        Token name = m_ts.next();
        if (name.kind != TokenKind::Identifier) return expected(name, "an entry name after '.entry'");
        EntryInfo e;
        e.name = std::string(name.text);
        e.linkage = linkage;
        e.line = d.line;
        if (m_ts.accept_punct("(")) D4R_TRY(parse_params(&e.params, true));
        D4R_TRY(layout(e));
        bool defined = false;
        for (;;) {
            Token t = m_ts.next();
            if (t.is_punct("{")) {
                D4R_TRY(skip_body(fmt::format("entry '{}'", e.name), t.line));
                defined = true;
                break;
            }
            if (t.is_punct(";")) break; // a prototype
            if (t.is_directive(".maxntid")) {
                e.directives.maxntid = D4R_TRY(parse_dim3(t.text));
            } else if (t.is_directive(".reqntid")) {
                e.directives.reqntid = D4R_TRY(parse_dim3(t.text));
            } else if (t.is_directive(".minnctapersm")) {
                e.directives.minnctapersm = D4R_TRY(expect_u32("a number after '.minnctapersm'"));
            } else if (t.is_directive(".maxnreg")) {
                e.directives.maxnreg = D4R_TRY(expect_u32("a number after '.maxnreg'"));
            } else if (t.kind == TokenKind::Directive) {
                // Other performance directives (.maxclusterrank, .reqnctapercluster, .explicitcluster,
                // .noreturn, .pragma "..."): skip their operands.
                while (m_ts.peek().kind == TokenKind::Integer || m_ts.peek().kind == TokenKind::String ||
                       m_ts.peek().is_punct(",") || m_ts.peek().is_punct(";"))
                    m_ts.next();
            } else {
                return expected(t, fmt::format("'{{' to start the body of entry '{}'", e.name));
            }
        }
        // A prototype (`.extern .entry k(...);` in a relocatable module that launches a kernel another
        // module defines) declares no kernel of this module.
        if (!defined) return ok_status();
        auto [first, inserted] = m_entry_lines.emplace(e.name, e.line);
        if (!inserted)
            return error_at(e.line,
                            fmt::format("entry '{}' is defined twice (first at line {})", e.name, first->second));
        m_index.entries.push_back(std::move(e));
        return ok_status();
    }

    // Skips to the ')' matching OPEN; sets *SAW when one of the tokens inside is the directive WANTED.
    Status skip_parens(const Token& open, std::string_view wanted = {}, bool* saw = nullptr) {
        uint64_t depth = 1;
        for (;;) {
            Token t = m_ts.next();
            if (t.kind == TokenKind::End) return error_at(open.line, "'(' is never closed");
            if (t.kind == TokenKind::Error) return expected(t, "a token");
            if (saw && t.is_directive(wanted)) *saw = true;
            if (t.is_punct("("))
                ++depth;
            else if (t.is_punct(")") && --depth == 0)
                return ok_status();
        }
    }

    // .func [.attribute(...)] [(return params)] NAME [(params)] [attributes] { body } | ;
    Status parse_func(const std::string& linkage, const Token& d) {
        while (m_ts.accept_directive(".attribute")) { // .func .attribute(.unified(uuid1, uuid2)) name
            Token open = m_ts.next();
            if (!open.is_punct("(")) return expected(open, "'(' after '.attribute'");
            D4R_TRY(skip_parens(open));
        }
        if (m_ts.accept_punct("(")) D4R_TRY(parse_params(nullptr, false));
        Token name = m_ts.next();
        if (name.kind != TokenKind::Identifier) return expected(name, "a function name after '.func'");
        FuncInfo f;
        f.name = std::string(name.text);
        f.linkage = linkage;
        f.line = d.line;
        if (m_ts.accept_punct("(")) D4R_TRY(parse_params(nullptr, false));
        for (;;) {
            Token t = m_ts.next();
            if (t.is_punct("{")) {
                D4R_TRY(skip_body(fmt::format("function '{}'", f.name), t.line));
                f.defined = true;
                break;
            }
            if (t.is_punct(";")) break;
            if (t.is_punct("(")) {
                D4R_TRY(skip_parens(t)); // .attribute(.unified(...))
            } else if (t.kind != TokenKind::Directive && t.kind != TokenKind::Integer && t.kind != TokenKind::String &&
                       !t.is_punct(",")) {
                return expected(t, fmt::format("'{{' or ';' after function '{}'", f.name));
            }
        }
        m_index.funcs.push_back(std::move(f));
        return ok_status();
    }

    // After '=': skips the initializer up to (not including) ',' or ';' at depth 0. Returns the number of
    // items of an outer {...} list (0 when the initializer is not a list).
    Expected<uint64_t> skip_initializer(const std::string& name, uint32_t line) {
        uint64_t depth = 0;
        uint64_t items = 0;
        bool list = m_ts.peek().is_punct("{");
        bool empty_list = true;
        for (;;) {
            const Token t = m_ts.peek();
            if (t.kind == TokenKind::End)
                return error_at(line, fmt::format("initializer of '{}' never ends (expected ';')", name));
            if (t.kind == TokenKind::Error) return expected(t, "a token");
            if (depth == 0 && (t.is_punct(",") || t.is_punct(";"))) break;
            Token taken = m_ts.next();
            if (taken.is_punct("{") || taken.is_punct("(")) {
                ++depth;
                continue;
            }
            if (taken.is_punct("}") || taken.is_punct(")")) {
                if (depth == 0)
                    return error_at(taken.line,
                                    fmt::format("unbalanced {} in initializer of '{}'", describe_token(taken), name));
                --depth;
                continue;
            }
            if (depth == 1 && taken.is_punct(","))
                ++items;
            else if (depth >= 1)
                empty_list = false;
        }
        return list && !empty_list ? items + 1 : 0;
    }

    // [linkage] .global|.const|.shared|.local [attributes] TYPE NAME[dims] [= init] {, NAME...} ;
    Status parse_variable(const std::string& linkage, const Token& space) {
        TypeSpec spec;
        bool managed = false;
        for (;;) {
            const Token t = m_ts.peek();
            if (t.kind != TokenKind::Directive) break;
            if (t.is_directive(".attribute")) { // .attribute(.managed)
                m_ts.next();
                Token open = m_ts.next();
                if (!open.is_punct("(")) return expected(open, "'(' after '.attribute'");
                D4R_TRY(skip_parens(open, ".managed", &managed));
                continue;
            }
            std::string where = fmt::format("a {} variable", space.text);
            if (!D4R_TRY(type_attribute(t, spec, where)))
                return error_at(t.line, fmt::format("unexpected '{}' in {}", t.text, where));
        }
        for (;;) {
            Token name = m_ts.next();
            if (name.kind != TokenKind::Identifier)
                return expected(name, fmt::format("a variable name in a {} declaration", space.text));
            if (spec.type.empty()) return error_at(name.line, fmt::format("variable '{}' has no type", name.text));
            VariableInfo v;
            v.name = std::string(name.text);
            v.space = std::string(space.text);
            v.linkage = linkage;
            v.type = spec.type;
            v.vector = spec.vector;
            v.managed = managed;
            v.line = name.line;
            v.dims = D4R_TRY(parse_dims(v.name, true));
            if (m_ts.accept_punct("<")) { // parameterized names (%r<4>) are legal syntax, if odd here
                D4R_TRY(expect_integer("a count after '<'"));
                Token close = m_ts.next();
                if (!close.is_punct(">")) return expected(close, "'>'");
            }
            if (m_ts.accept_punct("=")) {
                v.has_initializer = true;
                uint64_t items = D4R_TRY(skip_initializer(v.name, name.line));
                if (!v.dims.empty() && v.dims[0] == 0) v.dims[0] = items;
            }
            unsigned element = ptx_type_size(v.type);
            v.align = spec.align != 0 ? spec.align : static_cast<uint64_t>(element) * v.vector;
            v.size = D4R_TRY(object_size(v.name, element, v.vector, v.dims, name.line));
            if (v.space == ".global" || v.space == ".const") m_index.variables.push_back(std::move(v));
            Token t = m_ts.next();
            if (t.is_punct(",")) continue;
            if (t.is_punct(";")) return ok_status();
            return expected(t, fmt::format("';' after variable '{}'", name.text));
        }
    }

    TokenStream m_ts;
    const IndexLimits& m_limits;
    ModuleIndex m_index;
    std::unordered_map<std::string, uint32_t> m_entry_lines; // duplicate check in O(1), not O(entries)
    size_t m_dropped_notes = 0;
};

} // namespace

unsigned ptx_type_size(std::string_view type) {
    for (const TypeSize& t : kTypeSizes)
        if (t.name == type) return t.bytes;
    return 0;
}

std::string ParamInfo::describe() const {
    std::string out;
    if (explicit_align) out += fmt::format(".align {} ", align);
    if (vector > 1) out += fmt::format(".v{} ", vector);
    out += type;
    if (is_pointer) {
        out += " .ptr";
        if (!pointer_space.empty()) out += " " + pointer_space;
        if (pointer_align != 0) out += fmt::format(" .align {}", pointer_align);
    }
    if (!dims.empty()) {
        out += " ";
        for (uint64_t d : dims) out += fmt::format("[{}]", d);
    }
    return out;
}

std::string ModuleIndex::sm() const {
    for (const std::string& t : targets)
        if (starts_with(t, "sm_") || starts_with(t, "compute_")) return t;
    return "";
}

const EntryInfo* ModuleIndex::find_entry(std::string_view name) const {
    for (const EntryInfo& e : entries)
        if (e.name == name) return &e;
    return nullptr;
}

std::string ModuleIndex::version_text() const {
    return version ? fmt::format("{}.{}", version->first, version->second) : std::string();
}

Expected<ModuleIndex> index_module(std::string_view text, const IndexLimits& limits) {
    return Indexer(text, limits).run();
}

std::string_view IndexedModule::text() const { return strip_trailing_nuls(blob.text); }

Expected<std::vector<IndexedModule>> index_ptx_modules(std::span<const uint8_t> bytes,
                                                       const ContainerLimits& container_limits,
                                                       const IndexLimits& index_limits) {
    std::vector<PtxModuleBlob> blobs = D4R_TRY(find_ptx_modules(bytes, container_limits));
    std::vector<IndexedModule> modules;
    modules.reserve(blobs.size());
    for (size_t i = 0; i < blobs.size(); ++i) {
        IndexedModule m;
        m.number = i;
        m.blob = std::move(blobs[i]);
        m.hash = module_hash(m.blob.text);
        m.index = D4R_TRY_CTX(index_module(m.text(), index_limits), "module {} ({})", i, m.blob.origin);
        m.sm = !m.blob.sm.empty() ? m.blob.sm : m.index.sm();
        modules.push_back(std::move(m));
    }
    return modules;
}

Expected<PtxFile> index_ptx_file(const std::filesystem::path& path, const ContainerLimits& container_limits,
                                 const IndexLimits& index_limits) {
    if (is_dir(path)) return make_error(ErrorCode::Invalid, "{}: is a folder, not a file", path.string());
    std::vector<uint8_t> bytes = D4R_TRY(read_file(path, kMaxPtxFileBytes)); // its errors name the path
    PtxFile file;
    file.path = path;
    file.kind = detect_container(bytes);
    file.modules = D4R_TRY_CTX(index_ptx_modules(bytes, container_limits, index_limits), "{}", path.string());
    return file;
}

} // namespace d4r::ptx
