#include "ptx/ptx_lexer.h"

#include <bit>
#include <charconv>
#include <cstring>

namespace d4r::ptx {

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// PTX "followsym": the characters that may continue an identifier.
bool is_follow(char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

int hex_value(char c) {
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return c - 'A' + 10;
}

// A short, printable rendering of untrusted text for error messages.
std::string printable(std::string_view text, size_t max_chars = 40) {
    std::string out;
    for (size_t i = 0; i < text.size() && i < max_chars; ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f)
            out += static_cast<char>(c);
        else
            out += fmt::format("\\x{:02x}", c);
    }
    if (text.size() > max_chars) out += "...";
    return out;
}

constexpr std::string_view kTwoCharPuncts[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
constexpr std::string_view kOneCharPuncts = ",;:()[]{}<>=+-*/%@!~&|^?.";

} // namespace

const char* token_kind_name(TokenKind kind) {
    switch (kind) {
    case TokenKind::End:
        return "end of input";
    case TokenKind::Error:
        return "error";
    case TokenKind::Identifier:
        return "identifier";
    case TokenKind::Directive:
        return "directive";
    case TokenKind::Integer:
        return "integer";
    case TokenKind::Float:
        return "float";
    case TokenKind::String:
        return "string";
    case TokenKind::Punct:
        return "punctuation";
    }
    return "token";
}

std::string describe_token(const Token& token) {
    if (token.kind == TokenKind::End) return "end of input";
    return "'" + printable(token.text) + "'";
}

void Lexer::advance_line() {
    if (m_line < UINT32_MAX) ++m_line;
    m_line_start = m_pos;
}

Token Lexer::fail(uint32_t line, uint32_t column, size_t start, std::string message) {
    m_error = Error(ErrorCode::Invalid, fmt::format("line {}: {}", line, message));
    size_t end = std::min(m_text.size(), std::max(start + 1, m_pos));
    m_error_token =
        Token{TokenKind::Error, m_text.substr(std::min(start, m_text.size()), end - std::min(start, m_text.size())),
              line, column};
    return m_error_token;
}

bool Lexer::skip_space_and_comments() {
    const size_t n = m_text.size();
    while (m_pos < n) {
        char c = m_text[m_pos];
        if (c == '\n') {
            ++m_pos;
            advance_line();
        } else if (is_space(c)) {
            ++m_pos;
        } else if (c == '/' && m_pos + 1 < n && m_text[m_pos + 1] == '/') {
            size_t end = m_text.find('\n', m_pos);
            m_pos = end == std::string_view::npos ? n : end;
        } else if (c == '/' && m_pos + 1 < n && m_text[m_pos + 1] == '*') {
            uint32_t open_line = m_line;
            uint32_t open_column = static_cast<uint32_t>(m_pos - m_line_start + 1);
            size_t open = m_pos;
            m_pos += 2;
            for (;;) {
                if (m_pos + 1 >= n) {
                    m_pos = n;
                    fail(open_line, open_column, open, "unterminated comment: '/*' is never closed");
                    return false;
                }
                if (m_text[m_pos] == '*' && m_text[m_pos + 1] == '/') {
                    m_pos += 2;
                    break;
                }
                if (m_text[m_pos] == '\n') {
                    ++m_pos;
                    advance_line();
                } else {
                    ++m_pos;
                }
            }
        } else {
            break;
        }
    }
    return true;
}

Token Lexer::lex_number(size_t start, uint32_t column) {
    const size_t n = m_text.size();
    size_t p = start;
    auto at = [&](size_t i) { return i < n ? m_text[i] : '\0'; };
    TokenKind kind = TokenKind::Integer;
    auto finish = [&](size_t end) -> Token {
        // A number must not run into a name: "12ab" or "0x1G" is one malformed word, not two tokens.
        if (is_follow(at(end))) {
            size_t junk = end;
            while (is_follow(at(junk))) ++junk;
            m_pos = junk;
            return fail(m_line, column, start,
                        fmt::format("malformed number '{}'", printable(m_text.substr(start, junk - start))));
        }
        m_pos = end;
        return Token{kind, m_text.substr(start, end - start), m_line, column};
    };

    if (at(p) == '0' && (at(p + 1) == 'f' || at(p + 1) == 'F' || at(p + 1) == 'd' || at(p + 1) == 'D')) {
        size_t want = (at(p + 1) == 'f' || at(p + 1) == 'F') ? 8 : 16;
        size_t q = p + 2;
        while (is_hex_digit(at(q))) ++q;
        if (q - (p + 2) != want || is_follow(at(q))) {
            while (is_follow(at(q))) ++q;
            m_pos = q;
            return fail(m_line, column, start,
                        fmt::format("malformed hex float '{}': 0{} takes exactly {} hex digits",
                                    printable(m_text.substr(start, q - start)), at(p + 1), want));
        }
        kind = TokenKind::Float;
        return finish(q);
    }
    if (at(p) == '0' && (at(p + 1) == 'x' || at(p + 1) == 'X')) {
        size_t q = p + 2;
        while (is_hex_digit(at(q))) ++q;
        if (q == p + 2) return finish(p + 1); // "0x" alone: reported as malformed by finish
        if (at(q) == 'U') ++q;
        return finish(q);
    }
    if (at(p) == '0' && (at(p + 1) == 'b' || at(p + 1) == 'B')) {
        size_t q = p + 2;
        while (at(q) == '0' || at(q) == '1') ++q;
        if (q == p + 2) return finish(p + 1);
        if (at(q) == 'U') ++q;
        return finish(q);
    }

    size_t q = p;
    while (is_digit(at(q))) ++q;
    bool is_float = false;
    if (at(q) == '.') {
        // "1.5", "1.", "1.e3" are floats; the dot must not start a directive or a dotted name.
        char after = at(q + 1);
        bool exponent_follows =
            (after == 'e' || after == 'E') &&
            (is_digit(at(q + 2)) || ((at(q + 2) == '+' || at(q + 2) == '-') && is_digit(at(q + 3))));
        if (is_digit(after) || exponent_follows || !(is_follow(after) || after == '.')) {
            is_float = true;
            ++q;
            while (is_digit(at(q))) ++q;
        }
    }
    if (at(q) == 'e' || at(q) == 'E') {
        size_t e = q + 1;
        if (at(e) == '+' || at(e) == '-') ++e;
        if (is_digit(at(e))) {
            while (is_digit(at(e))) ++e;
            q = e;
            is_float = true;
        }
    }
    if (is_float) {
        kind = TokenKind::Float;
    } else if (at(q) == 'U') {
        ++q;
    }
    return finish(q);
}

Token Lexer::next() {
    if (m_error) return m_error_token;
    if (!skip_space_and_comments()) return m_error_token;
    const size_t n = m_text.size();
    if (m_pos >= n)
        return Token{TokenKind::End, m_text.substr(n, 0), m_line, static_cast<uint32_t>(m_pos - m_line_start + 1)};

    const size_t start = m_pos;
    const uint32_t column = static_cast<uint32_t>(std::min<size_t>(m_pos - m_line_start + 1, UINT32_MAX));
    const char c = m_text[start];
    auto at = [&](size_t i) { return i < n ? m_text[i] : '\0'; };

    // Identifiers: [a-zA-Z]{follow}* | [_$%]{follow}*, then (.{follow}+)* for dotted names. Right after "::" a
    // qualifier may start with a digit (`cp.async.cg.shared.global.L2::128B`, `.L2::256B`): a name, not a number.
    const bool qualifier = is_digit(c) && start >= 2 && m_text[start - 1] == ':' && m_text[start - 2] == ':';
    if (is_alpha(c) || c == '_' || c == '$' || (c == '%' && is_follow(at(start + 1))) || qualifier) {
        size_t p = start + 1;
        while (is_follow(at(p))) ++p;
        while (at(p) == '.' && is_follow(at(p + 1))) {
            p += 2;
            while (is_follow(at(p))) ++p;
        }
        m_pos = p;
        return Token{TokenKind::Identifier, m_text.substr(start, p - start), m_line, column};
    }
    if (c == '.' && is_digit(at(start + 1))) return lex_number(start, column);
    if (c == '.' && is_follow(at(start + 1))) {
        size_t p = start + 1;
        while (is_follow(at(p))) ++p;
        m_pos = p;
        return Token{TokenKind::Directive, m_text.substr(start, p - start), m_line, column};
    }
    if (is_digit(c)) return lex_number(start, column);
    if (c == '"') {
        size_t p = start + 1;
        for (;;) {
            char s = at(p);
            if (p >= n || s == '\n') {
                m_pos = p;
                return fail(m_line, column, start, "unterminated string: missing closing '\"'");
            }
            if (s == '\\') {
                if (p + 1 >= n || m_text[p + 1] == '\n') {
                    m_pos = p + 1;
                    return fail(m_line, column, start, "unterminated string: missing closing '\"'");
                }
                p += 2;
                continue;
            }
            ++p;
            if (s == '"') break;
        }
        m_pos = p;
        return Token{TokenKind::String, m_text.substr(start, p - start), m_line, column};
    }
    for (std::string_view two : kTwoCharPuncts) {
        if (m_text.substr(start, 2) == two) {
            m_pos = start + 2;
            return Token{TokenKind::Punct, m_text.substr(start, 2), m_line, column};
        }
    }
    if (kOneCharPuncts.find(c) != std::string_view::npos) {
        m_pos = start + 1;
        return Token{TokenKind::Punct, m_text.substr(start, 1), m_line, column};
    }
    m_pos = start + 1;
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x21 && u < 0x7f) return fail(m_line, column, start, fmt::format("unexpected character '{}'", c));
    return fail(m_line, column, start, fmt::format("unexpected byte 0x{:02x}", u));
}

