// The PTX front end: the parser. Reads a whole module over the shared lexer (ptx/ptx_lexer.h)
// into the syntax tree of ast.h. Debug sections, .file, .loc and .pragma are skipped; syntax errors
// name the module and line ("kernels.ptx:12: expected ';' after instruction 'add.s32 %r1, %r2'").
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "ptx/ast.h"

namespace d4r::ptx {

// Parses TEXT; NAME prefixes error messages. The tree points into TEXT.
Expected<ast::Module> parse_module(std::string_view text, std::string_view name);

} // namespace d4r::ptx
