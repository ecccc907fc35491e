// ptxsim internals: what a loaded Module owns (the text its syntax tree points into, the tree, the
// module-scope symbols and the storage of its .global and .const variables).
#pragma once

#include <string>

#include "ptxsim/front_end.h"
#include "ptxsim/program_builder.h"
#include "ptxsim/ptxsim.h"

namespace d4r::ptxsim {

struct Module::Impl {
    ~Impl();
    std::string text;
    ast::Module ast;
    ModuleContext ctx;
    uint8_t* global_storage = nullptr; // 256-byte aligned, zero-initialised, with a guard tail
    uint8_t* const_storage = nullptr;
};

} // namespace d4r::ptxsim
