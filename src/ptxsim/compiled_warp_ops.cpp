// The warp-wide helpers of warp code (compiled.h, CompiledRuntime::warp_collective and warp_matrix): the collectives
// with the interpreter's grouping and rules (ops_warp.cpp, scalar_warp.h), and the tensor-core instructions with the
// interpreter's numerics (mma_warp.h, wmma_warp.h), on the warp's registers as the compiled code hands them over. The
// tensor-core GEMMs' common cases (a warp's wmma.load/.store through one address, the f64 and tf32 wmma.mma, a warp's
// cp.async copies all inside their windows) take shortcuts that give the same registers, bytes and faults with fewer
// checks and copies (docs/ptx-front-end.md, "Warp-wide instructions in warp code").
#include <bit>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "numerics/mma_tile.h"
#include "ptx/instr_matrix.h"
#include "ptx/instr_warp.h"
#include "ptx/instr_wgmma.h"
#include "ptx/instr_wmma.h"
#include "ptxsim/collective_codes.h"
#include "ptxsim/compiled_ops.h"
#include "ptxsim/lane_ops.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/mma_warp.h"
#include "ptxsim/scalar_warp.h"
#include "ptxsim/texture.h"
#include "ptxsim/wgmma_warp.h"
#include "ptxsim/wmma_memory.h"
#include "ptxsim/wmma_warp.h"

