// The warp collectives of compiled kernels (see compiled_collectives.h), with the interpreter's rules: a
// collective runs once every non-exited lane of its member mask waits at it; members waiting at another instruction
// of the same kind and mask join (each with its own operands and results); lanes at one instruction naming
// different masks form separate collectives, the lowest lane's first; shfl reads a lane outside the collective's
// register as it stands (only when the collective is all the lanes at its instruction, as the interpreter's simple
// path does; 0 otherwise); activemask gives the lanes at its instruction.
#include "ptxsim/compiled_collectives.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "ptx/instr_warp.h"
#include "ptxsim/collective_codes.h"
#include "ptxsim/memory_access.h"
#include "ptxsim/mma_warp.h"
#include "ptxsim/scalar_warp.h"

namespace d4r::ptxsim {

namespace {

template <class T>
T load(const uint8_t* state, unsigned offset) {
    T v;
    std::memcpy(&v, state + offset, sizeof v);
    return v;
}
template <class T>
void store(uint8_t* state, unsigned offset, T v) {
    std::memcpy(state + offset, &v, sizeof v);
}

bool same_kind(const CollectiveSite& a, const CollectiveSite& b) {
    return a.kind == b.kind && a.mode == b.mode && a.wide == b.wide && a.is_signed == b.is_signed;
}

// Runs collective SITE for GROUP (its lanes at the site, AT_SITE all lanes waiting there, and OTHERS joined from
// other instructions) with member mask MEMBER.
void execute(const CollectiveSite& site, const WarpThreads& w, uint32_t group, uint32_t at_site, uint32_t others,
             uint32_t member) {
    using Kind = CollectiveSite::Kind;
    const uint32_t lanes = group | others;
    const bool simple = others == 0 && group == at_site;
    uint64_t out[32] = {};
    uint32_t pred[32] = {};
    switch (site.kind) {
    case Kind::Shuffle: {
        uint32_t a[32] = {};
        for (unsigned l = 0; l < 32; ++l) {
            if (lanes & lane_bit(l))
                a[l] = load<uint32_t>(w.state[l], kStateA);
            else if (simple && w.state[l])
                a[l] = site.source_offset ? load<uint32_t>(w.state[l], site.source_offset)
                                          : load<uint32_t>(w.state[__builtin_ctz(group)], kStateA);
        }
        for_each_lane(lanes, [&](unsigned l) {
            bool valid = false;
            const uint32_t src = shfl_source(shfl_mode(site.mode), l, load<uint32_t>(w.state[l], kStateB),
                                             load<uint32_t>(w.state[l], kStateC), valid);
            out[l] = a[src];
            pred[l] = valid ? 1 : 0;
        });
        break;
    }
    case Kind::Vote: {
        const uint32_t voters = lanes & member;
        uint32_t p = 0;
        for_each_lane(voters, [&](unsigned l) { p |= load<uint32_t>(w.state[l], kStatePredIn) ? lane_bit(l) : 0u; });
        const bool result = vote_result(site.mode, p, voters);
        for_each_lane(lanes, [&](unsigned l) {
            out[l] = p;
            pred[l] = result ? 1 : 0;
        });
        break;
    }
    case Kind::Match: {
        const uint32_t parts = lanes & member;
        uint64_t v[32] = {};
        for_each_lane(parts, [&](unsigned l) {
            v[l] = site.wide ? load<uint64_t>(w.state[l], kStateA) : load<uint32_t>(w.state[l], kStateA);
        });
        if (site.mode) { // .all
            const bool same = match_all(parts, v);
            for_each_lane(lanes, [&](unsigned l) {
                out[l] = same ? parts : 0u;
                pred[l] = same ? 1 : 0;
            });
        } else {
            for_each_lane(parts, [&](unsigned l) { out[l] = match_any(parts, v, l); });
        }
        break;
    }
    case Kind::Reduce: {
        const uint32_t parts = lanes & member;
        uint32_t v[32] = {};
        for_each_lane(parts, [&](unsigned l) { v[l] = load<uint32_t>(w.state[l], kStateA); });
        const uint32_t acc = redux_over(site.mode, site.is_signed, parts, v);
        for_each_lane(lanes, [&](unsigned l) { out[l] = acc; });
        break;
    }
    case Kind::ActiveMask:
        for_each_lane(lanes, [&](unsigned l) { out[l] = lanes; });
        break;
    case Kind::WarpSync:
    case Kind::LoadMatrix: // load_matrices
        break;
    case Kind::Mma: { // the whole warp (checked by the caller), each lane's fragments as it stored them
        uint32_t frag[32][kMmaFragmentWords], d[32][4] = {};
        for (unsigned l = 0; l < 32; ++l) std::memcpy(frag[l], w.state[l] + kStateFragment, sizeof frag[l]);
        const auto fa = static_cast<mma::Format>(site.format_a), fb = static_cast<mma::Format>(site.format_b);
        if (site.mode == 8)
            site.acc16 ? mma_warp<8, true>(fa, fb, frag, d) : mma_warp<8, false>(fa, fb, frag, d);
        else if (site.mode == 16)
            site.acc16 ? mma_warp<16, true>(fa, fb, frag, d) : mma_warp<16, false>(fa, fb, frag, d);
        else
            site.acc16 ? mma_warp<32, true>(fa, fb, frag, d) : mma_warp<32, false>(fa, fb, frag, d);
        for (unsigned l = 0; l < 32; ++l) std::memcpy(w.state[l] + kStateFragmentOut, d[l], sizeof d[l]);
        break;
    }
    }
    for_each_lane(lanes, [&](unsigned l) {
        store<uint64_t>(w.state[l], kStateOut, out[l]);
        store<uint32_t>(w.state[l], kStatePredOut, pred[l]);
        *w.status[l] = ThreadStatus::Runnable;
    });
}

} // namespace

// ldmatrix: the rows from the addresses lanes 0 .. 8N-1 gave (translate's checks and faults, lane by lane as
// interpreted), handed out to the whole warp. False after a fault (recorded in the warp).
template <unsigned N, bool Trans>
bool load_matrices(const CollectiveSite& site, const WarpThreads& w) {
    uint16_t rows[N][8][8];
    for (unsigned l = 0; l < 8 * N; ++l) {
        const uint64_t address = load<uint64_t>(w.state[l], kStateA);
        const uint8_t* p = site.shared ? translate<Space::Shared>(*w.warp, l, address, 16, false)
                                       : translate<Space::Generic>(*w.warp, l, address, 16, false);
        if (!p) return false;
        std::memcpy(rows[l >> 3][l & 7], p, 16);
    }
    uint32_t d[32][4] = {};
    ldmatrix_distribute<N, Trans>(rows, d);
    for (unsigned l = 0; l < 32; ++l) {
        std::memcpy(w.state[l] + kStateFragmentOut, d[l], sizeof d[l]);
        *w.status[l] = ThreadStatus::Runnable;
    }
    return true;
}

bool load_matrices(const CollectiveSite& site, const WarpThreads& w) {
    switch (site.mode) {
    case 1:
        return site.transpose ? load_matrices<1, true>(site, w) : load_matrices<1, false>(site, w);
    case 2:
        return site.transpose ? load_matrices<2, true>(site, w) : load_matrices<2, false>(site, w);
    default:
        return site.transpose ? load_matrices<4, true>(site, w) : load_matrices<4, false>(site, w);
    }
}

CollectiveStep run_collective(const CompiledKernel& kernel, const WarpThreads& w, uint32_t& fault_lane,
                              std::string& detail, uint32_t& fault_site) {
    uint32_t live = 0, waiting = 0;
    const CollectiveSite* site[32] = {};
    uint32_t member[32] = {};
    for (unsigned l = 0; l < 32; ++l) {
        if (!w.status[l] || *w.status[l] == ThreadStatus::Done) continue;
        live |= lane_bit(l);
        if (*w.status[l] != ThreadStatus::AtCollective) continue;
        const uint32_t index = load<uint32_t>(w.state[l], kStateCollective);
        if (index >= kernel.collectives.size()) continue;
        waiting |= lane_bit(l);
        site[l] = &kernel.collectives[index];
        member[l] = load<uint32_t>(w.state[l], kStateMember);
    }
    if (!waiting) return CollectiveStep::Nothing;
    std::vector<uint32_t> orders;
    for_each_lane(waiting, [&](unsigned l) { orders.push_back(site[l]->order); });
    std::sort(orders.begin(), orders.end());
    orders.erase(std::unique(orders.begin(), orders.end()), orders.end());
    for (uint32_t order : orders) {
        uint32_t at_site = 0;
        for_each_lane(waiting, [&](unsigned l) { at_site |= site[l]->order == order ? lane_bit(l) : 0u; });
        const CollectiveSite& s = *site[__builtin_ctz(at_site)];
        if (s.kind == CollectiveSite::Kind::ActiveMask) {
            execute(s, w, at_site, at_site, 0, 0);
            return CollectiveStep::Ran;
        }
        for (uint32_t remaining = at_site; remaining;) {
            const unsigned lowest = static_cast<unsigned>(__builtin_ctz(remaining));
            const uint32_t m = member[lowest];
            uint32_t group = 0, others = 0;
            for_each_lane(at_site, [&](unsigned l) { group |= member[l] == m ? lane_bit(l) : 0u; });
            remaining &= ~group;
            for_each_lane(waiting & ~at_site, [&](unsigned l) {
                if (member[l] == m && same_kind(*site[l], s)) others |= lane_bit(l);
            });
            if (((m & live) & ~(group | others)) == 0) {
                const bool whole = s.kind == CollectiveSite::Kind::Mma || s.kind == CollectiveSite::Kind::LoadMatrix;
                if (whole && (group | others) != 0xffffffffu) {
                    // whole_warp's fault: a warp-wide matrix instruction needs every lane.
                    fault_lane = static_cast<uint32_t>(__builtin_ctz(group));
                    detail = fmt::format("warp-wide matrix instruction without all 32 lanes (lanes 0x{:08x})",
                                         group | others);
                    return CollectiveStep::Fault;
                }
                if (s.kind == CollectiveSite::Kind::LoadMatrix) {
                    fault_site = s.fault_site;
                    return load_matrices(s, w) ? CollectiveStep::Ran : CollectiveStep::MemoryFault;
                }
                execute(s, w, group, at_site, others, m);
                return CollectiveStep::Ran;
            }
        }
    }
    // Nothing can run now; if nothing else can either, the lowest waiting collective never completes.
    fault_lane = static_cast<uint32_t>(__builtin_ctz(waiting));
    const uint32_t m = member[fault_lane];
    detail = fmt::format("member mask 0x{:08x}: lanes 0x{:08x} never reach this collective", m, m & live & ~waiting);
    return CollectiveStep::Nothing;
}

} // namespace d4r::ptxsim
