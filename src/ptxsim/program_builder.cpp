// Builds one kernel's Program: reachability and recursion (the frames of recursive functions), static
// layouts, then decoding.
#include "ptxsim/program_builder.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_set>

#include <fmt/format.h>

#include "ptx/contract.h"

namespace d4r::ptxsim {

namespace {

struct SpecialName {
    std::string_view name;
    Special special;
};

constexpr SpecialName kSpecials[] = {
    {"%tid.x", Special::TidX},
    {"%tid.y", Special::TidY},
    {"%tid.z", Special::TidZ},
    {"%ntid.x", Special::NtidX},
    {"%ntid.y", Special::NtidY},
    {"%ntid.z", Special::NtidZ},
    {"%ctaid.x", Special::CtaidX},
    {"%ctaid.y", Special::CtaidY},
    {"%ctaid.z", Special::CtaidZ},
    {"%nctaid.x", Special::NctaidX},
    {"%nctaid.y", Special::NctaidY},
    {"%nctaid.z", Special::NctaidZ},
    {"%laneid", Special::LaneId},
    {"%warpid", Special::WarpId},
    {"%nwarpid", Special::NWarpId},
    {"%smid", Special::SmId},
    {"%nsmid", Special::NSmId},
    {"%dynamic_smem_size", Special::DynamicSmemSize},
    {"%total_smem_size", Special::TotalSmemSize},
    {"%lanemask_eq", Special::LanemaskEq},
    {"%lanemask_le", Special::LanemaskLe},
    {"%lanemask_lt", Special::LanemaskLt},
    {"%lanemask_ge", Special::LanemaskGe},
    {"%lanemask_gt", Special::LanemaskGt},
    {"%reserved_smem_offset_begin", Special::ReservedSmemBegin},
    {"%reserved_smem_offset_end", Special::ReservedSmemEnd},
    {"%reserved_smem_offset_cap", Special::ReservedSmemCap},
    {"%reserved_smem_offset_0", Special::ReservedSmemOffset0},
    {"%reserved_smem_offset_1", Special::ReservedSmemOffset1},
    {"%envreg1", Special::EnvReg1},
    {"%envreg2", Special::EnvReg2},
};

// %envreg0 .. %envreg31 other than 1 and 2.
bool is_zero_envreg(std::string_view name) {
    if (name.substr(0, 7) != "%envreg" || name.size() < 8 || name.size() > 9) return false;
    unsigned n = 0;
    for (char c : name.substr(7)) {
        if (c < '0' || c > '9') return false;
        n = n * 10 + unsigned(c - '0');
    }
    if (name.size() == 9 && name[7] == '0') return false;
    return n <= 31 && n != 1 && n != 2;
}

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Bytes and alignment of a declared variable; 0 bytes for an unsized array.
std::pair<uint64_t, uint64_t> variable_size(const ast::Variable& v) {
    uint64_t element = ptx::ptx_type_size(v.type.type) * std::max(1u, v.type.vector);
    uint64_t size = element;
    for (uint64_t d : v.dims) size *= d;
    uint64_t align = v.type.align != 0 ? v.type.align : std::max<uint64_t>(element, 1);
    return {size, align};
}

// Names an operand mentions (registers, symbols, labels), recursively.
void operand_names(const ast::Operand& o, std::vector<std::string_view>& out) {
    if (!o.name.empty()) out.push_back(o.name);
    if (!o.name2.empty()) out.push_back(o.name2);
    for (const ast::Operand& e : o.elements) operand_names(e, out);
}

// The callee of a call instruction: "call (r), f, (a)" / "call f, (a)" / "call f".
std::string_view callee_name(const ast::Instruction& in) {
    for (const ast::Operand& o : in.operands)
        if (o.kind == ast::OperandKind::Name) return o.name;
    return {};
}

bool is_call(const ast::Instruction& in) { return in.opcode == "call" || in.opcode.substr(0, 5) == "call."; }

} // namespace

Error ProgramBuilder::error_at(uint32_t line, std::string message) const {
    return Error(ErrorCode::Unsupported, fmt::format("{}:{}: {}", m_ctx.name, line, message));
}

Error ProgramBuilder::malformed_at(uint32_t line, std::string message) const {
    return Error(ErrorCode::Invalid, fmt::format("{}:{}: {}", m_ctx.name, line, message));
}

uint32_t ProgramBuilder::alloc_slot(bool wide) {
    uint32_t size = wide ? kSlot64 : kSlot32;
    uint32_t off = static_cast<uint32_t>(align_up(m_arena, 64)); // every slot starts on a 64-byte boundary
    m_arena = off + size;
    return off;
}

// Constants live after every register (so a block resets one contiguous register range); until the
// register area is complete their offsets are tagged relative offsets, relocated by finish().
uint32_t ProgramBuilder::constant(uint64_t bits, bool wide) {
    auto& map = wide ? m_const64 : m_const32;
    auto it = map.find(bits);
    if (it != map.end()) return it->second;
    uint32_t size = wide ? kSlot64 : kSlot32;
    uint32_t off = static_cast<uint32_t>(align_up(m_const_arena, 64));
    m_const_arena = off + size;
    uint32_t tagged = off | kConstTag;
    map.emplace(bits, tagged);
    (wide ? m_const_values64 : m_const_values32).push_back({off, bits});
    return tagged;
}

Expected<uint32_t> ProgramBuilder::alloc_area(uint32_t& used, uint64_t bytes, uint64_t align, uint32_t limit,
                                              const char* what, uint32_t line) {
    uint64_t off = align_up(used, std::max<uint64_t>(align, 1));
    if (off + bytes > limit) return error_at(line, fmt::format("{} exceeds {} bytes", what, limit));
    used = static_cast<uint32_t>(off + bytes);
    return static_cast<uint32_t>(off);
}

std::optional<Symbol> ProgramBuilder::lookup(std::string_view name) const {
    for (auto it = m_scopes.rbegin(); it != m_scopes.rend(); ++it) {
        auto f = it->find(name);
        if (f != it->end()) return f->second;
    }
    if (auto r = range_lookup(name)) return r;
    auto g = m_ctx.globals.find(name);
    if (g != m_ctx.globals.end()) return g->second;
    auto s = m_shared_symbols.find(name);
    if (s != m_shared_symbols.end()) return s->second;
    auto fn = m_ctx.functions.find(name);
    if (fn != m_ctx.functions.end()) {
        Symbol f;
        f.kind = Symbol::Kind::Func;
        f.value = fn->second;
        return f;
    }
    auto special = [](Special which) {
        Symbol sym;
        sym.kind = Symbol::Kind::Special;
        sym.type = Type::U32;
        sym.value = special_offset(which);
        return sym;
    };
    for (const SpecialName& sp : kSpecials)
        if (sp.name == name) return special(sp.special);
    if (is_zero_envreg(name)) return special(Special::EnvRegZero);
    return std::nullopt;
}

std::optional<Symbol> ProgramBuilder::range_lookup(std::string_view name) const {
    // %r17 -> prefix "%r", index 17, if a range %r<N> with N > 17 is in scope.
    size_t digits = 0;
    while (digits < name.size() && name[name.size() - 1 - digits] >= '0' && name[name.size() - 1 - digits] <= '9')
        ++digits;
    if (digits == 0 || digits == name.size() || digits > 9) return std::nullopt;
    std::string_view num = name.substr(name.size() - digits);
    if (num.size() > 1 && num[0] == '0') return std::nullopt;
    uint64_t index = 0;
    for (char c : num) index = index * 10 + static_cast<uint64_t>(c - '0');
    std::string_view prefix = name.substr(0, name.size() - digits);
    for (auto it = m_ranges.rbegin(); it != m_ranges.rend(); ++it) {
        auto f = it->find(prefix);
        if (f == it->end()) continue;
        if (index >= f->second.count) return std::nullopt;
        Symbol found = f->second.first;
        if (found.kind == Symbol::Kind::Pred)
            found.value += index;
        else
            found.value += index * (found.wide ? kSlot64 : kSlot32);
        return found;
    }
    return std::nullopt;
}

Status ProgramBuilder::collect_calls(uint32_t function, std::vector<uint32_t>& callees) const {
    const ast::Function& f = m_ctx.ast->functions[function];
    auto add = [&](uint32_t c) {
        if (std::find(callees.begin(), callees.end(), c) == callees.end()) callees.push_back(c);
    };
    for (const ast::Instruction& in : f.instructions) {
        if (!is_call(in)) continue;
        std::string_view name = callee_name(in);
        auto it = m_ctx.functions.find(name);
        if (it != m_ctx.functions.end()) {
            add(it->second);
        } else {
            // An indirect call may reach any function whose address the module takes.
            for (uint32_t c : m_ctx.address_taken) add(c);
        }
    }
    return ok_status();
}

Status ProgramBuilder::reachable(uint32_t entry, std::vector<uint32_t>& out) {
    // Depth-first with colours: a back edge is recursion (a cycle); without one the longest path gives
    // the call-stack depth. A function that reaches itself is recursive: calls into it save its frame.
    std::unordered_map<uint32_t, std::vector<uint32_t>> callees;
    std::unordered_map<uint32_t, int> colour; // 0 new, 1 on stack, 2 done
    std::unordered_map<uint32_t, uint32_t> depth;
    std::vector<uint32_t> stack;
    std::string cycle;
    std::function<void(uint32_t)> visit = [&](uint32_t f) {
        colour[f] = 1;
        stack.push_back(f);
        out.push_back(f);
        std::vector<uint32_t>& cs = callees[f];
        (void)collect_calls(f, cs);
        uint32_t d = 0;
        for (uint32_t c : cs) {
            if (!m_ctx.ast->functions[c].defined) continue;
            if (colour[c] == 1) {
                if (cycle.empty()) {
                    auto pos = std::find(stack.begin(), stack.end(), c);
                    for (auto it = pos; it != stack.end(); ++it)
                        cycle += std::string(m_ctx.ast->functions[*it].name) + " -> ";
                    cycle += std::string(m_ctx.ast->functions[c].name);
                }
                continue;
            }
            if (colour[c] == 0) visit(c);
            d = std::max(d, depth[c] + 1);
        }
        depth[f] = d;
        colour[f] = 2;
        stack.pop_back();
    };
    visit(entry);
    m_prog.max_call_depth = depth[entry];
    if (m_prog.max_call_depth >= 65535) // Warp::depth is 16 bits
        return error_at(m_ctx.ast->functions[entry].line, fmt::format("calls nest {} deep", m_prog.max_call_depth));
    if (cycle.empty()) return ok_status();
    for (uint32_t f : out) {
        std::vector<uint32_t> todo = callees[f];
        std::unordered_set<uint32_t> seen;
        while (!todo.empty()) {
            uint32_t c = todo.back();
            todo.pop_back();
            if (!m_ctx.ast->functions[c].defined || !seen.insert(c).second) continue;
            if (c == f) {
                m_recursive.insert(f);
                break;
            }
            for (uint32_t n : callees[c]) todo.push_back(n);
        }
    }
    m_prog.recursive = true;
    // The stacks start this deep and grow as the recursion needs them (recursion.h).
    m_prog.max_call_depth = std::max<uint32_t>(m_prog.max_call_depth, 8);
    return ok_status();
}

Status ProgramBuilder::layout_shared(const std::vector<uint32_t>& functions) {
    std::unordered_map<std::string_view, bool> used;
    std::vector<std::string_view> names;
    for (uint32_t fi : functions) {
        for (const ast::Instruction& in : m_ctx.ast->functions[fi].instructions) {
            names.clear();
            for (const ast::Operand& o : in.operands) operand_names(o, names);
            for (std::string_view n : names)
                if (m_ctx.shared.count(n)) used[n] = true;
        }
    }
    uint64_t max_dynamic_align = 16;
    std::vector<std::string_view> dynamic;
    for (const ast::Variable& v : m_ctx.ast->variables) {
        if (v.space != ".shared" || !used.count(v.name)) continue;
        auto [size, align] = variable_size(v);
        bool unsized = std::find(v.dims.begin(), v.dims.end(), 0) != v.dims.end();
        if (unsized || v.is_extern) {
            dynamic.push_back(v.name);
            max_dynamic_align = std::max(max_dynamic_align, align);
            continue;
        }
        uint32_t off = D4R_TRY(alloc_area(m_shared, size, align, kMaxSharedBytes, "static shared memory", v.line));
        Symbol s;
        s.kind = Symbol::Kind::Var;
        s.space = Space::Shared;
        s.type = parse_type(v.type.type.substr(1));
        s.value = off;
        s.size = size;
        m_shared_symbols[v.name] = s;
    }
    for (uint32_t fi : functions) {
        const ast::Function& f = m_ctx.ast->functions[fi];
        for (uint32_t di = 0; di < f.declarations.size(); ++di) {
            const ast::Variable& v = f.declarations[di];
            if (v.space != ".shared") continue;
            auto [size, align] = variable_size(v);
            if (size == 0) return error_at(v.line, fmt::format("unsized .shared array '{}' inside a function", v.name));
            uint32_t off = D4R_TRY(alloc_area(m_shared, size, align, kMaxSharedBytes, "static shared memory", v.line));
            m_function_shared_offsets[{fi, di}] = off;
        }
    }
    m_prog.static_shared_bytes = m_shared;
    m_prog.dynamic_shared_offset = static_cast<uint32_t>(align_up(m_shared, max_dynamic_align));
    for (std::string_view n : dynamic) {
        Symbol s;
        s.kind = Symbol::Kind::Var;
        s.space = Space::Shared;
        s.type = Type::B8;
        s.value = m_prog.dynamic_shared_offset;
        s.size = 0;
        s.dynamic_shared = true;
        m_shared_symbols[n] = s;
    }
    return ok_status();
}

Status ProgramBuilder::prepare(const std::vector<uint32_t>& functions) {
    // Special registers first, then the two scratch sinks ('_').
    m_arena = static_cast<uint32_t>(Special::Count) * kSlot32;
    m_scratch32 = alloc_slot(false);
    m_scratch64 = alloc_slot(true);
    for (uint32_t fi : functions) {
        const ast::Function& f = m_ctx.ast->functions[fi];
        if (f.is_entry) continue;
        FunctionLayout layout;
        auto add = [&](const ast::Variable& v) -> Status {
            if (v.space != ".param")
                return error_at(v.line, fmt::format("register parameter '{}' of '{}' is not supported (use .param)",
                                                    v.name, f.name));
            auto [size, align] = variable_size(v);
            uint32_t off = D4R_TRY(alloc_area(m_fparam, size, align, kMaxLocalBytes, "function parameters", v.line));
            Symbol s;
            s.kind = Symbol::Kind::Var;
            s.space = Space::FuncParam;
            s.type = parse_type(v.type.type.substr(1));
            s.value = off;
            s.size = size;
            layout.formals.push_back(s);
            return ok_status();
        };
        const uint32_t formals_begin = m_fparam;
        for (const ast::Variable& v : f.params) D4R_TRY(add(v));
        for (const ast::Variable& v : f.returns) D4R_TRY(add(v));
        m_formal_range[fi] = {formals_begin, m_fparam};
        layout.returns = static_cast<uint32_t>(f.returns.size());
        m_layouts[fi] = std::move(layout);
    }
    return layout_shared(functions);
}

const std::vector<Symbol>* ProgramBuilder::formals(uint32_t function) const {
    auto it = m_layouts.find(function);
    return it == m_layouts.end() ? nullptr : &it->second.formals;
}

uint32_t ProgramBuilder::return_count(uint32_t function) const {
    auto it = m_layouts.find(function);
    return it == m_layouts.end() ? 0 : it->second.returns;
}

uint32_t ProgramBuilder::add_call_site(const std::vector<uint32_t>& functions, bool indirect) {
    CallSite site;
    site.indirect = indirect;
    uint32_t index = static_cast<uint32_t>(m_prog.calls.size());
    for (uint32_t f : functions) {
        CallTarget t;
        t.function = f;
        m_call_fixups.emplace_back(index, static_cast<uint32_t>(site.targets.size()), f);
        site.targets.push_back(std::move(t));
    }
    m_prog.calls.push_back(std::move(site));
    return index;
}

Status ProgramBuilder::declare(const ast::Variable& v, std::unordered_map<std::string_view, Symbol>& scope,
                               uint32_t function, uint32_t decl_index) {
    if (v.space == ".reg") {
        Type t = parse_type(v.type.type.substr(1));
        if (t == Type::None) return error_at(v.line, fmt::format("unknown register type '{}'", v.type.type));
        if (v.type.vector != 1) return error_at(v.line, fmt::format("vector register '{}' is not supported", v.name));
        if (type_bits(t) > 64)
            return error_at(v.line, fmt::format("register '{}' of type {} is not supported", v.name, v.type.type));
        Symbol s;
        s.type = t;
        uint64_t count = v.range >= 0 ? static_cast<uint64_t>(v.range) : 1;
        if (count > (1u << 20)) return error_at(v.line, fmt::format("too many registers in '{}<{}>'", v.name, count));
        if (t == Type::Pred) {
            s.kind = Symbol::Kind::Pred;
            s.value = m_prog.pred_count;
            if (m_prog.pred_count + count > 32000) return error_at(v.line, "too many predicate registers");
            m_prog.pred_count += static_cast<uint32_t>(count);
        } else {
            s.kind = Symbol::Kind::Reg;
            s.wide = type_bits(t) == 64;
            uint32_t slot = s.wide ? kSlot64 : kSlot32;
            if (static_cast<uint64_t>(m_arena) + count * slot + 64 > kMaxArenaBytes)
                return error_at(v.line, fmt::format("registers exceed {} bytes per warp", kMaxArenaBytes));
            s.value = alloc_slot(s.wide);
            if (count > 1) m_arena = static_cast<uint32_t>(s.value + count * slot);
            if (count == 0) m_arena = static_cast<uint32_t>(s.value);
            record_slots(static_cast<uint32_t>(s.value), count, s.wide);
        }
        if (v.range >= 0) {
            m_ranges.back()[v.name] = RangeDecl{s, count};
        } else {
            scope[v.name] = s;
        }
        return ok_status();
    }
    auto [size, align] = variable_size(v);
    Symbol s;
    s.kind = Symbol::Kind::Var;
    s.type = parse_type(v.type.type.substr(1));
    s.size = size;
    if (v.has_init && v.space != ".const" && v.space != ".global")
        return error_at(v.line, fmt::format("initializer of {} variable '{}' is not supported", v.space, v.name));
    if (v.space == ".local") {
        s.space = Space::Local;
        s.value = D4R_TRY(alloc_area(m_local, size, align, kMaxLocalBytes, "local memory per thread", v.line));
    } else if (v.space == ".param") {
        s.space = Space::FuncParam;
        s.value = D4R_TRY(alloc_area(m_fparam, size, align, kMaxLocalBytes, "call parameters per thread", v.line));
    } else if (v.space == ".shared") {
        s.space = Space::Shared;
        auto it = m_function_shared_offsets.find({function, decl_index});
        if (it == m_function_shared_offsets.end()) return error_at(v.line, "internal: shared variable not laid out");
        s.value = it->second;
    } else {
        return error_at(v.line, fmt::format("{} variable '{}' inside a function is not supported", v.space, v.name));
    }
    scope[v.name] = s;
    m_prog.layout.declared[{function, decl_index}] = VariablePlace{state_space_of(s.space), s.value, s.size};
    return ok_status();
}

Status ProgramBuilder::decode_instruction(const ast::Instruction& in) {
    int16_t guard = -1;
    if (!in.guard.empty()) {
        auto s = lookup(in.guard);
        if (!s || s->kind != Symbol::Kind::Pred)
            return malformed_at(in.line,
                                fmt::format("guard '{}' is not a predicate register in '{}'", in.guard, in.text));
        guard = static_cast<int16_t>(s->value);
    }
    InstrDecoder d(*this, in, guard, in.guard_negated);
    const OpcodeTable& table = opcode_table();
    auto it = table.find(d.mods().base());
    if (it == table.end()) {
        if (!is_ptx_opcode(d.mods().base()))
            return d.malformed(fmt::format("'{}' is not a PTX instruction", d.mods().base()));
        return d.error(fmt::format("unsupported instruction '{}'", d.mods().base()));
    }
    return it->second(d);
}

int64_t ProgramBuilder::branch_table(std::string_view name) {
    auto it = m_tables.find(name);
    if (it != m_tables.end()) return it->second;
    for (const ast::BranchTable& t : m_current->tables) {
        if (t.name != name) continue;
        uint32_t index = static_cast<uint32_t>(m_prog.branch_tables.size());
        m_prog.branch_tables.emplace_back(t.labels.size(), 0);
        for (uint32_t e = 0; e < t.labels.size(); ++e) m_table_fixups.emplace_back(index, e, t.labels[e]);
        m_tables[name] = index;
        return index;
    }
    return -1;
}

void ProgramBuilder::record_slots(uint32_t offset, uint64_t count, bool wide) {
    if (count != 0) m_frame_regs.push_back({offset, static_cast<uint32_t>(count), wide});
}

Status ProgramBuilder::decode_function(uint32_t fi) {
    const ast::Function& f = m_ctx.ast->functions[fi];
    // What the function allocates while it is decoded is its frame (what a recursive call saves).
    m_frame_regs.clear();
    const uint32_t pred_begin = m_prog.pred_count, local_begin = m_local, fparam_begin = m_fparam;
    m_current = &f;
    m_current_index = fi;
    m_in_entry = f.is_entry;
    m_function_pc[fi] = static_cast<uint32_t>(m_prog.code.size());
    m_labels.clear();
    m_label_fixups.clear();
    m_tables.clear();
    m_table_fixups.clear();
    m_scopes.emplace_back();
    m_ranges.emplace_back();
    if (f.is_entry) {
        for (size_t i = 0; i < f.params.size(); ++i) {
            const ast::Variable& p = f.params[i];
            if (!m_entry_info || i >= m_entry_info->params.size() || m_entry_info->params[i].name != p.name)
                return error_at(p.line, fmt::format("parameter '{}' does not match the module index", p.name));
            Symbol s;
            s.kind = Symbol::Kind::Var;
            s.space = Space::KernelParam;
            s.type = parse_type(p.type.type.substr(1));
            s.value = m_entry_info->params[i].offset;
            s.size = m_entry_info->params[i].size;
            m_scopes.back()[p.name] = s;
        }
    } else {
        const FunctionLayout& layout = m_layouts.at(fi);
        size_t k = 0;
        for (const ast::Variable& p : f.params) m_scopes.back()[p.name] = layout.formals[k++];
        for (const ast::Variable& p : f.returns) m_scopes.back()[p.name] = layout.formals[k++];
    }
    const Contractions contractions = find_contractions(f);
    const size_t function_scope = m_scopes.size() - 1;
    for (const ast::Statement& st : f.body) {
        switch (st.kind) {
        case ast::Statement::Kind::BlockOpen:
            m_scopes.emplace_back();
            m_ranges.emplace_back();
            break;
        case ast::Statement::Kind::BlockClose:
            m_scopes.pop_back();
            m_ranges.pop_back();
            break;
        case ast::Statement::Kind::Declaration:
            D4R_TRY(declare(f.declarations[st.index], m_scopes.back(), fi, st.index));
            break;
        case ast::Statement::Kind::Label: {
            const ast::Label& l = f.labels[st.index];
            if (!m_labels.emplace(l.name, static_cast<uint32_t>(m_prog.code.size())).second)
                return malformed_at(l.line, fmt::format("label '{}' is defined twice", l.name));
            break;
        }
        case ast::Statement::Kind::Instruction: {
            // A mul/add pair ptxas would fuse runs as the fma it becomes (contract.h); a mul whose
            // multiplicands change before its add first copies them to hidden registers.
            const ast::Instruction& in = f.instructions[st.index];
            if (std::find(contractions.saved_muls.begin(), contractions.saved_muls.end(), st.index) !=
                contractions.saved_muls.end()) {
                m_save_scope = function_scope;
                D4R_TRY(save_multiplicands(in, st.index));
            }
            auto fused = contractions.fused.find(st.index);
            if (fused == contractions.fused.end()) {
                D4R_TRY(decode_instruction(in));
                break;
            }
            ast::Instruction fma = fused_instruction(in, f.instructions[fused->second.mul], fused->second);
            if (fused->second.save_multiplicands) {
                for (int k = 1; k <= 2; ++k)
                    if (std::string_view hidden = saved_name(fused->second.mul, k); !hidden.empty())
                        fma.operands[size_t(k)].name = hidden;
            }
            D4R_TRY(decode_instruction(fma));
            break;
        }
        }
    }
    // An implicit return at the end, so falling off a function is well defined.
    static const ast::Instruction implicit_ret = [] {
        ast::Instruction in;
        in.opcode = "ret";
        in.text = "ret (implicit, end of function)";
        return in;
    }();
    ast::Instruction ret = implicit_ret;
    ret.line = f.line;
    D4R_TRY(decode_instruction(ret));
    for (auto& [pc, label] : m_label_fixups) {
        auto it = m_labels.find(label);
        if (it == m_labels.end())
            return malformed_at(m_prog.sources[pc].line,
                                fmt::format("unknown label '{}' in '{}'", label, m_prog.sources[pc].text));
        m_prog.code[pc].aux = it->second;
    }
    for (auto& [table, entry, label] : m_table_fixups) {
        auto it = m_labels.find(label);
        if (it == m_labels.end())
            return malformed_at(f.line, fmt::format("unknown label '{}' in .branchtargets", label));
        m_prog.branch_tables[table][entry] = it->second;
    }
    m_scopes.pop_back();
    m_ranges.pop_back();
    if (m_recursive.count(fi)) {
        FrameLayout frame;
        frame.regs = m_frame_regs;
        frame.pred_begin = pred_begin;
        frame.pred_end = m_prog.pred_count;
        frame.local_begin = local_begin;
        frame.local_end = m_local;
        const auto formals = m_formal_range.at(fi);
        if (formals.second > formals.first) frame.params.push_back(formals);
        if (m_fparam > fparam_begin) frame.params.emplace_back(fparam_begin, m_fparam);
        uint64_t bytes = 4ull * ((frame.pred_end - frame.pred_begin + 31) / 32) + (frame.local_end - frame.local_begin);
        for (const FrameLayout::Slots& r : frame.regs) bytes += uint64_t(r.count) * (r.wide ? 8 : 4);
        for (const auto& [begin, end] : frame.params) bytes += end - begin;
        if (bytes > UINT32_MAX)
            return error_at(f.line, fmt::format("the frame of recursive '{}' is too large", f.name));
        frame.bytes = static_cast<uint32_t>(bytes);
        m_frame_of[fi] = static_cast<int32_t>(m_prog.frames.size());
        m_prog.frames.push_back(std::move(frame));
    }
    return ok_status();
}

Status ProgramBuilder::finish() {
    for (auto& [site, target, fi] : m_call_fixups) {
        auto it = m_function_pc.find(fi);
        if (it == m_function_pc.end()) return make_error(ErrorCode::Internal, "call target was not decoded");
        m_prog.calls[site].targets[target].pc = it->second;
        if (auto frame = m_frame_of.find(fi); frame != m_frame_of.end()) {
            m_prog.calls[site].targets[target].frame = frame->second;
            m_prog.calls[site].saves = true;
        }
    }
    m_arena = static_cast<uint32_t>(align_up(m_arena, 64));
    const uint32_t const_base = m_arena;
    if (uint64_t(const_base) + m_const_arena > kMaxArenaBytes)
        return make_error(ErrorCode::Unsupported, "{}: registers and constants exceed {} bytes per warp", m_ctx.name,
                          kMaxArenaBytes);
    auto relocate = [&](uint32_t& slot) {
        if (slot != kNoReg && (slot & kConstTag)) slot = const_base + (slot & ~kConstTag);
    };
    for (Instr& in : m_prog.code) {
        for (uint32_t& d : in.d) relocate(d);
        for (uint32_t& v : in.s) relocate(v);
        relocate(in.base);
    }
    m_prog.regs_begin = static_cast<uint32_t>(Special::Count) * kSlot32;
    m_prog.regs_end = const_base;
    m_prog.arena_image.assign(const_base + align_up(m_const_arena, 64), 0);
    for (auto& [off, bits] : m_const_values32) {
        uint32_t v = static_cast<uint32_t>(bits);
        for (int i = 0; i < 32; ++i) std::memcpy(m_prog.arena_image.data() + const_base + off + 4 * i, &v, 4);
    }
    for (auto& [off, bits] : m_const_values64)
        for (int i = 0; i < 32; ++i) std::memcpy(m_prog.arena_image.data() + const_base + off + 8 * i, &bits, 8);
    m_prog.local_bytes = static_cast<uint32_t>(align_up(m_local, 16));
    m_prog.fparam_bytes = static_cast<uint32_t>(align_up(m_fparam, 16));
    m_prog.global_segment = m_ctx.global_segment;
    m_prog.global_segment_bytes = m_ctx.global_bytes;
    m_prog.const_segment = m_ctx.const_segment;
    m_prog.const_segment_bytes = m_ctx.const_bytes;
    return ok_status();
}

Status ProgramBuilder::build_kernel(uint32_t entry, const ptx::EntryInfo& info) {
    m_entry_info = &info;
    std::vector<uint32_t> functions;
    D4R_TRY(reachable(entry, functions));
    D4R_TRY(prepare(functions));
    m_prog.entry_pc = 0;
    for (const auto& [name, sym] : m_ctx.globals)
        m_prog.layout.module_variables[std::string(name)] = {state_space_of(sym.space), sym.value, sym.size};
    for (const auto& [name, sym] : m_shared_symbols)
        m_prog.layout.module_variables[std::string(name)] = {ptx::StateSpace::Shared, sym.value, sym.size};
    for (uint32_t fi : functions) D4R_TRY(decode_function(fi));
    return finish();
}

Status ProgramBuilder::build_function(uint32_t function) {
    std::vector<uint32_t> functions;
    D4R_TRY(reachable(function, functions));
    D4R_TRY(prepare(functions));
    for (uint32_t fi : functions) D4R_TRY(decode_function(fi));
    return finish();
}

std::string_view ProgramBuilder::saved_name(uint32_t mul_index, int operand) const {
    const std::string name = fmt::format("%d4r.mul{}.src{}", mul_index, operand);
    for (const std::string& h : m_hidden_names)
        if (h == name) return h;
    return {};
}

// Copies the register multiplicands of MUL to hidden registers (named in m_hidden_names, declared in the
// function's outermost scope) before the mul runs, for the fma that fuses it later (contract.h).
Status ProgramBuilder::save_multiplicands(const ast::Instruction& mul, uint32_t mul_index) {
    for (int k = 1; k <= 2 && size_t(k) < mul.operands.size(); ++k) {
        const ast::Operand& o = mul.operands[size_t(k)];
        if (o.kind != ast::OperandKind::Name) continue;
        auto sym = lookup(o.name);
        if (!sym || sym->kind != Symbol::Kind::Reg) continue;
        const std::string& name = m_hidden_names.emplace_back(fmt::format("%d4r.mul{}.src{}", mul_index, k));
        Symbol hidden = *sym;
        hidden.value = alloc_slot(sym->wide);
        record_slots(static_cast<uint32_t>(hidden.value), 1, sym->wide);
        m_scopes[m_save_scope][name] = hidden;
        ast::Instruction copy;
        const unsigned bits = sym->wide ? 64 : type_bits(sym->type) == 16 ? 16 : 32;
        copy.opcode = bits == 64 ? "mov.b64" : bits == 16 ? "mov.b16" : "mov.b32";
        copy.line = mul.line;
        copy.text = mul.text;
        ast::Operand dst;
        dst.kind = ast::OperandKind::Name;
        dst.name = name;
        copy.operands = {dst, o};
        D4R_TRY(decode_instruction(copy));
    }
    return ok_status();
}

} // namespace d4r::ptxsim
