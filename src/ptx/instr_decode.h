// The PTX front end's internals: what every family decoder (instr_<family>.cpp) shares. Errors carry no location:
// the consumer adds module, line and the instruction's text.
#pragma once

#include <string>
#include <string_view>

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

// An error naming the first modifier the decoder did not consume.
inline Status finish(const Modifiers& m) {
    if (std::string_view left = m.leftover(); !left.empty())
        return unsupported(fmt::format("unsupported modifier '.{}' of '{}'", left, m.base()));
    return ok_status();
}

} // namespace d4r::ptx::decode
