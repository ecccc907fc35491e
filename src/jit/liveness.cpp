// Register liveness over a PTX function's instructions (see liveness.h).
#include "jit/liveness.h"

#include <algorithm>

#include "ptx/modifiers.h"

namespace d4r::jit {

namespace ast = ptx::ast;

// Whether IN's first operand is a destination it writes.
bool writes_first_operand(const ast::Instruction& in) {
    // A first operand [address] (st, red, cp.async, prefetch ...) is read, never written.
    if (!in.operands.empty() && in.operands[0].kind == ast::OperandKind::Address) return false;
    const ptx::Modifiers m(in.opcode);
    const std::string_view base = m.base();
    if (base == "bar" || base == "barrier") return m.has("red"); // bar.red d, ...: the others read an id
    for (std::string_view none : {"bra", "brx", "call", "ret", "exit", "nanosleep", "trap", "brkpt", "membar", "fence",
                                  "st", "red", "prefetch", "prefetchu", "pmevent"})
        if (base == none) return false;
    return true;
}

void operand_names(const ast::Operand& o, std::vector<std::string_view>& out) {
    switch (o.kind) {
    case ast::OperandKind::Name:
    case ast::OperandKind::Address:
        if (!o.name.empty()) out.push_back(o.name);
        break;
    case ast::OperandKind::Pair:
        out.push_back(o.name);
        out.push_back(o.name2);
        break;
    default:
        break;
    }
    for (const ast::Operand& e : o.elements) operand_names(e, out);
}

Liveness::Liveness(const ast::Function& f) {
    // Positions: the instructions in body order; a label names the position of the instruction after it.
    std::vector<const ast::Instruction*> code;
    std::unordered_map<std::string_view, uint32_t> label_at;
    m_order.assign(f.instructions.size(), UINT32_MAX);
    for (const ast::Statement& st : f.body) {
        if (st.kind == ast::Statement::Kind::Label) label_at[f.labels[st.index].name] = uint32_t(code.size());
        if (st.kind != ast::Statement::Kind::Instruction) continue;
        m_order[st.index] = uint32_t(code.size());
        code.push_back(&f.instructions[st.index]);
    }
    const size_t n = code.size();
    std::unordered_map<std::string_view, uint32_t> index;
    auto id = [&](std::string_view name) {
        auto [it, fresh] = index.emplace(name, uint32_t(m_names.size()));
        if (fresh) m_names.push_back(name);
        return it->second;
    };
    std::vector<std::vector<uint32_t>> uses(n), defs(n), succ(n);
    for (size_t p = 0; p < n; ++p) {
        const ast::Instruction& in = *code[p];
        std::vector<std::string_view> names;
        const bool def = in.guard.empty() && writes_first_operand(in) && !in.operands.empty();
        for (size_t k = def ? 1 : 0; k < in.operands.size(); ++k) operand_names(in.operands[k], names);
        if (!in.guard.empty()) names.push_back(in.guard);
        for (std::string_view name : names) uses[p].push_back(id(name));
        if (def) {
            std::vector<std::string_view> written;
            operand_names(in.operands[0], written);
            for (std::string_view name : written) defs[p].push_back(id(name));
        }
        const std::string_view base = ptx::Modifiers(in.opcode).base();
        bool falls_through = !in.guard.empty();
        if (base == "bra" && !in.operands.empty()) {
            if (auto t = label_at.find(in.operands[0].name); t != label_at.end() && t->second < n)
                succ[p].push_back(t->second);
        } else if (base == "brx") {
            for (const auto& [label, at] : label_at)
                if (at < n) succ[p].push_back(at);
        } else if (base != "exit" && base != "ret") {
            falls_through = true;
        }
        if (falls_through && p + 1 < n) succ[p].push_back(uint32_t(p + 1));
    }
    const size_t words = (m_names.size() + 63) / 64;
    std::vector<std::vector<uint64_t>> live_in(n, std::vector<uint64_t>(words, 0));
    m_live_out.assign(n, std::vector<uint64_t>(words, 0));
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t p = n; p-- > 0;) {
            std::vector<uint64_t> out(words, 0);
            for (uint32_t s : succ[p])
                for (size_t w = 0; w < words; ++w) out[w] |= live_in[s][w];
            std::vector<uint64_t> in = out;
            for (uint32_t d : defs[p]) in[d / 64] &= ~(uint64_t(1) << (d % 64));
            for (uint32_t u : uses[p]) in[u / 64] |= uint64_t(1) << (u % 64);
            if (in != live_in[p] || out != m_live_out[p]) {
                changed = true;
                live_in[p] = std::move(in);
                m_live_out[p] = std::move(out);
            }
        }
    }
    m_live_in = std::move(live_in);
}

std::vector<std::string_view> Liveness::live_before(uint32_t instruction) const {
    std::vector<std::string_view> out;
    if (instruction >= m_order.size() || m_order[instruction] == UINT32_MAX) return out;
    const std::vector<uint64_t>& bits = m_live_in[m_order[instruction]];
    for (size_t i = 0; i < m_names.size(); ++i)
        if (bits[i / 64] & (uint64_t(1) << (i % 64))) out.push_back(m_names[i]);
    return out;
}

std::vector<std::string_view> Liveness::live_after(uint32_t instruction) const {
    std::vector<std::string_view> out;
    if (instruction >= m_order.size() || m_order[instruction] == UINT32_MAX) return out;
    const std::vector<uint64_t>& bits = m_live_out[m_order[instruction]];
    for (size_t i = 0; i < m_names.size(); ++i)
        if (bits[i / 64] & (uint64_t(1) << (i % 64))) out.push_back(m_names[i]);
    return out;
}

} // namespace d4r::jit
