// The move family's meaning (see instr_move.h).
#include "ptx/instr_move.h"

#include <string_view>

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = Move::Op;
using Form = Move::Form;
using Sreg = Move::Sreg;

// "%envreg7" with PREFIX "%envreg" and LIMIT 32: whether NAME is PREFIX followed by a number below LIMIT (no
// leading zero).
bool numbered(std::string_view name, std::string_view prefix, unsigned limit) {
    if (name.substr(0, prefix.size()) != prefix) return false;
    std::string_view digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 2 || (digits.size() > 1 && digits[0] == '0')) return false;
    unsigned n = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return false;
        n = n * 10 + unsigned(c - '0');
    }
    return n < limit;
}

// PTX's special registers (the ISA's "Special Registers" chapter) and WARP_SZ, its predefined warp size.
bool is_special(std::string_view name) {
    constexpr std::string_view kVectors[] = {"%tid",       "%ntid",       "%ctaid",         "%nctaid",
                                             "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid"};
    // Space-separated, with a space at each end.
    constexpr std::string_view kScalars =
        " %laneid %warpid %nwarpid %smid %nsmid %gridid %lanemask_eq %lanemask_le %lanemask_lt %lanemask_ge"
        " %lanemask_gt %clock %clock_hi %clock64 %globaltimer %globaltimer_lo %globaltimer_hi %is_explicit_cluster"
        " %cluster_ctarank %cluster_nctarank %total_smem_size %aggr_smem_size %dynamic_smem_size %current_graph_exec"
        " %reserved_smem_offset_begin %reserved_smem_offset_end %reserved_smem_offset_cap %reserved_smem_offset_0"
        " %reserved_smem_offset_1 WARP_SZ ";
    if (!name.empty() && kScalars.find(fmt::format(" {} ", name)) != std::string_view::npos) return true;
    for (std::string_view v : kVectors) {
        if (name.substr(0, v.size()) != v) continue;
        std::string_view rest = name.substr(v.size());
        if (rest.empty() || rest == ".x" || rest == ".y" || rest == ".z") return true;
    }
    if (name.size() > 3 && name.substr(name.size() - 3) == "_64")
        return numbered(name.substr(0, name.size() - 3), "%pm", 8);
    return numbered(name, "%pm", 8) || numbered(name, "%envreg", 32);
}

Sreg sreg_of(std::string_view name) {
    if (name == "%clock") return Sreg::Clock;
    if (name == "%clock_hi") return Sreg::ClockHi;
    if (name == "%clock64") return Sreg::Clock64;
    if (name == "%globaltimer") return Sreg::GlobalTimer;
    if (name == "%globaltimer_lo") return Sreg::GlobalTimerLo;
    if (name == "%globaltimer_hi") return Sreg::GlobalTimerHi;
    if (name == "%gridid") return Sreg::GridId;
    return Sreg::Other;
}

// mov d, {a, b, ..} (PACK) or mov {a, b, ..}, d: the elements split the type's width.
Expected<Move> decode_pack(const ast::Instruction& in, Move mv, bool pack) {
    const ast::Operand& vec = in.operands[pack ? 1 : 0];
    const unsigned bits = type_bits(mv.type);
    const auto n = static_cast<unsigned>(vec.elements.size());
    if (n < 2 || n > 4 || bits % n != 0) return unsupported("unsupported vector form of mov");
    const unsigned w = bits / n;
    if (n == 2 && w == 64) return unsupported("mov.b128 is not supported yet");
    if (!(n == 2 && (w == 32 || w == 16 || w == 8)) && !(n == 4 && (w == 16 || w == 8)))
        return unsupported("unsupported vector form of mov");
    const Type element = w == 8 ? Type::B8 : w == 16 ? Type::B16 : Type::B32;
    mv.form = pack ? Form::Pack : Form::Unpack;
    mv.elements = n;
    mv.dst = pack ? mv.type : element;
    mv.src = pack ? element : mv.type;
    return mv;
}

