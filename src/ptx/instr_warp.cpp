// The warp collectives' meaning (see instr_warp.h).
#include "ptx/instr_warp.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::unsupported;
using Op = WarpCollective::Op;

Expected<WarpCollective> decode_shfl(const ast::Instruction& in, Modifiers& m, WarpCollective w) {
    if (!m.take("sync")) return unsupported("shfl without .sync is not supported (removed for sm_70 and later)");
    const std::string_view mode = m.take_any({"up", "down", "bfly", "idx"});
    w.type = m.take_type();
    D4R_TRY(finish(m));
    if (mode.empty() || w.type != Type::B32) return unsupported("shfl.sync needs a mode and .b32");
    D4R_TRY(expect_operands(in, 5));
    w.op = Op::Shuffle;
    w.shuffle = mode == "up"     ? WarpCollective::Shuffle::Up
                : mode == "down" ? WarpCollective::Shuffle::Down
                : mode == "bfly" ? WarpCollective::Shuffle::Butterfly
                                 : WarpCollective::Shuffle::Index;
    w.predicate_out = in.operands[0].kind == ast::OperandKind::Pair;
    return w;
}

Expected<WarpCollective> decode_vote(const ast::Instruction& in, Modifiers& m, WarpCollective w) {
    if (!m.take("sync")) return unsupported("vote without .sync is not supported (removed for sm_70 and later)");
    const std::string_view mode = m.take_any({"all", "any", "uni", "ballot"});
    w.type = m.take_type();
    D4R_TRY(finish(m));
    if (mode.empty()) return unsupported("vote.sync needs .all, .any, .uni or .ballot");
    const bool ballot = mode == "ballot";
    if ((ballot && w.type != Type::B32) || (!ballot && w.type != Type::Pred))
        return unsupported("vote.sync type does not match its mode");
    D4R_TRY(expect_operands(in, 3));
    w.op = Op::Vote;
    w.vote = mode == "all"   ? WarpCollective::Vote::All
             : mode == "any" ? WarpCollective::Vote::Any
             : mode == "uni" ? WarpCollective::Vote::Uniform
                             : WarpCollective::Vote::Ballot;
    return w;
}

Expected<WarpCollective> decode_match(const ast::Instruction& in, Modifiers& m, WarpCollective w) {
    const std::string_view mode = m.take_any({"any", "all"});
    const bool sync = m.take("sync");
    w.type = m.take_type();
    D4R_TRY(finish(m));
    if (!sync || mode.empty() || (w.type != Type::B32 && w.type != Type::B64))
        return unsupported("match needs .any or .all, .sync and .b32 or .b64");
    D4R_TRY(expect_operands(in, 3));
    w.op = Op::Match;
    w.all = mode == "all";
    w.predicate_out = in.operands[0].kind == ast::OperandKind::Pair;
    if (w.predicate_out && !w.all) return unsupported("match.any has no predicate destination");
    return w;
}

Expected<WarpCollective> decode_redux(const ast::Instruction& in, Modifiers& m, WarpCollective w) {
    const bool sync = m.take("sync");
    const std::string_view op = m.take_any({"add", "min", "max", "and", "or", "xor"});
    w.type = m.take_type();
    D4R_TRY(finish(m));
    if (!sync || op.empty()) return unsupported("redux needs .sync and an operation");
    const bool arithmetic = op == "add" || op == "min" || op == "max";
    if (arithmetic ? (w.type != Type::U32 && w.type != Type::S32) : w.type != Type::B32)
        return unsupported(fmt::format("redux.sync.{}.{} is not supported (add/min/max take .u32/.s32, and/or/xor "
                                       "take .b32)",
                                       op, type_name(w.type)));
    D4R_TRY(expect_operands(in, 3));
    w.op = Op::Reduce;
    w.reduction = op == "add"   ? WarpCollective::Reduction::Add
                  : op == "min" ? WarpCollective::Reduction::Min
                  : op == "max" ? WarpCollective::Reduction::Max
                  : op == "and" ? WarpCollective::Reduction::And
                  : op == "or"  ? WarpCollective::Reduction::Or
                                : WarpCollective::Reduction::Xor;
    return w;
}

} // namespace

Expected<WarpCollective> decode_warp(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    WarpCollective w;
    const std::string_view base = m.base();
    if (base == "shfl") return decode_shfl(in, m, w);
    if (base == "vote") return decode_vote(in, m, w);
    if (base == "match") return decode_match(in, m, w);
    if (base == "redux") return decode_redux(in, m, w);
    if (base != "activemask") return unsupported(fmt::format("'{}' is not a warp collective", base));
    w.type = m.take_type();
    D4R_TRY(finish(m));
    if (w.type != Type::B32) return unsupported("activemask needs .b32");
    D4R_TRY(expect_operands(in, 1));
    w.op = Op::ActiveMask;
    return w;
}

} // namespace d4r::ptx
