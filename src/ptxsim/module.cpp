// Module loading: parse, lay out and initialise module variables, decode every kernel (and every
// .func no kernel reaches, so that its errors are load-time errors too).
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <unordered_set>

#include <fmt/format.h>

#include "ptx/parser.h"
#include "ptx/validate.h"
#include "ptxsim/module_impl.h"
#include "ptxsim/program_builder.h"

namespace d4r::ptxsim {

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Writes the initializer of V (element type ELEMENT_TYPE, ELEMENT bytes each) at DST.
Status write_initializer(const ast::Variable& v, uint8_t* dst, uint64_t size, const ModuleContext& ctx,
                         std::string_view module) {
    std::string_view tname = v.type.type.substr(1);
    Type t = parse_type(tname);
    unsigned element = static_cast<unsigned>(ptx::ptx_type_size(v.type.type));
    if (element == 0 || t == Type::None)
        return make_error(ErrorCode::Unsupported, "{}:{}: initializer of type {} is not supported", module, v.line,
                          v.type.type);
    uint64_t count = size / element;
    if (v.init.size() > count)
        return make_error(ErrorCode::Invalid, "{}:{}: '{}' has {} initializer values for {} elements", module, v.line,
                          v.name, v.init.size(), count);
    for (size_t i = 0; i < v.init.size(); ++i) {
        const ast::Initializer& item = v.init[i];
        uint64_t bits = 0;
        if (item.kind == ast::Initializer::Kind::Symbol) {
            auto fn = ctx.functions.find(item.symbol);
            auto it = ctx.globals.find(item.symbol);
            if (fn != ctx.functions.end()) {
                bits = kFunctionWindow + 16 * uint64_t(fn->second) + static_cast<uint64_t>(item.offset);
            } else if (it == ctx.globals.end())
                return make_error(ErrorCode::Unsupported,
                                  "{}:{}: initializer symbol '{}' is not a .global or .const "
                                  "variable",
                                  module, v.line, item.symbol);
            else
                bits = it->second.value + static_cast<uint64_t>(item.offset);
        } else if (item.kind == ast::Initializer::Kind::Integer) {
            if (t == Type::F32)
                bits = std::bit_cast<uint32_t>(static_cast<float>(static_cast<int64_t>(item.integer)));
            else if (t == Type::F64)
                bits = std::bit_cast<uint64_t>(static_cast<double>(static_cast<int64_t>(item.integer)));
            else
                bits = item.integer;
        } else {
            ast::Operand o;
            o.kind = ast::OperandKind::Float;
            o.real = item.real;
            o.float_bits = item.float_bits;
            o.raw_bits = item.raw_bits;
            auto b = immediate_bits(o, t);
            if (!b)
                return make_error(ErrorCode::Unsupported, "{}:{}: initializer of '{}': {}", module, v.line, v.name,
                                  b.error().message());
            bits = *b;
        }
        std::memcpy(dst + i * element, &bits, std::min<unsigned>(element, 8)); // little-endian truncation
    }
    return ok_status();
}

} // namespace

const char* fault_kind_name(FaultKind kind) {
    switch (kind) {
    case FaultKind::None:
        return "none";
    case FaultKind::IllegalAddress:
        return "illegal address";
    case FaultKind::MisalignedAddress:
        return "misaligned address";
    case FaultKind::IllegalInstruction:
        return "illegal instruction";
    case FaultKind::InvalidLaunch:
        return "invalid launch";
    case FaultKind::BudgetExceeded:
        return "instruction budget exceeded";
    case FaultKind::Unsupported:
        return "unsupported";
    case FaultKind::Assert:
        return "device-side assert";
    }
    return "fault";
}

Module::Impl::~Impl() {
    std::free(global_storage);
    std::free(const_storage);
}

Kernel::Kernel(const Module* module, const ptx::EntryInfo* info, std::unique_ptr<Program> program)
    : m_module(module), m_info(info), m_program(std::move(program)) {}
Kernel::~Kernel() = default;

uint32_t Kernel::static_shared_bytes() const { return m_program->static_shared_bytes; }
uint32_t Kernel::local_bytes_per_thread() const { return m_program->local_bytes; }
size_t Kernel::instruction_count() const { return m_program->code.size(); }

Module::~Module() = default;

