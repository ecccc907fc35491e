// The PTX parser: recursive descent over the shared token stream. Module scope (functions,
// variables, skipped directives), function signatures, bodies (declarations, labels, nested blocks,
// instructions) and operands. Instruction names are not interpreted here.
#include "ptx/parser.h"

#include <fmt/format.h>

#include "ptx/ptx_lexer.h"

namespace d4r::ptx {

namespace {

using ptx::Token;
using ptx::TokenKind;

bool is_state_space(std::string_view d) {
    return d == ".global" || d == ".const" || d == ".shared" || d == ".local" || d == ".param" || d == ".reg" ||
           d == ".sreg" || d == ".tex";
}

bool is_linkage(std::string_view d) { return d == ".visible" || d == ".extern" || d == ".weak" || d == ".common"; }

// Operands ({a, b}, (a, b), [tex, {x, y}]) and initializers ({{1, 2}, {3, 4}}) nest, and each level is
// one recursive call here (and later in the decoder and in the tree's destructor). Real PTX nests a
// few levels (a texture coordinate vector inside an address; one brace per array dimension); the
// bound keeps hostile input from overflowing a game thread's small stack (256 KiB is common): a
// level costs well under 1 KiB of stack (a few KiB under ASan), so 32 levels stay far inside it.
constexpr unsigned kMaxNesting = 32;

class Parser {
public:
    Parser(std::string_view text, std::string_view name) : m_ts(text), m_name(name) {}

    Expected<ast::Module> run() {
        for (;;) {
            const Token& t = m_ts.peek();
            if (t.kind == TokenKind::End) break;
            if (t.kind == TokenKind::Error) return lexer_error();
            D4R_TRY(module_statement());
        }
        return std::move(m_module);
    }

private:
    Error error_at(uint32_t line, std::string message) const {
        return Error(ErrorCode::Invalid, fmt::format("{}:{}: {}", m_name, line, message));
    }
    Error lexer_error() const {
        const auto& e = m_ts.lexer_error();
        return Error(ErrorCode::Invalid, fmt::format("{}: {}", m_name, e ? e->message() : "malformed input"));
    }
    Error expected(const Token& t, std::string_view what) const {
        if (t.kind == TokenKind::Error) return lexer_error();
        return error_at(t.line, fmt::format("expected {}, found {}", what, ptx::describe_token(t)));
    }

    // Counts one level of operand or initializer nesting for as long as it lives.
    class NestingGuard {
    public:
        explicit NestingGuard(unsigned& depth) : m_depth(depth) { ++m_depth; }
        ~NestingGuard() { --m_depth; }
        NestingGuard(const NestingGuard&) = delete;
        NestingGuard& operator=(const NestingGuard&) = delete;

    private:
        unsigned& m_depth;
    };
    Status check_nesting(const Token& open, std::string_view what) const {
        if (m_nesting < kMaxNesting) return ok_status();
        return error_at(open.line, fmt::format("{} nested more than {} levels deep", what, kMaxNesting));
    }

    Status expect_punct(std::string_view p, std::string_view what) {
        Token t = m_ts.next();
        if (!t.is_punct(p)) return expected(t, what);
        return ok_status();
    }

    // Skips tokens up to and including the next ';' at brace depth 0.
    Status skip_statement() {
        uint64_t depth = 0;
        for (;;) {
            Token t = m_ts.next();
            if (t.kind == TokenKind::End) return ok_status();
            if (t.kind == TokenKind::Error) return lexer_error();
            if (t.is_punct("{"))
                ++depth;
            else if (t.is_punct("}") && depth > 0)
                --depth;
            else if (t.is_punct(";") && depth == 0)
                return ok_status();
        }
    }

    // Skips the rest of the line of LINE (for .loc / .file, which have no terminator).
    Status skip_line(uint32_t line) {
        for (;;) {
            const Token& t = m_ts.peek();
            if (t.kind == TokenKind::Error) return lexer_error();
            if (t.kind == TokenKind::End || t.line != line) return ok_status();
            m_ts.next();
        }
    }

