// fuzz_cuda_api: the harness's host memory and the pool of handles and addresses calls draw from.
#include "fuzz_api.h"

namespace fuzz_api {

uint8_t* g_arena = nullptr;

Pool* P = nullptr;

// A harness context that programs never see: it holds the word stream waits are satisfied by.
CUcontext g_home = nullptr;
uint32_t* g_flag = nullptr; // always 1
bool g_budget = false;      // whether D4R_CPU_MEMORY_LIMIT is honoured (cuMemGetInfo's total within it)

CUcontext pick_ctx(Input& in) { return pick(in, P->ctx); }

CUstream pick_stream(Input& in) {
    switch (in.u8() % 8) {
    case 0:
        return nullptr;
    case 1:
        return D4R_CU_STREAM_LEGACY;
    case 2:
        return D4R_CU_STREAM_PER_THREAD;
    case 3:
        return reinterpret_cast<CUstream>(pick(in, P->event)); // a handle of another kind
    default:
        return pick(in, P->stream);
    }
}

CUfunction pick_function(Input& in) {
    switch (in.u8() % 8) {
    case 0:
        return pick(in, P->fuzzed_function);
    case 1:
        return reinterpret_cast<CUfunction>(pick(in, P->kernel)); // a CUkernel stands in for a function
    case 2:
        return reinterpret_cast<CUfunction>(pick(in, P->module));
    default:
        return pick(in, P->function);
    }
}

size_t huge_size(Input& in) {
    static const uint64_t values[] = {~0ull,      ~0ull - 7,        1ull << 63, 1ull << 44,
                                      1ull << 40, (1ull << 32) + 1, 1ull << 32};
    return values[in.below(std::size(values))];
}

// A byte count for a copy or memset: mostly small, sometimes huge or wrapping.
size_t pick_size(Input& in) {
    switch (in.u8() % 12) {
    case 0:
        return 0;
    case 1:
        return huge_size(in);
    case 2:
        return in.u64();
    case 3:
        return in.u32() % (4u << 20);
    case 4:
        return size_t(1) << in.below(24);
    default:
        return in.u16() % 4096;
    }
}

// A size for an allocation: like pick_size, but never one the machine could only hold by swapping, unless
// the memory budget is there to refuse it.
size_t alloc_size(Input& in) {
    size_t s = pick_size(in);
    if (in.u8() % 8 == 0) s = in.u32() % (64u << 20) + (g_budget ? (in.u8() % 64) << 26 : 0);
    if (s > (64u << 20) && s < (1ull << 40) && !g_budget) s = 64u << 20;
    return s;
}

// A device address: a live allocation plus an offset (sometimes past its end), a freed one, or junk.
CUdeviceptr pick_dptr(Input& in) {
    uint8_t c = in.u8() % 16;
    auto off = [&](const Ptr& p) -> CUdeviceptr {
        switch (in.u8() % 8) {
        case 0:
            return p.p + p.size;
        case 1:
            return p.p + in.u16();
        case 2:
            return p.p - 1 - in.below(16);
        case 3:
            return p.p + (p.size ? in.u32() % p.size : 0);
        default:
            return p.p + (p.size ? (in.u8() * 4) % p.size : 0);
        }
    };
    if (c < 9 && !P->dev.empty()) return off(P->dev[in.below(P->dev.size())]);
    if (c < 11 && !P->host.empty()) return off(P->host[in.below(P->host.size())]);
    if (c == 11 && !P->dev_dead.empty()) return P->dev_dead[in.below(P->dev_dead.size())].p;
    if (c == 12 && !P->registered.empty()) return off(P->registered[in.below(P->registered.size())]);
    if (c == 13) return 0;
    static const uint64_t values[] = {
        0x10, 0x1000, ~0ull, ~0ull - 3, 1ull << 47, 0xffff800000000000ull, 0x7fffffffffffull};
    return values[in.below(std::size(values))];
}

// A host pointer for a call that reads or writes host memory: the arena (sometimes running into its
// inaccessible page), its read-only page, pinned memory, or an address nothing is mapped at.
bool inside_history(uint64_t p) {
    for (const Ptr& r : P->history)
        if (p >= r.p && p - r.p < std::max<size_t>(r.size, 1)) return true;
    return false;
}

// Whether d4r knows P as live memory now (a context's destruction frees its memory behind the pool's back).
bool known_to_d4r(uint64_t p) {
    CUdeviceptr base = 0;
    size_t size = 0;
    unsigned flags = 0;
    return T->cuMemGetAddressRange_v2(&base, &size, p) == CUDA_SUCCESS ||
           T->cuMemHostGetFlags(&flags, reinterpret_cast<void*>(p)) == CUDA_SUCCESS;
}

void* pick_host(Input& in) {
    switch (in.u8() % 16) {
    case 0:
        return nullptr;
    case 1:
        return reinterpret_cast<void*>(0x10);
    case 2:
        return guard();
    case 3:
        return read_only() + in.below(64);
    case 4:
        return reinterpret_cast<void*>(0xffff800000001000ull);
    case 5:
        return rw() + kRwBytes - in.below(256); // runs into the inaccessible page
    case 6:
    case 7:
        if (!P->host.empty()) {
            const Ptr& h = P->host[in.below(P->host.size())];
            uint64_t p = h.p + (h.size ? in.u16() % h.size : 0);
            if (known_to_d4r(p) || kFreedAsHost) return reinterpret_cast<void*>(p);
        }
        [[fallthrough]];
    case 8:
        if (kFreedAsHost && !P->host_dead.empty()) return reinterpret_cast<void*>(P->host_dead[0].p);
        [[fallthrough]];
    default:
        return rw() + (in.u16() % kRwBytes);
    }
}

// cuMemcpy and the UNIFIED sides take an unknown address for host memory: a device address, or a host
// pointer of pick_host (never a freed allocation unless kFreedAsHost).
CUdeviceptr pick_unified(Input& in) {
    if (in.flip()) return reinterpret_cast<CUdeviceptr>(pick_host(in));
    CUdeviceptr p = pick_dptr(in);
    if (!kFreedAsHost && !known_to_d4r(p) && inside_history(p)) return reinterpret_cast<CUdeviceptr>(rw());
    return p;
}

void remember_range(CUdeviceptr p, size_t size) {
    if (P->history.size() < 1024) P->history.push_back({p, size});
}

void remember_dev(CUdeviceptr p, size_t size) {
    remember_range(p, size);
    if (P->dev.size() < 64) P->dev.push_back({p, size});
}

void forget(std::vector<Ptr>& live, std::vector<Ptr>& dead, CUdeviceptr p) {
    for (size_t i = 0; i < live.size(); ++i) {
        if (live[i].p == p) {
            if (dead.size() < 16) dead.push_back(live[i]);
            live.erase(live.begin() + i);
            return;
        }
    }
}

} // namespace fuzz_api