// mov d, %special: the counters' widths.
Status check_width(Sreg s, std::string_view name, Type t) {
    const bool wide = type_bits(t) == 64;
    switch (s) {
    case Sreg::Clock:
    case Sreg::ClockHi:
    case Sreg::Clock64:
        if ((s == Sreg::Clock64) != wide) return unsupported("width of the clock register does not match");
        return ok_status();
    case Sreg::GlobalTimer:
    case Sreg::GridId:
        if (!wide) return unsupported(fmt::format("{} is a 64-bit register", name));
        return ok_status();
    case Sreg::GlobalTimerLo:
    case Sreg::GlobalTimerHi:
        if (wide) return unsupported(fmt::format("{} is a 32-bit register", name));
        return ok_status();
    default:
        return ok_status();
    }
}

Expected<Move> decode_mov(const ast::Instruction& in, Modifiers& m, Move mv) {
    mv.type = m.take_type();
    D4R_TRY(finish(m));
    const Type t = mv.type;
    if (t == Type::None) return unsupported("mov needs a type");
    D4R_TRY(expect_operands(in, 2));
    const ast::Operand& dst = in.operands[0];
    const ast::Operand& src = in.operands[1];
    mv.dst = mv.src = t;
    if (t == Type::Pred) {
        if (src.kind == ast::OperandKind::Integer)
            mv.form = Form::Immediate;
        else if (src.kind == ast::OperandKind::Name)
            mv.form = Form::Name;
        else
            return unsupported("expected a predicate register");
        return mv;
    }
    if (src.kind == ast::OperandKind::Vector) return decode_pack(in, mv, true);
    if (dst.kind == ast::OperandKind::Vector) return decode_pack(in, mv, false);
    if (type_bits(t) > 64) return unsupported(fmt::format("mov.{} is not supported yet", type_name(t)));
    if (src.kind == ast::OperandKind::Integer || src.kind == ast::OperandKind::Float) {
        mv.form = Form::Immediate;
        return mv;
    }
    if (src.kind != ast::OperandKind::Name || src.negated) return unsupported("expected a register or an immediate");
    mv.sreg = sreg_of(src.name);
    if (mv.sreg != Sreg::Other) {
        D4R_TRY(check_width(mv.sreg, src.name, t));
        mv.form = Form::Special;
        return mv;
    }
    mv.form = is_special(src.name) ? Form::Special : Form::Name;
    return mv;
}

// The state space of cvta and isspacep: .shared::cta is .shared (a CTA's own shared memory, all there is without
// clusters); .shared::cluster is refused.
Expected<std::string_view> take_space(Modifiers& m) {
    std::string_view sp = m.take_any({"global", "shared", "local", "const", "param"});
    if (sp.empty() && m.take("shared::cta")) sp = "shared";
    if (m.has("shared::cluster")) return unsupported("cluster shared memory is not supported");
    return sp;
}

Expected<Move> decode_cvta(const ast::Instruction& in, Modifiers& m, Move mv) {
    mv.to_space = m.take("to");
    const std::string_view sp = D4R_TRY(take_space(m));
    mv.type = m.take_type();
    D4R_TRY(finish(m));
    if (sp.empty()) return unsupported("cvta needs a state space");
    if (mv.type != Type::U32 && mv.type != Type::U64) return unsupported("cvta takes .u32 or .u64");
    D4R_TRY(expect_operands(in, 2));
    mv.space = decode::state_space(sp);
    mv.dst = mv.src = mv.type;
    return mv;
}

Expected<Move> decode_isspacep(const ast::Instruction& in, Modifiers& m, Move mv) {
    const std::string_view sp = D4R_TRY(take_space(m));
    D4R_TRY(finish(m));
    if (sp.empty()) return unsupported("isspacep needs a state space");
    D4R_TRY(expect_operands(in, 2));
    mv.space = decode::state_space(sp);
    mv.dst = Type::Pred;
    mv.src = Type::U64;
    return mv;
}

} // namespace

Expected<Move> decode_move(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    Move mv;
    if (m.base() == "mov") return decode_mov(in, m, mv);
    if (m.base() == "cvta") {
        mv.op = Op::Cvta;
        return decode_cvta(in, m, mv);
    }
    if (m.base() == "isspacep") {
        mv.op = Op::Isspacep;
        return decode_isspacep(in, m, mv);
    }
    return unsupported(fmt::format("'{}' is not a move instruction", m.base()));
}

} // namespace d4r::ptx
