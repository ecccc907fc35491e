// Kernels of tests/runtime/programs/resources.c: texture and surface objects, static and dynamic shared
// memory, a __constant__ and a __device__ variable. PTX and fatbin: ../make-ptx.sh.

// out[i] = the texel a float4 texture object gives at coords[i] (tex.2d.v4.f32.f32).
extern "C" __global__ void tex2d_float4(cudaTextureObject_t tex, const float2* coords, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(tex, coords[i].x, coords[i].y);
}

// The same through a one-channel float texture (pitch-linear memory).
extern "C" __global__ void tex2d_float(cudaTextureObject_t tex, const float2* coords, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(tex, coords[i].x, coords[i].y);
}

// Integer texels of a uchar4 texture read with CU_TRSF_READ_AS_INTEGER (tex.2d.v4.u32.f32).
extern "C" __global__ void tex2d_uchar4(cudaTextureObject_t tex, const float2* coords, uchar4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<uchar4>(tex, coords[i].x, coords[i].y);
}

// out[i] = element index[i] of a linear-memory texture (tex.1d.v4.f32.s32).
extern "C" __global__ void tex1d_fetch(cudaTextureObject_t tex, const int* index, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, index[i]);
}

// Writes texel (x, y) = (x, y, x ^ y, 255 - x) of a uchar4 surface (sust.b.2d.v4.b8; x is a byte offset).
extern "C" __global__ void surf_write_uchar4(cudaSurfaceObject_t surf, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        surf2Dwrite(make_uchar4((unsigned char)x, (unsigned char)y, (unsigned char)(x ^ y), (unsigned char)(255 - x)),
                    surf, x * 4, y);
}

__constant__ float coeffs[2];
__device__ unsigned int affine_launches;

// out[i] = in[i] * coeffs[0] + coeffs[1] (one fma.rn.f32); counts its launches in a __device__ variable.
extern "C" __global__ void affine(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) atomicAdd(&affine_launches, 1u);
    if (i < n) out[i] = __fmaf_rn(in[i], coeffs[0], coeffs[1]);
}

// Reverses each block of 256 ints through 1 KiB of static shared memory.
extern "C" __global__ void __launch_bounds__(256) block_reverse(const int* in, int* out) {
    __shared__ int buf[256];
    int base = blockIdx.x * 256;
    buf[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = buf[255 - threadIdx.x];
}

// Reverses each block of N ints through N * 4 bytes of dynamic shared memory.
extern "C" __global__ void dynamic_reverse(const int* in, int* out, int n) {
    extern __shared__ int sbuf[];
    int base = blockIdx.x * n;
    for (int i = threadIdx.x; i < n; i += blockDim.x) sbuf[i] = in[base + i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[base + i] = sbuf[n - 1 - i];
}

// Texel (x, y) of a float4 texture object, times SCALE, into texel (x, y) of a float4 surface (point
// sampling at texel centres; tests/runtime/observe_programs_test.cpp dumps and replays it).
extern "C" __global__ void tex_to_surf(cudaTextureObject_t tex, cudaSurfaceObject_t surf, int width, int height,
                                       float scale) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float4 t = tex2D<float4>(tex, x + 0.5f, y + 0.5f);
        surf2Dwrite(make_float4(t.x * scale, t.y * scale, t.z * scale, t.w * scale), surf, x * 16, y);
    }
}
