// Multiply-add contraction (contract.h): a def/use scan of one function's registers, per basic block.
#include "ptx/contract.h"

#include <algorithm>
#include <array>
#include <string>

#include "ptx/ptx_lexer.h"

namespace d4r::ptx {

namespace {

constexpr std::array<std::string_view, 6> kTypes = {"f32", "f64", "f16", "f16x2", "bf16", "bf16x2"};

// What the scan needs to know of an opcode.
struct OpInfo {
    std::string_view base;
    std::string_view type; // the float type, "" when there is none
    bool rounding = false; // .rn .rz .rm .rp
    bool ftz = false;
    bool sat = false;
    bool other = false; // any other modifier (.approx, .relu, .lo, ...)
};

OpInfo parse_op(std::string_view opcode) {
    OpInfo o;
    std::vector<std::string_view> parts = ptx::split_dotted(opcode);
    if (parts.empty()) return o;
    o.base = parts[0];
    for (size_t i = 1; i < parts.size(); ++i) {
        std::string_view p = parts[i];
        if (p == "rn" || p == "rz" || p == "rm" || p == "rp")
            o.rounding = true;
        else if (p == "ftz")
            o.ftz = true;
        else if (p == "sat")
            o.sat = true;
        else if (std::find(kTypes.begin(), kTypes.end(), p) != kTypes.end())
            o.type = p;
        else
            o.other = true;
    }
    return o;
}

bool ends_block(std::string_view base) {
    return base == "bra" || base == "brx" || base == "ret" || base == "exit" || base == "call" || base == "trap";
}

// Register names to keys, with the builder's scoping (program_builder.cpp): (declaration + 1) << 32 |
// element; 0 for anything that is not a .reg (labels, variables, special registers, parameters).
class Resolver {
public:
    void open() {
        m_names.emplace_back();
        m_ranges.emplace_back();
    }
    void close() {
        m_names.pop_back();
        m_ranges.pop_back();
    }
    void declare(const ast::Variable& v, uint32_t decl_index) {
        const uint64_t base = (uint64_t(decl_index) + 1) << 32;
        if (v.space != ".reg") {
            m_names.back()[v.name] = 0; // shadows an outer register of that name
            return;
        }
        if (v.range >= 0)
            m_ranges.back()[v.name] = {base, uint64_t(v.range)};
        else
            m_names.back()[v.name] = base;
    }
    uint64_t resolve(std::string_view name) const {
        for (auto it = m_names.rbegin(); it != m_names.rend(); ++it) {
            auto f = it->find(name);
            if (f != it->end()) return f->second;
        }
        size_t digits = name.size();
        while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
        if (digits == name.size() || digits == 0) return 0;
        uint64_t index = 0;
        for (size_t i = digits; i < name.size(); ++i) {
            index = index * 10 + uint64_t(name[i] - '0');
            if (index > 0xffffffffu) return 0;
        }
        std::string_view prefix = name.substr(0, digits);
        for (auto it = m_ranges.rbegin(); it != m_ranges.rend(); ++it) {
            auto f = it->find(prefix);
            if (f != it->end() && index < f->second.second) return f->second.first | index;
        }
        return 0;
    }

private:
    std::vector<std::unordered_map<std::string_view, uint64_t>> m_names;
    std::vector<std::unordered_map<std::string_view, std::pair<uint64_t, uint64_t>>> m_ranges;
};

struct Read {
    uint64_t key;
    uint8_t operand;
};

// One instruction as the scan sees it.
struct Rec {
    uint32_t index = 0; // into Function::instructions
    uint32_t block = 0;
    bool guarded = false;
    OpInfo op;
    std::vector<uint64_t> defs;
    std::vector<Read> reads;
    uint64_t op_key[3] = {0, 0, 0}; // operands 0..2 when each is a plain register name
    size_t operands = 0;
    int64_t jumps_to = -1; // a bra: the block its label starts (-2: unknown, e.g. brx.idx)
};

void collect(const ast::Operand& o, const Resolver& r, uint8_t operand, std::vector<Read>& out) {
    auto add = [&](std::string_view name) {
        if (uint64_t k = name.empty() ? 0 : r.resolve(name)) out.push_back({k, operand});
    };
    switch (o.kind) {
    case ast::OperandKind::Name:
    case ast::OperandKind::Address:
        add(o.name);
        break;
    case ast::OperandKind::Pair:
        add(o.name);
        add(o.name2);
        break;
    case ast::OperandKind::Vector:
    case ast::OperandKind::List:
        for (const ast::Operand& e : o.elements) collect(e, r, operand, out);
        break;
    default:
        break;
    }
}

std::vector<Rec> scan(const ast::Function& f) {
    std::vector<Rec> recs;
    Resolver r;
    r.open();
    uint32_t block = 0;
    bool split = false;
    std::unordered_map<std::string_view, uint32_t> label_block; // label -> the block it starts
    std::vector<std::pair<size_t, std::string_view>> branches;  // rec -> target label
    for (const ast::Statement& st : f.body) {
        switch (st.kind) {
        case ast::Statement::Kind::BlockOpen:
            r.open();
            break;
        case ast::Statement::Kind::BlockClose:
            r.close();
            break;
        case ast::Statement::Kind::Declaration:
            r.declare(f.declarations[st.index], st.index);
            break;
        case ast::Statement::Kind::Label:
            if (!split) {
                split = true;
                ++block;
            }
            label_block[f.labels[st.index].name] = block;
            break;
        case ast::Statement::Kind::Instruction: {
            const ast::Instruction& in = f.instructions[st.index];
            if (split) split = false;
            Rec rec;
            rec.index = st.index;
            rec.block = block;
            rec.guarded = !in.guard.empty();
            rec.op = parse_op(in.opcode);
            rec.operands = in.operands.size();
            for (size_t i = 0; i < in.operands.size(); ++i) {
                const ast::Operand& o = in.operands[i];
                if (i == 0 && o.kind != ast::OperandKind::Address) {
                    std::vector<Read> defs;
                    collect(o, r, 0, defs);
                    for (const Read& d : defs) rec.defs.push_back(d.key);
                } else {
                    collect(o, r, uint8_t(i), rec.reads);
                }
                if (i < 3 && o.kind == ast::OperandKind::Name) rec.op_key[i] = r.resolve(o.name);
            }
            if (!in.guard.empty()) {
                if (uint64_t k = r.resolve(in.guard)) rec.reads.push_back({k, 0xff});
            }
            recs.push_back(std::move(rec));
            const Rec& last = recs.back();
            if (last.op.base == "bra" && !in.operands.empty() && in.operands[0].kind == ast::OperandKind::Name)
                branches.emplace_back(recs.size() - 1, in.operands[0].name);
            else if (last.op.base == "brx")
                recs.back().jumps_to = -2;
            if (ends_block(last.op.base) && !split) {
                split = true;
                ++block;
            }
            break;
        }
        }
    }
    for (auto& [rec, label] : branches) {
        auto it = label_block.find(label);
        recs[rec].jumps_to = it == label_block.end() ? -2 : int64_t(it->second);
    }
    return recs;
}

// Whether the code at or after RECS[M] can branch back to M's block or an earlier one (a loop around the
// mul: a read before the mul may then see its product).
bool loops_back(const std::vector<Rec>& recs, uint32_t m) {
    for (size_t q = m; q < recs.size(); ++q)
        if (recs[q].jumps_to == -2 || (recs[q].jumps_to >= 0 && recs[q].jumps_to <= int64_t(recs[m].block)))
            return true;
    return false;
}

bool is_fusable_mul(const Rec& m) {
    return m.op.base == "mul" && !m.op.type.empty() && !m.op.rounding && !m.op.sat && !m.op.other && !m.guarded &&
           m.operands == 3 && m.op_key[0] != 0;
}

bool is_fusable_add(const Rec& a, const Rec& m) {
    return (a.op.base == "add" || a.op.base == "sub") && a.op.type == m.op.type && !a.op.rounding && !a.op.other &&
           a.op.ftz == m.op.ftz && a.operands == 3;
}

struct Use {
    uint32_t rec;    // the add
    uint8_t operand; // 1 or 2
    int sign;        // +1, or -1 through a neg
};

// The uses of mul RECS[M]'s product when every one is a fusable add (else empty).
std::vector<Use> product_uses(const std::vector<Rec>& recs, uint32_t m,
                              const std::unordered_map<uint64_t, std::vector<uint32_t>>& reads_of) {
    const Rec& mul = recs[m];
    std::unordered_map<uint64_t, int> alias{{mul.op_key[0], 1}};
    std::vector<Use> uses;
    uint32_t p = m + 1;
    for (; p < recs.size() && recs[p].block == mul.block && !alias.empty(); ++p) {
        const Rec& r = recs[p];
        std::vector<std::pair<uint64_t, int>> born;
        for (const Read& rd : r.reads) {
            auto a = alias.find(rd.key);
            if (a == alias.end()) continue;
            const bool plain = rd.operand >= 1 && rd.operand <= 2 && r.op_key[rd.operand] == rd.key;
            if (plain && is_fusable_add(r, mul)) {
                const uint64_t other = r.op_key[rd.operand == 1 ? 2 : 1];
                if (other != 0 && alias.count(other)) return {}; // the product added to itself
                uses.push_back({p, rd.operand, a->second});
            } else if (plain && rd.operand == 1 && !r.guarded && r.op_key[0] != 0 && r.reads.size() == 1 &&
                       (r.op.base == "mov" || (r.op.base == "neg" && r.op.type == mul.op.type && !r.op.rounding &&
                                               !r.op.other && !r.op.sat))) {
                born.push_back({r.op_key[0], r.op.base == "neg" ? -a->second : a->second});
            } else {
                return {};
            }
        }
        for (uint64_t k : r.defs) {
            if (alias.erase(k) && r.guarded) return {}; // maybe still the product afterwards
        }
        for (auto& [k, sign] : born) alias[k] = sign;
    }
    // A copy still live at the end of the block: any later read of it may see it, and so may a read at or
    // before the mul when a branch can loop back to it.
    const bool loop = alias.empty() ? false : loops_back(recs, m);
    for (auto& [k, sign] : alias) {
        auto it = reads_of.find(k);
        if (it == reads_of.end()) continue;
        for (uint32_t q : it->second)
            if (q >= p || (q <= m && loop)) return {};
    }
    return uses;
}

} // namespace

Contractions find_contractions(const ast::Function& f) {
    Contractions out;
    const std::vector<Rec> recs = scan(f);
    std::unordered_map<uint64_t, std::vector<uint32_t>> reads_of;
    for (uint32_t i = 0; i < recs.size(); ++i)
        for (const Read& rd : recs[i].reads) reads_of[rd.key].push_back(i);

    // add -> the fusable products among its operands: (operand, mul, sign).
    struct Candidate {
        uint32_t mul;
        int sign;
        bool present = false;
    };
    std::unordered_map<uint32_t, std::array<Candidate, 2>> candidates;
    for (uint32_t m = 0; m < recs.size(); ++m) {
        if (!is_fusable_mul(recs[m])) continue;
        for (const Use& u : product_uses(recs, m, reads_of)) candidates[u.rec][u.operand - 1] = {m, u.sign, true};
    }
    for (auto& [a, c] : candidates) {
        const int k = c[0].present ? 0 : 1; // the first operand's product wins
        const Rec& add = recs[a];
        const Rec& mul = recs[c[k].mul];
        // ptxas fuses with the multiplicands' values at the mul; ptxsim reads them at the add.
        bool overwritten = false;
        for (uint32_t q = c[k].mul; q < a && !overwritten; ++q) {
            for (uint64_t d : recs[q].defs)
                if (d != 0 && (d == mul.op_key[1] || d == mul.op_key[2])) overwritten = true;
        }
        const bool sub = add.op.base == "sub";
        Contraction x;
        x.mul = mul.index;
        x.product_operand = uint8_t(k + 1);
        x.negate_product = (c[k].sign < 0) != (sub && k == 1);
        x.negate_addend = sub && k == 0;
        x.save_multiplicands = overwritten;
        out.fused[add.index] = x;
        if (overwritten && std::find(out.saved_muls.begin(), out.saved_muls.end(), x.mul) == out.saved_muls.end())
            out.saved_muls.push_back(x.mul);
    }
    return out;
}

ast::Instruction fused_instruction(const ast::Instruction& add, const ast::Instruction& mul, const Contraction& x) {
    static const std::array<std::string, kTypes.size() * 4> opcodes = [] {
        std::array<std::string, kTypes.size() * 4> t;
        for (size_t i = 0; i < kTypes.size(); ++i)
            for (int m = 0; m < 4; ++m)
                t[i * 4 + m] = std::string("fma.rn") + ((m & 1) ? ".ftz" : "") + ((m & 2) ? ".sat" : "") + "." +
                               std::string(kTypes[i]);
        return t;
    }();
    const OpInfo op = parse_op(add.opcode);
    const size_t type = size_t(std::find(kTypes.begin(), kTypes.end(), op.type) - kTypes.begin());
    ast::Instruction fma;
    fma.guard = add.guard;
    fma.guard_negated = add.guard_negated;
    fma.opcode = opcodes[type * 4 + (op.ftz ? 1 : 0) + (op.sat ? 2 : 0)];
    fma.line = add.line;
    fma.text = add.text;
    fma.operands = {add.operands[0], mul.operands[1], mul.operands[2], add.operands[x.product_operand == 1 ? 2 : 1]};
    fma.contracted =
        uint8_t(kContracted | (x.negate_product ? kNegateProduct : 0) | (x.negate_addend ? kNegateAddend : 0));
    return fma;
}

} // namespace d4r::ptx
