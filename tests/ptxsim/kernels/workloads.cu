// Kernels compiled with the local nvcc for ptxsim's unit tests (tests/ptxsim/nvcc_kernels_test.cpp):
// real compiler output for reductions, divergent loops, device calls, local arrays, switch tables and
// float math. Regenerate workloads.ptx with regen.sh beside this file.
#include <cstdint>

struct Pair {
    int sum;
    float scaled;
};

// Block sum: shared-memory tree down to one warp, then shuffles; one atomicAdd per block.
extern "C" __global__ void block_reduce(const unsigned* in, unsigned* block_sums, unsigned* total, int n) {
    __shared__ unsigned buf[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s >= 32; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        unsigned v = buf[threadIdx.x];
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0) {
            block_sums[blockIdx.x] = v;
            atomicAdd(total, v);
        }
    }
}

// Per-thread trip counts (Collatz steps), with an early return for some threads.
extern "C" __global__ void collatz(const unsigned* start, unsigned* steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = start[i];
    if (x == 0) {
        steps[i] = 0xffffffffu;
        return;
    }
    unsigned count = 0;
    while (x != 1) {
        x = (x & 1) ? 3 * x + 1 : x / 2;
        ++count;
    }
    steps[i] = count;
}

__device__ __noinline__ Pair combine(const int* values, int count, float scale) {
    int local[16]; // indexed dynamically: lives in local memory
    for (int k = 0; k < 16; ++k) local[k] = values[k % count] * (k + 1);
    Pair p{0, 0.0f};
    for (int k = 0; k < count; ++k) p.sum += local[(k * 7) & 15];
    p.scaled = float(p.sum) * scale;
    return p;
}

extern "C" __global__ void device_calls(const int* values, int count, float scale, int* sums, float* scaled) {
    int t = threadIdx.x;
    Pair p = combine(values + t, count, scale + t);
    sums[t] = p.sum;
    scaled[t] = p.scaled;
}

// A dense switch: nvcc may emit a jump table (brx.idx) or a compare chain.
extern "C" __global__ void switch_ops(const unsigned* in, unsigned* out) {
    unsigned v = in[threadIdx.x];
    unsigned r;
    switch (v % 8) {
    case 0:
        r = v * 3;
        break;
    case 1:
        r = v ^ 0x5a5a;
        break;
    case 2:
        r = v >> 2;
        break;
    case 3:
        r = v + 1000;
        break;
    case 4:
        r = ~v;
        break;
    case 5:
        r = v * v;
        break;
    case 6:
        r = v | 0xf0;
        break;
    default:
        r = v - 7;
        break;
    }
    out[threadIdx.x] = r;
}

// Float math the compiler expands into instruction sequences (sqrtf, expf, division, conversions).
extern "C" __global__ void float_math(const float* x, float* out, int* ints) {
    int t = threadIdx.x;
    float v = x[t];
    out[t * 4 + 0] = sqrtf(fabsf(v));
    out[t * 4 + 1] = expf(v * 0.25f);
    out[t * 4 + 2] = v / (1.0f + fabsf(v));
    out[t * 4 + 3] = fminf(fmaxf(v, -2.0f), 2.0f);
    ints[t * 2 + 0] = __float2int_rn(v * 10.0f);
    ints[t * 2 + 1] = (int)(v * 10.0f);
}