namespace d4r::ptxsim {

namespace {

// warp_collective_code: the operation (bits 0-2), its mode (4-7), .b64 (8), .s32 (9), match.all (10); and
// kShuffleInPlace (compiled.h) for a shfl whose destination is its source register.
enum : uint32_t { kShuffle = 0, kVote = 1, kMatch = 2, kReduce = 3, kWarpSync = 4 };
constexpr uint32_t kWide = 1u << 8, kSigned = 1u << 9, kAll = 1u << 10;
static_assert(kShuffleInPlace == 1u << 11);
// matrix_op_code / wmma_op_code / cp_async_code / warp_memory_code / warp_image_code: the instruction (bits 0-2), its
// form from bit 3.
enum : uint32_t {
    kMma = 0,
    kLoadMatrix = 1,
    kWmma = 2,
    kWmmaLoad = 3,
    kWmmaStore = 4,
    kCpAsync = 5,
    kMemory = 6,
    kImage = 7
};
// wgmma_op_code: kMma with this bit, N / 8 (bits 3-8), f16 accumulators (9), bf16 (10), A in registers (11),
// imm-scale-a -1 (12), imm-scale-b -1 (13), scale-d a constant (14) of 1 (15).
constexpr uint32_t kWgmma = 1u << 31;

// Register R's lane L in WORDS (compiled.h: 32 words a register).
uint32_t get32(const uint64_t* words, unsigned r, unsigned l) {
    uint32_t v;
    std::memcpy(&v, reinterpret_cast<const uint8_t*>(words + 32 * r) + 4 * l, 4);
    return v;
}
void set32(uint64_t* words, unsigned r, unsigned l, uint32_t v) {
    std::memcpy(reinterpret_cast<uint8_t*>(words + 32 * r) + 4 * l, &v, 4);
}

// One collective of GROUP (the lanes of one member mask MEMBER); SIMPLE: the group is every lane running the
// instruction (the interpreter then reads a source lane outside the group as its register stands; otherwise as 0).
void run_group(uint32_t code, uint64_t* words, uint32_t group, uint32_t member, bool simple) {
    const uint32_t mode = (code >> 4) & 15;
    switch (code & 7) {
    case kShuffle: {
        uint32_t a[32] = {};
        for (unsigned l = 0; l < 32; ++l)
            if (simple || (group & lane_bit(l))) a[l] = get32(words, kWarpA, l);
        for_each_lane(group, [&](unsigned l) {
            bool valid = false;
            const uint32_t src =
                shfl_source(shfl_mode(mode), l, get32(words, kWarpB, l), get32(words, kWarpC, l), valid);
            set32(words, kWarpOut, l, a[src]);
            set32(words, kWarpPredOut, l, valid ? 1 : 0);
        });
        return;
    }
    case kVote: {
        const uint32_t voters = group & member;
        uint32_t p = 0;
        for_each_lane(voters, [&](unsigned l) { p |= get32(words, kWarpPredIn, l) ? lane_bit(l) : 0u; });
        const bool result = vote_result(mode, p, voters);
        for_each_lane(group, [&](unsigned l) {
            set32(words, kWarpOut, l, p);
            set32(words, kWarpPredOut, l, result ? 1 : 0);
        });
        return;
    }
    case kMatch: {
        const uint32_t parts = group & member;
        uint64_t v[32] = {};
        for_each_lane(parts,
                      [&](unsigned l) { v[l] = code & kWide ? words[32 * kWarpA + l] : get32(words, kWarpA, l); });
        if (code & kAll) {
            const bool same = match_all(parts, v);
            for_each_lane(group, [&](unsigned l) {
                set32(words, kWarpOut, l, same ? parts : 0u);
                set32(words, kWarpPredOut, l, same ? 1 : 0);
            });
        } else {
            for_each_lane(group, [&](unsigned l) {
                set32(words, kWarpOut, l, parts & lane_bit(l) ? match_any(parts, v, l) : 0u);
            });
        }
        return;
    }
    case kReduce: {
        const uint32_t parts = group & member;
        uint32_t v[32] = {};
        for_each_lane(parts, [&](unsigned l) { v[l] = get32(words, kWarpA, l); });
        const uint32_t acc = redux_over(mode, code & kSigned, parts, v);
        for_each_lane(group, [&](unsigned l) { set32(words, kWarpOut, l, acc); });
        return;
    }
    default: // bar.warp.sync: only the meeting
        return;
    }
}

} // namespace

uint32_t compiled_warp_collective(CompiledThread* thread, uint32_t code, uint32_t exec, uint32_t site,
                                  uint64_t* words) {
    Warp& w = *static_cast<Warp*>(thread->warp);
    if (w.fault != FaultKind::None) return 0; // an earlier helper failed: its fault stands
    thread->fault_site = site;                // read only when this call fails
    for (uint32_t remaining = exec; remaining;) {
        const unsigned lowest = static_cast<unsigned>(__builtin_ctz(remaining));
        const uint32_t member = get32(words, kWarpMember, lowest);
        uint32_t group = 0;
        for_each_lane(remaining,
                      [&](unsigned l) { group |= get32(words, kWarpMember, l) == member ? lane_bit(l) : 0u; });
        if (const uint32_t missing = member & exec & ~group) {
            fault(w, FaultKind::IllegalInstruction, lowest, 0, 0,
                  fmt::format("member mask 0x{:08x}: lanes 0x{:08x} never reach this collective", member, missing));
            return 0;
        }
        remaining &= ~group;
        // The last group is the only one left at the instruction: the interpreter's simple path.
        run_group(code, words, group, member, remaining == 0);
        // shfl d, d, ...: a later group reads the earlier groups' results as their source (interpreted, they wrote
        // the register before it ran).
        if ((code & 7) == kShuffle && (code & kShuffleInPlace))
            for_each_lane(group, [&](unsigned l) { set32(words, kWarpA, l, get32(words, kWarpOut, l)); });
    }
    return 1;
}

namespace {

// warp_matrix's registers: REGS[r] points to register r's 32 lanes (32-bit words, or 64-bit for WIDE).
struct Regs {
    void* const* p;
    uint64_t get(unsigned r, unsigned l, bool wide) const {
        return wide ? static_cast<const uint64_t*>(p[r])[l] : static_cast<const uint32_t*>(p[r])[l];
    }
    void put(unsigned r, unsigned l, bool wide, uint64_t v) const {
        if (wide)
            static_cast<uint64_t*>(p[r])[l] = v;
        else
            static_cast<uint32_t*>(p[r])[l] = static_cast<uint32_t>(v);
    }
};

// whole_warp's fault (ops_mma.cpp): a warp-wide matrix instruction needs every lane.
bool whole(Warp& w, uint32_t exec) {
    if (exec == 0xffffffffu) return true;
    fault(w, FaultKind::IllegalInstruction, static_cast<uint32_t>(__builtin_ctz(exec | 0x80000000u)), 0, 0,
          fmt::format("warp-wide matrix instruction without all 32 lanes (lanes 0x{:08x})", exec));
    return false;
}

void mma_sync(uint32_t code, const Regs& regs) {
    const unsigned k = (code >> 3) & 63;
    const bool acc16 = code & (1u << 9);
    const auto fa = static_cast<mma::Format>((code >> 10) & 15), fb = static_cast<mma::Format>((code >> 14) & 15);
    if (k == 16 && acc16 && fa == mma::Format::F16 && fb == mma::Format::F16) {
        // The registers as they are (D 0-1, A 2-5, B 6-7, C 8-9): no copies lane by lane.
        auto reg = [&](unsigned r) { return static_cast<uint32_t*>(regs.p[r]); };
        const uint32_t* const a[4] = {reg(2), reg(3), reg(4), reg(5)};
        const uint32_t* const b[2] = {reg(6), reg(7)};
        const uint32_t* const c[2] = {reg(8), reg(9)};
        uint32_t* const d[2] = {reg(0), reg(1)};
        if (mma::tile_f16_m16n8k16(a, b, c, d)) return;
    }
    const unsigned na = k == 8 ? 2 : 4, nb = k == 8 ? 1 : 2, nc = acc16 ? 2 : 4;
    uint32_t frag[32][kMmaFragmentWords], d[32][4];
    for (unsigned l = 0; l < 32; ++l)
        for (unsigned r = 0; r < na + nb + nc; ++r) frag[l][r] = static_cast<uint32_t>(regs.get(nc + r, l, false));
    if (k == 8)
        acc16 ? mma_warp<8, true>(fa, fb, frag, d) : mma_warp<8, false>(fa, fb, frag, d);
    else if (k == 16)
        acc16 ? mma_warp<16, true>(fa, fb, frag, d) : mma_warp<16, false>(fa, fb, frag, d);
    else
        acc16 ? mma_warp<32, true>(fa, fb, frag, d) : mma_warp<32, false>(fa, fb, frag, d);
    for (unsigned l = 0; l < 32; ++l)
        for (unsigned r = 0; r < nc; ++r) regs.put(r, l, false, d[l][r]);
}

// wgmma.mma_async (wgmma_op_code) on the registers in compiled.h's order, as ops_wgmma.cpp's handler runs it.
bool wgmma(Warp& w, uint32_t code, const Regs& regs) {
    const WgmmaForm f{((code >> 3) & 63) * 8, (code & (1u << 9)) != 0, (code & (1u << 10)) != 0,
                      (code & (1u << 12)) != 0, (code & (1u << 13)) != 0};
    const bool a_registers = code & (1u << 11);
    const unsigned nd = f.acc16 ? f.n / 4 : f.n / 2, after_a = nd + (a_registers ? 4 : 1);
    uint32_t* d[128];
    for (unsigned r = 0; r < nd; ++r) d[r] = static_cast<uint32_t*>(regs.p[r]);
    const uint32_t* a[4];
    for (unsigned r = 0; r < 4 && a_registers; ++r) a[r] = static_cast<const uint32_t*>(regs.p[nd + r]);
    uint32_t scale_d = code & (1u << 15) ? kFullMask : 0u;
    if (!(code & (1u << 14))) {
        scale_d = 0;
        for (unsigned l = 0; l < 32; ++l)
            scale_d |= static_cast<const uint32_t*>(regs.p[after_a + 1])[l] ? lane_bit(l) : 0u;
    }
    return wgmma_warp(w, f, d, a_registers ? a : nullptr,
                      a_registers ? nullptr : static_cast<const uint64_t*>(regs.p[nd]),
                      static_cast<const uint64_t*>(regs.p[after_a]), scale_d, (w.first_thread / 32) % 4);
}

// exec_ldmatrix (ops_mma.cpp): the rows from the addresses lanes 0 .. 8N-1 gave (register 0), lane by lane.
template <unsigned N, bool Trans>
bool load_matrices(Warp& w, bool shared, const Regs& regs) {
    uint16_t rows[N][8][8];
    for (unsigned l = 0; l < 8 * N; ++l) {
        const uint64_t address = regs.get(0, l, true);
        const uint8_t* p = shared ? translate<Space::Shared>(w, l, address, 16, false)
                                  : translate<Space::Generic>(w, l, address, 16, false);
        if (!p) return false;
        std::memcpy(rows[l >> 3][l & 7], p, 16);
    }
    uint32_t d[32][4] = {};
    ldmatrix_distribute<N, Trans>(rows, d);
    for (unsigned l = 0; l < 32; ++l)
        for (unsigned i = 0; i < N; ++i) regs.put(1 + i, l, false, d[l][i]);
    return true;
}

bool ldmatrix(Warp& w, uint32_t code, const Regs& regs) {
    const unsigned n = (code >> 3) & 7;
    const bool trans = code & (1u << 6), shared = code & (1u << 7);
    if (n == 1) return trans ? load_matrices<1, true>(w, shared, regs) : load_matrices<1, false>(w, shared, regs);
    if (n == 2) return trans ? load_matrices<2, true>(w, shared, regs) : load_matrices<2, false>(w, shared, regs);
    return trans ? load_matrices<4, true>(w, shared, regs) : load_matrices<4, false>(w, shared, regs);
}

// The unique elements of a fragment of type T in the registers from FIRST, into the matrix X (element u of lane l
// is X[32u + l]: wmma_warp.h's mapping, a register's lanes at a time).
void gather(const Regs& regs, unsigned first, EType t, unsigned unique, uint64_t* x) {
    const unsigned bits = ptx::wmma::bits_of(t);
    if (ptx::wmma::sub_byte(t)) {
        for (unsigned l = 0; l < 32; ++l)
            for (unsigned u = 0; u < unique; ++u)
                x[32 * u + l] = fragment_element(t, u, [&](unsigned r) { return regs.get(first + r, l, false); });
        return;
    }
    const unsigned per = bits == 64 ? 1 : 32 / bits;
    const uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    for (unsigned u = 0; u < unique; ++u) {
        const unsigned r = first + u / per, shift = bits * (u % per);
        if (bits == 64) {
            std::memcpy(x + 32 * u, regs.p[r], 32 * 8);
            continue;
        }
        const uint32_t* word = static_cast<const uint32_t*>(regs.p[r]);
        if (bits == 32)
            for (unsigned l = 0; l < 32; ++l) x[32 * u + l] = word[l];
        else
            for (unsigned l = 0; l < 32; ++l) x[32 * u + l] = (word[l] >> shift) & mask;
    }
}

// The accumulator-shaped D (every element of its registers written) from the matrix X back to the registers.
void scatter(const Regs& regs, EType t, unsigned count, const uint64_t* x) {
    const unsigned bits = ptx::wmma::bits_of(t);
    if (bits == 64) {
        for (unsigned r = 0; r < count; ++r) std::memcpy(regs.p[r], x + 32 * r, 32 * 8);
        return;
    }
    const unsigned per = 32 / bits;
    const uint64_t mask = (uint64_t(1) << bits) - 1;
    for (unsigned r = 0; r < count; ++r) {
        uint32_t* word = static_cast<uint32_t*>(regs.p[r]);
        const uint64_t* e = x + 32 * r * per; // the register's first element
        if (bits == 32) {
            for (unsigned l = 0; l < 32; ++l) word[l] = static_cast<uint32_t>(e[l]);
        } else if (bits == 16) {
            for (unsigned l = 0; l < 32; ++l)
                word[l] = static_cast<uint32_t>((e[l] & 0xffff) | (e[32 + l] & 0xffff) << 16);
        } else {
            for (unsigned l = 0; l < 32; ++l) {
                uint32_t v = 0;
                for (unsigned q = 0; q < per; ++q) v |= static_cast<uint32_t>((e[32 * q + l] & mask) << (bits * q));
                word[l] = v;
            }
        }
    }
}

// wmma.mma.m8n8k4 f64 on the registers' lanes where the tile (mma_tile.h) gives its result: wmma_warp.h's mapping
// makes A's one register A row-major (its 32 lanes), B's one register B row-major, C's and D's two registers their
// rows 0-3 and 4-7. D is written only once the tile succeeded (it may share a slot with A, B or C); false, nothing
// written, where the tile refuses (a NaN: then the scalar rule, through wmma()).
bool wmma_f64_tile(const Regs& regs) {
    const uint64_t* const c[2] = {static_cast<const uint64_t*>(regs.p[4]), static_cast<const uint64_t*>(regs.p[5])};
    uint64_t* const d[2] = {static_cast<uint64_t*>(regs.p[0]), static_cast<uint64_t*>(regs.p[1])};
    return mma::tile_f64_m8n8k4(static_cast<const uint64_t*>(regs.p[2]), static_cast<const uint64_t*>(regs.p[3]), c, d);
}

// wmma.mma.m16n16k8 tf32 with f32 C and D where the tile gives its result, from the registers' words: each matrix
// of 32-bit elements is its registers' lanes one register after the other (wmma_warp.h's mapping: element u of lane l
// is element 32u + l, register u). False, nothing written, where the tile refuses (then wmma()'s general path).
bool wmma_tf32_tile(const Regs& regs) {
    uint32_t a[128], b[128], c[256], d[256];
    for (unsigned r = 0; r < 4; ++r) {
        std::memcpy(a + 32 * r, regs.p[8 + r], 32 * 4);
        std::memcpy(b + 32 * r, regs.p[12 + r], 32 * 4);
    }
    for (unsigned r = 0; r < 8; ++r) std::memcpy(c + 32 * r, regs.p[16 + r], 32 * 4);
    // Two passes of k = 4, as wmma_mma (wmma_warp.cpp) computes tf32.
    if (!mma::tile_f32(mma::Format::F32, true, a, 8, b, 16, c, 16, d, 16, 16, 16, 8, 2)) return false;
    for (unsigned r = 0; r < 8; ++r) std::memcpy(regs.p[r], d + 32 * r, 32 * 4);
    return true;
}

// exec_wmma_mma (ops_wmma.cpp): the fragments to matrices, wmma_warp.h's arithmetic, D back to the lanes.
void wmma(uint32_t code, const Regs& regs) {
    using ptx::wmma::Frag;
    WmmaSpec s;
    s.shape = static_cast<WShape>((code >> 3) & 7);
    s.ab = static_cast<EType>((code >> 6) & 15);
    s.c = static_cast<EType>((code >> 10) & 15);
    s.d = static_cast<EType>((code >> 14) & 15);
    s.satfinite = code & (1u << 18);
    s.and_popc = code & (1u << 19);
    if (s.shape == WShape::M8N8K4 && s.ab == EType::F64 && s.c == EType::F64 && s.d == EType::F64 &&
        wmma_f64_tile(regs))
        return;
    if (s.shape == WShape::M16N16K8 && s.ab == EType::TF32 && s.c == EType::F32 && s.d == EType::F32 &&
        wmma_tf32_tile(regs))
        return;
    const ptx::wmma::Dims dm = ptx::wmma::dims_of(s.shape);
    const bool sub = ptx::wmma::sub_byte(s.ab);
    const unsigned nd = sub ? 2 : ptx::wmma::regs_of(Frag::C, s.shape, s.d);
    const unsigned na = sub ? 1 : ptx::wmma::regs_of(Frag::A, s.shape, s.ab);
    const unsigned nb = sub ? 1 : ptx::wmma::regs_of(Frag::B, s.shape, s.ab);
    const EType dt = sub ? EType::S32 : s.d, ct = sub ? EType::S32 : s.c;
    WmmaMatrices x;
    gather(regs, nd, s.ab, dm.m * dm.k / 32, x.a);
    gather(regs, nd + na, s.ab, dm.k * dm.n / 32, x.b);
    gather(regs, nd + na + nb, ct, dm.m * dm.n / 32, x.c);
    wmma_mma(s, x);
    scatter(regs, dt, nd, x.d);
}

// wmma_move's moves when every address of every running lane is aligned and inside one window: the block's shared
// memory (S shared, or generic through the shared window) or the global range the warp hit last (S global, or a
// generic load: a generic store must not reach the constant segment, which translate() refuses). The same bytes in
// the same order, without translate() per element; false, having moved nothing, where that does not hold (sub-byte
// fragments too).
template <Space S, unsigned Bits>
bool wmma_move_fast(Warp& w, uint32_t exec, const WmmaFragment& f, bool store, const Regs& regs) {
    using namespace ptx::wmma;
    using Element = std::conditional_t<
        Bits == 8, uint8_t,
        std::conditional_t<Bits == 16, uint16_t, std::conditional_t<Bits == 32, uint32_t, uint64_t>>>;
    const auto [rows, cols] = matrix_of(f.frag, dims_of(f.shape));
    constexpr unsigned bits = Bits, bytes = Bits / 8;
    constexpr unsigned per = bits == 64 ? 1 : 32 / bits;
    constexpr bool wide = bits == 64;
    const unsigned unique = rows * cols / 32;
    // Every fragment's width and unique element count are powers of two (no division per element).
    if (unique > 16 || !std::has_single_bit(cols) || !std::has_single_bit(unique)) return false;
    const unsigned col_bits = static_cast<unsigned>(std::countr_zero(cols));
    uint64_t offset[32][16]; // each running lane's unique elements, from the window's first byte
    // Whether every address lies in [WINDOW, WINDOW + SIZE), aligned (OFFSET then holds them).
    auto inside = [&](uint64_t window, uint64_t size) {
        if (size < bytes) return false;
        for (uint32_t m = exec; m; m &= m - 1) {
            const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
            const uint64_t base = regs.get(0, lane, true), stride = regs.get(1, lane, false);
            for (unsigned u = 0; u < unique; ++u) {
                const unsigned i = u * 32 + lane;
                const uint64_t r = i >> col_bits, c = i & (cols - 1);
                const uint64_t at = base + (f.col ? c * stride + r : r * stride + c) * bytes - window;
                if (at > size - bytes || ((window + at) & (bytes - 1)) != 0) return false;
                offset[lane][u] = at;
            }
        }
        return true;
    };
    uint8_t* host = nullptr; // the window's first byte
    if (S != Space::Global && inside(S == Space::Generic ? kSharedWindow : 0, w.block->shared_bytes))
        host = w.block->shared;
    else if ((S == Space::Global || (S == Space::Generic && !store)) && inside(w.cache_base, w.cache_size))
        host = reinterpret_cast<uint8_t*>(w.cache_base);
    if (!host) return false;
    for (uint32_t m = exec; m; m &= m - 1) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        for (unsigned k = 0; k < f.regs; ++k) {
            if (store) {
                const uint64_t word = regs.get(2 + k, lane, wide);
                for (unsigned q = 0; q < per; ++q) {
                    const auto v = static_cast<Element>(word >> (bits * q % 64));
                    std::memcpy(host + offset[lane][(k * per + q) & (unique - 1)], &v, bytes);
                }
            } else {
                uint64_t word = 0;
                for (unsigned q = 0; q < per; ++q) {
                    Element v;
                    std::memcpy(&v, host + offset[lane][(k * per + q) & (unique - 1)], bytes);
                    word |= uint64_t(v) << (bits * q % 64);
                }
                regs.put(2 + k, lane, wide, word);
            }
        }
    }
    return true;
}

// Warp code's two global windows (CompiledThread::cache2: the range hit before the last one; a kernel reading two
// arrays in turn hits both). swap_windows makes the one before the last and the last the one before; left_window, after
// lane-by-lane accesses through translate() that may have moved the last window (W's), makes the range it left
// (WINDOW, SIZE) the one before, as warp code's own accesses do.
void swap_windows(Warp& w, CompiledThread& t) {
    std::swap(w.cache_base, t.cache2_base);
    std::swap(w.cache_size, t.cache2_size);
}

void left_window(const Warp& w, CompiledThread& t, uint64_t window, uint64_t size) {
    if (w.cache_base == window) return;
    t.cache2_base = window;
    t.cache2_size = size;
}

// Whether the window before the last holds BYTES at ADDRESS; if so it becomes the last (swap_windows).
bool second_window(Warp& w, CompiledThread& t, uint64_t address, uint64_t bytes) {
    if (!range_holds(t.cache2_base, t.cache2_size, address, bytes)) return false;
    swap_windows(w, t);
    return true;
}

// wmma_move_fast when every running lane names the same address and stride (a warp's tile pointer: the usual case):
// the fragment's offsets grow with its rows and columns, so one check of the extent from its first element to its
// last stands for all; a store also needs a stride of at least the row (column) length, so that no two elements
// share an address and the order of the writes cannot matter. Each register of a row-major fragment of 32- or 64-bit
// elements with every lane running is then runs of consecutive elements (a row, or 32 elements of one), copied as
// such. The same bytes as wmma_move; false, having moved nothing, where that does not hold.
template <Space S, unsigned Bits>
bool wmma_move_uniform(Warp& w, CompiledThread& t, uint32_t exec, const WmmaFragment& f, bool store, const Regs& regs) {
    using namespace ptx::wmma;
    using Element = std::conditional_t<
        Bits == 8, uint8_t,
        std::conditional_t<Bits == 16, uint16_t, std::conditional_t<Bits == 32, uint32_t, uint64_t>>>;
    constexpr unsigned bytes = Bits / 8, per = Bits == 64 ? 1 : 32 / Bits;
    constexpr bool wide = Bits == 64;
    const auto [rows, cols] = matrix_of(f.frag, dims_of(f.shape));
    const unsigned unique = rows * cols / 32;
    if (exec == 0 || !std::has_single_bit(cols) || !std::has_single_bit(unique)) return false;
    const auto* address = static_cast<const uint64_t*>(regs.p[0]);
    const auto* strides = static_cast<const uint32_t*>(regs.p[1]);
    const unsigned first = static_cast<unsigned>(__builtin_ctz(exec));
    const uint64_t base = address[first];
    const uint32_t stride = strides[first];
    if (exec == 0xffffffffu) { // every lane equal to the next: one comparison of memory each
        if (std::memcmp(address, address + 1, 31 * 8) != 0 || std::memcmp(strides, strides + 1, 31 * 4) != 0)
            return false;
    } else {
        uint64_t differ = 0;
        for (unsigned l = 0; l < 32; ++l)
            differ |= ((address[l] ^ base) | (strides[l] ^ stride)) & (uint64_t(0) - ((exec >> l) & 1));
        if (differ) return false;
    }
    const uint64_t s = stride;
    if (store && s < (f.col ? rows : cols)) return false;
    const uint64_t extent = ((f.col ? (cols - 1) * s + rows - 1 : (rows - 1) * s + cols - 1) + 1) * bytes;
    auto fits = [&](uint64_t at, uint64_t size) { return at < size && extent <= size - at; };
    if (base % bytes != 0) return false;
    uint8_t* host = nullptr;
    if (S != Space::Global && fits(base - (S == Space::Generic ? kSharedWindow : 0), w.block->shared_bytes))
        host = w.block->shared + (base - (S == Space::Generic ? kSharedWindow : 0));
    else if ((S == Space::Global || (S == Space::Generic && !store)) &&
             (fits(base - w.cache_base, w.cache_size) || second_window(w, t, base, extent)))
        host = reinterpret_cast<uint8_t*>(base);
    if (!host) return false;
    const unsigned col_bits = static_cast<unsigned>(__builtin_ctz(cols));
    auto offset = [&](unsigned u, unsigned lane) { // element u of LANE, in bytes from the first
        const unsigned i = u * 32 + lane;
        const uint64_t r = i >> col_bits, c = i & (cols - 1);
        return (f.col ? c * s + r : r * s + c) * bytes;
    };
    // Register K of LANE to and from its elements in memory (a register holds PER elements, the low one first).
    auto put_word = [&](uint64_t word, unsigned k, unsigned lane) {
        for (unsigned q = 0; q < per; ++q) {
            const auto v = static_cast<Element>(word >> (Bits * q % 64));
            std::memcpy(host + offset((k * per + q) & (unique - 1), lane), &v, bytes);
        }
    };
    auto get_word = [&](unsigned k, unsigned lane) {
        uint64_t word = 0;
        for (unsigned q = 0; q < per; ++q) {
            Element v;
            std::memcpy(&v, host + offset((k * per + q) & (unique - 1), lane), bytes);
            word |= uint64_t(v) << (Bits * q % 64);
        }
        return word;
    };
    if (exec == 0xffffffffu) {
        if constexpr (per == 1) {
            if (!f.col) {
                // RUN elements at a time (known when compiled: a memcpy of a variable length is a slow `rep movs`).
                auto runs = [&]<unsigned Run>() {
                    for (unsigned k = 0; k < f.regs; ++k) {
                        auto* lanes = static_cast<Element*>(regs.p[2 + k]);
                        const unsigned u = k & (unique - 1);
                        for (unsigned l = 0; l < 32; l += Run) {
                            uint8_t* at = host + offset(u, l);
                            if (store)
                                std::memcpy(at, lanes + l, Run * bytes);
                            else
                                std::memcpy(lanes + l, at, Run * bytes);
                        }
                    }
                };
                switch (cols) {
                case 4:
                    runs.template operator()<4>();
                    return true;
                case 8:
                    runs.template operator()<8>();
                    return true;
                case 16:
                    runs.template operator()<16>();
                    return true;
                default:
                    if (cols < 32) break; // not a wmma fragment's row length: element by element below
                    runs.template operator()<32>();
                    return true;
                }
            }
        }
        // A register at a time, its lanes in order (each address is one lane's: the order of the lanes cannot
        // matter; a lane's elements keep theirs).
        using Word = std::conditional_t<wide, uint64_t, uint32_t>;
        for (unsigned k = 0; k < f.regs; ++k) {
            auto* lanes = static_cast<Word*>(regs.p[2 + k]);
            for (unsigned l = 0; l < 32; ++l) {
                if (store)
                    put_word(lanes[l], k, l);
                else
                    lanes[l] = static_cast<Word>(get_word(k, l));
            }
        }
        return true;
    }
    for (uint32_t m = exec; m; m &= m - 1) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        for (unsigned k = 0; k < f.regs; ++k) {
            if (store)
                put_word(regs.get(2 + k, lane, wide), k, lane);
            else
                regs.put(2 + k, lane, wide, get_word(k, lane));
        }
    }
    return true;
}

