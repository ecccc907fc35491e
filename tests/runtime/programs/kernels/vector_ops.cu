// Kernels for the runtime test programs (tests/runtime/programs/*.c). PTX: make-ptx.sh.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// y = a * x + y with a 64-bit count and a scalar in the middle of the parameter block (alignment).
extern "C" __global__ void saxpy(long long n, float a, const float* x, float* y) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__device__ unsigned int launches_seen;

// Counts its launches in a module global (cuModuleGetGlobal) and writes the block shape it ran with.
extern "C" __global__ void shape_probe(unsigned int* out) {
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 0 && blockIdx.y == 0 &&
        blockIdx.z == 0) {
        unsigned int seen = atomicAdd(&launches_seen, 1u);
        out[0] = blockDim.x;
        out[1] = blockDim.y;
        out[2] = blockDim.z;
        out[3] = gridDim.x;
        out[4] = gridDim.y;
        out[5] = gridDim.z;
        out[6] = seen;
    }
}

// Reads one element past the end of its buffer when asked to: a launch fault.
extern "C" __global__ void out_of_bounds(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i + n] = i;
}
