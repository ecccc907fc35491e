// Nesting in PTX operands and initializers is bounded (issue 14, item 4): a module nesting '{', '(' or
// '[' thousands of levels deep is refused with an error naming the line, on a thread whose stack is
// as small as a game's (256 KiB), instead of overflowing that stack.
#include <gtest/gtest.h>

#include <pthread.h>

#include <functional>
#include <string>

#include "ptxsim_test_util.h"

namespace d4r::ptxsim::test {
namespace {

constexpr size_t kSmallStack = 256 * 1024;

// Runs FN on a new thread with a 256 KiB stack and waits for it.
void on_small_stack(const std::function<void()>& fn) {
    pthread_attr_t attr;
    ASSERT_EQ(pthread_attr_init(&attr), 0);
    ASSERT_EQ(pthread_attr_setstacksize(&attr, kSmallStack), 0);
    pthread_t thread;
    auto body = [](void* arg) -> void* {
        (*static_cast<const std::function<void()>*>(arg))();
        return nullptr;
    };
    ASSERT_EQ(pthread_create(&thread, &attr, body, const_cast<std::function<void()>*>(&fn)), 0);
    pthread_attr_destroy(&attr);
    ASSERT_EQ(pthread_join(thread, nullptr), 0);
}

std::string repeat(std::string_view piece, size_t n) {
    std::string out;
    out.reserve(piece.size() * n);
    for (size_t i = 0; i < n; ++i) out += piece;
    return out;
}

// A kernel whose line 7 is INSTRUCTION (lines 1-3 are the header of ptx()).
std::string kernel_with(const std::string& instruction) {
    return ptx(".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  " + instruction + "\n  ret;\n}\n");
}

// Loads TEXT on a small stack and returns the load error ("" when it loaded).
std::string load_on_small_stack(const std::string& text) {
    std::string error = "not run";
    on_small_stack([&] {
        auto m = Module::load(text, "test.ptx");
        error = m.ok() ? "" : m.error().text();
    });
    return error;
}

TEST(PtxsimNesting, DeepOperandBracketsAreRefusedWithTheLine) {
    constexpr size_t kDeep = 100000;
    const std::string cases[] = {
        "mov.b32 " + repeat("{", kDeep) + "%r1" + repeat("}", kDeep) + ", %r2;",
        "mov.b32 %r1, " + repeat("(", kDeep) + "%r2" + repeat(")", kDeep) + ";",
        "ld.global.u32 %r1, [%r2, " + repeat("[%r2, ", kDeep) + "%r3" + repeat("]", kDeep + 1) + ";",
        "mov.b32 %r1, " + repeat("(", kDeep) + ";", // never closed (the module index balances only braces)
    };
    for (const std::string& instruction : cases) {
        std::string error = load_on_small_stack(kernel_with(instruction));
        EXPECT_NE(error.find("test.ptx:7:"), std::string::npos) << error.substr(0, 200);
        EXPECT_NE(error.find("nested more than 32 levels"), std::string::npos) << error.substr(0, 200);
    }
}

TEST(PtxsimNesting, DeepInitializerBracesAreRefusedWithTheLine) {
    constexpr size_t kDeep = 100000;
    std::string text = ptx("\n\n\n.global .u32 g[1] = " + repeat("{", kDeep) + "1" + repeat("}", kDeep) + ";\n");
    std::string error = load_on_small_stack(text);
    EXPECT_NE(error.find("test.ptx:7:"), std::string::npos) << error.substr(0, 200);
    EXPECT_NE(error.find("initializer braces nested more than 32 levels"), std::string::npos) << error.substr(0, 200);
}

// Up to the bound, nesting is only as wrong as the instruction makes it: no nesting error, no crash.
TEST(PtxsimNesting, NestingUpToTheBoundIsParsed) {
    std::string error =
        load_on_small_stack(kernel_with("mov.b32 " + repeat("{", 32) + "%r1" + repeat("}", 32) + ", %r2;"));
    EXPECT_EQ(error.find("nested more than"), std::string::npos) << error;
    std::string init = ptx(".global .u32 g[1] = " + repeat("{", 32) + "7" + repeat("}", 32) +
                           ";\n.visible .entry k()\n{\n  ret;\n}\n");
    EXPECT_EQ(load_on_small_stack(init), "");
}

} // namespace
} // namespace d4r::ptxsim::test