// wmma_move_fast for the fragment's element width (no sub-byte fragments).
template <Space S>
bool wmma_move_fast(Warp& w, CompiledThread& t, uint32_t exec, const WmmaFragment& f, bool store, const Regs& regs) {
    switch (ptx::wmma::bits_of(f.type)) {
    case 8:
        return wmma_move_uniform<S, 8>(w, t, exec, f, store, regs) || wmma_move_fast<S, 8>(w, exec, f, store, regs);
    case 16:
        return wmma_move_uniform<S, 16>(w, t, exec, f, store, regs) || wmma_move_fast<S, 16>(w, exec, f, store, regs);
    case 32:
        return wmma_move_uniform<S, 32>(w, t, exec, f, store, regs) || wmma_move_fast<S, 32>(w, exec, f, store, regs);
    case 64:
        return wmma_move_uniform<S, 64>(w, t, exec, f, store, regs) || wmma_move_fast<S, 64>(w, exec, f, store, regs);
    default:
        return false;
    }
}

// wmma.load / wmma.store (wmma_memory.h): register 0 the lanes' addresses, 1 their strides, the fragment from 2.
template <Space S>
bool wmma_memory(Warp& w, CompiledThread& t, uint32_t code, uint32_t exec, const Regs& regs) {
    WmmaFragment f;
    f.frag = static_cast<ptx::wmma::Frag>((code >> 3) & 3);
    f.col = code & (1u << 5);
    f.shape = static_cast<WShape>((code >> 6) & 7);
    f.type = static_cast<EType>((code >> 9) & 15);
    f.regs = (code >> 15) & 31;
    if (wmma_move_fast<S>(w, t, exec, f, (code & 7) == kWmmaStore, regs)) return true;
    const bool wide = f.type == EType::F64;
    auto address = [&](unsigned lane) { return regs.get(0, lane, true); };
    auto stride = [&](unsigned lane) { return regs.get(1, lane, false); };
    auto get = [&](unsigned lane, unsigned r) { return regs.get(2 + r, lane, wide); };
    auto put = [&](unsigned lane, unsigned r, uint64_t v) { regs.put(2 + r, lane, wide, v); };
    // Lane by lane: where translate() moves the window to another range, the one it leaves becomes the one before
    // (as warp code's own accesses keep it).
    const uint64_t window = w.cache_base, window_size = w.cache_size;
    const bool ok = (code & 7) == kWmmaStore ? wmma_move<S, true>(w, exec, f, address, stride, get, put)
                                             : wmma_move<S, false>(w, exec, f, address, stride, get, put);
    left_window(w, t, window, window_size);
    return ok;
}