void TokenStream::fill(size_t count) {
    while (m_count < count) {
        m_buffer[(m_head + m_count) % kMaxLookahead] = m_lexer.next();
        ++m_count;
    }
}

const Token& TokenStream::peek(size_t n) {
    if (n >= kMaxLookahead) n = kMaxLookahead - 1;
    fill(n + 1);
    return m_buffer[(m_head + n) % kMaxLookahead];
}

Token TokenStream::next() {
    fill(1);
    Token token = m_buffer[m_head];
    m_head = (m_head + 1) % kMaxLookahead;
    --m_count;
    return token;
}

bool TokenStream::accept_punct(std::string_view text) {
    if (!peek().is_punct(text)) return false;
    next();
    return true;
}

bool TokenStream::accept_directive(std::string_view text) {
    if (!peek().is_directive(text)) return false;
    next();
    return true;
}

Expected<std::vector<Token>> tokenize(std::string_view text, size_t max_tokens) {
    Lexer lexer(text);
    std::vector<Token> tokens;
    for (;;) {
        Token token = lexer.next();
        if (token.kind == TokenKind::Error) return *lexer.error();
        if (token.kind == TokenKind::End) break;
        if (tokens.size() >= max_tokens)
            return make_error(ErrorCode::Invalid, "line {}: more than {} tokens", token.line, max_tokens);
        tokens.push_back(token);
    }
    return tokens;
}