    // After '{': skips to the matching '}'.
    Status skip_braces(uint32_t open_line) {
        uint64_t depth = 1;
        for (;;) {
            Token t = m_ts.next();
            if (t.kind == TokenKind::End) return error_at(open_line, "'{' is never closed");
            if (t.kind == TokenKind::Error) return lexer_error();
            if (t.is_punct("{"))
                ++depth;
            else if (t.is_punct("}") && --depth == 0)
                return ok_status();
        }
    }

    Status module_statement() {
        Token t = m_ts.next();
        if (t.is_directive(".version") || t.is_directive(".target") || t.is_directive(".file") ||
            t.is_directive(".loc")) {
            return skip_line(t.line);
        }
        if (t.is_directive(".address_size")) {
            Token n = m_ts.next();
            auto v = ptx::parse_integer_literal(n.text);
            if (n.kind != TokenKind::Integer || !v || (*v != 32 && *v != 64)) return expected(n, "32 or 64");
            m_module.address_size = static_cast<uint32_t>(*v);
            return ok_status();
        }
        if (t.is_directive(".section")) {
            // .section .debug_info { ... }
            for (;;) {
                Token s = m_ts.next();
                if (s.is_punct("{")) return skip_braces(s.line);
                if (s.kind == TokenKind::End || s.kind == TokenKind::Error) return expected(s, "'{' after .section");
            }
        }
        if (t.is_directive(".pragma") || t.is_directive(".alias")) return skip_statement();
        bool is_extern = false;
        while (t.kind == TokenKind::Directive && is_linkage(t.text)) {
            if (t.text == ".extern") is_extern = true;
            t = m_ts.next();
        }
        if (t.is_directive(".entry") || t.is_directive(".func")) return function(t, t.text == ".entry");
        if (t.kind == TokenKind::Directive && is_state_space(t.text)) {
            std::vector<ast::Variable> vars = D4R_TRY(declaration(t, is_extern));
            for (auto& v : vars) m_module.variables.push_back(std::move(v));
            return ok_status();
        }
        return expected(t, "a module-scope directive (.entry, .func, .global, .const, .shared, ...)");
    }

    // Attributes and type of a declaration: .align N, .vN, .ptr (+ space / .align), the type.
    Expected<ast::TypeSpec> type_spec(std::string_view what) {
        ast::TypeSpec spec;
        bool after_ptr = false;
        for (;;) {
            const Token& t = m_ts.peek();
            if (t.kind != TokenKind::Directive) break;
            Token d = m_ts.next();
            if (d.text == ".align") {
                Token n = m_ts.next();
                auto v = ptx::parse_integer_literal(n.text);
                if (n.kind != TokenKind::Integer || !v || *v == 0 || (*v & (*v - 1)) != 0 || *v > (1u << 20))
                    return expected(n, "a power-of-two alignment after .align");
                if (!after_ptr) spec.align = *v;
            } else if (d.text == ".v2" || d.text == ".v4" || d.text == ".v8") {
                spec.vector = static_cast<unsigned>(d.text[2] - '0');
            } else if (d.text == ".ptr") {
                after_ptr = true;
            } else if (after_ptr && is_state_space(d.text)) {
                // .ptr .global: where the pointer points
            } else if (d.text == ".attribute") {
                Token open = m_ts.next();
                if (!open.is_punct("(")) return expected(open, "'(' after .attribute");
                D4R_TRY(skip_parens(open.line));
            } else {
                if (!spec.type.empty())
                    return error_at(d.line, fmt::format("two types in {}: {} and {}", what, spec.type, d.text));
                spec.type = d.text;
            }
        }
        return spec;
    }

    Status skip_parens(uint32_t line) {
        uint64_t depth = 1;
        for (;;) {
            Token t = m_ts.next();
            if (t.kind == TokenKind::End) return error_at(line, "'(' is never closed");
            if (t.kind == TokenKind::Error) return lexer_error();
            if (t.is_punct("("))
                ++depth;
            else if (t.is_punct(")") && --depth == 0)
                return ok_status();
        }
    }

    Expected<uint64_t> integer(std::string_view what) {
        Token n = m_ts.next();
        auto v = ptx::parse_integer_literal(n.text);
        if (n.kind != TokenKind::Integer || !v) return expected(n, what);
        return *v;
    }