// An ld or st of warp code for the lanes of EXEC in lane order (warp_memory_code): each lane's VECTOR elements of BYTES
// at its address (register 0) through translate() (its checks and faults, as interpreted), the elements in registers
// 1 .. VECTOR (BYTES each, packed: a lane's element at its lane's place).
template <Space S>
bool lanes_memory_in(Warp& w, uint32_t exec, unsigned bytes, unsigned vector, bool store, const Regs& regs) {
    for (uint32_t m = exec; m; m &= m - 1) {
        const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
        uint8_t* p = translate<S>(w, lane, regs.get(0, lane, true), bytes * vector, store);
        if (!p) return false;
        for (unsigned k = 0; k < vector; ++k) {
            uint8_t* slot = static_cast<uint8_t*>(regs.p[1 + k]) + size_t(lane) * bytes;
            if (store)
                std::memcpy(p + k * bytes, slot, bytes);
            else
                std::memcpy(slot, p + k * bytes, bytes);
        }
    }
    return true;
}

bool lanes_memory(Warp& w, uint32_t code, uint32_t exec, const Regs& regs) {
    const unsigned bytes = (code >> 6) & 15, vector = (code >> 10) & 7;
    const bool store = code & (1u << 13);
    switch (static_cast<ptx::StateSpace>((code >> 3) & 7)) {
    case ptx::StateSpace::Global:
        return lanes_memory_in<Space::Global>(w, exec, bytes, vector, store, regs);
    case ptx::StateSpace::Shared:
        return lanes_memory_in<Space::Shared>(w, exec, bytes, vector, store, regs);
    case ptx::StateSpace::Local:
        return lanes_memory_in<Space::Local>(w, exec, bytes, vector, store, regs);
    case ptx::StateSpace::Const:
        return lanes_memory_in<Space::Const>(w, exec, bytes, vector, store, regs);
    case ptx::StateSpace::Param:
        return lanes_memory_in<Space::KernelParam>(w, exec, bytes, vector, store, regs);
    default:
        return lanes_memory_in<Space::Generic>(w, exec, bytes, vector, store, regs);
    }
}

