// Recursive calls: saving and restoring the frames of functions on a call-graph cycle (recursion.h).
//
// A saved frame of one lane is, in order: the lane's value of every register slot of the function
// (FrameLayout::regs, 4 or 8 bytes each), its predicates packed 32 to a word, its .local bytes and its
// function-parameter bytes; FrameLayout::bytes in all.
#include "ptxsim/recursion.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "ptxsim/ptxsim.h"

namespace d4r::ptxsim {

namespace {

uint8_t* local_of(Warp& w, unsigned lane) {
    return w.block->local + size_t(w.first_thread + lane) * w.block->local_stride;
}

void save_lane(Warp& w, unsigned lane, const FrameLayout& f, uint8_t* out) {
    for (const FrameLayout::Slots& s : f.regs) {
        const uint32_t size = s.wide ? 8 : 4, stride = s.wide ? kSlot64 : kSlot32;
        for (uint32_t k = 0; k < s.count; ++k, out += size)
            std::memcpy(out, w.regs + s.offset + size_t(k) * stride + size * lane, size);
    }
    for (uint32_t p = f.pred_begin; p < f.pred_end; p += 32, out += 4) {
        uint32_t bits = 0;
        for (uint32_t q = p; q < std::min(p + 32, f.pred_end); ++q) bits |= ((w.preds[q] >> lane) & 1u) << (q - p);
        std::memcpy(out, &bits, 4);
    }
    std::memcpy(out, local_of(w, lane) + f.local_begin, f.local_end - f.local_begin);
    out += f.local_end - f.local_begin;
    const uint8_t* fp = fparam_of(w, lane);
    for (const auto& [begin, end] : f.params) {
        std::memcpy(out, fp + begin, end - begin);
        out += end - begin;
    }
}

void restore_lane(Warp& w, unsigned lane, const FrameLayout& f, const uint8_t* in) {
    for (const FrameLayout::Slots& s : f.regs) {
        const uint32_t size = s.wide ? 8 : 4, stride = s.wide ? kSlot64 : kSlot32;
        for (uint32_t k = 0; k < s.count; ++k, in += size)
            std::memcpy(w.regs + s.offset + size_t(k) * stride + size * lane, in, size);
    }
    for (uint32_t p = f.pred_begin; p < f.pred_end; p += 32, in += 4) {
        uint32_t bits;
        std::memcpy(&bits, in, 4);
        for (uint32_t q = p; q < std::min(p + 32, f.pred_end); ++q)
            w.preds[q] = (w.preds[q] & ~lane_bit(lane)) | (((bits >> (q - p)) & 1u) << lane);
    }
    std::memcpy(local_of(w, lane) + f.local_begin, in, f.local_end - f.local_begin);
    in += f.local_end - f.local_begin;
    uint8_t* fp = fparam_of(w, lane);
    for (const auto& [begin, end] : f.params) {
        std::memcpy(fp + begin, in, end - begin);
        in += end - begin;
    }
}

} // namespace

void RecursionStack::attach(Warp& w, uint32_t depth) {
    depth = std::max(depth, 1u);
    ret.assign(size_t(depth) * 32, 0);
    frames.assign(size_t(depth) * 32, 0);
    for (std::vector<uint8_t>& s : saved) s.clear();
    std::fill(std::begin(charged), std::end(charged), 0);
    std::fill(std::begin(stack), std::end(stack), 0);
    w.ret_stack = ret.data();
    w.frame_stack = frames.data();
    w.max_depth = depth;
    w.recursion = this;
}

bool grow_call_stack(Warp& w) {
    RecursionStack& rs = *w.recursion;
    if (w.max_depth >= kMaxCallDepth) return false;
    const uint32_t depth = std::min(kMaxCallDepth, std::max(2 * w.max_depth, 8u));
    rs.ret.resize(size_t(depth) * 32, 0);
    rs.frames.resize(size_t(depth) * 32, 0);
    w.ret_stack = rs.ret.data();
    w.frame_stack = rs.frames.data();
    w.max_depth = depth;
    return true;
}

uint64_t stack_limit(const Warp& w) {
    const uint64_t limit = w.launch->config.stack_bytes;
    return limit ? std::min(limit, kRecursionStackBytes) : kRecursionStackBytes;
}

Flow stack_overflow(Warp& w, unsigned lane, uint32_t frame_bytes) {
    // The address past the thread's stack, as a GPU faults on the first access beyond it.
    const uint64_t limit = stack_limit(w);
    return fault(w, FaultKind::IllegalAddress, lane, kLocalWindow + w.block->local_stride + limit, frame_bytes,
                 fmt::format("stack overflow: a recursive call past the thread's stack of {} bytes "
                             "(CU_LIMIT_STACK_SIZE, {} bytes per call), {} KiB of saved frames or {} nested calls",
                             limit, kFrameOverheadBytes, kRecursionStackBytes / 1024, kMaxCallDepth));
}

Flow save_frames(Warp& w, const CallSite& cs, const uint32_t (&targets)[32], uint32_t mask) {
    RecursionStack& rs = *w.recursion;
    const Program& prog = *w.launch->program;
    const uint64_t limit = stack_limit(w);
    for (uint32_t m = mask; m; m &= m - 1) {
        const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
        const CallTarget& t = cs.targets[targets[l]];
        if (t.frame < 0) continue;
        const uint32_t bytes = prog.frames[size_t(t.frame)].bytes;
        if (rs.charged[l] + bytes + kFrameOverheadBytes > kRecursionStackBytes ||
            rs.stack[l] + kFrameOverheadBytes > limit)
            return stack_overflow(w, l, bytes);
    }
    for (uint32_t m = mask; m; m &= m - 1) {
        const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
        const CallTarget& t = cs.targets[targets[l]];
        if (t.frame < 0) continue;
        const FrameLayout& f = prog.frames[size_t(t.frame)];
        std::vector<uint8_t>& s = rs.saved[l];
        const size_t at = s.size();
        s.resize(at + f.bytes);
        save_lane(w, l, f, s.data() + at);
        rs.charged[l] += f.bytes + kFrameOverheadBytes;
        rs.stack[l] += kFrameOverheadBytes;
    }
    return Flow::Next;
}

void restore_frame(Warp& w, unsigned lane, const CallTarget& t) {
    RecursionStack& rs = *w.recursion;
    const FrameLayout& f = w.launch->program->frames[size_t(t.frame)];
    uint8_t* fp = fparam_of(w, lane);
    // The return values live in the callee's parameter area, which the restore overwrites; the caller's
    // variables receiving them may too (a function calling itself): set them aside, restore, then copy.
    size_t ret_bytes = 0;
    for (const CallTarget::Copy& c : t.rets) ret_bytes += c.bytes;
    rs.rets.resize(ret_bytes);
    size_t at = 0;
    for (const CallTarget::Copy& c : t.rets) {
        std::memcpy(rs.rets.data() + at, fp + c.from, c.bytes);
        at += c.bytes;
    }
    std::vector<uint8_t>& s = rs.saved[lane];
    restore_lane(w, lane, f, s.data() + s.size() - f.bytes);
    s.resize(s.size() - f.bytes);
    rs.charged[lane] -= f.bytes + kFrameOverheadBytes;
    rs.stack[lane] -= kFrameOverheadBytes;
    at = 0;
    for (const CallTarget::Copy& c : t.rets) {
        std::memcpy(fp + c.to, rs.rets.data() + at, c.bytes);
        at += c.bytes;
    }
}

} // namespace d4r::ptxsim