    // [dims] after a name: [N], [] (unsized), repeated.
    Status dims(ast::Variable& v) {
        while (m_ts.accept_punct("[")) {
            if (m_ts.accept_punct("]")) {
                v.dims.push_back(0);
                continue;
            }
            uint64_t n = D4R_TRY(integer("an array size"));
            v.dims.push_back(n);
            D4R_TRY(expect_punct("]", "']' after array size"));
        }
        return ok_status();
    }

    // One initializer item (number, symbol, generic(symbol)+offset) or a nested {...}, flattened.
    Status initializer(std::vector<ast::Initializer>& out) {
        if (m_ts.peek().is_punct("{")) {
            D4R_TRY(check_nesting(m_ts.peek(), "initializer braces"));
            NestingGuard level(m_nesting);
            m_ts.next();
            if (m_ts.accept_punct("}")) return ok_status();
            for (;;) {
                D4R_TRY(initializer(out));
                Token t = m_ts.next();
                if (t.is_punct("}")) return ok_status();
                if (!t.is_punct(",")) return expected(t, "',' or '}' in an initializer");
            }
        }
        ast::Initializer item;
        bool negative = m_ts.accept_punct("-");
        Token t = m_ts.next();
        if (t.kind == TokenKind::Integer) {
            auto v = ptx::parse_integer_literal(t.text);
            if (!v) return expected(t, "an integer");
            item.kind = ast::Initializer::Kind::Integer;
            item.integer = negative ? (0 - *v) : *v;
        } else if (t.kind == TokenKind::Float) {
            auto f = ptx::parse_float_literal(t.text);
            if (!f) return expected(t, "a number");
            item.kind = ast::Initializer::Kind::Float;
            item.real = negative ? -f->value : f->value;
            item.float_bits = f->hex_bits;
            item.raw_bits = f->bits;
            if (negative && f->hex_bits == 32) item.raw_bits ^= 0x80000000ull;
            if (negative && f->hex_bits == 64) item.raw_bits ^= 0x8000000000000000ull;
        } else if (t.kind == TokenKind::Identifier && !negative) {
            item.kind = ast::Initializer::Kind::Symbol;
            if (t.text == "generic" && m_ts.peek().is_punct("(")) {
                m_ts.next();
                Token s = m_ts.next();
                if (s.kind != TokenKind::Identifier) return expected(s, "a symbol in generic()");
                item.symbol = s.text;
                D4R_TRY(expect_punct(")", "')' after generic(symbol"));
            } else {
                item.symbol = t.text;
            }
            if (m_ts.peek().is_punct("+")) {
                m_ts.next();
                item.offset = static_cast<int64_t>(D4R_TRY(integer("an offset after '+'")));
            }
        } else {
            return expected(t, "an initializer value");
        }
        out.push_back(item);
        return ok_status();
    }

    // A declaration statement whose space directive SPACE was consumed: one or more names, ';'.
    Expected<std::vector<ast::Variable>> declaration(const Token& space, bool is_extern) {
        ast::TypeSpec spec = D4R_TRY(type_spec(fmt::format("a {} declaration", space.text)));
        if (spec.type.empty()) return error_at(space.line, fmt::format("{} declaration without a type", space.text));
        std::vector<ast::Variable> out;
        for (;;) {
            Token name = m_ts.next();
            if (name.kind != TokenKind::Identifier) return expected(name, "a name in a declaration");
            ast::Variable v;
            v.space = space.text;
            v.type = spec;
            v.name = name.text;
            v.line = name.line;
            v.is_extern = is_extern;
            if (m_ts.accept_punct("<")) {
                v.range = static_cast<int64_t>(D4R_TRY(integer("a count after '<'")));
                D4R_TRY(expect_punct(">", "'>' after a register count"));
            }
            D4R_TRY(dims(v));
            if (m_ts.accept_punct("=")) {
                v.has_init = true;
                D4R_TRY(initializer(v.init));
            }
            out.push_back(std::move(v));
            Token t = m_ts.next();
            if (t.is_punct(",")) continue;
            if (t.is_punct(";")) return out;
            return expected(t, "',' or ';' after a declaration");
        }
    }