// cp.async for the running lanes when every one's copy is whole (its source size at least BYTES), both addresses
// aligned, the destination inside the block's shared memory and the source inside the global range hit last: what
// cp_async_lane does for each, lane after lane, without its checks one lane at a time (registers: 0 the destination,
// 1 the source, 2 the source size). False, having copied nothing, otherwise.
template <unsigned Bytes>
bool cp_async_whole(Warp& w, CompiledThread& t, uint32_t exec, const Regs& regs) {
    const auto* dst = static_cast<const uint64_t*>(regs.p[0]);
    const auto* src = static_cast<const uint64_t*>(regs.p[1]);
    const auto* size = static_cast<const uint32_t*>(regs.p[2]);
    const uint64_t shared = w.block->shared_bytes;
    if (shared < Bytes || exec == 0) return false;
    // Whether every running lane's copy is whole, aligned and inside shared memory and the window [BASE, BASE+CACHE).
    auto fits = [&](uint64_t base, uint64_t cache) {
        if (cache < Bytes) return false;
        uint64_t bad = 0;
        for (unsigned l = 0; l < 32; ++l) {
            const uint64_t lane_bad = ((dst[l] | src[l]) & (Bytes - 1)) | uint64_t(dst[l] > shared - Bytes) |
                                      uint64_t(src[l] - base > cache - Bytes) | uint64_t(size[l] < Bytes);
            bad |= lane_bad & (uint64_t(0) - ((exec >> l) & 1));
        }
        return bad == 0;
    };
    if (!fits(w.cache_base, w.cache_size)) {
        if (!fits(t.cache2_base, t.cache2_size)) return false;
        swap_windows(w, t);
    }
    uint8_t* const to = w.block->shared;
    for (uint32_t m = exec; m; m &= m - 1) {
        const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
        std::memcpy(to + dst[l], reinterpret_cast<const uint8_t*>(src[l]), Bytes);
    }
    return true;
}

} // namespace