std::vector<std::string_view> split_dotted(std::string_view identifier) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (;;) {
        size_t dot = identifier.find('.', start);
        parts.push_back(identifier.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return parts;
}

std::optional<uint64_t> parse_integer_literal(std::string_view text) {
    if (!text.empty() && text.back() == 'U') text.remove_suffix(1);
    if (text.empty()) return std::nullopt;
    unsigned base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text.remove_prefix(2);
    } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
        base = 2;
        text.remove_prefix(2);
    } else if (text.size() > 1 && text[0] == '0') {
        base = 8;
        text.remove_prefix(1);
    }
    uint64_t value = 0;
    for (char c : text) {
        unsigned digit;
        if (is_digit(c))
            digit = static_cast<unsigned>(c - '0');
        else if (is_hex_digit(c))
            digit = static_cast<unsigned>(hex_value(c));
        else
            return std::nullopt;
        if (digit >= base) return std::nullopt;
        if (value > (UINT64_MAX - digit) / base) return std::nullopt;
        value = value * base + digit;
    }
    return value;
}

std::optional<FloatLiteral> parse_float_literal(std::string_view text) {
    FloatLiteral literal;
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
        bool single = text[1] == 'f' || text[1] == 'F';
        std::string_view digits = text.substr(2);
        if (digits.size() != (single ? 8u : 16u)) return std::nullopt;
        uint64_t bits = 0;
        for (char c : digits) {
            if (!is_hex_digit(c)) return std::nullopt;
            bits = (bits << 4) | static_cast<uint64_t>(hex_value(c));
        }
        literal.bits = bits;
        literal.hex_bits = single ? 32 : 64;
        literal.value = single ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)))
                               : std::bit_cast<double>(bits);
        return literal;
    }
    if (text.empty()) return std::nullopt;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, literal.value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return literal;
}

} // namespace d4r::ptx
