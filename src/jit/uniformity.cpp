// Which registers may differ between the lanes of a warp, and whether a branch reads one (see uniformity.h).
#include "jit/uniformity.h"

#include <unordered_map>
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

namespace {

// The data-flow part of divergent_registers, from the registers already in DIVERGENT.
void spread(const ast::Function& f, std::unordered_set<std::string_view>& divergent) {
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
}

} // namespace

std::unordered_set<std::string_view> divergent_registers(const ast::Function& f) {
    std::unordered_set<std::string_view> divergent;
    spread(f, divergent);
    return divergent;
}

namespace {

// Whether IN synchronises the lanes of its warp (the warp collectives but activemask) or, BLOCK, the threads of its
// block (bar.sync and its kin, not bar.warp.sync). Not the warp-wide matrix instructions (mma.sync, ldmatrix,
// wmma.mma): they need all 32 lanes of the warp at once, so lanes waiting elsewhere make them fault in warp code
// exactly as interpreted (the interpreter's whole_warp: lanes that leave or never come leave the group short) —
// but where such lanes would come back round a loop to the same instruction, which the interpreter joins with the
// others and warp code refuses with the same fault: `.aligned` makes that undefined on the GPU (every lane must run
// the same instruction together), so no correct program can tell.
bool sync_point(const ast::Instruction& in, bool block) {
    const ptx::Modifiers m(in.opcode);
    const std::string_view base = m.base();
    if (block) return (base == "bar" || base == "barrier") && !m.has("warp");
    if (base == "bar") return m.has("warp");
    for (std::string_view op : {"shfl", "vote", "match", "redux"})
        if (base == op) return true;
    return false;
}

// Whether the label at statement I only leads to an exit: its first instruction is an unguarded exit or ret (a lane
// waiting there does nothing but leave).
bool exit_label(const ast::Function& f, size_t i) {
    for (size_t j = i + 1; j < f.body.size(); ++j) {
        if (f.body[j].kind == ast::Statement::Kind::Label) continue;
        if (f.body[j].kind != ast::Statement::Kind::Instruction) return false;
        const ast::Instruction& in = f.instructions[f.body[j].index];
        const std::string_view base = ptx::Modifiers(in.opcode).base();
        return in.guard.empty() && (base == "exit" || base == "ret");
    }
    return false;
}

// barrier_under_divergence and collective_under_divergence: the first sync point (block barriers, or warp
// collectives) inside a region where lanes may wait. For collectives, lanes waiting at an exit label do not count:
// they leave without running anything, and the interpreter lets a collective wait for lanes that are about to
// leave (they exit, the collective runs without them).
std::string sync_under_divergence(const ast::Function& f, bool block) {
    // The body's branches and sync points by statement index, and where each label is.
    std::unordered_map<std::string_view, size_t> label_at;
    for (size_t i = 0; i < f.body.size(); ++i)
        if (f.body[i].kind == ast::Statement::Kind::Label) label_at[f.labels[f.body[i].index].name] = i;
    struct Branch {
        size_t at = 0, target = 0;
        const ast::Instruction* in = nullptr;
    };
    std::vector<Branch> branches;
    std::vector<std::pair<size_t, const ast::Instruction*>> barriers;
    for (size_t i = 0; i < f.body.size(); ++i) {
        if (f.body[i].kind != ast::Statement::Kind::Instruction) continue;
        const ast::Instruction& in = f.instructions[f.body[i].index];
        const std::string_view base = ptx::Modifiers(in.opcode).base();
        if (sync_point(in, block)) barriers.emplace_back(i, &in);
        if (base == "bra" && !in.operands.empty())
            if (auto t = label_at.find(in.operands[0].name); t != label_at.end())
                if (block || !exit_label(f, t->second)) branches.push_back(Branch{i, t->second, &in});
    }
    if (barriers.empty()) return {};
    for (size_t i = 0; i < f.body.size(); ++i)
        if (f.body[i].kind == ast::Statement::Kind::Instruction) {
            const ast::Instruction& in = f.instructions[f.body[i].index];
            if (ptx::Modifiers(in.opcode).base() == "brx")
                return fmt::format("line {}: brx.idx in a kernel with {}", in.line,
                                   block ? "barriers" : "warp collectives");
        }
    std::unordered_set<std::string_view> divergent;
    spread(f, divergent);
    for (;;) {
        // The regions (first and last statement) where lanes may wait, grown to the branches leaving them.
        std::vector<std::pair<size_t, size_t>> regions;
        std::vector<const ast::Instruction*> why;
        for (const Branch& b : branches) {
            if (!reads_divergent(divergent, *b.in, false)) continue;
            if (b.target > b.at)
                regions.emplace_back(b.at + 1, b.target - 1);
            else
                regions.emplace_back(b.target, b.at);
            why.push_back(b.in);
        }
        for (auto& [first, last] : regions)
            for (bool grew = true; grew;) {
                grew = false;
                for (const Branch& b : branches) {
                    if (b.at < first || b.at > last) continue;
                    if (b.target < first) first = b.target, grew = true;
                    if (b.target > last + 1) last = b.target - 1, grew = true;
                }
            }
        // A register written inside a region may differ between lanes.
        const size_t before = divergent.size();
        for (const auto& [first, last] : regions)
            for (size_t i = first; i <= last && i < f.body.size(); ++i) {
                if (f.body[i].kind != ast::Statement::Kind::Instruction) continue;
                const ast::Instruction& in = f.instructions[f.body[i].index];
                if (in.operands.empty() || !writes_first_operand(in)) continue;
                std::vector<std::string_view> written;
                operand_names(in.operands[0], written);
                divergent.insert(written.begin(), written.end());
            }
        if (divergent.size() != before) {
            spread(f, divergent);
            continue;
        }
        for (const auto& [at, in] : barriers)
            for (size_t r = 0; r < regions.size(); ++r)
                if (regions[r].first <= at && at <= regions[r].second)
                    return fmt::format("line {}: '{}' may be reached while lanes wait after the branch on line {} "
                                       "(whose condition may differ between the lanes of a warp)",
                                       in->line, in->opcode, why[r]->line);
        return {};
    }
}

} // namespace

std::string barrier_under_divergence(const ast::Function& f) { return sync_under_divergence(f, true); }

std::string collective_under_divergence(const ast::Function& f) { return sync_under_divergence(f, false); }

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