    // A parameter in a signature (.param ... name[dims], or .reg ... name for old-style functions).
    Expected<ast::Variable> parameter() {
        Token space = m_ts.next();
        if (!space.is_directive(".param") && !space.is_directive(".reg")) return expected(space, "'.param'");
        ast::TypeSpec spec = D4R_TRY(type_spec("a parameter"));
        if (spec.type.empty()) return error_at(space.line, "parameter without a type");
        Token name = m_ts.next();
        if (name.kind != TokenKind::Identifier) return expected(name, "a parameter name");
        ast::Variable v;
        v.space = space.text;
        v.type = spec;
        v.name = name.text;
        v.line = name.line;
        D4R_TRY(dims(v));
        return v;
    }

    Status parameter_list(std::vector<ast::Variable>& out) {
        if (m_ts.accept_punct(")")) return ok_status();
        for (;;) {
            out.push_back(D4R_TRY(parameter()));
            Token t = m_ts.next();
            if (t.is_punct(")")) return ok_status();
            if (!t.is_punct(",")) return expected(t, "',' or ')' in a parameter list");
        }
    }

    Status function(const Token& keyword, bool is_entry) {
        ast::Function f;
        f.is_entry = is_entry;
        f.line = keyword.line;
        while (m_ts.peek().is_directive(".attribute")) {
            m_ts.next();
            Token open = m_ts.next();
            if (!open.is_punct("(")) return expected(open, "'(' after .attribute");
            D4R_TRY(skip_parens(open.line));
        }
        if (!is_entry && m_ts.accept_punct("(")) D4R_TRY(parameter_list(f.returns));
        Token name = m_ts.next();
        if (name.kind != TokenKind::Identifier) return expected(name, "a function name");
        f.name = name.text;
        if (m_ts.accept_punct("(")) D4R_TRY(parameter_list(f.params));
        for (;;) {
            Token t = m_ts.next();
            if (t.is_punct(";")) break; // a prototype
            if (t.is_punct("{")) {
                f.defined = true;
                D4R_TRY(body(f, t.line));
                break;
            }
            if (t.kind == TokenKind::Directive || t.kind == TokenKind::Integer || t.kind == TokenKind::String ||
                t.is_punct(",")) {
                continue; // .maxntid 256, 1, 1  .reqntid  .minnctapersm  .noreturn  .pragma "..."
            }
            if (t.is_punct("(")) {
                D4R_TRY(skip_parens(t.line));
                continue;
            }
            return expected(t, fmt::format("'{{' or ';' after function '{}'", f.name));
        }
        m_module.functions.push_back(std::move(f));
        return ok_status();
    }

    // After the function's '{': statements up to the matching '}'.
    Status body(ast::Function& f, uint32_t open_line) {
        uint32_t depth = 1;
        for (;;) {
            const Token& t = m_ts.peek();
            if (t.kind == TokenKind::End)
                return error_at(open_line, fmt::format("body of '{}' is never closed", f.name));
            if (t.kind == TokenKind::Error) return lexer_error();
            if (t.is_punct("}")) {
                m_ts.next();
                if (--depth == 0) return ok_status();
                f.body.push_back({ast::Statement::Kind::BlockClose, 0});
                continue;
            }
            if (t.is_punct("{")) {
                m_ts.next();
                ++depth;
                f.body.push_back({ast::Statement::Kind::BlockOpen, 0});
                continue;
            }
            if (t.kind == TokenKind::Directive) {
                Token d = m_ts.next();
                if (d.text == ".loc" || d.text == ".file") {
                    D4R_TRY(skip_line(d.line));
                } else if (d.text == ".pragma") {
                    D4R_TRY(skip_statement());
                } else if (is_state_space(d.text)) {
                    std::vector<ast::Variable> vars = D4R_TRY(declaration(d, false));
                    for (auto& v : vars) {
                        f.body.push_back(
                            {ast::Statement::Kind::Declaration, static_cast<uint32_t>(f.declarations.size())});
                        f.declarations.push_back(std::move(v));
                    }
                } else {
                    return error_at(d.line,
                                    fmt::format("unsupported directive '{}' in the body of '{}'", d.text, f.name));
                }
                continue;
            }
            if (t.kind == TokenKind::Identifier && m_ts.peek(1).is_punct(":") && !adjacent_colons(1)) {
                Token name = m_ts.next();
                m_ts.next();
                if (m_ts.peek().is_directive(".callprototype")) { // prototype_0 : .callprototype (...) _ (...);
                    D4R_TRY(skip_statement());
                    continue;
                }
                if (m_ts.accept_directive(".branchtargets")) { // table: .branchtargets L0, L1;
                    ast::BranchTable table{name.text, {}, name.line};
                    for (;;) {
                        Token l = m_ts.next();
                        if (l.kind != TokenKind::Identifier) return expected(l, "a label in .branchtargets");
                        table.labels.push_back(l.text);
                        Token sep = m_ts.next();
                        if (sep.is_punct(";")) break;
                        if (!sep.is_punct(",")) return expected(sep, "',' or ';' in .branchtargets");
                    }
                    f.tables.push_back(std::move(table));
                    continue;
                }
                f.body.push_back({ast::Statement::Kind::Label, static_cast<uint32_t>(f.labels.size())});
                f.labels.push_back({name.text, name.line});
                continue;
            }
            ast::Instruction in = D4R_TRY(instruction());
            f.body.push_back({ast::Statement::Kind::Instruction, static_cast<uint32_t>(f.instructions.size())});
            f.instructions.push_back(std::move(in));
        }
    }

