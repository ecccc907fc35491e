// Which registers may differ between the lanes of a warp, and whether a branch reads one (see uniformity.h).
#include "jit/uniformity.h"

#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "jit/liveness.h"
#include "ptx/modifiers.h"

namespace d4r::jit {

namespace ast = ptx::ast;

namespace {

// Special registers that differ between the lanes of a warp (or between two reads).
bool lane_special(std::string_view name) {
    for (std::string_view p : {"%tid", "%laneid", "%lanemask", "%clock", "%globaltimer", "%pm"})
        if (name.starts_with(p)) return true;
    return false;
}

// Whether IN's result may differ between lanes whatever its sources: loads other than of kernel parameters,
// atomics, collectives, textures, calls.
bool lane_result(const ast::Instruction& in) {
    const ptx::Modifiers m(in.opcode);
    const std::string_view base = m.base();
    if (base == "ld" || base == "ldu") return !m.has("param");
    for (std::string_view op : {"atom", "shfl", "vote", "match", "redux", "activemask", "tex", "tld4", "suld", "call",
                                "mma", "ldmatrix", "wmma", "mbarrier", "bar", "barrier", "elect"})
        if (base == op) return true;
    return false;
}

} // namespace

namespace {

bool reads_divergent(const std::unordered_set<std::string_view>& divergent, const ast::Instruction& in,
                     bool skip_first) {
    std::vector<std::string_view> names;
    for (size_t k = skip_first ? 1 : 0; k < in.operands.size(); ++k) operand_names(in.operands[k], names);
    if (!in.guard.empty()) names.push_back(in.guard);
    for (std::string_view n : names)
        if (divergent.contains(n) || lane_special(n)) return true;
    return false;
}

} // namespace

std::unordered_set<std::string_view> divergent_registers(const ast::Function& f) {
    std::unordered_set<std::string_view> divergent;
    for (bool changed = true; changed;) {
        changed = false;
        for (const ast::Instruction& in : f.instructions) {
            if (in.operands.empty() || !writes_first_operand(in)) continue;
            if (!lane_result(in) && !reads_divergent(divergent, in, true)) continue;
            std::vector<std::string_view> written;
            operand_names(in.operands[0], written);
            for (std::string_view n : written) changed = divergent.insert(n).second || changed;
        }
    }
    return divergent;
}

std::string divergent_branch(const ast::Function& f) {
    const std::unordered_set<std::string_view> divergent = divergent_registers(f);
    for (const ast::Instruction& in : f.instructions) {
        const std::string_view base = ptx::Modifiers(in.opcode).base();
        if ((base == "bra" || base == "brx") && reads_divergent(divergent, in, false))
            return fmt::format("line {}: '{}' may diverge (its condition may differ between the lanes of a warp)",
                               in.line, in.opcode);
    }
    return {};
}

} // namespace d4r::jit
