// ptxsim internals: the decoded program. One Program per kernel: its entry function and every .func
// it reaches, decoded once into a flat array of Instr. An Instr carries the handler chosen at decode
// time (type, modifiers and operand kinds are baked into the handler's template arguments), register
// operands as byte offsets into the warp's register arena, predicates as indices, and branch targets as
// instruction indices. Nothing at execution time looks at a string.
//
// Register arena layout (one per warp, 64-byte aligned), see docs/ptxsim.md:
//   [special registers][scratch sinks and registers][constants]
// A 32-bit slot (every register of at most 32 bits: .b8-.b32, .f16, .f16x2, .f32) is uint32_t[32],
// 128 bytes, lane i at index i; a 64-bit slot is uint64_t[32], 256 bytes. Immediates become read-only
// constant slots so every handler reads registers only. Predicates are uint32_t lane masks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptx/types.h"
#include "ptxsim/compiled.h"

namespace d4r::ptxsim {

struct Warp;
struct Instr;

// What the scheduler does after a handler ran.
enum class Flow : uint8_t {
    Next,     // the active lanes move to the next instruction
    Continue, // the handler set cur_pc (all active lanes together); the scheduler checks for merges
    Resched,  // the handler wrote pc[] of every active lane (divergence, exit, waits): re-pick lanes
    Stop,     // a fault (warp.fault set), or with no fault a yield: the handler wrote pc[] of every active
              // lane (as for Resched) and the warp gives the rest of its slice to the others (spin waits)
};

using ExecFn = Flow (*)(Warp& w, const Instr& in, uint32_t mask);

inline constexpr uint32_t kNoReg = UINT32_MAX;
inline constexpr uint32_t kSlot32 = 128; // bytes of a 32-bit register slot
inline constexpr uint32_t kSlot64 = 256;

// PTX's types and their names are the front end's (ptx/types.h).
using ptx::is_bits;
using ptx::is_float;
using ptx::is_half_type;
using ptx::is_integer;
using ptx::is_signed;
using ptx::is_unsigned;
using ptx::parse_type;
using ptx::Type;
using ptx::type_bits;
using ptx::type_name;

inline bool is_wide(Type t) { return type_bits(t) == 64; } // lives in a 64-bit slot

// The state space an address refers to, after the decoder resolved it.
enum class Space : uint8_t { Generic, Global, Shared, Local, Const, KernelParam, FuncParam };
const char* space_name(Space s);

// Special registers materialised as 32-bit slots at the start of every arena (filled per block).
enum class Special : uint8_t {
    TidX,
    TidY,
    TidZ,
    NtidX,
    NtidY,
    NtidZ,
    CtaidX,
    CtaidY,
    CtaidZ,
    NctaidX,
    NctaidY,
    NctaidZ,
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    DynamicSmemSize,
    TotalSmemSize,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    // The block's reserved shared memory (cooperative groups keep multi-warp scratch there).
    ReservedSmemBegin,
    ReservedSmemEnd,
    ReservedSmemCap,
    ReservedSmemOffset0,
    ReservedSmemOffset1,
    // Driver-set environment registers: %envreg1/%envreg2 hold the grid workspace of a cooperative
    // launch (high and low half, as cooperative groups read them); every other %envregN reads 0.
    EnvReg1,
    EnvReg2,
    EnvRegZero,
    Count,
};
inline constexpr uint32_t special_offset(Special s) { return static_cast<uint32_t>(s) * kSlot32; }

// One decoded instruction. Field use is per handler; the decoder documents it next to each family.
struct Instr {
    ExecFn fn = nullptr;
    uint32_t d[4] = {kNoReg, kNoReg, kNoReg, kNoReg}; // destination slots
    uint32_t s[4] = {kNoReg, kNoReg, kNoReg, kNoReg}; // source slots
    uint32_t base = kNoReg;                           // address register slot
    int16_t guard = -1;                               // @p predicate index, -1 unguarded
    uint8_t guard_neg = 0;
    uint8_t count = 0;        // vector length and similar small counts
    int16_t pd[2] = {-1, -1}; // predicate destinations
    int16_t ps[2] = {-1, -1}; // predicate sources
    uint8_t ps_neg[2] = {0, 0};
    uint16_t flags = 0; // handler-specific modifiers
    int64_t imm = 0;    // address offset / absolute address / small immediate
    uint64_t aux = 0;   // branch target, call-site index, LUT, ...
};

// Where an instruction came from, for error messages.
struct SourceRef {
    uint32_t line = 0;
    std::string_view text; // points into the module text
    std::string_view function;
};

// One possible callee of a call site: its entry pc, the argument copies (caller .param variables ->
// callee formals, both in the per-thread function-parameter area) done by call, and the return copies
// (callee return formals -> caller variables) done by ret.
struct CallTarget {
    struct Copy {
        uint32_t from = 0, to = 0, bytes = 0;
    };
    uint32_t function = 0; // index of the callee in the module
    uint32_t pc = 0;
    int32_t frame = -1; // the callee is recursive: the index of its frame in Program::frames
    std::vector<Copy> args;
    std::vector<Copy> rets;
};

// A direct call has one target; an indirect call (through a function address) one per function of the
// module whose address is taken, selected per lane by the address.
struct CallSite {
    std::vector<CallTarget> targets;
    bool indirect = false;
    bool saves = false; // a target is recursive (has a frame)
};

// The state of a function on a call-graph cycle that a call into it saves for each calling lane and its
// ret restores (recursion.h): its register slots, predicates, .local bytes and function-parameter bytes
// (its formals and its call-site .param variables).
struct FrameLayout {
    struct Slots {
        uint32_t offset = 0, count = 0; // COUNT consecutive slots from arena OFFSET
        bool wide = false;
    };
    std::vector<Slots> regs;
    uint32_t pred_begin = 0, pred_end = 0;
    uint32_t local_begin = 0, local_end = 0;
    std::vector<std::pair<uint32_t, uint32_t>> params; // [begin, end) ranges of the function-parameter area
    uint32_t bytes = 0;                                // saved per lane
};

struct Program {
    std::vector<Instr> code;
    std::vector<SourceRef> sources; // parallel to code
    std::vector<CallSite> calls;
    std::vector<std::vector<uint32_t>> branch_tables; // brx.idx targets (pcs)
    uint32_t entry_pc = 0;

    std::vector<uint8_t> arena_image;      // initial register arena (constants in place, zero elsewhere)
    uint32_t regs_begin = 0, regs_end = 0; // the registers (zeroed for every block); constants follow
    uint32_t pred_count = 0;

    uint32_t static_shared_bytes = 0;
    uint32_t dynamic_shared_offset = 0; // where extern .shared arrays start
    uint32_t local_bytes = 0;           // per thread
    uint32_t fparam_bytes = 0;          // per thread: .func parameters and call-site .param variables
    uint32_t max_call_depth = 0;        // without recursion; the initial depth of the growing stacks with it
    bool recursive = false;             // the call graph has a cycle: calls save frames (recursion.h)
    std::vector<FrameLayout> frames;    // of the functions on a cycle
    std::string unsupported;            // non-empty: launching fails with this
    bool device_launches = false;       // calls cudaGetParameterBuffer*/cudaLaunchDevice* (launch() queues them)
    bool device_heap = false;           // calls malloc/free (LaunchConfig::heap)

    KernelLayout layout; // where the variables are, for a compiler of the kernel (compiled.h)

    // Module segments the kernel may address (module .global and .const variables).
    uint64_t global_segment = 0, global_segment_bytes = 0;
    uint64_t const_segment = 0, const_segment_bytes = 0;
};

} // namespace d4r::ptxsim