    // True when peek(n) and peek(n+1) are two ':' with nothing between them ("::").
    bool adjacent_colons(size_t n) {
        const Token& a = m_ts.peek(n);
        const Token& b = m_ts.peek(n + 1);
        return a.is_punct(":") && b.is_punct(":") && a.text.data() + 1 == b.text.data();
    }

    Expected<ast::Instruction> instruction() {
        ast::Instruction in;
        const char* start = nullptr;
        if (m_ts.peek().is_punct("@")) {
            Token at = m_ts.next();
            in.guard_negated = m_ts.accept_punct("!");
            Token p = m_ts.next();
            if (p.kind != TokenKind::Identifier) return expected(p, "a predicate after '@'");
            in.guard = p.text;
            (void)at;
        }
        Token op = m_ts.next();
        if (op.kind != TokenKind::Identifier) return expected(op, "an instruction");
        start = op.text.data();
        const char* end = op.text.data() + op.text.size();
        // Glue "ld.global.L1::evict_last.u32": the lexer splits at ':'.
        while (adjacent_colons(0) && m_ts.peek(0).text.data() == end) {
            Token c1 = m_ts.next();
            Token c2 = m_ts.next();
            end = c2.text.data() + 1;
            const Token& rest = m_ts.peek();
            if (rest.kind == TokenKind::Identifier && rest.text.data() == end) {
                Token r = m_ts.next();
                end = r.text.data() + r.text.size();
            }
            (void)c1;
        }
        in.opcode = std::string_view(start, static_cast<size_t>(end - start));
        in.line = op.line;
        const char* last = end;
        if (!m_ts.peek().is_punct(";")) {
            for (;;) {
                ast::Operand o = D4R_TRY(operand(last));
                in.operands.push_back(std::move(o));
                Token t = m_ts.next();
                if (t.is_punct(";")) break;
                if (!t.is_punct(",")) {
                    return expected(t, fmt::format("',' or ';' in instruction '{}'",
                                                   std::string_view(start, static_cast<size_t>(last - start))));
                }
            }
        } else {
            m_ts.next();
        }
        in.text = std::string_view(start, static_cast<size_t>(last - start));
        return in;
    }

    // Consumes a token, extending LAST (the end of the instruction text) past it.
    Token take(const char*& last) {
        Token t = m_ts.next();
        if (t.kind != TokenKind::End && t.kind != TokenKind::Error) last = t.text.data() + t.text.size();
        return t;
    }

    Expected<ast::Operand> number(const char*& last, bool negative) {
        ast::Operand o;
        Token t = take(last);
        if (t.kind == TokenKind::Integer) {
            auto v = ptx::parse_integer_literal(t.text);
            if (!v) return expected(t, "an integer");
            o.kind = ast::OperandKind::Integer;
            o.integer = negative ? (0 - *v) : *v;
            return o;
        }
        if (t.kind == TokenKind::Float) {
            auto f = ptx::parse_float_literal(t.text);
            if (!f) return expected(t, "a number");
            o.kind = ast::OperandKind::Float;
            o.real = negative ? -f->value : f->value;
            o.float_bits = f->hex_bits;
            o.raw_bits = f->bits;
            if (negative) o.raw_bits ^= f->hex_bits == 32 ? 0x80000000ull : 0x8000000000000000ull;
            return o;
        }
        return expected(t, "a number");
    }

