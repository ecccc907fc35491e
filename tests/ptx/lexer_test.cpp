// The PTX lexer: token shapes, comments, strings, CRLF, numbers and errors with line numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ptx/ptx_lexer.h"

namespace d4r::ptx {
namespace {

std::vector<Token> lex_ok(std::string_view text) {
    auto tokens = tokenize(text);
    EXPECT_TRUE(tokens.ok()) << (tokens.ok() ? "" : tokens.error().text());
    return tokens.ok() ? *tokens : std::vector<Token>{};
}

std::vector<std::string> texts(const std::vector<Token>& tokens) {
    std::vector<std::string> out;
    for (const Token& t : tokens) out.emplace_back(t.text);
    return out;
}

std::string lex_error(std::string_view text) {
    auto tokens = tokenize(text);
    EXPECT_FALSE(tokens.ok()) << "lexed without error: " << text;
    return tokens.ok() ? "" : tokens.error().text();
}

TEST(PtxLexer, KindsOfAnEntryHeader) {
    auto tokens = lex_ok(".visible .entry _Z3fooPf(.param .u64 p)\n{ ret; }");
    std::vector<TokenKind> kinds;
    for (const Token& t : tokens) kinds.push_back(t.kind);
    std::vector<TokenKind> expected{TokenKind::Directive,  TokenKind::Directive, TokenKind::Identifier,
                                    TokenKind::Punct,      TokenKind::Directive, TokenKind::Directive,
                                    TokenKind::Identifier, TokenKind::Punct,     TokenKind::Punct,
                                    TokenKind::Identifier, TokenKind::Punct,     TokenKind::Punct};
    EXPECT_EQ(kinds, expected);
    EXPECT_EQ(texts(tokens), (std::vector<std::string>{".visible", ".entry", "_Z3fooPf", "(", ".param", ".u64", "p",
                                                       ")", "{", "ret", ";", "}"}));
    EXPECT_EQ(tokens[8].line, 2u); // '{' is on line 2
    EXPECT_EQ(tokens[8].column, 1u);
    EXPECT_EQ(tokens[2].column, 17u); // after ".visible .entry "
}

TEST(PtxLexer, PrefixedAndDottedIdentifiers) {
    auto tokens = lex_ok("mov.u32 %r1, %tid.x; @%p1 bra $L__BB0_2; ld.global.nc.v4.u32 {%r1}, [x+4]; _ ");
    EXPECT_EQ(texts(tokens),
              (std::vector<std::string>{
                  "mov.u32", "%r1", ",", "%tid.x", ";", "@", "%p1", "bra", "$L__BB0_2", ";", "ld.global.nc.v4.u32",
                  "{",       "%r1", "}", ",",      "[", "x", "+",   "4",   "]",         ";", "_"}));
    for (size_t i : {0u, 1u, 3u, 6u, 8u, 10u, 21u}) EXPECT_EQ(tokens[i].kind, TokenKind::Identifier) << tokens[i].text;
    EXPECT_EQ(split_dotted("ld.global.nc.v4.u32"), (std::vector<std::string_view>{"ld", "global", "nc", "v4", "u32"}));
    EXPECT_EQ(split_dotted("%tid.x"), (std::vector<std::string_view>{"%tid", "x"}));
    EXPECT_EQ(split_dotted("ret"), (std::vector<std::string_view>{"ret"}));
}

// A qualifier after "::" is a name even when it starts with a digit (the prefetch size of cp.async and ld).
TEST(PtxLexer, QualifiersAfterTwoColonsMayStartWithADigit) {
    auto tokens = lex_ok("cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16; ld.global.L2::256B.v4.u32 x, 12;");
    EXPECT_EQ(texts(tokens), (std::vector<std::string>{"cp.async.cg.shared.global.L2",
                                                       ":",
                                                       ":",
                                                       "128B",
                                                       "[",
                                                       "%r1",
                                                       "]",
                                                       ",",
                                                       "[",
                                                       "%rd1",
                                                       "]",
                                                       ",",
                                                       "16",
                                                       ";",
                                                       "ld.global.L2",
                                                       ":",
                                                       ":",
                                                       "256B.v4.u32",
                                                       "x",
                                                       ",",
                                                       "12",
                                                       ";"}));
    EXPECT_EQ(tokens[3].kind, TokenKind::Identifier);
    EXPECT_EQ(tokens[12].kind, TokenKind::Integer); // elsewhere a number is a number
    EXPECT_EQ(lex_error("x: 12ab;"), "line 1: malformed number '12ab'");
}

TEST(PtxLexer, DirectivesStopAtTheNextDot) {
    auto tokens = lex_ok(".reg .v4.b32 %r<5>;");
    EXPECT_EQ(texts(tokens), (std::vector<std::string>{".reg", ".v4", ".b32", "%r", "<", "5", ">", ";"}));
    EXPECT_EQ(tokens[1].kind, TokenKind::Directive);
    EXPECT_EQ(tokens[2].kind, TokenKind::Directive);
    EXPECT_EQ(tokens[5].kind, TokenKind::Integer);
}

TEST(PtxLexer, CommentsAreSkippedAndLinesCounted) {
    auto tokens = lex_ok("// header { \"not a string\n.a /* } \n still\n comment */ .b // tail\n.c");
    ASSERT_EQ(texts(tokens), (std::vector<std::string>{".a", ".b", ".c"}));
    EXPECT_EQ(tokens[0].line, 2u);
    EXPECT_EQ(tokens[1].line, 4u);
    EXPECT_EQ(tokens[2].line, 5u);
}

TEST(PtxLexer, StringsKeepCommentMarkersAndEscapes) {
    auto tokens = lex_ok(".pragma \"a // b /* c\";\n.file 1 \"x\\\"y\\\\\"");
    ASSERT_EQ(tokens.size(), 6u);
    EXPECT_EQ(tokens[1].kind, TokenKind::String);
    EXPECT_EQ(tokens[1].text, "\"a // b /* c\"");
    EXPECT_EQ(tokens[2].text, ";");
    EXPECT_EQ(tokens[5].kind, TokenKind::String);
    EXPECT_EQ(tokens[5].text, "\"x\\\"y\\\\\"");
    EXPECT_EQ(tokens[5].line, 2u);
}

TEST(PtxLexer, CrlfIsWhitespace) {
    auto tokens = lex_ok(".version 8.5\r\n.target sm_89\r\n\r\n// c\r\n.address_size 64\r\n");
    EXPECT_EQ(texts(tokens), (std::vector<std::string>{".version", "8.5", ".target", "sm_89", ".address_size", "64"}));
    EXPECT_EQ(tokens[2].line, 2u);
    EXPECT_EQ(tokens[4].line, 5u);
    for (const Token& t : tokens) EXPECT_EQ(t.text.find('\r'), std::string_view::npos);
}

TEST(PtxLexer, HexFloats) {
    auto tokens = lex_ok("0f3F800000 0FBF800000 0d3FF0000000000000 0f7FC00001");
    ASSERT_EQ(tokens.size(), 4u);
    for (const Token& t : tokens) EXPECT_EQ(t.kind, TokenKind::Float) << t.text;
    auto one = parse_float_literal(tokens[0].text);
    ASSERT_TRUE(one);
    EXPECT_EQ(one->value, 1.0);
    EXPECT_EQ(one->hex_bits, 32u);
    EXPECT_EQ(one->bits, 0x3F800000u);
    EXPECT_EQ(parse_float_literal(tokens[1].text)->value, -1.0);
    auto d = parse_float_literal(tokens[2].text);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->value, 1.0);
    EXPECT_EQ(d->hex_bits, 64u);
    // A NaN payload survives in bits even though value is just "a NaN".
    auto nan = parse_float_literal(tokens[3].text);
    ASSERT_TRUE(nan);
    EXPECT_EQ(nan->bits, 0x7FC00001u);
    EXPECT_NE(nan->value, nan->value);
}

TEST(PtxLexer, DecimalFloatsAndIntegers) {
    auto tokens = lex_ok("1.5 1e-3 .5 2. 42 0x2A 052 0b101010 42U 0");
    std::vector<TokenKind> kinds;
    for (const Token& t : tokens) kinds.push_back(t.kind);
    EXPECT_EQ(kinds, (std::vector<TokenKind>{TokenKind::Float, TokenKind::Float, TokenKind::Float, TokenKind::Float,
                                             TokenKind::Integer, TokenKind::Integer, TokenKind::Integer,
                                             TokenKind::Integer, TokenKind::Integer, TokenKind::Integer}));
    EXPECT_EQ(parse_float_literal("1.5")->value, 1.5);
    EXPECT_EQ(parse_float_literal("1e-3")->value, 0.001);
    EXPECT_EQ(parse_float_literal(".5")->value, 0.5);
    for (size_t i = 4; i < 9; ++i) EXPECT_EQ(parse_integer_literal(tokens[i].text), 42u) << tokens[i].text;
    EXPECT_EQ(parse_integer_literal("0"), 0u);
    EXPECT_EQ(parse_integer_literal("18446744073709551615"), UINT64_MAX);
    EXPECT_FALSE(parse_integer_literal("18446744073709551616"));
    EXPECT_FALSE(parse_integer_literal("09")); // not octal
    EXPECT_FALSE(parse_float_literal("0f3F80"));
}

TEST(PtxLexer, MultiCharacterPunctuation) {
    auto tokens = lex_ok("a<<2 b>>1 c<=d e>=f g==h i!=j k&&l m||n -1");
    EXPECT_EQ(texts(tokens),
              (std::vector<std::string>{"a",  "<<", "2", "b",  ">>", "1", "c",  "<=", "d", "e",  ">=", "f", "g",
                                        "==", "h",  "i", "!=", "j",  "k", "&&", "l",  "m", "||", "n",  "-", "1"}));
}

TEST(PtxLexer, ErrorsNameTheLine) {
    EXPECT_EQ(lex_error(".a\n.pragma \"open\n.b"), "line 2: unterminated string: missing closing '\"'");
    EXPECT_EQ(lex_error(".a\n\n/* never\n closed"), "line 3: unterminated comment: '/*' is never closed");
    EXPECT_EQ(lex_error(".a\n  #include"), "line 2: unexpected character '#'");
    EXPECT_EQ(lex_error("x\n\xff"), "line 2: unexpected byte 0xff");
    EXPECT_EQ(lex_error(std::string_view("x\0y", 3)), "line 1: unexpected byte 0x00");
    EXPECT_EQ(lex_error("mov.u32 %r1, 12ab;"), "line 1: malformed number '12ab'");
    EXPECT_EQ(lex_error("\n\n\nmov.f32 %f1, 0f3F80;"),
              "line 4: malformed hex float '0f3F80': 0f takes exactly 8 hex digits");
    EXPECT_EQ(lex_error("0d3FF0"), "line 1: malformed hex float '0d3FF0': 0d takes exactly 16 hex digits");
    EXPECT_EQ(lex_error("0x;"), "line 1: malformed number '0x'");
}

TEST(PtxLexer, ErrorIsSticky) {
    Lexer lexer("a \x01 b");
    EXPECT_EQ(lexer.next().kind, TokenKind::Identifier);
    EXPECT_EQ(lexer.next().kind, TokenKind::Error);
    ASSERT_TRUE(lexer.error());
    EXPECT_EQ(lexer.next().kind, TokenKind::Error);
    EXPECT_EQ(lexer.next().kind, TokenKind::Error);
}

TEST(PtxLexer, EndRepeats) {
    Lexer lexer("  // only a comment\n");
    EXPECT_EQ(lexer.next().kind, TokenKind::End);
    EXPECT_EQ(lexer.next().kind, TokenKind::End);
    EXPECT_FALSE(lexer.error());
}

TEST(PtxLexer, TokenStreamLookahead) {
    TokenStream ts(".param .u32 x, y");
    EXPECT_EQ(ts.peek(0).text, ".param");
    EXPECT_EQ(ts.peek(2).text, "x");
    EXPECT_EQ(ts.peek(1).text, ".u32");
    EXPECT_TRUE(ts.accept_directive(".param"));
    EXPECT_FALSE(ts.accept_directive(".param"));
    EXPECT_EQ(ts.next().text, ".u32");
    EXPECT_EQ(ts.next().text, "x");
    EXPECT_TRUE(ts.accept_punct(","));
    EXPECT_EQ(ts.peek(3).kind, TokenKind::End);
    EXPECT_EQ(ts.next().text, "y");
    EXPECT_EQ(ts.next().kind, TokenKind::End);
}

TEST(PtxLexer, TokenLimit) {
    auto tokens = tokenize("a b c d", 3);
    ASSERT_FALSE(tokens.ok());
    EXPECT_EQ(tokens.error().text(), "line 1: more than 3 tokens");
}

TEST(PtxLexer, DescribeToken) {
    Lexer lexer("foo");
    Token t = lexer.next();
    EXPECT_EQ(describe_token(t), "'foo'");
    EXPECT_EQ(describe_token(lexer.next()), "end of input");
}

} // namespace
} // namespace d4r::ptx