uint32_t compiled_warp_matrix(CompiledThread* thread, uint32_t code, uint32_t exec, uint32_t site,
                              void* const* registers) {
    Warp& w = *static_cast<Warp*>(thread->warp);
    if (w.fault != FaultKind::None) return 0; // an earlier helper failed: its fault stands
    thread->fault_site = site;                // read only when this call fails
    const Regs regs{registers};
    if ((code & 7) == kWmmaLoad || (code & 7) == kWmmaStore) { // per lane: no whole warp needed
        w.cache_base = thread->cache_base;
        w.cache_size = thread->cache_size;
        bool ok = false;
        switch ((code >> 13) & 3) {
        case 1:
            ok = wmma_memory<Space::Global>(w, *thread, code, exec, regs);
            break;
        case 2:
            ok = wmma_memory<Space::Shared>(w, *thread, code, exec, regs);
            break;
        default:
            ok = wmma_memory<Space::Generic>(w, *thread, code, exec, regs);
            break;
        }
        thread->cache_base = w.cache_base;
        thread->cache_size = w.cache_size;
        return ok ? 1 : 0;
    }
    if ((code & 7) == kMemory) { // ld / st lane by lane in lane order (the compiled code's slow path)
        w.cache_base = thread->cache_base;
        w.cache_size = thread->cache_size;
        const bool ok = lanes_memory(w, code, exec, regs);
        thread->cache_base = w.cache_base;
        thread->cache_size = w.cache_size;
        return ok ? 1 : 0;
    }
    if ((code & 7) == kImage) // a texture or surface instruction lane by lane in lane order (ops_texture.cpp)
        return compiled_warp_image(w, code >> 3, exec, registers) ? 1 : 0;
    if ((code & 7) == kCpAsync) { // each running lane's copy in lane order, as interpreted (ops_async.cpp)
        w.cache_base = thread->cache_base;
        w.cache_size = thread->cache_size;
        const unsigned bytes = (code >> 3) & 31;
        if (bytes == 16  ? cp_async_whole<16>(w, *thread, exec, regs)
            : bytes == 8 ? cp_async_whole<8>(w, *thread, exec, regs)
                         : cp_async_whole<4>(w, *thread, exec, regs)) {
            thread->cache_base = w.cache_base;
            thread->cache_size = w.cache_size;
            return 1;
        }
        bool ok = true;
        const uint64_t window = w.cache_base, window_size = w.cache_size;
        for (uint32_t m = exec; m && ok; m &= m - 1) {
            const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
            ok = cp_async_lane(w, lane, (code >> 3) & 31, regs.get(0, lane, true), regs.get(1, lane, true),
                               static_cast<uint32_t>(regs.get(2, lane, false)));
        }
        left_window(w, *thread, window, window_size);
        thread->cache_base = w.cache_base;
        thread->cache_size = w.cache_size;
        return ok ? 1 : 0;
    }
    if (!whole(w, exec)) return 0;
    switch (code & 7) {
    case kMma:
        if (code & kWgmma) return wgmma(w, code, regs) ? 1 : 0;
        mma_sync(code, regs);
        return 1;
    case kLoadMatrix: {
        const bool ok = ldmatrix(w, code, regs);
        thread->cache_base = w.cache_base;
        thread->cache_size = w.cache_size;
        return ok ? 1 : 0;
    }
    default:
        wmma(code, regs);
        return 1;
    }
}

