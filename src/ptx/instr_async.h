// The PTX front end, typed instructions (docs/ptx-front-end.md): cp.async, the asynchronous copy from global to
// shared memory (.ca/.cg .shared.global, 4, 8 or 16 bytes, an optional source size or ignore predicate and cache
// policy), its groups (commit_group, wait_group N, wait_all) and cp.async.mbarrier.arrive{.noinc} (whose modifiers
// and operands the mbarrier family's decoder reads: ptx/instr_mbarrier.h).
//
// Promise: decode_async() accepts exactly the forms d4r implements and says what each does; errors carry no
// location (the consumer adds it): Invalid for an operand count no assembler takes, Unsupported for anything else it
// refuses (the bulk and tensor forms among them), with ptxsim's messages.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"

namespace d4r::ptx {

struct AsyncCopy {
    enum class Op : uint8_t {
        Copy, // cp.async.ca|.cg.shared.global{.L2::cache_hint}{.L2::NB} [d], [s], bytes{, src-size | {!}p}{, policy}
        CommitGroup,    // cp.async.commit_group
        WaitGroup,      // cp.async.wait_group N
        WaitAll,        // cp.async.wait_all
        MbarrierArrive, // cp.async.mbarrier.arrive{.noinc}{.shared}.b64 [a]
    };
    Op op = Op::Copy;
    bool cache_global = false;   // .cg (L2 only: 16 bytes); else .ca
    unsigned bytes = 16;         // Copy: 4, 8 or 16
    bool source_operand = false; // Copy: operand 3 is the source size (or, written as a predicate, the ignore-src)
    bool cache_policy = false;   // Copy: .L2::cache_hint, with its policy operand last
    uint64_t groups = 0;         // WaitGroup: N
};

Expected<AsyncCopy> decode_async(const ast::Instruction& in);

} // namespace d4r::ptx
