// Early exit of some lanes followed by warp collectives among the survivors (activemask, ballot,
// vote) and a second level of divergence; exited lanes must not count as active.
// corpus-arch: sm_89
#include "common.cuh"

// v: full range. out: 4 words per thread.
KERNEL void ctrl_exit(const uint32_t* v, uint32_t* out) {
    unsigned i = gtid();
    uint32_t x = v[i];
    uint32_t* o = out + i * 4;
    o[0] = x;
    if (x % 3 == 0) {
        o[1] = 0xE0;
        o[2] = 0xE1;
        o[3] = 0xE2;
        return;
    }
    unsigned act = __activemask();
    unsigned ballot = __ballot_sync(act, x & 1);
    o[1] = act;
    o[2] = ballot;
    if (x & 4) {
        unsigned inner = __activemask();
        o[3] = inner ^ (__all_sync(inner, x & 8) ? 0x80000000u : 0u);
    } else {
        unsigned inner = __activemask();
        o[3] = inner ^ (__any_sync(inner, x & 16) ? 0x40000000u : 0u);
    }
}