    Expected<ast::Operand> operand(const char*& last) {
        const Token& t = m_ts.peek();
        if (t.is_punct("[") || t.is_punct("{") || t.is_punct("(")) D4R_TRY(check_nesting(t, "operand brackets"));
        NestingGuard level(m_nesting);
        ast::Operand o;
        if (t.is_punct("!")) {
            take(last);
            Token n = take(last);
            if (n.kind != TokenKind::Identifier) return expected(n, "a predicate after '!'");
            o.name = n.text;
            o.negated = true;
            return o;
        }
        if (t.is_punct("-")) {
            take(last);
            return number(last, true);
        }
        if (t.kind == TokenKind::Integer || t.kind == TokenKind::Float) return number(last, false);
        if (t.is_punct("[")) {
            take(last);
            o.kind = ast::OperandKind::Address;
            const Token& b = m_ts.peek();
            if (b.kind == TokenKind::Identifier) {
                o.name = take(last).text;
                if (m_ts.peek().is_punct("+") || m_ts.peek().is_punct("-")) {
                    bool minus = take(last).is_punct("-");
                    if (m_ts.peek().is_punct("-")) {
                        take(last);
                        minus = !minus;
                    }
                    Token n = take(last);
                    auto v = ptx::parse_integer_literal(n.text);
                    if (n.kind != TokenKind::Integer || !v) return expected(n, "an address offset");
                    o.offset = minus ? -static_cast<int64_t>(*v) : static_cast<int64_t>(*v);
                }
            } else {
                bool minus = false;
                if (m_ts.peek().is_punct("-")) {
                    take(last);
                    minus = true;
                }
                Token n = take(last);
                auto v = ptx::parse_integer_literal(n.text);
                if (n.kind != TokenKind::Integer || !v) return expected(n, "a register, symbol or address in '[...]'");
                o.offset = minus ? -static_cast<int64_t>(*v) : static_cast<int64_t>(*v);
            }
            // [tex, {x, y}] / [surf, {x, y}]: texture and surface operands carry more elements.
            while (m_ts.peek().is_punct(",")) {
                take(last);
                o.elements.push_back(D4R_TRY(operand(last)));
            }
            Token close = take(last);
            if (!close.is_punct("]")) return expected(close, "']' after an address");
            return o;
        }
        if (t.is_punct("{") || t.is_punct("(")) {
            bool brace = t.is_punct("{");
            take(last);
            o.kind = brace ? ast::OperandKind::Vector : ast::OperandKind::List;
            const char* close_text = brace ? "}" : ")";
            if (m_ts.peek().is_punct(close_text)) {
                take(last);
                return o;
            }
            for (;;) {
                o.elements.push_back(D4R_TRY(operand(last)));
                Token c = take(last);
                if (c.is_punct(close_text)) return o;
                if (!c.is_punct(",")) return expected(c, fmt::format("',' or '{}'", close_text));
            }
        }
        if (t.kind == TokenKind::Identifier) {
            o.name = take(last).text;
            if (m_ts.peek().is_punct("|")) {
                take(last);
                Token n = take(last);
                if (n.kind != TokenKind::Identifier) return expected(n, "a predicate after '|'");
                o.kind = ast::OperandKind::Pair;
                o.name2 = n.text;
            } else if (m_ts.peek().is_punct("+") && m_ts.peek(1).kind == TokenKind::Integer) {
                take(last); // symbol+offset outside brackets (mov.u64 %rd, array+8)
                Token n = take(last);
                auto v = ptx::parse_integer_literal(n.text);
                if (!v) return expected(n, "an offset");
                o.offset = static_cast<int64_t>(*v);
            }
            return o;
        }
        Token bad = m_ts.next();
        return expected(bad, "an operand");
    }

    ptx::TokenStream m_ts;
    std::string_view m_name;
    ast::Module m_module;
    unsigned m_nesting = 0; // operand / initializer levels open now (kMaxNesting)
};

} // namespace

Expected<ast::Module> parse_module(std::string_view text, std::string_view name) { return Parser(text, name).run(); }

} // namespace d4r::ptx
