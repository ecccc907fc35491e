// ptxsim: kernels compiled to host code (the PTX JIT, src/jit; docs/ptx-front-end.md "The JIT") run inside
// ptxsim's launches, on its workers, with its memory, bounds checks and fault reports.
//
// Promise:
//   - A CompiledKernel runs one thread of a block per call of its function, with the CompiledThread below
//     (the ABI between compiled code and ptxsim; its layout is fixed by the static_asserts, which the
//     compiler's lowering mirrors). Threads of a block run one after the other, in linear order, each up to
//     its exit or its next block barrier; once every thread that has not exited waits at the barrier, they
//     all run on in the same order. So a compiled kernel must not depend on threads running together
//     between barriers (no warp collectives, no waits on another thread): the compiler only compiles
//     kernels for which that holds. A warp kernel (CompiledKernel::warp) runs a whole warp per call instead
//     (compiled_warp_runner.cpp): the block's warps one after the other, each up to its end or its next barrier.
//   - Memory goes through the interpreter's address translation (CompiledRuntime::translate): the same
//     windows, ranges and faults. A fault stops the block; the launch reports it as the interpreter does,
//     naming the instruction's line (CompiledKernel::sites).
//   - Numerics the compiled code does not spell itself come from the interpreter's own scalar functions
//     (CompiledRuntime::f32_op, f64_op, cvt, half_op), so both compute the same bits; atomics, cp.async, the clock
//     and timer registers, trap, textures and surfaces are the interpreter's per-lane code too (atomic, cp_async,
//     counter, trap, image), recording the same faults.
//   - LaunchConfig::compiled runs a launch with the compiled kernel; launch() runs it interpreted instead
//     (silently: the caller chose) when the launch needs what compiled code does not do (an instruction
//     budget, a cooperative launch).
//   - KernelLayout says where the interpreter placed the kernel's variables, so compiled code addresses
//     them identically.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ptx/ast.h"
#include "ptx/module_index.h"
#include "ptx/types.h"

namespace d4r::ptx {
struct FloatArith;
struct Cvt;
struct Atomic;
struct HalfArith;
struct TextureOp;
struct WarpCollective;
struct MatrixOp;
struct Wmma;
struct Wgmma;
} // namespace d4r::ptx

