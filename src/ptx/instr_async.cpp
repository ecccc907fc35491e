// cp.async's meaning (see instr_async.h).
#include "ptx/instr_async.h"

#include "ptx/instr_decode.h"

namespace d4r::ptx {

namespace {

using decode::expect_operands;
using decode::finish;
using decode::integer_constant;
using decode::unsupported;
using Op = AsyncCopy::Op;

} // namespace

Expected<AsyncCopy> decode_async(const ast::Instruction& in) {
    Modifiers m(in.opcode);
    AsyncCopy c;
    if (m.base() != "cp" || !m.take("async")) return unsupported("only cp.async is supported");
    if (m.take("mbarrier")) {
        if (!m.take("arrive")) return unsupported("cp.async.mbarrier supports only .arrive");
        c.op = Op::MbarrierArrive; // the rest of its modifiers and its operands: the mbarrier family's
        return c;
    }
    for (auto [name, op] :
         {std::pair{"commit_group", Op::CommitGroup}, {"wait_all", Op::WaitAll}, {"wait_group", Op::WaitGroup}}) {
        if (!m.take(name)) continue;
        D4R_TRY(finish(m));
        c.op = op;
        D4R_TRY(expect_operands(in, op == Op::WaitGroup ? 1 : 0));
        if (op == Op::WaitGroup) c.groups = D4R_TRY(integer_constant(in.operands[0])); // N must be a constant
        return c;
    }
    const std::string_view cache = m.take_any({"ca", "cg"});
    const bool dst_shared = !m.take_any({"shared", "shared::cta"}).empty();
    const bool src_global = m.take("global");
    c.cache_policy = m.take("L2::cache_hint");
    m.take_prefixed("L2::"); // prefetch size
    D4R_TRY(finish(m));
    if (cache.empty() || !dst_shared || !src_global)
        return unsupported("cp.async needs .ca or .cg and .shared.global (bulk and mbarrier forms are not supported)");
    D4R_TRY(expect_operands(in, 3, 5));
    const uint64_t bytes = D4R_TRY(integer_constant(in.operands[2]));
    if (bytes != 4 && bytes != 8 && bytes != 16) return unsupported("cp.async copies 4, 8 or 16 bytes");
    c.cache_global = cache == "cg";
    if (c.cache_global && bytes != 16) return unsupported("cp.async.cg copies 16 bytes");
    c.bytes = static_cast<unsigned>(bytes);
    size_t extra = in.operands.size() - 3;
    if (c.cache_policy) {
        if (extra == 0) return unsupported(".L2::cache_hint needs a cache-policy operand");
        --extra; // the policy, a hint only
    }
    if (extra > 1) return unsupported("too many operands");
    c.source_operand = extra == 1;
    return c;
}

} // namespace d4r::ptx
