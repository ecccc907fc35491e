// Stand-in native kernels for the `.hsaco` path tests (tests/runtime/hip_override_test.cpp and
// tests/device/runtime.sh): the fake HIP runtime (tests/runtime/fake_hip) runs them on ptxsim or, on the
// device, on NVIDIA's driver. They replace vector_ops.cu's saxpy with the
// same parameters and exercise every part of the protocol of docs/runtime.md, "Native-kernel overrides": a prep phase
// keyed on the u64 at offset 0 with two slots, d4r_grid_x / d4r_block_z, a post phase with its own shape,
// d4r_prep_slot.

__device__ unsigned int d4r_prep_blocks = 2;
__device__ unsigned int d4r_prep_key_at = 1; // the u64 at offset 0 (n)
__device__ unsigned int d4r_prep_key_slots = 2;
__device__ unsigned int d4r_grid_x = 4;
__device__ unsigned int d4r_block_z = 1;
__device__ unsigned int d4r_post1_grid_x = 1;
__device__ unsigned int d4r_post1_block_x = 64;
__device__ unsigned int d4r_prep_slot;
__device__ unsigned int prep_runs[3]; // prep launches per slot (2 slots + overflow)
__device__ unsigned int post_runs;

// y = a x + y over n elements, striding over whatever grid the override gave it.
extern "C" __global__ void saxpy(long long n, float a, const float* x, float* y) {
    long long threads_per_block = (long long)blockDim.x * blockDim.y * blockDim.z;
    long long thread = (long long)blockIdx.x * threads_per_block +
                       ((long long)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    for (long long i = thread; i < n; i += (long long)gridDim.x * threads_per_block) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void saxpy_prep(long long n, float a, const float* x, float* y) {
    if (blockIdx.x == 0 && threadIdx.x == 0) prep_runs[d4r_prep_slot] += 1;
}

// Counts its runs (the results stay those of the PTX saxpy, so a program's own checks and output dumps
// hold with the stand-in served). Its grid keeps the caller's y extent (docs/runtime.md, "Native-kernel overrides"):
// one thread counts.
extern "C" __global__ void saxpy_post1(long long n, float a, const float* x, float* y) {
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) post_runs += 1;
}
