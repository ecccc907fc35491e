// libFuzzer target: the PTX lexer and module index on arbitrary bytes. Beyond "no crash, no hang", it
// checks the promises callers rely on: tokens are views into the input with non-decreasing lines,
// errors name a line, and every indexed parameter block is laid out consistently.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ptx/module_index.h"
#include "ptx/ptx_lexer.h"

namespace {

void check(bool condition) {
    if (!condition) __builtin_trap();
}

void check_tokens(std::string_view text) {
    d4r::ptx::Lexer lexer(text);
    uint32_t line = 1;
    for (;;) {
        d4r::ptx::Token t = lexer.next();
        check(t.text.data() >= text.data() && t.text.data() + t.text.size() <= text.data() + text.size());
        check(t.line >= line);
        line = t.line;
        if (t.kind == d4r::ptx::TokenKind::Integer) (void)d4r::ptx::parse_integer_literal(t.text);
        if (t.kind == d4r::ptx::TokenKind::Float) (void)d4r::ptx::parse_float_literal(t.text); // may be out of range
        if (t.kind == d4r::ptx::TokenKind::Error) {
            check(lexer.error().has_value());
            check(lexer.error()->text().rfind("line ", 0) == 0);
            break;
        }
        if (t.kind == d4r::ptx::TokenKind::End) break;
        check(!t.text.empty());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    check_tokens(text);
    auto index = d4r::ptx::index_module(text);
    if (!index.ok()) {
        check(index.error().text().rfind("line ", 0) == 0);
        return 0;
    }
    for (const d4r::ptx::EntryInfo& e : index->entries) {
        uint64_t end = 0;
        for (const d4r::ptx::ParamInfo& p : e.params) {
            check(p.align != 0 && (p.align & (p.align - 1)) == 0);
            check(p.offset % p.align == 0);
            check(p.offset >= end);
            end = p.offset + p.size;
            check(!p.describe().empty());
        }
        check(e.param_block_size == end);
        check(index->find_entry(e.name) != nullptr);
    }
    (void)index->sm();
    return 0;
}