namespace d4r::ptxsim {

struct CompiledRuntime;

// What a compiled thread function receives. Written by ptxsim before each call except `fault_site` (written
// by the compiled code before it returns kCompiledFault) and the global range cache (updated by translate).
struct CompiledThread {
    const CompiledRuntime* runtime = nullptr;
    void* warp = nullptr;                         // the interpreter's Warp of this thread (faults, range cache)
    const uint8_t* params = nullptr;              // the kernel parameter block
    uint8_t* shared = nullptr;                    // the block's shared memory
    uint8_t* local = nullptr;                     // this thread's local memory
    const std::atomic<int64_t>* budget = nullptr; // the watchdog empties it: negative means stop
    uint64_t cache_base = 1, cache_size = 0;      // the global range the last access hit
    uint32_t tid[3] = {}, ntid[3] = {}, ctaid[3] = {}, nctaid[3] = {};
    uint32_t lane = 0, warpid = 0;
    uint32_t shared_bytes = 0;    // the block's own shared memory (static + dynamic) from offset 0
    uint32_t reserved_shared = 0; // offset of the reserved shared region (kReservedSharedBytes)
    uint32_t local_bytes = 0;     // per thread
    uint32_t params_bytes = 0;
    uint32_t dynamic_shared_bytes = 0;
    uint32_t fault_site = 0; // index into CompiledKernel::sites of the faulting instruction
    // A kernel with barriers (CompiledKernel::state_bytes): this thread's state between its calls. Its first word
    // is where the thread resumes (0: at the start), its second the barrier it waits at; registers follow.
    uint8_t* state = nullptr;
    // A warp kernel (CompiledKernel::warp): tid.x of the warp's 32 lanes, then their tid.y, then their tid.z; and the
    // lanes the warp has (a partial last warp has fewer than 32). `lane` is the lane a runtime call is for.
    const uint32_t* lane_tids = nullptr;
    uint32_t lanes = 0;
    // Warp code: the global range hit before the last one (only compiled code reads and writes it: a kernel reading
    // two allocations in turn then hits both).
    uint64_t cache2_base = 1, cache2_size = 0;
    // The host addresses of the module's .global and .const variables the kernel names (CompiledKernel::variables):
    // compiled code reads them here, so that it does not depend on where this process put them (the JIT's compile
    // cache keeps code across processes).
    const uint64_t* variables = nullptr;
};

// Field offsets the compiled code uses (the lowering reads them through these names).
inline constexpr unsigned kThreadRuntime = 0, kThreadWarp = 8, kThreadParams = 16, kThreadShared = 24,
                          kThreadLocal = 32, kThreadBudget = 40, kThreadCacheBase = 48, kThreadCacheSize = 56,
                          kThreadTid = 64, kThreadNtid = 76, kThreadCtaid = 88, kThreadNctaid = 100, kThreadLane = 112,
                          kThreadWarpId = 116, kThreadSharedBytes = 120, kThreadReservedShared = 124,
                          kThreadLocalBytes = 128, kThreadParamsBytes = 132, kThreadDynamicShared = 136,
                          kThreadFaultSite = 140, kThreadState = 144, kThreadLaneTids = 152, kThreadLanes = 160,
                          kThreadCache2Base = 168, kThreadCache2Size = 176, kThreadVariables = 184;
// The state's fields: where the thread resumes; the barrier it waits at; the warp collective it waits at (an index
// into CompiledKernel::collectives), with its operands (member mask, a, b, c, predicate) and, once it ran, its
// results (value, predicate); then the saved registers.
// A thread at an mma.sync stores its A, B and C fragment words from kStateFragment (10 words at most) and reads its D
// words from kStateFragmentOut (4 at most).
// A thread at a bar.red also stores its reduction (1 popc, 2 and, 3 or; 0 for a plain barrier) and its predicate
// (PredIn), and reads the result (Out for popc, PredOut for and/or).
inline constexpr unsigned kStateResume = 0, kStateBarrier = 4, kStateCollective = 8, kStateMember = 12, kStateA = 16,
                          kStateB = 24, kStateC = 28, kStatePredIn = 32, kStateReduction = 36, kStateOut = 40,
                          kStatePredOut = 48, kStateFragment = 56, kStateFragmentOut = 96, kStateRegisters = 112;
static_assert(offsetof(CompiledThread, budget) == kThreadBudget);
static_assert(offsetof(CompiledThread, cache_size) == kThreadCacheSize);
static_assert(offsetof(CompiledThread, tid) == kThreadTid);
static_assert(offsetof(CompiledThread, nctaid) == kThreadNctaid);
static_assert(offsetof(CompiledThread, lane) == kThreadLane);
static_assert(offsetof(CompiledThread, reserved_shared) == kThreadReservedShared);
static_assert(offsetof(CompiledThread, dynamic_shared_bytes) == kThreadDynamicShared);
static_assert(offsetof(CompiledThread, fault_site) == kThreadFaultSite);
static_assert(offsetof(CompiledThread, state) == kThreadState);
static_assert(offsetof(CompiledThread, lane_tids) == kThreadLaneTids);
static_assert(offsetof(CompiledThread, lanes) == kThreadLanes);
static_assert(offsetof(CompiledThread, cache2_size) == kThreadCache2Size);
static_assert(offsetof(CompiledThread, variables) == kThreadVariables);

// What compiled code calls in ptxsim.
//   - translate: the spaces it takes are ptx::StateSpace's values: Generic, Global, Shared, Local, Const, Param (of
//     the kernel). WRITE: a store. Returns the host pointer of the BYTES at ADDRESS, or null after recording the
//     fault the interpreter records for it (then the compiled code stores `fault_site` and returns kCompiledFault).
//   - branch_fault: records the fault of a brx.idx whose INDEX is outside its table of ENTRIES, as the interpreter
//     does (then the compiled code stores `fault_site` and returns kCompiledFault).
//   - f32_op, f64_op: one lane of the f32/f64 instruction CODE (float_op_code) on its sources in operand order
//     (those it does not have: 0), computed by the interpreter's own scalar functions (scalar_float.h) in the
//     instruction's rounding mode, .ftz and .sat included. For what the lowering does not spell in IR itself.
//   - cvt: one lane of the cvt CODE (cvt_op_code) on the source's bits A (zero-extended; the forms with two
//     sources: the first in the high 32 bits, the second in the low 32), the interpreter's own conversion
//     (scalar_cvt.h); the result's bits, zero-extended.
//   - atomic: one lane of the atom/red CODE (atomic_op_code) at ADDRESS with operands B and C (cas; the low bits
//     of each as wide as the type), performed by the interpreter's own code (scalar_atomic.h): the same checks,
//     faults and atomicity. Returns 1 with the old value (zero-extended) in OLD, or 0 after recording the fault.
//   - cp_async: cp.async of BYTES (4, 8, 16) from global SRC to shared DST, SIZE bytes of it read (the rest zero
//     filled; 0 for an ignored source), done now as the interpreter does it (ops_async.cpp). Returns 1, or 0 after
//     recording the fault.
//   - counter: the special register ptx::Move::Sreg WHICH (the clocks, the global timer, their halves) as the
//     interpreter reads it for this thread's warp (%clock64 strictly increases for each warp), zero-extended.
//   - trap: records trap's fault (brkpt's when BREAKPOINT), as the interpreter does.
//   - half_op: one lane of the half-precision instruction CODE (half_op_code) on its sources' register words in
//     operand order (those it does not have: 0), the interpreter's own element rule (scalar_half.h): the low 16 bits,
//     or both halves of a packed form. The result's word.
//   - image: one lane of the texture or surface instruction CODE (image_op_code) on the object HANDLE at the
//     coordinates' bits X, Y, Z and LAYER (0 where the geometry has none), by the interpreter's own texture and
//     surface code (ops_texture.cpp, texture.cpp). DATA: four 64-bit words, the results of tex, tld4 and suld
//     (their low 32 bits but for .b64) or the values sust stores. Returns 1, or 0 after recording the fault the
//     interpreter records (then the compiled code stores `fault_site` and returns kCompiledFault).
//   - warp_collective, warp_matrix (warp code: CompiledKernel::warp): one warp-wide instruction for the warp's lanes
//     EXEC. Both return 1, or 0 after recording the fault the interpreter records and storing SITE (the
//     instruction's CompiledKernel::sites entry) in `fault_site`; the compiled code then returns kCompiledFault, at
//     once or after more such calls and register-only work: a call made after a fault recorded in the warp does
//     nothing and returns 0.
//     warp_collective: shfl, vote, match, redux or bar.warp.sync CODE (warp_collective_code) with the interpreter's
//     rules when every lane of EXEC runs it and no other lane of the warp can still reach it (collective_ready,
//     ops_warp.cpp): the lanes form one collective per member mask, the lowest lane's first; a lane whose member
//     mask names a lane of EXEC outside its own group faults as a collective that never completes. WORDS holds
//     registers of 32 lanes, register r at WORDS + 32 * r (a 64-bit register's lanes as 64-bit words, a 32-bit
//     register's as 32-bit words in the first half): 0 a (match.b64: 64-bit), 1 b, 2 c, 3 the member masks, 4 the
//     predicate source (0 or 1); the results: 5 d, 6 the predicate (0 or 1).
//     warp_matrix: mma.sync, ldmatrix or wmma.mma CODE (matrix_op_code, wmma_op_code), which needs all 32 lanes (a
//     warp without them faults as the interpreter's whole_warp does), on REGISTERS: pointers to the 32 lanes of
//     each register (32-bit words; 64-bit for f64 and addresses), read and written in place, in operand order: D,
//     A, B, C; ldmatrix: the lanes' row addresses, then D; wgmma.mma_async (wgmma_op_code): D, then A's four
//     registers or its descriptors (64-bit), B's descriptors (64-bit), then, unless the code holds it, scale-d (0 or 1
//     a lane). Or wmma.load / wmma.store (wmma_op_code) for the lanes of
//     EXEC: the lanes' addresses, their strides in elements, then the fragment's registers, moved as interpreted. Or
//     cp.async (cp_async_code) for the lanes of EXEC in lane order, as `cp_async` does each: the destinations, the
//     sources (64-bit), the sizes read. Or an ld or st (warp_memory_code) for the lanes of EXEC in lane order, each
//     through `translate`: the addresses (64-bit), then the vector's elements, packed (a lane's at its place). Or a
//     texture or surface instruction (warp_image_code) for the lanes of EXEC in lane order, each as `image` does it:
//     the handles (64-bit), x, y, z and the layer (32-bit), then the four data registers (64-bit words, read by sust,
//     written by tex, tld4 and suld).
struct CompiledRuntime {
    uint8_t* (*translate)(CompiledThread* thread, uint32_t space, uint64_t address, uint32_t bytes, uint32_t write);
    void (*branch_fault)(CompiledThread* thread, uint32_t index, uint32_t entries);
    float (*f32_op)(uint32_t code, float a, float b, float c);
    double (*f64_op)(uint32_t code, double a, double b, double c);
    uint64_t (*cvt)(uint64_t code, uint64_t a);
    uint32_t (*atomic)(CompiledThread* thread, uint32_t code, uint64_t address, uint64_t b, uint64_t c, uint64_t* old);
    uint32_t (*cp_async)(CompiledThread* thread, uint32_t bytes, uint64_t dst, uint64_t src, uint32_t size);
    uint64_t (*counter)(CompiledThread* thread, uint32_t which);
    void (*trap)(CompiledThread* thread, uint32_t breakpoint);
    uint32_t (*half_op)(uint32_t code, uint32_t a, uint32_t b, uint32_t c);
    uint32_t (*image)(CompiledThread* thread, uint32_t code, uint64_t handle, uint32_t x, uint32_t y, uint32_t z,
                      uint32_t layer, uint64_t* data);
    uint32_t (*warp_collective)(CompiledThread* thread, uint32_t code, uint32_t exec, uint32_t site, uint64_t* words);
    uint32_t (*warp_matrix)(CompiledThread* thread, uint32_t code, uint32_t exec, uint32_t site,
                            void* const* registers);
};
inline constexpr unsigned kRuntimeTranslate = 0, kRuntimeBranchFault = 8, kRuntimeF32Op = 16, kRuntimeF64Op = 24,
                          kRuntimeCvt = 32;
inline constexpr unsigned kRuntimeAtomic = 40, kRuntimeCpAsync = 48, kRuntimeCounter = 56, kRuntimeTrap = 64,
                          kRuntimeHalfOp = 72, kRuntimeImage = 80, kRuntimeWarpCollective = 88, kRuntimeWarpMatrix = 96;
static_assert(offsetof(CompiledRuntime, branch_fault) == kRuntimeBranchFault);
static_assert(offsetof(CompiledRuntime, f32_op) == kRuntimeF32Op);
static_assert(offsetof(CompiledRuntime, f64_op) == kRuntimeF64Op);
static_assert(offsetof(CompiledRuntime, cvt) == kRuntimeCvt);
static_assert(offsetof(CompiledRuntime, atomic) == kRuntimeAtomic);
static_assert(offsetof(CompiledRuntime, cp_async) == kRuntimeCpAsync);
static_assert(offsetof(CompiledRuntime, counter) == kRuntimeCounter);
static_assert(offsetof(CompiledRuntime, trap) == kRuntimeTrap);
static_assert(offsetof(CompiledRuntime, half_op) == kRuntimeHalfOp);
static_assert(offsetof(CompiledRuntime, image) == kRuntimeImage);
static_assert(offsetof(CompiledRuntime, warp_collective) == kRuntimeWarpCollective);
static_assert(offsetof(CompiledRuntime, warp_matrix) == kRuntimeWarpMatrix);
// warp_collective: the registers of its WORDS (32 words each).
inline constexpr unsigned kWarpA = 0, kWarpB = 1, kWarpC = 2, kWarpMember = 3, kWarpPredIn = 4, kWarpOut = 5,
                          kWarpPredOut = 6, kWarpCollectiveRegisters = 7;
// Added to warp_collective_code by the lowering: a shfl whose destination register is its source A.
inline constexpr uint32_t kShuffleInPlace = 1u << 11;

// The CODE of f32_op/f64_op for an f32/f64 instruction (not testp, whose result is a predicate), and of cvt for a
// cvt: what the interpreter's handler for it reads of its modifiers.
uint32_t float_op_code(const ptx::FloatArith& f);
uint64_t cvt_op_code(const ptx::Cvt& c);
// The CODE of atomic for an atom or red.
uint32_t atomic_op_code(const ptx::Atomic& a);
// The CODE of half_op for a half-precision instruction, and of image for a texture or surface instruction.
uint32_t half_op_code(const ptx::HalfArith& h);
uint32_t image_op_code(const ptx::TextureOp& t);
// The CODE of warp_collective for shfl, vote, match and redux (warp_sync_code for bar.warp.sync), and of warp_matrix
// for mma.sync and ldmatrix (matrix_op_code), wmma (wmma_op_code), wgmma.mma_async (wgmma_op_code), cp.async of BYTES
// (cp_async_code), warp code's ld and st (warp_memory_code) and its texture and surface instructions (warp_image_code).
uint32_t warp_collective_code(const ptx::WarpCollective& c);
uint32_t warp_sync_code();
uint32_t matrix_op_code(const ptx::MatrixOp& m);
uint32_t wmma_op_code(const ptx::Wmma& w);
uint32_t wgmma_op_code(const ptx::Wgmma& w);
uint32_t cp_async_code(unsigned bytes);
uint32_t warp_memory_code(uint32_t space, unsigned bytes, unsigned vector, bool store); // SPACE: a ptx::StateSpace
uint32_t warp_image_code(const ptx::TextureOp& t);

// A compiled thread function's answers: the thread exited, faulted, was stopped by the watchdog, or waits at a
// barrier (a kernel with barriers: its state says where it resumes; it is called again once every thread that has
// not exited waits at the same barrier).
inline constexpr uint32_t kCompiledDone = 0, kCompiledFault = 1, kCompiledStopped = 2, kCompiledBarrier = 3,
                          kCompiledCollective = 4;

// A warp collective of a compiled kernel (shfl.sync, vote.sync, match.sync, redux.sync, activemask,
// bar.warp.sync). A thread reaching one stores its operands in its state and stops; once no thread of its warp can
// run, ptxsim runs the collective of the lowest such instruction whose members are all there (compiled_runner.cpp,
// with the interpreter's rules, ops_warp.cpp), writes each participant's results to its state and resumes it.
struct CollectiveSite {
    enum class Kind : uint8_t { Shuffle, Vote, Match, Reduce, ActiveMask, WarpSync, Mma, LoadMatrix };
    Kind kind = Kind::Shuffle;
    uint8_t mode = 0;   // shfl: ptx::WarpCollective::Shuffle; vote: ::Vote; redux: ::Reduction; match: 1 for .all;
                        // mma: K of m16n8kK (8, 16 or 32); ldmatrix: matrices (1, 2, 4)
    bool acc16 = false; // mma: f16 accumulators
    uint8_t format_a = 0, format_b = 0; // mma: the inputs' ptx::ElementFormat
    bool transpose = false;             // ldmatrix .trans
    bool shared = false;                // ldmatrix: the address (the state's a) is in .shared (else generic)
    uint32_t fault_site = 0;            // ldmatrix: its CompiledKernel::sites entry (a memory fault)
    bool wide = false;                  // match .b64
    bool is_signed = false;             // redux .s32
    uint32_t order = 0;                 // the instruction's place in the kernel (the interpreter runs the lowest first)
    // shfl: the state offset where every thread keeps the register it shuffles whenever it stops (a lane outside the
    // collective contributes that value, as in the interpreter); 0 when `a` is an immediate.
    uint32_t source_offset = 0;
};
using CompiledThreadFn = uint32_t (*)(CompiledThread*);

// A warp kernel's function runs the 32 lanes of one warp at once (jit/lower.h, "warp code"): CompiledThread's
// lane_tids and lanes describe the warp, tid and lane are unused on entry, `state` is the warp's. It answers as a
// thread function does, for the whole warp: done once every lane exited, kCompiledBarrier with every lane that
// has not exited at the barrier. Its warp-wide instructions run inside the call (CompiledRuntime::warp_collective,
// warp_matrix).
struct CompiledKernel {
    CompiledThreadFn fn = nullptr;
    bool warp = false; // fn runs a whole warp
    // Warp code right only for blocks whose x dimension is a multiple of 32 (jit/uniformity.h, WHOLE_WARPS): a
    // launch of another shape runs interpreted (launch.cpp).
    bool whole_warps_in_x = false;
    std::string why_not_warp; // a thread kernel: why the warp lowering refused it
    struct Site {
        uint32_t line = 0;
        std::string text;
    };
    std::vector<Site> sites;  // the instructions that may fault, for the launch's error
    uint32_t state_bytes = 0; // per thread, for a kernel with barriers or collectives (CompiledThread::state)
    std::vector<CollectiveSite> collectives;
    // The host address of each module variable the code reads through CompiledThread::variables, in its order.
    std::vector<uint64_t> variables;
    std::shared_ptr<void> owner; // keeps the code alive
};

// Where the interpreter put a kernel's variables: an address in the variable's space (a global or const
// variable: its host address; shared: its offset; local: its offset in each thread's local memory; a kernel
// parameter: its offset in the parameter block).
struct VariablePlace {
    ptx::StateSpace space = ptx::StateSpace::Global;
    uint64_t address = 0;
    uint64_t size = 0; // bytes (0 for an extern .shared array)
};
struct KernelLayout {
    std::map<std::string, VariablePlace, std::less<>> module_variables; // module scope, by name
    // Variables declared in a function's body: (function index in the module, declaration index).
    std::map<std::pair<uint32_t, uint32_t>, VariablePlace> declared;
};

// What a compiler of a loaded kernel reads: its module's syntax tree, the entry, its parameters and the
// interpreter's layout of its variables. Valid while the kernel's Module lives.
class Kernel;
struct KernelSource {
    const ptx::ast::Module* module = nullptr;
    uint32_t function = 0; // the entry: index into module->functions
    const ptx::EntryInfo* info = nullptr;
    const KernelLayout* layout = nullptr;
    std::string_view target;      // the module's .target ("sm_90"), "" when none
    std::string_view module_name; // for messages
    std::string_view module_text; // the PTX text the syntax tree was parsed from (the JIT's cache key); "" unknown
};
KernelSource kernel_source(const Kernel& kernel);

} // namespace d4r::ptxsim
