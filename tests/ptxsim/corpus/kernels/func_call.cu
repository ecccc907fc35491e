// Calls to .func: scalar parameters and returns, a struct returned through .param space, a pointer
// to a local array passed down (generic addressing), nested calls, and indirect calls through a
// table of function pointers in global memory.
// corpus-arch: sm_89
#include "common.cuh"

struct Pair {
    uint32_t a;
    float b;
};
typedef uint32_t (*BinOp)(uint32_t, uint32_t);

__device__ __noinline__ uint32_t mix(uint32_t x, uint32_t y) { return (x ^ (y << 5)) * 0x9e3779b1u + (y >> 3); }
__device__ __noinline__ Pair make_pair(uint32_t x, float f) {
    Pair p;
    p.a = x * 3u + 1u;
    p.b = f * 0.5f;
    return p;
}
__device__ __noinline__ float sum_array(const float* p, int n) {
    float s = 0.0f;
    for (int k = 0; k < n; ++k) s = s + p[k];
    return s;
}
__device__ __noinline__ uint32_t nested(uint32_t x) { return mix(x, x + 1u) + mix(x >> 16, x) + 1u; }
__device__ __noinline__ uint32_t op_add(uint32_t a, uint32_t b) { return a + b; }
__device__ __noinline__ uint32_t op_xor(uint32_t a, uint32_t b) { return a ^ (b >> 1); }
__device__ __noinline__ uint32_t op_mul(uint32_t a, uint32_t b) { return a * (b | 1u); }
__device__ BinOp g_ops[3] = {op_add, op_xor, op_mul};

// u: full range; f: finite f32. out: 6 words per thread.
KERNEL void func_call(const uint32_t* u, const float* f, uint32_t* out) {
    unsigned i = gtid();
    uint32_t x = u[i];
    float loc[8];
    for (int k = 0; k < 8; ++k) loc[k] = f[(i + k) % (gridDim.x * blockDim.x)];
    Pair p = make_pair(x, f[i]);
    uint32_t* o = out + i * 6;
    o[0] = mix(x, i);
    o[1] = p.a;
    o[2] = f2u(p.b);
    o[3] = f2u(sum_array(loc, (int)(x % 9)));
    o[4] = nested(x);
    o[5] = g_ops[x % 3](x, i);
}
