// The PTX front end's one entry (ptx/instruction.h): every instruction of the PTX d4r commits decodes to a typed
// instruction, routed to the family the ISA's overloading says (so a consumer that is not ptxsim, the JIT, can read
// everything ptxsim runs).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "ptx/instruction.h"
#include "ptx/module_index.h"
#include "ptx/parser.h"
#include "test_support.h"

using namespace d4r;
using namespace d4r::ptx;
namespace fs = std::filesystem;

namespace {

Expected<TypedInstruction> decode_text(const std::string& instruction) {
    static std::string text;
    text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" + instruction + ";\nret;\n}\n";
    auto module = parse_module(text, "test.ptx");
    if (!module) return module.error();
    return decode_instruction(module->functions.at(0).instructions.at(0), {"sm_90"});
}

template <typename T>
bool decodes_as(const std::string& instruction) {
    auto t = decode_text(instruction);
    EXPECT_TRUE(t) << instruction << ": " << t.error().text();
    return t && std::holds_alternative<T>(*t);
}

} // namespace

TEST(FrontEndInstruction, OverloadedOpcodesGoToTheirFamilies) {
    EXPECT_TRUE(decodes_as<IntArith>("add.s32 %r1, %r2, %r3"));
    EXPECT_TRUE(decodes_as<FloatArith>("add.rn.f32 %f1, %f2, %f3"));
    EXPECT_TRUE(decodes_as<HalfArith>("add.rn.f16x2 %r1, %r2, %r3"));
    EXPECT_TRUE(decodes_as<PackedInt>("min.s16x2 %r1, %r2, %r3"));
    EXPECT_TRUE(decodes_as<IntArith>("min.relu.s32 %r1, %r2, %r3"));
    EXPECT_TRUE(decodes_as<Compare>("and.pred %p1, %p2, %p3"));
    EXPECT_TRUE(decodes_as<IntArith>("and.b32 %r1, %r2, %r3"));
    EXPECT_TRUE(decodes_as<HalfArith>("ex2.approx.f16 %h1, %h2"));
    EXPECT_TRUE(decodes_as<FloatArith>("ex2.approx.f32 %f1, %f2"));
    EXPECT_TRUE(decodes_as<AsyncCopy>("cp.async.commit_group"));
    EXPECT_TRUE(decodes_as<Control>("bar.sync 0"));
    auto unknown = decode_text("frobnicate.b32 %r1, %r2");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code(), ErrorCode::Invalid);
    EXPECT_TRUE(decodes_as<TextureOp>("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5, %f6}]"));
    EXPECT_TRUE(decodes_as<Mbarrier>("mbarrier.arrive.shared.b64 %rd1, [%r1]"));
    EXPECT_TRUE(decodes_as<Mbarrier>("cp.async.mbarrier.arrive.noinc.shared.b64 [%r1]"));
    auto untyped = decode_text("txq.width.b32 %r1, [t]"); // real PTX that d4r does not implement
    ASSERT_FALSE(untyped);
    EXPECT_EQ(untyped.error().code(), ErrorCode::Unsupported);
}

// Every instruction of every PTX module the repository commits for ptxsim to run (the corpus of H200 goldens, the
// test and benchmark kernels, the runtime tests' programs, d4r's own kernels) decodes.
TEST(FrontEndInstruction, EveryCommittedModuleDecodes) {
    const fs::path root = d4r::test::source_dir();
    std::map<std::string, size_t> per_family;
    size_t files = 0, instructions = 0;
    for (const char* dir :
         {"tests/ptxsim/corpus/ptx", "tests/ptxsim/kernels", "tests/ptxsim/contract", "tests/bench/kernels",
          "tests/runtime/programs/kernels", "src/kernels/refine/ptx", "src/kernels/upscaler/ptx", "src/shim/ptx"}) {
        for (const auto& entry : fs::directory_iterator(root / dir)) {
            if (entry.path().extension() != ".ptx") continue;
            const std::string text = d4r::test::read_file_text(entry.path());
            auto modules =
                index_ptx_modules(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
            ASSERT_TRUE(modules) << entry.path();
            for (const auto& indexed : *modules) {
                auto module = parse_module(indexed.text(), entry.path().filename().string());
                ASSERT_TRUE(module) << module.error().text();
                ++files;
                const std::string target = indexed.index.sm();
                const DecodeContext context{target};
                for (const ast::Function& f : module->functions)
                    for (const ast::Instruction& in : f.instructions) {
                        ++instructions;
                        auto typed = decode_instruction(in, context);
                        const std::string_view base = Modifiers(in.opcode).base();
                        ASSERT_TRUE(typed) << entry.path().filename() << ":" << in.line << ": " << in.text << ": "
                                           << typed.error().text();
                        ++per_family[std::string(base)];
                    }
            }
        }
    }
    // 66 modules, 19 754 instructions and 70 opcodes when this was written.
    EXPECT_GE(files, 60u);
    EXPECT_GE(instructions, 15000u);
    EXPECT_GE(per_family.size(), 60u) << "opcodes seen";
}
