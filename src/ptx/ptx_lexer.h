// d4r PTX toolkit: the PTX lexer, shared by the module index and (later) the full PTX parser.
//
// Promise: turns PTX text into a stream of tokens, each a view into the text with its line and column.
// Comments (`//`, `/* */`) and whitespace (CRLF included) are skipped. Linear in the input, no
// allocation per token, never reads outside the text. A malformed input (unterminated string or
// comment, a byte that cannot start a token, a malformed number) yields one Error token and an Error
// naming the line; the lexer then stays at that token.
//
// Token shapes (PTX ISA "Syntax" chapter, with one convenience for parsers):
//   Identifier  foo  _Z3fooPf  $L__BB0_1  %r1  and dotted names kept whole: %tid.x  ld.global.nc.u32
//               (an instruction with its modifiers is one token; split_dotted() takes it apart)
//   Directive   .entry  .u32  .align   ('.' and a name, no further dots: `.v4.b32` is two tokens)
//   Integer     42  0x2A  017  0b101  42U
//   Float       1.5  1e-3  .5  0f3F800000 (8 hex digits: f32 bits)  0d3FF0000000000000 (16: f64 bits)
//   String      "text with \"escapes\""  (text includes the quotes)
//   Punct       , ; : ( ) [ ] { } < > = + - * / % @ ! ~ & | ^ ? .  and  << >> <= >= == != && ||
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace d4r::ptx {

enum class TokenKind : uint8_t { End, Error, Identifier, Directive, Integer, Float, String, Punct };
const char* token_kind_name(TokenKind kind);

struct Token {
    TokenKind kind = TokenKind::End;
    std::string_view text; // a view into the lexed text (empty for End)
    uint32_t line = 0;     // 1-based
    uint32_t column = 0;   // 1-based, in bytes

    bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
    bool is_punct(std::string_view t) const { return is(TokenKind::Punct, t); }
    bool is_directive(std::string_view t) const { return is(TokenKind::Directive, t); }
};

// How a token reads in an error message: 'text', or "end of input".
std::string describe_token(const Token& token);

class Lexer {
public:
    explicit Lexer(std::string_view text) : m_text(text) {}

    // The next token; End at the end of the text (and forever after), Error on malformed input (and
    // forever after: see error()).
    Token next();

    // Set once next() has returned an Error token: "line 7: unterminated string".
    const std::optional<Error>& error() const { return m_error; }

private:
    Token fail(uint32_t line, uint32_t column, size_t start, std::string message);
    bool skip_space_and_comments(); // false on an unterminated comment (error set)
    Token lex_number(size_t start, uint32_t column);
    void advance_line();

    std::string_view m_text;
    size_t m_pos = 0;
    uint32_t m_line = 1;
    size_t m_line_start = 0;
    std::optional<Error> m_error;
    Token m_error_token;
};

// A token stream with a few tokens of lookahead, for recursive-descent parsers.
class TokenStream {
public:
    static constexpr size_t kMaxLookahead = 4;

    explicit TokenStream(std::string_view text) : m_lexer(text) {}

    // The token N places ahead (0 = the next one); N < kMaxLookahead. The reference lives in the
    // lookahead buffer: copy the token to keep it across further next()/peek() calls.
    const Token& peek(size_t n = 0);
    Token next();
    // Consumes the next token when it is the punctuation / directive TEXT.
    bool accept_punct(std::string_view text);
    bool accept_directive(std::string_view text);

    const std::optional<Error>& lexer_error() const { return m_lexer.error(); }

private:
    void fill(size_t count);

    Lexer m_lexer;
    Token m_buffer[kMaxLookahead];
    size_t m_head = 0;  // index of the next token in m_buffer
    size_t m_count = 0; // tokens buffered
};

// Lexes all of TEXT; an error if the text is malformed or yields more than MAX_TOKENS tokens.
Expected<std::vector<Token>> tokenize(std::string_view text, size_t max_tokens = SIZE_MAX);

// "ld.global.nc.u32" -> {"ld", "global", "nc", "u32"}; "%tid.x" -> {"%tid", "x"}.
std::vector<std::string_view> split_dotted(std::string_view identifier);

// The value of an Integer token's text (decimal, 0x hex, 0b binary, 0-prefixed octal, optional U
// suffix); nullopt when malformed or above 2^64-1.
std::optional<uint64_t> parse_integer_literal(std::string_view text);

struct FloatLiteral {
    double value = 0;
    unsigned hex_bits = 0; // 32 for 0f…, 64 for 0d…, 0 for a decimal literal
    uint64_t bits = 0;     // the raw bits of a 0f/0d literal (exact, NaN payloads included)
};
// The value of a Float token's text; nullopt when malformed.
std::optional<FloatLiteral> parse_float_literal(std::string_view text);

} // namespace d4r::ptx