namespace {

// Lays out the .global and .const variables of the module in two segments and initialises them.
Status layout_variables(Module::Impl& m, std::string_view name) {
    ModuleContext& ctx = m.ctx;
    uint64_t sizes[2] = {0, 0}; // global, const
    std::vector<std::pair<const ast::Variable*, uint64_t>> placed;
    for (const ast::Variable& v : m.ast.variables) {
        if (v.space != ".global" && v.space != ".const") continue;
        if (v.type.type == ".texref" || v.type.type == ".samplerref" || v.type.type == ".surfref")
            return make_error(ErrorCode::Unsupported, "{}:{}: texture/surface references ('{}') are not supported yet",
                              name, v.line, v.name);
        uint64_t element = ptx::ptx_type_size(v.type.type) * std::max(1u, v.type.vector);
        if (element == 0)
            return make_error(ErrorCode::Unsupported, "{}:{}: variable '{}' of type {} is not supported", name, v.line,
                              v.name, v.type.type);
        // An unsized first dimension takes its size from the initializer ("x[] = {1, 2, 3}").
        uint64_t scalar = ptx::ptx_type_size(v.type.type);
        uint64_t inner = element;
        for (size_t i = 1; i < v.dims.size(); ++i) inner *= v.dims[i];
        uint64_t outer = v.dims.empty() ? 1 : v.dims[0];
        if (!v.dims.empty() && outer == 0) {
            uint64_t per = std::max<uint64_t>(inner / scalar, 1);
            outer = (v.init.size() + per - 1) / per;
        }
        uint64_t size = inner * outer;
        if (size > (1ull << 32))
            return make_error(ErrorCode::Unsupported, "{}:{}: variable '{}' is too large", name, v.line, v.name);
        uint64_t align = std::max<uint64_t>(v.type.align != 0 ? v.type.align : element, 1);
        int k = v.space == ".const" ? 1 : 0;
        uint64_t off = align_up(sizes[k], align);
        sizes[k] = off + size;
        placed.push_back({&v, off});
        Symbol s;
        s.kind = Symbol::Kind::Var;
        s.space = k ? Space::Const : Space::Global;
        s.type = parse_type(v.type.type.substr(1));
        s.value = off; // rebased below
        s.size = size;
        ctx.globals[v.name] = s;
    }
    // 256-byte aligned storage with a guard tail so one-past-the-end is not inside another object.
    auto allocate = [](uint64_t bytes) {
        uint64_t total = align_up(bytes + 256, 256);
        void* p = std::aligned_alloc(256, total);
        if (p) std::memset(p, 0, total);
        return static_cast<uint8_t*>(p);
    };
    m.global_storage = allocate(sizes[0]);
    m.const_storage = allocate(sizes[1]);
    if (!m.global_storage || !m.const_storage)
        return make_error(ErrorCode::Io, "{}: out of memory for module variables", name);
    ctx.global_segment = reinterpret_cast<uint64_t>(m.global_storage);
    ctx.global_bytes = sizes[0];
    ctx.const_segment = reinterpret_cast<uint64_t>(m.const_storage);
    ctx.const_bytes = sizes[1];
    for (auto& [name_view, sym] : ctx.globals)
        sym.value += sym.space == Space::Const ? ctx.const_segment : ctx.global_segment;
    for (auto& [v, off] : placed) {
        if (!v->has_init) continue;
        uint8_t* base = v->space == ".const" ? m.const_storage : m.global_storage;
        D4R_TRY(write_initializer(*v, base + off, ctx.globals[v->name].size, ctx, name));
    }
    return ok_status();
}

// Functions whose address the module uses (in an initializer, or as an operand other than a call's
// direct target): the possible targets of indirect calls.
void find_address_taken(ModuleContext& ctx) {
    std::unordered_set<uint32_t> taken;
    auto note = [&](std::string_view name) {
        auto it = ctx.functions.find(name);
        if (it != ctx.functions.end() && ctx.ast->functions[it->second].defined &&
            !ctx.ast->functions[it->second].is_entry)
            taken.insert(it->second);
    };
    for (const ast::Variable& v : ctx.ast->variables)
        for (const ast::Initializer& item : v.init)
            if (item.kind == ast::Initializer::Kind::Symbol) note(item.symbol);
    std::function<void(const ast::Operand&)> visit = [&](const ast::Operand& o) {
        if (!o.name.empty()) note(o.name);
        for (const ast::Operand& e : o.elements) visit(e);
    };
    for (const ast::Function& f : ctx.ast->functions) {
        for (const ast::Instruction& in : f.instructions) {
            bool call = in.opcode == "call" || in.opcode.substr(0, 5) == "call.";
            bool skipped_target = false;
            for (const ast::Operand& o : in.operands) {
                if (call && !skipped_target && o.kind == ast::OperandKind::Name) {
                    skipped_target = true; // the direct target of a call is not an address use
                    continue;
                }
                visit(o);
            }
        }
    }
    ctx.address_taken.assign(taken.begin(), taken.end());
    std::sort(ctx.address_taken.begin(), ctx.address_taken.end());
}

} // namespace