uint32_t wgmma_op_code(const ptx::Wgmma& w) {
    return kMma | kWgmma | (w.n / 8) << 3 | (w.accumulator == ptx::Type::F16 ? 1u << 9 : 0) |
           (w.input == ptx::ElementFormat::BF16 ? 1u << 10 : 0) | (w.a_registers ? 1u << 11 : 0) |
           (w.negate_a ? 1u << 12 : 0) | (w.negate_b ? 1u << 13 : 0) | (w.scale_d >= 0 ? 1u << 14 : 0) |
           (w.scale_d == 1 ? 1u << 15 : 0);
}

uint32_t warp_collective_code(const ptx::WarpCollective& c) {
    using Op = ptx::WarpCollective::Op;
    uint32_t code = 0;
    switch (c.op) {
    case Op::Shuffle:
        code = kShuffle | static_cast<uint32_t>(c.shuffle) << 4;
        break;
    case Op::Vote:
        code = kVote | static_cast<uint32_t>(c.vote) << 4;
        break;
    case Op::Match:
        code = kMatch | (c.type == ptx::Type::B64 ? kWide : 0) | (c.all ? kAll : 0);
        break;
    case Op::Reduce:
        code = kReduce | static_cast<uint32_t>(c.reduction) << 4 | (c.type == ptx::Type::S32 ? kSigned : 0);
        break;
    case Op::ActiveMask:
        break;
    }
    return code;
}

