// The memory family's meaning (see instr_memory.h).
#include "ptx/instr_memory.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = MemoryAccess::Op;

Expected<MemoryAccess> decode_access(const ast::Instruction& in, Modifiers& m, MemoryAccess a) {
    std::string_view sp = m.take_any({"global", "shared", "local", "const", "param"});
    if (sp.empty()) {
        if (m.take("shared::cta"))
            sp = "shared";
        else if (m.take("param::entry"))
            sp = "param";
        else if (m.take("param::func"))
            sp = "param";
    }
    if (sp == "shared") m.take_prefixed("shared::");
    m.take_memory_hints();
    m.take("unified");
    m.take_prefixed("level::");
    a.vector = m.take_vector();
    a.type = m.take_type();
    D4R_TRY(finish(m));
    if (a.type == Type::None || a.type == Type::Pred) return unsupported("missing or invalid type");
    if (type_bits(a.type) > 64)
        return unsupported(fmt::format(".{} accesses are not supported yet", type_name(a.type)));
    if (a.vector == 8) return unsupported(".v8 accesses are not supported yet");
    a.space = decode::state_space(sp);
    D4R_TRY(expect_operands(in, 2));
    if (a.op == Op::Store) {
        a.address_operand = 0;
        if (a.space == StateSpace::Const) return unsupported("st.const is not a PTX instruction");
        if (decode::element_count(in.operands[1]) != a.vector)
            return unsupported(fmt::format("expected {} source values", a.vector));
    } else if (decode::element_count(in.operands[0]) != a.vector) {
        return unsupported(fmt::format("expected {} destination registers", a.vector));
    }
    return a;
}

} // namespace

Expected<MemoryAccess> decode_memory(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    MemoryAccess a;
    if (m.base() == "prefetch" || m.base() == "prefetchu") {
        a.op = Op::Prefetch;
        a.address_operand = 0;
        const std::string_view sp = m.take_any({"global", "local"});
        a.space = decode::state_space(sp);
        m.take_any({"L1", "L2"});
        m.take_prefixed("L2::");
        m.take("tensormap");
        D4R_TRY(finish(m));
        return a;
    }
    if (m.base() != "ld" && m.base() != "ldu" && m.base() != "st")
        return unsupported(fmt::format("'{}' is not a memory instruction", m.base()));
    a.op = m.base() == "st" ? Op::Store : Op::Load;
    return decode_access(in, m, a);
}

} // namespace d4r::ptx
