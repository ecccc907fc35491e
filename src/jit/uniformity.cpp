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
                                "mma", "ldmatrix", "wmma", "wgmma", "mbarrier", "bar", "barrier", "elect"})
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

// With whole warps in x (uniformity.h): what a register holds across the lanes of a warp. Mult32: one value, a
// multiple of 32; Uniform: one value; Aligned: 32k + lane with one k (%tid.x, %laneid and what keeps their form);
// Divergent: anything. Unset: not written yet (the fixed point starts there). Joined upwards.
enum class Kind : uint8_t { Unset, Mult32, Uniform, Aligned, Divergent };

Kind join(Kind a, Kind b) {
    if (a == Kind::Unset) return b;
    if (b == Kind::Unset || a == b) return a;
    if (a == Kind::Divergent || b == Kind::Divergent || a == Kind::Aligned || b == Kind::Aligned)
        return Kind::Divergent;
    return Kind::Uniform; // Mult32 and Uniform
}

bool one_value(Kind k) { return k == Kind::Mult32 || k == Kind::Uniform; }

class Kinds {
public:
    Kinds(const ast::Function& f, const std::unordered_set<std::string_view>& forced) : m_forced(forced) {
        for (const ast::Instruction& in : f.instructions)
            if (!in.operands.empty() && writes_first_operand(in)) {
                std::vector<std::string_view> names;
                operand_names(in.operands[0], names);
                m_written.insert(names.begin(), names.end());
            }
    }

    // Runs to the fixed point and adds to DIVERGENT every register not of one value. A register still unset there is
    // only written from itself or others like it (read before written: its first value is the zero every register
    // starts with): it starts from that, a multiple of 32, and the fixed point goes on.
    void spread(const ast::Function& f, std::unordered_set<std::string_view>& divergent) {
        for (bool seeded = true; seeded;) {
            fixed_point(f);
            seeded = false;
            for (std::string_view n : m_written) {
                Kind& k = m_kinds[n];
                if (k == Kind::Unset) k = Kind::Mult32, seeded = true;
            }
        }
        for (const auto& [name, k] : m_kinds)
            if (!one_value(k)) divergent.insert(name);
    }

private:
    void fixed_point(const ast::Function& f) {
        for (bool changed = true; changed;) {
            changed = false;
            for (const ast::Instruction& in : f.instructions) {
                if (in.operands.empty() || !writes_first_operand(in)) continue;
                const Kind k = result(in);
                if (k == Kind::Unset) continue;
                std::vector<std::string_view> written;
                operand_names(in.operands[0], written);
                for (std::string_view n : written) {
                    Kind& have = m_kinds[n];
                    const Kind joined = join(have, k);
                    changed = changed || joined != have;
                    have = joined;
                }
            }
        }
    }

    const std::unordered_set<std::string_view>& m_forced;
    std::unordered_set<std::string_view> m_written;
    std::unordered_map<std::string_view, Kind> m_kinds;

    Kind name_kind(std::string_view n) const {
        if (m_forced.contains(n)) return Kind::Divergent;
        if (n == "%tid.x" || n == "%laneid") return Kind::Aligned;
        if (n == "%tid.y" || n == "%tid.z") return Kind::Uniform;
        if (n == "%ntid.x") return Kind::Mult32; // whole warps in x
        if (lane_special(n)) return Kind::Divergent;
        if (!m_written.contains(n)) return Kind::Uniform; // a parameter, a variable, a special register
        auto it = m_kinds.find(n);
        return it == m_kinds.end() ? Kind::Unset : it->second;
    }

    Kind operand_kind(const ast::Operand& o) const {
        if (o.kind == ast::OperandKind::Integer) return o.integer % 32 == 0 ? Kind::Mult32 : Kind::Uniform;
        if (o.kind == ast::OperandKind::Name) return name_kind(o.name);
        std::vector<std::string_view> names;
        operand_names(o, names);
        Kind k = Kind::Uniform;
        for (std::string_view n : names) {
            const Kind nk = name_kind(n);
            if (nk == Kind::Unset) return Kind::Unset;
            if (!one_value(nk)) k = Kind::Divergent;
        }
        return k;
    }