uint32_t warp_sync_code() { return kWarpSync; }

uint32_t matrix_op_code(const ptx::MatrixOp& m) {
    if (m.op == ptx::MatrixOp::Op::LoadMatrix)
        return kLoadMatrix | m.matrices << 3 | (m.transpose ? 1u << 6 : 0) |
               (m.space == ptx::StateSpace::Shared ? 1u << 7 : 0);
    return kMma | m.k << 3 | (m.accumulator == ptx::Type::F16 ? 1u << 9 : 0) | static_cast<uint32_t>(m.a) << 10 |
           static_cast<uint32_t>(m.b) << 14;
}

uint32_t cp_async_code(unsigned bytes) { return kCpAsync | bytes << 3; }

uint32_t warp_image_code(const ptx::TextureOp& t) { return kImage | image_op_code(t) << 3; }

uint32_t warp_memory_code(uint32_t space, unsigned bytes, unsigned vector, bool store) {
    return kMemory | space << 3 | bytes << 6 | vector << 10 | (store ? 1u << 13 : 0);
}

uint32_t wmma_op_code(const ptx::Wmma& w) {
    if (w.op != ptx::Wmma::Op::Mma) {
        const uint32_t space = w.space == ptx::StateSpace::Global ? 1 : w.space == ptx::StateSpace::Shared ? 2 : 0;
        return (w.op == ptx::Wmma::Op::Store ? kWmmaStore : kWmmaLoad) | static_cast<uint32_t>(w.fragment) << 3 |
               (w.col ? 1u << 5 : 0) | static_cast<uint32_t>(w.shape) << 6 | static_cast<uint32_t>(w.type) << 9 |
               space << 13 | w.regs << 15;
    }
    return kWmma | static_cast<uint32_t>(w.shape) << 3 | static_cast<uint32_t>(w.type) << 6 |
           static_cast<uint32_t>(w.c_type) << 10 | static_cast<uint32_t>(w.d_type) << 14 |
           (w.satfinite ? 1u << 18 : 0) | (w.bit_op == ptx::Wmma::BitOp::AndPopc ? 1u << 19 : 0);
}

} // namespace d4r::ptxsim
