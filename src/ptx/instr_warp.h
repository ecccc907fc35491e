// The PTX front end, typed instructions (docs/ptx-front-end.md): the warp collectives, shfl.sync, vote.sync,
// match.sync, redux.sync and activemask.
//
// Promise: decode_warp() accepts exactly the forms d4r implements and says what each computes; errors carry no
// location (the consumer adds it): Invalid for an operand count no assembler takes, Unsupported for anything else it
// refuses (the forms without .sync, removed for sm_70 and later, among them), with ptxsim's messages.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "ptx/ast.h"
#include "ptx/types.h"

namespace d4r::ptx {

struct WarpCollective {
    enum class Op : uint8_t {
        Shuffle,    // shfl.sync.mode.b32 d{|p}, a, b, c, membermask
        Vote,       // vote.sync.mode.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a, membermask
        Match,      // match.sync.any|.all.b32|.b64 d{|p}, a, membermask (the predicate: .all only)
        Reduce,     // redux.sync.op.type d, a, membermask
        ActiveMask, // activemask.b32 d
    };
    enum class Shuffle : uint8_t { Up, Down, Butterfly, Index };
    enum class Vote : uint8_t { All, Any, Uniform, Ballot };
    enum class Reduction : uint8_t { Add, Min, Max, And, Or, Xor }; // Min/Max: signed for .s32
    Op op = Op::Shuffle;
    Type type = Type::B32; // the value's type (vote: .pred, or .b32 for a ballot)
    Shuffle shuffle = Shuffle::Up;
    Vote vote = Vote::All;
    Reduction reduction = Reduction::Add;
    bool all = false;           // match.all (else .any)
    bool predicate_out = false; // the destination is a pair d|p (shfl, match.all)
};

Expected<WarpCollective> decode_warp(const ast::Instruction& in);

} // namespace d4r::ptx
