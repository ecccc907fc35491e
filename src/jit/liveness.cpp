// Register liveness over a PTX function's instructions (see liveness.h).
#include "jit/liveness.h"

#include <algorithm>
#include <cstddef>

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
    std::vector<std::vector<uint32_t>> uses(n), defs(n), succ(n), writes(n);
    for (size_t p = 0; p < n; ++p) {
        const ast::Instruction& in = *code[p];
        std::vector<std::string_view> names;
        const bool def = in.guard.empty() && writes_first_operand(in) && !in.operands.empty();
        for (size_t k = def ? 1 : 0; k < in.operands.size(); ++k) operand_names(in.operands[k], names);
        if (!in.guard.empty()) names.push_back(in.guard);
        for (std::string_view name : names) uses[p].push_back(id(name));
        if (!in.operands.empty() && writes_first_operand(in)) {
            std::vector<std::string_view> written;
            operand_names(in.operands[0], written);
            for (std::string_view name : written) {
                writes[p].push_back(id(name));
                if (def) defs[p].push_back(id(name));
            }
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
    m_defs = std::move(defs);
    m_writes = std::move(writes);
    m_succ = std::move(succ);
}

std::unordered_set<std::string_view> Liveness::written_after(const std::vector<uint32_t>& instructions) const {
    std::vector<bool> seen(m_succ.size(), false);
    std::vector<uint32_t> todo;
    for (uint32_t i : instructions)
        if (i < m_order.size() && m_order[i] != UINT32_MAX)
            for (uint32_t s : m_succ[m_order[i]]) todo.push_back(s);
    std::unordered_set<std::string_view> out;
    while (!todo.empty()) {
        const uint32_t p = todo.back();
        todo.pop_back();
        if (seen[p]) continue;
        seen[p] = true;
        for (uint32_t w : m_writes[p]) out.insert(m_names[w]);
        for (uint32_t s : m_succ[p]) todo.push_back(s);
    }
    return out;
}

std::unordered_map<std::string_view, uint32_t> Liveness::share_slots(const std::vector<std::string_view>& names) const {
    std::unordered_map<std::string_view, uint32_t> index;
    for (size_t i = 0; i < m_names.size(); ++i) index.emplace(m_names[i], uint32_t(i));
    const size_t n = m_live_in.size(), words = (n + 63) / 64;
    // Where each name occupies its slot: a bit per position.
    struct Name {
        std::string_view name;
        uint32_t id = 0;
        size_t first = SIZE_MAX;
        std::vector<uint64_t> at;
    };
    std::vector<Name> list;
    std::unordered_map<uint32_t, size_t> of_id;
    for (std::string_view name : names) {
        auto it = index.find(name);
        if (it == index.end() || of_id.contains(it->second)) continue; // never mentioned, or given twice
        of_id[it->second] = list.size();
        list.push_back(Name{name, it->second, SIZE_MAX, std::vector<uint64_t>(words, 0)});
    }
    for (size_t p = 0; p < n; ++p) {
        auto occupy = [&](uint32_t id) {
            auto it = of_id.find(id);
            if (it == of_id.end()) return;
            Name& x = list[it->second];
            x.at[p / 64] |= uint64_t(1) << (p % 64);
            x.first = std::min(x.first, p);
        };
        for (const Name& x : list) {
            const uint64_t bit = uint64_t(1) << (x.id % 64);
            if ((m_live_in[p][x.id / 64] | m_live_out[p][x.id / 64]) & bit) occupy(x.id);
        }
        for (uint32_t d : m_defs[p]) occupy(d);
    }
    std::sort(list.begin(), list.end(), [](const Name& a, const Name& b) { return a.first < b.first; });
    std::vector<std::vector<uint64_t>> slots; // the positions each slot is occupied at
    std::unordered_map<std::string_view, uint32_t> out;
    for (const Name& x : list) {
        size_t s = 0;
        for (; s < slots.size(); ++s) {
            bool clash = false;
            for (size_t w = 0; w < words && !clash; ++w) clash = (slots[s][w] & x.at[w]) != 0;
            if (!clash) break;
        }
        if (s == slots.size()) slots.emplace_back(words, 0);
        for (size_t w = 0; w < words; ++w) slots[s][w] |= x.at[w];
        out[x.name] = uint32_t(s);
    }
    return out;
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
