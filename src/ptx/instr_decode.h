// The PTX front end's internals: what every family decoder (instr_<family>.cpp) shares. Errors carry no location:
// the consumer adds module, line and the instruction's text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/modifiers.h"

namespace d4r::ptx::decode {

// A form d4r does not implement, or a combination outside the family's forms.
inline Error unsupported(std::string_view message) { return Error(ErrorCode::Unsupported, std::string(message)); }

// An operand count no assembler accepts.
inline Status expect_operands(const ast::Instruction& in, size_t n) {
    if (in.operands.size() == n) return ok_status();
    return Error(ErrorCode::Invalid, fmt::format("expected {} operands, found {}", n, in.operands.size()));
}

// An operand count between MIN and MAX.
inline Status expect_operands(const ast::Instruction& in, size_t min, size_t max) {
    const size_t n = in.operands.size();
    if (n >= min && n <= max) return ok_status();
    if (min == max) return Error(ErrorCode::Invalid, fmt::format("expected {} operands, found {}", min, n));
    return Error(ErrorCode::Invalid, fmt::format("expected {} to {} operands, found {}", min, max, n));
}

// The state space a modifier names: "global", "shared" (or "shared::cta"), "local", "const", "param"; Generic for
// anything else (none written).
inline StateSpace state_space(std::string_view written) {
    return written == "global"                               ? StateSpace::Global
           : written == "shared" || written == "shared::cta" ? StateSpace::Shared
           : written == "local"                              ? StateSpace::Local
           : written == "const"                              ? StateSpace::Const
           : written == "param"                              ? StateSpace::Param
                                                             : StateSpace::Generic;
}

// The values of a {a, b, ...} operand, or 1 for one value.
inline size_t element_count(const ast::Operand& o) {
    return o.kind == ast::OperandKind::Vector ? o.elements.size() : 1;
}

// The elements of a {...} operand, or the operand itself.
inline std::vector<const ast::Operand*> vector_elements(const ast::Operand& o) {
    std::vector<const ast::Operand*> out;
    if (o.kind == ast::OperandKind::Vector) {
        for (const ast::Operand& e : o.elements) out.push_back(&e);
    } else {
        out.push_back(&o);
    }
    return out;
}

// The value of an integer-constant operand (a lop3 table, a wait_group count, a copy size).
inline Expected<uint64_t> integer_constant(const ast::Operand& o) {
    if (o.kind != ast::OperandKind::Integer) return unsupported("expected an integer constant");
    return o.integer;
}

// An error naming the first modifier the decoder did not consume.
inline Status finish(const Modifiers& m) {
    if (std::string_view left = m.leftover(); !left.empty())
        return unsupported(fmt::format("unsupported modifier '.{}' of '{}'", left, m.base()));
    return ok_status();
}

} // namespace d4r::ptx::decode
