// The PTX front end's typed-instruction tests: one instruction through the parser, then a family's decoder.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <type_traits>

#include "core/status.h"
#include "ptx/parser.h"

namespace d4r::ptx::test {

// INSTRUCTION (e.g. "cvt.rn.f16.f32 %h, %f"; registers need no declarations) decoded by DECODE.
template <typename Decode>
auto decode_one(const std::string& instruction, Decode decode) -> decltype(decode(std::declval<ast::Instruction>())) {
    static std::string text; // the syntax tree points into it
    text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" + instruction + ";\nret;\n}\n";
    auto module = parse_module(text, "test.ptx");
    EXPECT_TRUE(module) << module.error().text();
    if (!module) return module.error();
    return decode(module->functions.at(0).instructions.at(0));
}

// DECODE's typed instruction for INSTRUCTION; a failed expectation (and a default value) when it refuses.
template <typename Decode>
auto decoded_by(const std::string& instruction, Decode decode) {
    auto r = decode_one(instruction, decode);
    EXPECT_TRUE(r) << instruction << ": " << r.error().text();
    using T = std::decay_t<decltype(*r)>;
    return r ? *r : T{};
}

// The code of DECODE's refusal of INSTRUCTION; nullopt when it decodes.
template <typename Decode>
std::optional<ErrorCode> refusal_of(const std::string& instruction, Decode decode) {
    auto r = decode_one(instruction, decode);
    if (r) return std::nullopt;
    return r.error().code();
}

} // namespace d4r::ptx::test