    // The kind of IN's result from its sources' kinds.
    Kind result(const ast::Instruction& in) const {
        if (lane_result(in)) return Kind::Divergent;
        if (!in.guard.empty()) {
            const Kind g = name_kind(in.guard);
            if (g == Kind::Unset) return Kind::Unset;
            if (!one_value(g)) return Kind::Divergent;
        }
        std::vector<Kind> k;
        for (size_t i = 1; i < in.operands.size(); ++i) {
            k.push_back(operand_kind(in.operands[i]));
            if (k.back() == Kind::Unset) return Kind::Unset;
        }
        const ptx::Modifiers m(in.opcode);
        const std::string_view base = m.base();
        auto all_one = [&](size_t from) {
            for (size_t i = from; i < k.size(); ++i)
                if (!one_value(k[i])) return false;
            return true;
        };
        auto imm = [&](size_t i, uint64_t& v) {
            const ast::Operand& o = in.operands[i + 1];
            if (o.kind != ast::OperandKind::Integer) return false;
            v = o.integer;
            return true;
        };
        const bool floats =
            m.has("f16") || m.has("f16x2") || m.has("bf16") || m.has("bf16x2") || m.has("f32") || m.has("f64");
        const bool two = k.size() == 2;
        uint64_t c = 0;
        if (!floats) {
            if (base == "mov" && k.size() == 1) return k[0];
            if (base == "cvt" && k.size() == 1 && !m.has("sat")) return k[0]; // widening, narrowing: 32k + lane
            if ((base == "add" || base == "sub") && two && !m.has("sat") && !m.has("cc")) {
                if (k[0] == Kind::Aligned && k[1] == Kind::Mult32) return Kind::Aligned;
                if (base == "add" && k[0] == Kind::Mult32 && k[1] == Kind::Aligned) return Kind::Aligned;
                if (k[0] == Kind::Mult32 && k[1] == Kind::Mult32) return Kind::Mult32;
            }
            if (base == "mul" && m.has("lo") && two && all_one(0))
                return k[0] == Kind::Mult32 || k[1] == Kind::Mult32 ? Kind::Mult32 : Kind::Uniform;
            if (base == "mad" && m.has("lo") && k.size() == 3 && all_one(0)) {
                const Kind product = k[0] == Kind::Mult32 || k[1] == Kind::Mult32 ? Kind::Mult32 : Kind::Uniform;
                return product == Kind::Mult32 && k[2] == Kind::Mult32 ? Kind::Mult32 : Kind::Uniform;
            }
            if (base == "mad" && m.has("lo") && k.size() == 3 && one_value(k[0]) && one_value(k[1]) &&
                k[2] == Kind::Aligned && (k[0] == Kind::Mult32 || k[1] == Kind::Mult32))
                return Kind::Aligned;
            if (base == "shl" && two && one_value(k[0]) && imm(1, c) && c >= 5 && c < 64) return Kind::Mult32;
            if (base == "shr" && two && (k[0] == Kind::Aligned || one_value(k[0])) && imm(1, c) && c >= 5)
                return Kind::Uniform;
            if (base == "and" && two && (k[0] == Kind::Aligned || one_value(k[0])) && imm(1, c) && c % 32 == 0)
                return Kind::Mult32;
            if (base == "setp" && (k.size() == 2 || k.size() == 3) && all_one(2)) {
                // 32k + lane against a boundary: the same answer in every lane when the boundary (c for lt, ge, lo,
                // hs; c + 1 for le, gt, ls, hi) is a multiple of 32.
                const bool below = m.has("lt") || m.has("ge") || m.has("lo") || m.has("hs");
                const bool above = m.has("le") || m.has("gt") || m.has("ls") || m.has("hi");
                for (size_t a = 0; a < 2; ++a) {
                    if (k[a] != Kind::Aligned) continue;
                    const size_t other = 1 - a;
                    // With the aligned value on the right, lt becomes gt of the swapped pair and so on.
                    const bool b_side = a == 0 ? below : above, a_side = a == 0 ? above : below;
                    if (b_side && k[other] == Kind::Mult32) return Kind::Uniform;
                    if (a_side && imm(other, c) && (c + 1) % 32 == 0) return Kind::Uniform;
                }
            }
            if (base == "selp" && k.size() == 3 && one_value(k[2])) return join(k[0], k[1]);
        }
        return all_one(0) ? Kind::Uniform : Kind::Divergent;
    }
};

// The data-flow part of divergent_registers, from the registers already in DIVERGENT (those that may differ between
// lanes whatever computes them: with WHOLE_WARPS, uniformity.h, that is all DIVERGENT may hold on entry).
void spread(const ast::Function& f, std::unordered_set<std::string_view>& divergent, bool whole_warps) {
    if (whole_warps) {
        const std::unordered_set<std::string_view> forced = divergent;
        Kinds(f, forced).spread(f, divergent);
        return;
    }
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

std::unordered_set<std::string_view> divergent_registers(const ast::Function& f, bool whole_warps) {
    std::unordered_set<std::string_view> divergent;
    spread(f, divergent, whole_warps);
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
std::string sync_under_divergence(const ast::Function& f, bool block, bool whole_warps) {
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
    std::unordered_set<std::string_view> divergent, forced; // forced: written where lanes may wait
    spread(f, divergent, whole_warps);
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
        // A register written inside a region may differ between lanes (whatever form it had: the lanes that
        // waited keep their older values), and so may what is computed from it.
        const size_t before = forced.size();
        for (const auto& [first, last] : regions)
            for (size_t i = first; i <= last && i < f.body.size(); ++i) {
                if (f.body[i].kind != ast::Statement::Kind::Instruction) continue;
                const ast::Instruction& in = f.instructions[f.body[i].index];
                if (in.operands.empty() || !writes_first_operand(in)) continue;
                std::vector<std::string_view> written;
                operand_names(in.operands[0], written);
                forced.insert(written.begin(), written.end());
            }
        if (forced.size() != before) {
            divergent = forced;
            spread(f, divergent, whole_warps);
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

std::string barrier_under_divergence(const ast::Function& f, bool whole_warps) {
    return sync_under_divergence(f, true, whole_warps);
}

std::string collective_under_divergence(const ast::Function& f, bool whole_warps) {
    return sync_under_divergence(f, false, whole_warps);
}

std::string divergent_branch(const ast::Function& f, bool whole_warps) {
    const std::unordered_set<std::string_view> divergent = divergent_registers(f, whole_warps);
    for (const ast::Instruction& in : f.instructions) {
        const std::string_view base = ptx::Modifiers(in.opcode).base();
        if ((base == "bra" || base == "brx") && reads_divergent(divergent, in, false))
            return fmt::format("line {}: '{}' may diverge (its condition may differ between the lanes of a warp)",
                               in.line, in.opcode);
    }
    return {};
}

} // namespace d4r::jit
