// Local memory: per-thread arrays indexed by data (so they cannot live in registers), a small
// insertion sort, and a local array of doubles.
// corpus-arch: sm_89
#include "common.cuh"

// idx, v: full range. out: 6 words per thread.
KERNEL void local_mem(const uint32_t* idx, const uint32_t* v, uint32_t* out) {
    uint32_t arr[48];
    double dv[12];
    unsigned i = gtid();
    uint32_t x = v[i], j = idx[i];
    for (uint32_t k = 0; k < 48; ++k) arr[k] = (x * (k + 1)) ^ k;
    for (uint32_t k = 0; k < 16; ++k) arr[(j + k * 5) % 48] += k;
    for (uint32_t k = 1; k < 24; ++k) {
        uint32_t key = arr[k];
        int m = (int)k - 1;
        while (m >= 0 && arr[m] > key) {
            arr[m + 1] = arr[m];
            --m;
        }
        arr[m + 1] = key;
    }
    for (uint32_t k = 0; k < 12; ++k) dv[k] = (double)arr[(j + k) % 48] * 0.5;
    uint32_t* o = out + i * 6;
    o[0] = arr[j % 48];
    o[1] = arr[(j >> 8) % 24];
    o[2] = arr[0];
    o[3] = arr[23];
    uint64_t d = __double_as_longlong(dv[(j >> 4) % 12]);
    o[4] = (uint32_t)d;
    o[5] = (uint32_t)(d >> 32);
}
