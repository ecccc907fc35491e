// Stand-in native kernels for the `.hsaco` path tests (tests/runtime/hip_override_test.cpp): the fake
// HIP runtime (tests/runtime/fake_hip) runs them on ptxsim. They replace vector_ops.cu's saxpy with the
// same parameters and exercise every part of the protocol of SPEC §6: a prep phase keyed on the u64 at
// offset 0 with two slots, d4r_grid_x / d4r_block_z, a post phase with its own shape, d4r_prep_slot.

__device__ unsigned int d4r_prep_blocks = 2;
__device__ unsigned int d4r_prep_key_at = 1; // the u64 at offset 0 (n)
__device__ unsigned int d4r_prep_key_slots = 2;
__device__ unsigned int d4r_grid_x = 4;
__device__ unsigned int d4r_block_z = 1;
__device__ unsigned int d4r_post1_grid_x = 1;
__device__ unsigned int d4r_post1_block_x = 64;
__device__ unsigned int d4r_prep_slot;
__device__ unsigned int prep_runs[3]; // prep launches per slot (2 slots + overflow)

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

// Adds 1 to every element, after the main phase on the same stream. Its grid keeps the caller's y
// extent (SPEC §6), so only the blocks of row 0 work.
extern "C" __global__ void saxpy_post1(long long n, float a, const float* x, float* y) {
    if (blockIdx.y != 0) return;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        y[i] += 1.0f;
}