Expected<std::shared_ptr<Module>> Module::load(std::string_view text, std::string name) {
    std::shared_ptr<Module> module(new Module());
    module->m_name = std::move(name);
    module->m_impl = std::make_unique<Impl>();
    Impl& m = *module->m_impl;
    m.text.assign(text.begin(), text.end());
    while (!m.text.empty() && m.text.back() == '\0') m.text.pop_back();
    std::string_view owned = m.text;
    const std::string& mname = module->m_name;

    module->m_index = D4R_TRY_CTX(ptx::index_module(owned), "{}", mname);
    m.ast = D4R_TRY(ptx::parse_module(owned, mname));
    D4R_TRY(ptx::validate_module(owned, module->m_index, m.ast, mname));
    m.ctx.ast = &m.ast;
    m.ctx.name = mname;
    m.ctx.target = module->m_index.sm();
    for (uint32_t i = 0; i < m.ast.functions.size(); ++i) {
        const ast::Function& f = m.ast.functions[i];
        auto it = m.ctx.functions.find(f.name);
        if (it == m.ctx.functions.end() || (!m.ast.functions[it->second].defined && f.defined))
            m.ctx.functions[f.name] = i;
    }
    for (uint32_t i = 0; i < m.ast.variables.size(); ++i)
        if (m.ast.variables[i].space == ".shared") m.ctx.shared[m.ast.variables[i].name] = i;
    find_address_taken(m.ctx);
    D4R_TRY(layout_variables(m, mname));

    std::unordered_set<uint32_t> reached;
    for (uint32_t i = 0; i < m.ast.functions.size(); ++i) {
        const ast::Function& f = m.ast.functions[i];
        if (!f.is_entry || !f.defined) continue;
        const ptx::EntryInfo* info = module->m_index.find_entry(f.name);
        if (!info) return make_error(ErrorCode::Internal, "{}: entry '{}' missing from the index", mname, f.name);
        auto program = std::make_unique<Program>();
        ProgramBuilder builder(m.ctx, *program);
        if (Status st = builder.build_kernel(i, *info); !st) {
            // What ptxsim cannot execute makes only this kernel unavailable; the module's other kernels
            // load and run.
            if (st.error().code() != ErrorCode::Unsupported) return st.error();
            module->m_unavailable.push_back({std::string(f.name), std::string(st.error().message())});
            continue;
        }
        for (const SourceRef& s : program->sources) {
            auto it = m.ctx.functions.find(s.function);
            if (it != m.ctx.functions.end()) reached.insert(it->second);
        }
        module->m_device_heap = module->m_device_heap || program->device_heap;
        module->m_kernels.push_back(std::make_unique<Kernel>(module.get(), info, std::move(program)));
    }
    for (uint32_t i = 0; i < m.ast.functions.size(); ++i) {
        const ast::Function& f = m.ast.functions[i];
        if (f.is_entry || !f.defined || reached.count(i)) continue;
        Program scratch;
        ProgramBuilder builder(m.ctx, scratch);
        // A function no kernel calls cannot stop any kernel: only malformed PTX is an error there.
        if (Status st = builder.build_function(i); !st && st.error().code() != ErrorCode::Unsupported)
            return st.error();
    }
    return module;
}

Expected<const Kernel*> Module::kernel(std::string_view name) const {
    for (const auto& k : m_kernels)
        if (k->name() == name) return k.get();
    for (const auto& u : m_unavailable)
        if (u.kernel == name)
            return make_error(ErrorCode::Unsupported, "kernel '{}' cannot run on ptxsim: {}", name, u.reason);
    return make_error(ErrorCode::NotFound, "{}: no kernel named '{}'", m_name, name);
}

std::vector<std::string> Module::kernel_names() const {
    std::vector<std::string> out;
    for (const auto& k : m_kernels) out.push_back(k->name());
    return out;
}

Expected<GlobalSymbol> Module::global(std::string_view name) const {
    auto it = m_impl->ctx.globals.find(name);
    if (it == m_impl->ctx.globals.end())
        return make_error(ErrorCode::NotFound, "{}: no .global or .const variable named '{}'", m_name, name);
    return GlobalSymbol{it->second.value, it->second.size, it->second.space == Space::Const};
}

} // namespace d4r::ptxsim
