// d4r's clean-room CUDA declarations (src/abi) against NVIDIA's cuda.h, where the CUDA toolkit is
// installed: every enumerator value, every struct size and field offset, and the signature shape of
// every exported function (arity; per parameter: pointer to what size, integer or float of what size).
// Nothing of NVIDIA's header is copied; it is only compiled against here. Built only when CMake finds
// the toolkit (tests/abi/CMakeLists.txt).
#include <cstddef>
#include <tuple>
#include <type_traits>

#include <gtest/gtest.h>

#include "abi/cuda.h"
#include "abi/cuda_api.h"

// d4r's values, captured before NVIDIA's header: many of its flags are macros of the same names.
namespace captured {
constexpr long long ours_CUDA_ARRAY3D_CUBEMAP = static_cast<long long>(d4r::abi::CUDA_ARRAY3D_CUBEMAP);
constexpr long long ours_CUDA_ARRAY3D_LAYERED = static_cast<long long>(d4r::abi::CUDA_ARRAY3D_LAYERED);
constexpr long long ours_CUDA_ARRAY3D_SURFACE_LDST = static_cast<long long>(d4r::abi::CUDA_ARRAY3D_SURFACE_LDST);
constexpr long long ours_CUDA_ARRAY3D_TEXTURE_GATHER = static_cast<long long>(d4r::abi::CUDA_ARRAY3D_TEXTURE_GATHER);
constexpr long long ours_CUDA_ARRAY3D_COLOR_ATTACHMENT =
    static_cast<long long>(d4r::abi::CUDA_ARRAY3D_COLOR_ATTACHMENT);
constexpr long long ours_CUDA_EXTERNAL_MEMORY_DEDICATED =
    static_cast<long long>(d4r::abi::CUDA_EXTERNAL_MEMORY_DEDICATED);
constexpr long long ours_CUDA_ERROR_ASSERT = static_cast<long long>(d4r::abi::CUDA_ERROR_ASSERT);
constexpr long long ours_CUDA_ERROR_CONTEXT_IS_DESTROYED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_CONTEXT_IS_DESTROYED);
constexpr long long ours_CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE =
    static_cast<long long>(d4r::abi::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
constexpr long long ours_CUDA_ERROR_DEINITIALIZED = static_cast<long long>(d4r::abi::CUDA_ERROR_DEINITIALIZED);
constexpr long long ours_CUDA_ERROR_FILE_NOT_FOUND = static_cast<long long>(d4r::abi::CUDA_ERROR_FILE_NOT_FOUND);
constexpr long long ours_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
constexpr long long ours_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
constexpr long long ours_CUDA_ERROR_ILLEGAL_ADDRESS = static_cast<long long>(d4r::abi::CUDA_ERROR_ILLEGAL_ADDRESS);
constexpr long long ours_CUDA_ERROR_ILLEGAL_INSTRUCTION =
    static_cast<long long>(d4r::abi::CUDA_ERROR_ILLEGAL_INSTRUCTION);
constexpr long long ours_CUDA_ERROR_ILLEGAL_STATE = static_cast<long long>(d4r::abi::CUDA_ERROR_ILLEGAL_STATE);
constexpr long long ours_CUDA_ERROR_INVALID_ADDRESS_SPACE =
    static_cast<long long>(d4r::abi::CUDA_ERROR_INVALID_ADDRESS_SPACE);
constexpr long long ours_CUDA_ERROR_INVALID_CONTEXT = static_cast<long long>(d4r::abi::CUDA_ERROR_INVALID_CONTEXT);
constexpr long long ours_CUDA_ERROR_INVALID_DEVICE = static_cast<long long>(d4r::abi::CUDA_ERROR_INVALID_DEVICE);
constexpr long long ours_CUDA_ERROR_INVALID_HANDLE = static_cast<long long>(d4r::abi::CUDA_ERROR_INVALID_HANDLE);
constexpr long long ours_CUDA_ERROR_INVALID_IMAGE = static_cast<long long>(d4r::abi::CUDA_ERROR_INVALID_IMAGE);
constexpr long long ours_CUDA_ERROR_INVALID_PC = static_cast<long long>(d4r::abi::CUDA_ERROR_INVALID_PC);
constexpr long long ours_CUDA_ERROR_INVALID_PTX = static_cast<long long>(d4r::abi::CUDA_ERROR_INVALID_PTX);
constexpr long long ours_CUDA_ERROR_INVALID_SOURCE = static_cast<long long>(d4r::abi::CUDA_ERROR_INVALID_SOURCE);
constexpr long long ours_CUDA_ERROR_INVALID_VALUE = static_cast<long long>(d4r::abi::CUDA_ERROR_INVALID_VALUE);
constexpr long long ours_CUDA_ERROR_LAUNCH_FAILED = static_cast<long long>(d4r::abi::CUDA_ERROR_LAUNCH_FAILED);
constexpr long long ours_CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES =
    static_cast<long long>(d4r::abi::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
constexpr long long ours_CUDA_ERROR_LAUNCH_TIMEOUT = static_cast<long long>(d4r::abi::CUDA_ERROR_LAUNCH_TIMEOUT);
constexpr long long ours_CUDA_ERROR_MISALIGNED_ADDRESS =
    static_cast<long long>(d4r::abi::CUDA_ERROR_MISALIGNED_ADDRESS);
constexpr long long ours_CUDA_ERROR_NOT_FOUND = static_cast<long long>(d4r::abi::CUDA_ERROR_NOT_FOUND);
constexpr long long ours_CUDA_ERROR_NOT_INITIALIZED = static_cast<long long>(d4r::abi::CUDA_ERROR_NOT_INITIALIZED);
constexpr long long ours_CUDA_ERROR_NOT_PERMITTED = static_cast<long long>(d4r::abi::CUDA_ERROR_NOT_PERMITTED);
constexpr long long ours_CUDA_ERROR_NOT_READY = static_cast<long long>(d4r::abi::CUDA_ERROR_NOT_READY);
constexpr long long ours_CUDA_ERROR_NOT_SUPPORTED = static_cast<long long>(d4r::abi::CUDA_ERROR_NOT_SUPPORTED);
constexpr long long ours_CUDA_ERROR_NO_BINARY_FOR_GPU = static_cast<long long>(d4r::abi::CUDA_ERROR_NO_BINARY_FOR_GPU);
constexpr long long ours_CUDA_ERROR_NO_DEVICE = static_cast<long long>(d4r::abi::CUDA_ERROR_NO_DEVICE);
constexpr long long ours_CUDA_ERROR_OPERATING_SYSTEM = static_cast<long long>(d4r::abi::CUDA_ERROR_OPERATING_SYSTEM);
constexpr long long ours_CUDA_ERROR_OUT_OF_MEMORY = static_cast<long long>(d4r::abi::CUDA_ERROR_OUT_OF_MEMORY);
constexpr long long ours_CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE =
    static_cast<long long>(d4r::abi::CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE);
constexpr long long ours_CUDA_ERROR_SHARED_OBJECT_INIT_FAILED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
constexpr long long ours_CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND =
    static_cast<long long>(d4r::abi::CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND);
constexpr long long ours_CUDA_ERROR_STUB_LIBRARY = static_cast<long long>(d4r::abi::CUDA_ERROR_STUB_LIBRARY);
constexpr long long ours_CUDA_ERROR_UNKNOWN = static_cast<long long>(d4r::abi::CUDA_ERROR_UNKNOWN);
constexpr long long ours_CUDA_ERROR_UNSUPPORTED_LIMIT = static_cast<long long>(d4r::abi::CUDA_ERROR_UNSUPPORTED_LIMIT);
constexpr long long ours_CUDA_ERROR_UNSUPPORTED_PTX_VERSION =
    static_cast<long long>(d4r::abi::CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
constexpr long long ours_CUDA_SUCCESS = static_cast<long long>(d4r::abi::CUDA_SUCCESS);
constexpr long long ours_CU_AD_FORMAT_FLOAT = static_cast<long long>(d4r::abi::CU_AD_FORMAT_FLOAT);
constexpr long long ours_CU_AD_FORMAT_HALF = static_cast<long long>(d4r::abi::CU_AD_FORMAT_HALF);
constexpr long long ours_CU_AD_FORMAT_SIGNED_INT16 = static_cast<long long>(d4r::abi::CU_AD_FORMAT_SIGNED_INT16);
constexpr long long ours_CU_AD_FORMAT_SIGNED_INT32 = static_cast<long long>(d4r::abi::CU_AD_FORMAT_SIGNED_INT32);
constexpr long long ours_CU_AD_FORMAT_SIGNED_INT8 = static_cast<long long>(d4r::abi::CU_AD_FORMAT_SIGNED_INT8);
constexpr long long ours_CU_AD_FORMAT_UNORM_INT_101010_2 =
    static_cast<long long>(d4r::abi::CU_AD_FORMAT_UNORM_INT_101010_2);
constexpr long long ours_CU_AD_FORMAT_UNSIGNED_INT16 = static_cast<long long>(d4r::abi::CU_AD_FORMAT_UNSIGNED_INT16);
constexpr long long ours_CU_AD_FORMAT_UNSIGNED_INT32 = static_cast<long long>(d4r::abi::CU_AD_FORMAT_UNSIGNED_INT32);
constexpr long long ours_CU_AD_FORMAT_UNSIGNED_INT8 = static_cast<long long>(d4r::abi::CU_AD_FORMAT_UNSIGNED_INT8);
constexpr long long ours_CU_CTX_MAP_HOST = static_cast<long long>(d4r::abi::CU_CTX_MAP_HOST);
constexpr long long ours_CU_CTX_SCHED_AUTO = static_cast<long long>(d4r::abi::CU_CTX_SCHED_AUTO);
constexpr long long ours_CU_CTX_SCHED_BLOCKING_SYNC = static_cast<long long>(d4r::abi::CU_CTX_SCHED_BLOCKING_SYNC);
constexpr long long ours_CU_CTX_SCHED_MASK = static_cast<long long>(d4r::abi::CU_CTX_SCHED_MASK);
constexpr long long ours_CU_CTX_SCHED_SPIN = static_cast<long long>(d4r::abi::CU_CTX_SCHED_SPIN);
constexpr long long ours_CU_CTX_SCHED_YIELD = static_cast<long long>(d4r::abi::CU_CTX_SCHED_YIELD);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_CLOCK_RATE =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_COMPUTE_MODE =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_ECC_ENABLED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_GPU_OVERLAP =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_GPU_OVERLAP);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_INTEGRATED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_INTEGRATED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_PITCH =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_PITCH);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_TCC_DRIVER =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_TCC_DRIVER);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_WARP_SIZE =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_WARP_SIZE);
constexpr long long ours_CU_EVENT_BLOCKING_SYNC = static_cast<long long>(d4r::abi::CU_EVENT_BLOCKING_SYNC);
constexpr long long ours_CU_EVENT_DEFAULT = static_cast<long long>(d4r::abi::CU_EVENT_DEFAULT);
constexpr long long ours_CU_EVENT_DISABLE_TIMING = static_cast<long long>(d4r::abi::CU_EVENT_DISABLE_TIMING);
constexpr long long ours_CU_EVENT_INTERPROCESS = static_cast<long long>(d4r::abi::CU_EVENT_INTERPROCESS);
constexpr long long ours_CU_FUNC_ATTRIBUTE_BINARY_VERSION =
    static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_BINARY_VERSION);
constexpr long long ours_CU_FUNC_ATTRIBUTE_CACHE_MODE_CA =
    static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
constexpr long long ours_CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES =
    static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
constexpr long long ours_CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES =
    static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
constexpr long long ours_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES =
    static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
constexpr long long ours_CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK =
    static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
constexpr long long ours_CU_FUNC_ATTRIBUTE_NUM_REGS = static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_NUM_REGS);
constexpr long long ours_CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT =
    static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
constexpr long long ours_CU_FUNC_ATTRIBUTE_PTX_VERSION =
    static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_PTX_VERSION);
constexpr long long ours_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES =
    static_cast<long long>(d4r::abi::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
constexpr long long ours_CU_FUNC_CACHE_PREFER_EQUAL = static_cast<long long>(d4r::abi::CU_FUNC_CACHE_PREFER_EQUAL);
constexpr long long ours_CU_FUNC_CACHE_PREFER_L1 = static_cast<long long>(d4r::abi::CU_FUNC_CACHE_PREFER_L1);
constexpr long long ours_CU_FUNC_CACHE_PREFER_NONE = static_cast<long long>(d4r::abi::CU_FUNC_CACHE_PREFER_NONE);
constexpr long long ours_CU_FUNC_CACHE_PREFER_SHARED = static_cast<long long>(d4r::abi::CU_FUNC_CACHE_PREFER_SHARED);
constexpr long long ours_CU_GET_PROC_ADDRESS_DEFAULT = static_cast<long long>(d4r::abi::CU_GET_PROC_ADDRESS_DEFAULT);
constexpr long long ours_CU_GET_PROC_ADDRESS_LEGACY_STREAM =
    static_cast<long long>(d4r::abi::CU_GET_PROC_ADDRESS_LEGACY_STREAM);
constexpr long long ours_CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM =
    static_cast<long long>(d4r::abi::CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
constexpr long long ours_CU_GET_PROC_ADDRESS_SUCCESS = static_cast<long long>(d4r::abi::CU_GET_PROC_ADDRESS_SUCCESS);
constexpr long long ours_CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND =
    static_cast<long long>(d4r::abi::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
constexpr long long ours_CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT =
    static_cast<long long>(d4r::abi::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
constexpr long long ours_CU_JIT_CACHE_MODE = static_cast<long long>(d4r::abi::CU_JIT_CACHE_MODE);
constexpr long long ours_CU_JIT_ERROR_LOG_BUFFER = static_cast<long long>(d4r::abi::CU_JIT_ERROR_LOG_BUFFER);
constexpr long long ours_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES =
    static_cast<long long>(d4r::abi::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
constexpr long long ours_CU_JIT_FALLBACK_STRATEGY = static_cast<long long>(d4r::abi::CU_JIT_FALLBACK_STRATEGY);
constexpr long long ours_CU_JIT_GENERATE_DEBUG_INFO = static_cast<long long>(d4r::abi::CU_JIT_GENERATE_DEBUG_INFO);
constexpr long long ours_CU_JIT_GENERATE_LINE_INFO = static_cast<long long>(d4r::abi::CU_JIT_GENERATE_LINE_INFO);
constexpr long long ours_CU_JIT_INFO_LOG_BUFFER = static_cast<long long>(d4r::abi::CU_JIT_INFO_LOG_BUFFER);
constexpr long long ours_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES =
    static_cast<long long>(d4r::abi::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
constexpr long long ours_CU_JIT_LOG_VERBOSE = static_cast<long long>(d4r::abi::CU_JIT_LOG_VERBOSE);
constexpr long long ours_CU_JIT_MAX_REGISTERS = static_cast<long long>(d4r::abi::CU_JIT_MAX_REGISTERS);
constexpr long long ours_CU_JIT_OPTIMIZATION_LEVEL = static_cast<long long>(d4r::abi::CU_JIT_OPTIMIZATION_LEVEL);
constexpr long long ours_CU_JIT_TARGET = static_cast<long long>(d4r::abi::CU_JIT_TARGET);
constexpr long long ours_CU_JIT_TARGET_FROM_CUCONTEXT = static_cast<long long>(d4r::abi::CU_JIT_TARGET_FROM_CUCONTEXT);
constexpr long long ours_CU_JIT_THREADS_PER_BLOCK = static_cast<long long>(d4r::abi::CU_JIT_THREADS_PER_BLOCK);
constexpr long long ours_CU_JIT_WALL_TIME = static_cast<long long>(d4r::abi::CU_JIT_WALL_TIME);
constexpr long long ours_CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT =
    static_cast<long long>(d4r::abi::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT);
constexpr long long ours_CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH =
    static_cast<long long>(d4r::abi::CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH);
constexpr long long ours_CU_LIMIT_MALLOC_HEAP_SIZE = static_cast<long long>(d4r::abi::CU_LIMIT_MALLOC_HEAP_SIZE);
constexpr long long ours_CU_LIMIT_MAX_L2_FETCH_GRANULARITY =
    static_cast<long long>(d4r::abi::CU_LIMIT_MAX_L2_FETCH_GRANULARITY);
constexpr long long ours_CU_LIMIT_PERSISTING_L2_CACHE_SIZE =
    static_cast<long long>(d4r::abi::CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
constexpr long long ours_CU_LIMIT_PRINTF_FIFO_SIZE = static_cast<long long>(d4r::abi::CU_LIMIT_PRINTF_FIFO_SIZE);
constexpr long long ours_CU_LIMIT_STACK_SIZE = static_cast<long long>(d4r::abi::CU_LIMIT_STACK_SIZE);
constexpr long long ours_CU_MEMHOSTALLOC_DEVICEMAP = static_cast<long long>(d4r::abi::CU_MEMHOSTALLOC_DEVICEMAP);
constexpr long long ours_CU_MEMHOSTALLOC_PORTABLE = static_cast<long long>(d4r::abi::CU_MEMHOSTALLOC_PORTABLE);
constexpr long long ours_CU_MEMHOSTALLOC_WRITECOMBINED =
    static_cast<long long>(d4r::abi::CU_MEMHOSTALLOC_WRITECOMBINED);
constexpr long long ours_CU_MEMHOSTREGISTER_DEVICEMAP = static_cast<long long>(d4r::abi::CU_MEMHOSTREGISTER_DEVICEMAP);
constexpr long long ours_CU_MEMHOSTREGISTER_IOMEMORY = static_cast<long long>(d4r::abi::CU_MEMHOSTREGISTER_IOMEMORY);
constexpr long long ours_CU_MEMHOSTREGISTER_PORTABLE = static_cast<long long>(d4r::abi::CU_MEMHOSTREGISTER_PORTABLE);
constexpr long long ours_CU_MEMHOSTREGISTER_READ_ONLY = static_cast<long long>(d4r::abi::CU_MEMHOSTREGISTER_READ_ONLY);
constexpr long long ours_CU_MEMORYTYPE_ARRAY = static_cast<long long>(d4r::abi::CU_MEMORYTYPE_ARRAY);
constexpr long long ours_CU_MEMORYTYPE_DEVICE = static_cast<long long>(d4r::abi::CU_MEMORYTYPE_DEVICE);
constexpr long long ours_CU_MEMORYTYPE_HOST = static_cast<long long>(d4r::abi::CU_MEMORYTYPE_HOST);
constexpr long long ours_CU_MEMORYTYPE_UNIFIED = static_cast<long long>(d4r::abi::CU_MEMORYTYPE_UNIFIED);
constexpr long long ours_CU_OCCUPANCY_DEFAULT = static_cast<long long>(d4r::abi::CU_OCCUPANCY_DEFAULT);
constexpr long long ours_CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE =
    static_cast<long long>(d4r::abi::CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE);
constexpr long long ours_CU_POINTER_ATTRIBUTE_BUFFER_ID =
    static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_BUFFER_ID);
constexpr long long ours_CU_POINTER_ATTRIBUTE_CONTEXT = static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_CONTEXT);
constexpr long long ours_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL =
    static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
constexpr long long ours_CU_POINTER_ATTRIBUTE_DEVICE_POINTER =
    static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_DEVICE_POINTER);
constexpr long long ours_CU_POINTER_ATTRIBUTE_HOST_POINTER =
    static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_HOST_POINTER);
constexpr long long ours_CU_POINTER_ATTRIBUTE_IS_MANAGED =
    static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_IS_MANAGED);
constexpr long long ours_CU_POINTER_ATTRIBUTE_MAPPED = static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_MAPPED);
constexpr long long ours_CU_POINTER_ATTRIBUTE_MEMORY_TYPE =
    static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
constexpr long long ours_CU_POINTER_ATTRIBUTE_RANGE_SIZE =
    static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_RANGE_SIZE);
constexpr long long ours_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR =
    static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR);
constexpr long long ours_CU_POINTER_ATTRIBUTE_SYNC_MEMOPS =
    static_cast<long long>(d4r::abi::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS);
constexpr long long ours_CU_RESOURCE_TYPE_ARRAY = static_cast<long long>(d4r::abi::CU_RESOURCE_TYPE_ARRAY);
constexpr long long ours_CU_RESOURCE_TYPE_LINEAR = static_cast<long long>(d4r::abi::CU_RESOURCE_TYPE_LINEAR);
constexpr long long ours_CU_RESOURCE_TYPE_MIPMAPPED_ARRAY =
    static_cast<long long>(d4r::abi::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY);
constexpr long long ours_CU_RESOURCE_TYPE_PITCH2D = static_cast<long long>(d4r::abi::CU_RESOURCE_TYPE_PITCH2D);
constexpr long long ours_CU_STREAM_DEFAULT = static_cast<long long>(d4r::abi::CU_STREAM_DEFAULT);
constexpr long long ours_CU_STREAM_NON_BLOCKING = static_cast<long long>(d4r::abi::CU_STREAM_NON_BLOCKING);
constexpr long long ours_CU_TRSF_NORMALIZED_COORDINATES =
    static_cast<long long>(d4r::abi::CU_TRSF_NORMALIZED_COORDINATES);
constexpr long long ours_CU_TRSF_READ_AS_INTEGER = static_cast<long long>(d4r::abi::CU_TRSF_READ_AS_INTEGER);
constexpr long long ours_CU_TRSF_SRGB = static_cast<long long>(d4r::abi::CU_TRSF_SRGB);
constexpr long long ours_CU_TR_ADDRESS_MODE_BORDER = static_cast<long long>(d4r::abi::CU_TR_ADDRESS_MODE_BORDER);
constexpr long long ours_CU_TR_ADDRESS_MODE_CLAMP = static_cast<long long>(d4r::abi::CU_TR_ADDRESS_MODE_CLAMP);
constexpr long long ours_CU_TR_ADDRESS_MODE_MIRROR = static_cast<long long>(d4r::abi::CU_TR_ADDRESS_MODE_MIRROR);
constexpr long long ours_CU_TR_ADDRESS_MODE_WRAP = static_cast<long long>(d4r::abi::CU_TR_ADDRESS_MODE_WRAP);
constexpr long long ours_CU_TR_FILTER_MODE_LINEAR = static_cast<long long>(d4r::abi::CU_TR_FILTER_MODE_LINEAR);
constexpr long long ours_CU_TR_FILTER_MODE_POINT = static_cast<long long>(d4r::abi::CU_TR_FILTER_MODE_POINT);
constexpr long long ours_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
constexpr long long ours_CUDA_ERROR_STREAM_CAPTURE_INVALIDATED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
constexpr long long ours_CUDA_ERROR_STREAM_CAPTURE_MERGE =
    static_cast<long long>(d4r::abi::CUDA_ERROR_STREAM_CAPTURE_MERGE);
constexpr long long ours_CUDA_ERROR_STREAM_CAPTURE_UNMATCHED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
constexpr long long ours_CUDA_ERROR_STREAM_CAPTURE_UNJOINED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
constexpr long long ours_CUDA_ERROR_STREAM_CAPTURE_ISOLATION =
    static_cast<long long>(d4r::abi::CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
constexpr long long ours_CUDA_ERROR_STREAM_CAPTURE_IMPLICIT =
    static_cast<long long>(d4r::abi::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
constexpr long long ours_CUDA_ERROR_CAPTURED_EVENT = static_cast<long long>(d4r::abi::CUDA_ERROR_CAPTURED_EVENT);
constexpr long long ours_CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD =
    static_cast<long long>(d4r::abi::CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
constexpr long long ours_CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE =
    static_cast<long long>(d4r::abi::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
constexpr long long ours_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
constexpr long long ours_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
constexpr long long ours_CUDA_ERROR_PEER_ACCESS_NOT_ENABLED =
    static_cast<long long>(d4r::abi::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
constexpr long long ours_CU_GRAPH_NODE_TYPE_KERNEL = static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_KERNEL);
constexpr long long ours_CU_GRAPH_NODE_TYPE_MEMCPY = static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_MEMCPY);
constexpr long long ours_CU_GRAPH_NODE_TYPE_MEMSET = static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_MEMSET);
constexpr long long ours_CU_GRAPH_NODE_TYPE_HOST = static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_HOST);
constexpr long long ours_CU_GRAPH_NODE_TYPE_GRAPH = static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_GRAPH);
constexpr long long ours_CU_GRAPH_NODE_TYPE_EMPTY = static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_EMPTY);
constexpr long long ours_CU_GRAPH_NODE_TYPE_WAIT_EVENT =
    static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_WAIT_EVENT);
constexpr long long ours_CU_GRAPH_NODE_TYPE_EVENT_RECORD =
    static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_EVENT_RECORD);
constexpr long long ours_CU_GRAPH_NODE_TYPE_MEM_ALLOC = static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_MEM_ALLOC);
constexpr long long ours_CU_GRAPH_NODE_TYPE_MEM_FREE = static_cast<long long>(d4r::abi::CU_GRAPH_NODE_TYPE_MEM_FREE);
constexpr long long ours_CU_STREAM_CAPTURE_STATUS_NONE =
    static_cast<long long>(d4r::abi::CU_STREAM_CAPTURE_STATUS_NONE);
constexpr long long ours_CU_STREAM_CAPTURE_STATUS_ACTIVE =
    static_cast<long long>(d4r::abi::CU_STREAM_CAPTURE_STATUS_ACTIVE);
constexpr long long ours_CU_STREAM_CAPTURE_STATUS_INVALIDATED =
    static_cast<long long>(d4r::abi::CU_STREAM_CAPTURE_STATUS_INVALIDATED);
constexpr long long ours_CU_STREAM_CAPTURE_MODE_GLOBAL =
    static_cast<long long>(d4r::abi::CU_STREAM_CAPTURE_MODE_GLOBAL);
constexpr long long ours_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL =
    static_cast<long long>(d4r::abi::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
constexpr long long ours_CU_STREAM_CAPTURE_MODE_RELAXED =
    static_cast<long long>(d4r::abi::CU_STREAM_CAPTURE_MODE_RELAXED);
constexpr long long ours_CU_GRAPH_EXEC_UPDATE_SUCCESS = static_cast<long long>(d4r::abi::CU_GRAPH_EXEC_UPDATE_SUCCESS);
constexpr long long ours_CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED =
    static_cast<long long>(d4r::abi::CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
constexpr long long ours_CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED =
    static_cast<long long>(d4r::abi::CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED);
constexpr long long ours_CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED =
    static_cast<long long>(d4r::abi::CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED);
constexpr long long ours_CUDA_GRAPH_INSTANTIATE_SUCCESS =
    static_cast<long long>(d4r::abi::CUDA_GRAPH_INSTANTIATE_SUCCESS);
constexpr long long ours_CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE =
    static_cast<long long>(d4r::abi::CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE);
constexpr long long ours_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD =
    static_cast<long long>(d4r::abi::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
constexpr long long ours_CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT =
    static_cast<long long>(d4r::abi::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
constexpr long long ours_CU_MEMPOOL_ATTR_USED_MEM_HIGH =
    static_cast<long long>(d4r::abi::CU_MEMPOOL_ATTR_USED_MEM_HIGH);
constexpr long long ours_CU_MEM_ALLOCATION_TYPE_PINNED =
    static_cast<long long>(d4r::abi::CU_MEM_ALLOCATION_TYPE_PINNED);
constexpr long long ours_CU_MEM_LOCATION_TYPE_DEVICE = static_cast<long long>(d4r::abi::CU_MEM_LOCATION_TYPE_DEVICE);
constexpr long long ours_CU_MEM_LOCATION_TYPE_HOST = static_cast<long long>(d4r::abi::CU_MEM_LOCATION_TYPE_HOST);
constexpr long long ours_CU_MEM_ACCESS_FLAGS_PROT_READWRITE =
    static_cast<long long>(d4r::abi::CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
constexpr long long ours_CU_ACCESS_PROPERTY_PERSISTING =
    static_cast<long long>(d4r::abi::CU_ACCESS_PROPERTY_PERSISTING);
constexpr long long ours_CU_SYNC_POLICY_BLOCKING_SYNC = static_cast<long long>(d4r::abi::CU_SYNC_POLICY_BLOCKING_SYNC);
constexpr long long ours_CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW =
    static_cast<long long>(d4r::abi::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW);
constexpr long long ours_CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY =
    static_cast<long long>(d4r::abi::CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY);
constexpr long long ours_CU_LAUNCH_ATTRIBUTE_PRIORITY = static_cast<long long>(d4r::abi::CU_LAUNCH_ATTRIBUTE_PRIORITY);
constexpr long long ours_CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN =
    static_cast<long long>(d4r::abi::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN);
constexpr long long ours_CU_STREAM_MEM_OP_WAIT_VALUE_64 =
    static_cast<long long>(d4r::abi::CU_STREAM_MEM_OP_WAIT_VALUE_64);
constexpr long long ours_CU_STREAM_MEM_OP_BARRIER = static_cast<long long>(d4r::abi::CU_STREAM_MEM_OP_BARRIER);
constexpr long long ours_CU_EVENT_RECORD_EXTERNAL = static_cast<long long>(d4r::abi::CU_EVENT_RECORD_EXTERNAL);
constexpr long long ours_CU_EVENT_WAIT_EXTERNAL = static_cast<long long>(d4r::abi::CU_EVENT_WAIT_EXTERNAL);
constexpr long long ours_CU_STREAM_WAIT_VALUE_NOR = static_cast<long long>(d4r::abi::CU_STREAM_WAIT_VALUE_NOR);
constexpr long long ours_CU_STREAM_WAIT_VALUE_FLUSH = static_cast<long long>(d4r::abi::CU_STREAM_WAIT_VALUE_FLUSH);
constexpr long long ours_CU_STREAM_SET_CAPTURE_DEPENDENCIES =
    static_cast<long long>(d4r::abi::CU_STREAM_SET_CAPTURE_DEPENDENCIES);
constexpr long long ours_CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH =
    static_cast<long long>(d4r::abi::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
constexpr long long ours_CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY =
    static_cast<long long>(d4r::abi::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES);
constexpr long long ours_CU_LAUNCH_ATTRIBUTE_COOPERATIVE =
    static_cast<long long>(d4r::abi::CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED);
constexpr long long ours_CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED =
    static_cast<long long>(d4r::abi::CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED);
constexpr long long ours_CU_JIT_INPUT_CUBIN = static_cast<long long>(d4r::abi::CU_JIT_INPUT_CUBIN);
constexpr long long ours_CU_JIT_INPUT_PTX = static_cast<long long>(d4r::abi::CU_JIT_INPUT_PTX);
constexpr long long ours_CU_JIT_INPUT_FATBINARY = static_cast<long long>(d4r::abi::CU_JIT_INPUT_FATBINARY);
constexpr long long ours_CU_JIT_INPUT_OBJECT = static_cast<long long>(d4r::abi::CU_JIT_INPUT_OBJECT);
constexpr long long ours_CU_JIT_INPUT_LIBRARY = static_cast<long long>(d4r::abi::CU_JIT_INPUT_LIBRARY);
constexpr long long ours_CU_JIT_INPUT_NVVM = static_cast<long long>(d4r::abi::CU_JIT_INPUT_NVVM);
constexpr long long ours_CU_MEM_LOCATION_TYPE_INVALID = static_cast<long long>(d4r::abi::CU_MEM_LOCATION_TYPE_INVALID);
constexpr long long ours_CU_MEM_LOCATION_TYPE_HOST_NUMA =
    static_cast<long long>(d4r::abi::CU_MEM_LOCATION_TYPE_HOST_NUMA);
constexpr long long ours_CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT =
    static_cast<long long>(d4r::abi::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT);
constexpr long long ours_CU_MEM_ALLOCATION_TYPE_INVALID =
    static_cast<long long>(d4r::abi::CU_MEM_ALLOCATION_TYPE_INVALID);
constexpr long long ours_CU_MEM_ALLOCATION_TYPE_MANAGED =
    static_cast<long long>(d4r::abi::CU_MEM_ALLOCATION_TYPE_MANAGED);
constexpr long long ours_CU_MEM_HANDLE_TYPE_NONE = static_cast<long long>(d4r::abi::CU_MEM_HANDLE_TYPE_NONE);
constexpr long long ours_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR =
    static_cast<long long>(d4r::abi::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
constexpr long long ours_CU_MEM_HANDLE_TYPE_WIN32 = static_cast<long long>(d4r::abi::CU_MEM_HANDLE_TYPE_WIN32);
constexpr long long ours_CU_MEM_HANDLE_TYPE_WIN32_KMT = static_cast<long long>(d4r::abi::CU_MEM_HANDLE_TYPE_WIN32_KMT);
constexpr long long ours_CU_MEM_HANDLE_TYPE_FABRIC = static_cast<long long>(d4r::abi::CU_MEM_HANDLE_TYPE_FABRIC);
constexpr long long ours_CU_MEM_ACCESS_FLAGS_PROT_NONE =
    static_cast<long long>(d4r::abi::CU_MEM_ACCESS_FLAGS_PROT_NONE);
constexpr long long ours_CU_MEM_ACCESS_FLAGS_PROT_READ =
    static_cast<long long>(d4r::abi::CU_MEM_ACCESS_FLAGS_PROT_READ);
constexpr long long ours_CU_MEM_ALLOC_GRANULARITY_MINIMUM =
    static_cast<long long>(d4r::abi::CU_MEM_ALLOC_GRANULARITY_MINIMUM);
constexpr long long ours_CU_MEM_ALLOC_GRANULARITY_RECOMMENDED =
    static_cast<long long>(d4r::abi::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
constexpr long long ours_CU_MEM_ALLOCATION_COMP_NONE = static_cast<long long>(d4r::abi::CU_MEM_ALLOCATION_COMP_NONE);
constexpr long long ours_CU_MEM_ALLOCATION_COMP_GENERIC =
    static_cast<long long>(d4r::abi::CU_MEM_ALLOCATION_COMP_GENERIC);
constexpr long long ours_CU_MEM_ADVISE_SET_READ_MOSTLY =
    static_cast<long long>(d4r::abi::CU_MEM_ADVISE_SET_READ_MOSTLY);
constexpr long long ours_CU_MEM_ADVISE_UNSET_READ_MOSTLY =
    static_cast<long long>(d4r::abi::CU_MEM_ADVISE_UNSET_READ_MOSTLY);
constexpr long long ours_CU_MEM_ADVISE_SET_PREFERRED_LOCATION =
    static_cast<long long>(d4r::abi::CU_MEM_ADVISE_SET_PREFERRED_LOCATION);
constexpr long long ours_CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION =
    static_cast<long long>(d4r::abi::CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION);
constexpr long long ours_CU_MEM_ADVISE_SET_ACCESSED_BY =
    static_cast<long long>(d4r::abi::CU_MEM_ADVISE_SET_ACCESSED_BY);
constexpr long long ours_CU_MEM_ADVISE_UNSET_ACCESSED_BY =
    static_cast<long long>(d4r::abi::CU_MEM_ADVISE_UNSET_ACCESSED_BY);
constexpr long long ours_CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY =
    static_cast<long long>(d4r::abi::CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY);
constexpr long long ours_CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION =
    static_cast<long long>(d4r::abi::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION);
constexpr long long ours_CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY =
    static_cast<long long>(d4r::abi::CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY);
constexpr long long ours_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION =
    static_cast<long long>(d4r::abi::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION);
constexpr long long ours_CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE =
    static_cast<long long>(d4r::abi::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE);
constexpr long long ours_CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID =
    static_cast<long long>(d4r::abi::CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID);
constexpr long long ours_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE =
    static_cast<long long>(d4r::abi::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE);
constexpr long long ours_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID =
    static_cast<long long>(d4r::abi::CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID);
constexpr long long ours_CU_MEM_ATTACH_GLOBAL = static_cast<long long>(d4r::abi::CU_MEM_ATTACH_GLOBAL);
constexpr long long ours_CU_MEM_ATTACH_HOST = static_cast<long long>(d4r::abi::CU_MEM_ATTACH_HOST);
constexpr long long ours_CU_MEM_ATTACH_SINGLE = static_cast<long long>(d4r::abi::CU_MEM_ATTACH_SINGLE);
constexpr long long ours_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS =
    static_cast<long long>(d4r::abi::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
} // namespace captured

#define __CUDA_API_VERSION_INTERNAL 1 // declare every versioned entry point, without the renaming macros
#include <cuda.h>
#include <cudaProfiler.h> // cuProfilerStart/Stop are declared here, not in cuda.h

namespace {

template <class U, class = void>
struct is_complete : std::false_type {};
template <class U>
struct is_complete<U, std::void_t<decltype(sizeof(U))>> : std::true_type {};

template <class T>
constexpr int shape() {
    if constexpr (std::is_pointer_v<T>) {
        using U = std::remove_cv_t<std::remove_pointer_t<T>>;
        if constexpr (std::is_void_v<U>)
            return 1000;
        else if constexpr (std::is_function_v<U>)
            return 2000;
        else if constexpr (is_complete<U>::value)
            return 3000 + static_cast<int>(sizeof(U));
        else
            return 4000;
    } else if constexpr (std::is_floating_point_v<T>) {
        return 5000 + static_cast<int>(sizeof(T));
    } else {
        return 6000 + static_cast<int>(sizeof(T));
    }
}

template <class F>
struct Signature;
template <class R, class... A>
struct Signature<R (*)(A...)> {
    static constexpr size_t arity = sizeof...(A);
    static constexpr int result = shape<R>();
    static constexpr std::array<int, sizeof...(A)> params = {shape<A>()...};
};

template <class Theirs, class Ours>
constexpr bool same_shape() {
    using T = Signature<Theirs>;
    using O = Signature<Ours>;
    if constexpr (T::arity != O::arity) {
        return false;
    } else {
        if (T::result != O::result) return false;
        for (size_t i = 0; i < T::arity; ++i)
            if (T::params[i] != O::params[i]) return false;
        return true;
    }
}

} // namespace

namespace d4r::abi::ours {
#define D4R_OUR_TYPE(exp, base, since, params, args) using exp##_t = CUresult(*) params;
D4R_CUDA_API(D4R_OUR_TYPE)
#undef D4R_OUR_TYPE
} // namespace d4r::abi::ours

#define D4R_CHECK_SIGNATURE(exp, base, since, params, args) \
    static_assert(same_shape<decltype(&::exp), d4r::abi::ours::exp##_t>(), #exp ": signature differs from cuda.h");
D4R_CUDA_API(D4R_CHECK_SIGNATURE)
#undef D4R_CHECK_SIGNATURE

static_assert(captured::ours_CUDA_ARRAY3D_CUBEMAP == static_cast<long long>(CUDA_ARRAY3D_CUBEMAP),
              "CUDA_ARRAY3D_CUBEMAP");
static_assert(captured::ours_CUDA_ARRAY3D_LAYERED == static_cast<long long>(CUDA_ARRAY3D_LAYERED),
              "CUDA_ARRAY3D_LAYERED");
static_assert(captured::ours_CUDA_ARRAY3D_SURFACE_LDST == static_cast<long long>(CUDA_ARRAY3D_SURFACE_LDST),
              "CUDA_ARRAY3D_SURFACE_LDST");
static_assert(captured::ours_CUDA_ARRAY3D_TEXTURE_GATHER == static_cast<long long>(CUDA_ARRAY3D_TEXTURE_GATHER),
              "CUDA_ARRAY3D_TEXTURE_GATHER");
static_assert(captured::ours_CUDA_ARRAY3D_COLOR_ATTACHMENT == static_cast<long long>(CUDA_ARRAY3D_COLOR_ATTACHMENT),
              "CUDA_ARRAY3D_COLOR_ATTACHMENT");
static_assert(captured::ours_CUDA_ERROR_ASSERT == static_cast<long long>(CUDA_ERROR_ASSERT), "CUDA_ERROR_ASSERT");
static_assert(captured::ours_CUDA_ERROR_CONTEXT_IS_DESTROYED == static_cast<long long>(CUDA_ERROR_CONTEXT_IS_DESTROYED),
              "CUDA_ERROR_CONTEXT_IS_DESTROYED");
static_assert(captured::ours_CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE ==
                  static_cast<long long>(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE),
              "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE");
static_assert(captured::ours_CUDA_ERROR_DEINITIALIZED == static_cast<long long>(CUDA_ERROR_DEINITIALIZED),
              "CUDA_ERROR_DEINITIALIZED");
static_assert(captured::ours_CUDA_ERROR_FILE_NOT_FOUND == static_cast<long long>(CUDA_ERROR_FILE_NOT_FOUND),
              "CUDA_ERROR_FILE_NOT_FOUND");
static_assert(captured::ours_CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED ==
                  static_cast<long long>(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED),
              "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED");
static_assert(captured::ours_CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED ==
                  static_cast<long long>(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED),
              "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED");
static_assert(captured::ours_CUDA_ERROR_ILLEGAL_ADDRESS == static_cast<long long>(CUDA_ERROR_ILLEGAL_ADDRESS),
              "CUDA_ERROR_ILLEGAL_ADDRESS");
static_assert(captured::ours_CUDA_ERROR_ILLEGAL_INSTRUCTION == static_cast<long long>(CUDA_ERROR_ILLEGAL_INSTRUCTION),
              "CUDA_ERROR_ILLEGAL_INSTRUCTION");
static_assert(captured::ours_CUDA_ERROR_ILLEGAL_STATE == static_cast<long long>(CUDA_ERROR_ILLEGAL_STATE),
              "CUDA_ERROR_ILLEGAL_STATE");
static_assert(captured::ours_CUDA_ERROR_INVALID_ADDRESS_SPACE ==
                  static_cast<long long>(CUDA_ERROR_INVALID_ADDRESS_SPACE),
              "CUDA_ERROR_INVALID_ADDRESS_SPACE");
static_assert(captured::ours_CUDA_ERROR_INVALID_CONTEXT == static_cast<long long>(CUDA_ERROR_INVALID_CONTEXT),
              "CUDA_ERROR_INVALID_CONTEXT");
static_assert(captured::ours_CUDA_ERROR_INVALID_DEVICE == static_cast<long long>(CUDA_ERROR_INVALID_DEVICE),
              "CUDA_ERROR_INVALID_DEVICE");
static_assert(captured::ours_CUDA_ERROR_INVALID_HANDLE == static_cast<long long>(CUDA_ERROR_INVALID_HANDLE),
              "CUDA_ERROR_INVALID_HANDLE");
static_assert(captured::ours_CUDA_ERROR_INVALID_IMAGE == static_cast<long long>(CUDA_ERROR_INVALID_IMAGE),
              "CUDA_ERROR_INVALID_IMAGE");
static_assert(captured::ours_CUDA_ERROR_INVALID_PC == static_cast<long long>(CUDA_ERROR_INVALID_PC),
              "CUDA_ERROR_INVALID_PC");
static_assert(captured::ours_CUDA_ERROR_INVALID_PTX == static_cast<long long>(CUDA_ERROR_INVALID_PTX),
              "CUDA_ERROR_INVALID_PTX");
static_assert(captured::ours_CUDA_ERROR_INVALID_SOURCE == static_cast<long long>(CUDA_ERROR_INVALID_SOURCE),
              "CUDA_ERROR_INVALID_SOURCE");
static_assert(captured::ours_CUDA_ERROR_INVALID_VALUE == static_cast<long long>(CUDA_ERROR_INVALID_VALUE),
              "CUDA_ERROR_INVALID_VALUE");
static_assert(captured::ours_CUDA_ERROR_LAUNCH_FAILED == static_cast<long long>(CUDA_ERROR_LAUNCH_FAILED),
              "CUDA_ERROR_LAUNCH_FAILED");
static_assert(captured::ours_CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ==
                  static_cast<long long>(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES),
              "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
static_assert(captured::ours_CUDA_ERROR_LAUNCH_TIMEOUT == static_cast<long long>(CUDA_ERROR_LAUNCH_TIMEOUT),
              "CUDA_ERROR_LAUNCH_TIMEOUT");
static_assert(captured::ours_CUDA_ERROR_MISALIGNED_ADDRESS == static_cast<long long>(CUDA_ERROR_MISALIGNED_ADDRESS),
              "CUDA_ERROR_MISALIGNED_ADDRESS");
static_assert(captured::ours_CUDA_ERROR_NOT_FOUND == static_cast<long long>(CUDA_ERROR_NOT_FOUND),
              "CUDA_ERROR_NOT_FOUND");
static_assert(captured::ours_CUDA_ERROR_NOT_INITIALIZED == static_cast<long long>(CUDA_ERROR_NOT_INITIALIZED),
              "CUDA_ERROR_NOT_INITIALIZED");
static_assert(captured::ours_CUDA_ERROR_NOT_PERMITTED == static_cast<long long>(CUDA_ERROR_NOT_PERMITTED),
              "CUDA_ERROR_NOT_PERMITTED");
static_assert(captured::ours_CUDA_ERROR_NOT_READY == static_cast<long long>(CUDA_ERROR_NOT_READY),
              "CUDA_ERROR_NOT_READY");
static_assert(captured::ours_CUDA_ERROR_NOT_SUPPORTED == static_cast<long long>(CUDA_ERROR_NOT_SUPPORTED),
              "CUDA_ERROR_NOT_SUPPORTED");
static_assert(captured::ours_CUDA_ERROR_NO_BINARY_FOR_GPU == static_cast<long long>(CUDA_ERROR_NO_BINARY_FOR_GPU),
              "CUDA_ERROR_NO_BINARY_FOR_GPU");
static_assert(captured::ours_CUDA_ERROR_NO_DEVICE == static_cast<long long>(CUDA_ERROR_NO_DEVICE),
              "CUDA_ERROR_NO_DEVICE");
static_assert(captured::ours_CUDA_ERROR_OPERATING_SYSTEM == static_cast<long long>(CUDA_ERROR_OPERATING_SYSTEM),
              "CUDA_ERROR_OPERATING_SYSTEM");
static_assert(captured::ours_CUDA_ERROR_OUT_OF_MEMORY == static_cast<long long>(CUDA_ERROR_OUT_OF_MEMORY),
              "CUDA_ERROR_OUT_OF_MEMORY");
static_assert(captured::ours_CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE ==
                  static_cast<long long>(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE),
              "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE");
static_assert(captured::ours_CUDA_ERROR_SHARED_OBJECT_INIT_FAILED ==
                  static_cast<long long>(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED),
              "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED");
static_assert(captured::ours_CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND ==
                  static_cast<long long>(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND),
              "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND");
static_assert(captured::ours_CUDA_ERROR_STUB_LIBRARY == static_cast<long long>(CUDA_ERROR_STUB_LIBRARY),
              "CUDA_ERROR_STUB_LIBRARY");
static_assert(captured::ours_CUDA_ERROR_UNKNOWN == static_cast<long long>(CUDA_ERROR_UNKNOWN), "CUDA_ERROR_UNKNOWN");
static_assert(captured::ours_CUDA_ERROR_UNSUPPORTED_LIMIT == static_cast<long long>(CUDA_ERROR_UNSUPPORTED_LIMIT),
              "CUDA_ERROR_UNSUPPORTED_LIMIT");
static_assert(captured::ours_CUDA_ERROR_UNSUPPORTED_PTX_VERSION ==
                  static_cast<long long>(CUDA_ERROR_UNSUPPORTED_PTX_VERSION),
              "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
static_assert(captured::ours_CUDA_SUCCESS == static_cast<long long>(CUDA_SUCCESS), "CUDA_SUCCESS");
static_assert(captured::ours_CU_AD_FORMAT_FLOAT == static_cast<long long>(CU_AD_FORMAT_FLOAT), "CU_AD_FORMAT_FLOAT");
static_assert(captured::ours_CU_AD_FORMAT_HALF == static_cast<long long>(CU_AD_FORMAT_HALF), "CU_AD_FORMAT_HALF");
static_assert(captured::ours_CU_AD_FORMAT_SIGNED_INT16 == static_cast<long long>(CU_AD_FORMAT_SIGNED_INT16),
              "CU_AD_FORMAT_SIGNED_INT16");
static_assert(captured::ours_CU_AD_FORMAT_SIGNED_INT32 == static_cast<long long>(CU_AD_FORMAT_SIGNED_INT32),
              "CU_AD_FORMAT_SIGNED_INT32");
static_assert(captured::ours_CU_AD_FORMAT_SIGNED_INT8 == static_cast<long long>(CU_AD_FORMAT_SIGNED_INT8),
              "CU_AD_FORMAT_SIGNED_INT8");
static_assert(captured::ours_CU_AD_FORMAT_UNORM_INT_101010_2 == static_cast<long long>(CU_AD_FORMAT_UNORM_INT_101010_2),
              "CU_AD_FORMAT_UNORM_INT_101010_2");
static_assert(captured::ours_CU_AD_FORMAT_UNSIGNED_INT16 == static_cast<long long>(CU_AD_FORMAT_UNSIGNED_INT16),
              "CU_AD_FORMAT_UNSIGNED_INT16");
static_assert(captured::ours_CU_AD_FORMAT_UNSIGNED_INT32 == static_cast<long long>(CU_AD_FORMAT_UNSIGNED_INT32),
              "CU_AD_FORMAT_UNSIGNED_INT32");
static_assert(captured::ours_CU_AD_FORMAT_UNSIGNED_INT8 == static_cast<long long>(CU_AD_FORMAT_UNSIGNED_INT8),
              "CU_AD_FORMAT_UNSIGNED_INT8");
static_assert(captured::ours_CU_CTX_MAP_HOST == static_cast<long long>(CU_CTX_MAP_HOST), "CU_CTX_MAP_HOST");
static_assert(captured::ours_CU_CTX_SCHED_AUTO == static_cast<long long>(CU_CTX_SCHED_AUTO), "CU_CTX_SCHED_AUTO");
static_assert(captured::ours_CU_CTX_SCHED_BLOCKING_SYNC == static_cast<long long>(CU_CTX_SCHED_BLOCKING_SYNC),
              "CU_CTX_SCHED_BLOCKING_SYNC");
static_assert(captured::ours_CU_CTX_SCHED_MASK == static_cast<long long>(CU_CTX_SCHED_MASK), "CU_CTX_SCHED_MASK");
static_assert(captured::ours_CU_CTX_SCHED_SPIN == static_cast<long long>(CU_CTX_SCHED_SPIN), "CU_CTX_SCHED_SPIN");
static_assert(captured::ours_CU_CTX_SCHED_YIELD == static_cast<long long>(CU_CTX_SCHED_YIELD), "CU_CTX_SCHED_YIELD");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT),
              "CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY),
              "CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER),
              "CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_CLOCK_RATE == static_cast<long long>(CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
              "CU_DEVICE_ATTRIBUTE_CLOCK_RATE");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH),
              "CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
              "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
              "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_COMPUTE_MODE ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE),
              "CU_DEVICE_ATTRIBUTE_COMPUTE_MODE");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS),
              "CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS),
              "CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH),
              "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_ECC_ENABLED == static_cast<long long>(CU_DEVICE_ATTRIBUTE_ECC_ENABLED),
              "CU_DEVICE_ATTRIBUTE_ECC_ENABLED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
              "CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_GPU_OVERLAP == static_cast<long long>(CU_DEVICE_ATTRIBUTE_GPU_OVERLAP),
              "CU_DEVICE_ATTRIBUTE_GPU_OVERLAP");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_INTEGRATED == static_cast<long long>(CU_DEVICE_ATTRIBUTE_INTEGRATED),
              "CU_DEVICE_ATTRIBUTE_INTEGRATED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT),
              "CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
              "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY),
              "CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH),
              "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR),
              "CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
              "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
              "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z),
              "CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
              "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
              "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z),
              "CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_PITCH == static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_PITCH),
              "CU_DEVICE_ATTRIBUTE_MAX_PITCH");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
              "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR),
              "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
              "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
              "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
              "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
              "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
              "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
              "CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
              "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD),
              "CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS),
              "CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID == static_cast<long long>(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
              "CU_DEVICE_ATTRIBUTE_PCI_BUS_ID");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID),
              "CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
              "CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK),
              "CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT),
              "CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_TCC_DRIVER == static_cast<long long>(CU_DEVICE_ATTRIBUTE_TCC_DRIVER),
              "CU_DEVICE_ATTRIBUTE_TCC_DRIVER");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT),
              "CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT),
              "CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY),
              "CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING),
              "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_WARP_SIZE == static_cast<long long>(CU_DEVICE_ATTRIBUTE_WARP_SIZE),
              "CU_DEVICE_ATTRIBUTE_WARP_SIZE");
static_assert(captured::ours_CU_EVENT_BLOCKING_SYNC == static_cast<long long>(CU_EVENT_BLOCKING_SYNC),
              "CU_EVENT_BLOCKING_SYNC");
static_assert(captured::ours_CU_EVENT_DEFAULT == static_cast<long long>(CU_EVENT_DEFAULT), "CU_EVENT_DEFAULT");
static_assert(captured::ours_CU_EVENT_DISABLE_TIMING == static_cast<long long>(CU_EVENT_DISABLE_TIMING),
              "CU_EVENT_DISABLE_TIMING");
static_assert(captured::ours_CU_EVENT_INTERPROCESS == static_cast<long long>(CU_EVENT_INTERPROCESS),
              "CU_EVENT_INTERPROCESS");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_BINARY_VERSION ==
                  static_cast<long long>(CU_FUNC_ATTRIBUTE_BINARY_VERSION),
              "CU_FUNC_ATTRIBUTE_BINARY_VERSION");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_CACHE_MODE_CA == static_cast<long long>(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA),
              "CU_FUNC_ATTRIBUTE_CACHE_MODE_CA");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES ==
                  static_cast<long long>(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES),
              "CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES ==
                  static_cast<long long>(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
              "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
                  static_cast<long long>(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
              "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ==
                  static_cast<long long>(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
              "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_NUM_REGS == static_cast<long long>(CU_FUNC_ATTRIBUTE_NUM_REGS),
              "CU_FUNC_ATTRIBUTE_NUM_REGS");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT ==
                  static_cast<long long>(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT),
              "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_PTX_VERSION == static_cast<long long>(CU_FUNC_ATTRIBUTE_PTX_VERSION),
              "CU_FUNC_ATTRIBUTE_PTX_VERSION");
static_assert(captured::ours_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES ==
                  static_cast<long long>(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
              "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES");
static_assert(captured::ours_CU_FUNC_CACHE_PREFER_EQUAL == static_cast<long long>(CU_FUNC_CACHE_PREFER_EQUAL),
              "CU_FUNC_CACHE_PREFER_EQUAL");
static_assert(captured::ours_CU_FUNC_CACHE_PREFER_L1 == static_cast<long long>(CU_FUNC_CACHE_PREFER_L1),
              "CU_FUNC_CACHE_PREFER_L1");
static_assert(captured::ours_CU_FUNC_CACHE_PREFER_NONE == static_cast<long long>(CU_FUNC_CACHE_PREFER_NONE),
              "CU_FUNC_CACHE_PREFER_NONE");
static_assert(captured::ours_CU_FUNC_CACHE_PREFER_SHARED == static_cast<long long>(CU_FUNC_CACHE_PREFER_SHARED),
              "CU_FUNC_CACHE_PREFER_SHARED");
static_assert(captured::ours_CU_GET_PROC_ADDRESS_DEFAULT == static_cast<long long>(CU_GET_PROC_ADDRESS_DEFAULT),
              "CU_GET_PROC_ADDRESS_DEFAULT");
static_assert(captured::ours_CU_GET_PROC_ADDRESS_LEGACY_STREAM ==
                  static_cast<long long>(CU_GET_PROC_ADDRESS_LEGACY_STREAM),
              "CU_GET_PROC_ADDRESS_LEGACY_STREAM");
static_assert(captured::ours_CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM ==
                  static_cast<long long>(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM),
              "CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM");
static_assert(captured::ours_CU_GET_PROC_ADDRESS_SUCCESS == static_cast<long long>(CU_GET_PROC_ADDRESS_SUCCESS),
              "CU_GET_PROC_ADDRESS_SUCCESS");
static_assert(captured::ours_CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND ==
                  static_cast<long long>(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND),
              "CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND");
static_assert(captured::ours_CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ==
                  static_cast<long long>(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT),
              "CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT");
static_assert(captured::ours_CU_JIT_CACHE_MODE == static_cast<long long>(CU_JIT_CACHE_MODE), "CU_JIT_CACHE_MODE");
static_assert(captured::ours_CU_JIT_ERROR_LOG_BUFFER == static_cast<long long>(CU_JIT_ERROR_LOG_BUFFER),
              "CU_JIT_ERROR_LOG_BUFFER");
static_assert(captured::ours_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES ==
                  static_cast<long long>(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES),
              "CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES");
static_assert(captured::ours_CU_JIT_FALLBACK_STRATEGY == static_cast<long long>(CU_JIT_FALLBACK_STRATEGY),
              "CU_JIT_FALLBACK_STRATEGY");
static_assert(captured::ours_CU_JIT_GENERATE_DEBUG_INFO == static_cast<long long>(CU_JIT_GENERATE_DEBUG_INFO),
              "CU_JIT_GENERATE_DEBUG_INFO");
static_assert(captured::ours_CU_JIT_GENERATE_LINE_INFO == static_cast<long long>(CU_JIT_GENERATE_LINE_INFO),
              "CU_JIT_GENERATE_LINE_INFO");
static_assert(captured::ours_CU_JIT_INFO_LOG_BUFFER == static_cast<long long>(CU_JIT_INFO_LOG_BUFFER),
              "CU_JIT_INFO_LOG_BUFFER");
static_assert(captured::ours_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES ==
                  static_cast<long long>(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES),
              "CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES");
static_assert(captured::ours_CU_JIT_LOG_VERBOSE == static_cast<long long>(CU_JIT_LOG_VERBOSE), "CU_JIT_LOG_VERBOSE");
static_assert(captured::ours_CU_JIT_MAX_REGISTERS == static_cast<long long>(CU_JIT_MAX_REGISTERS),
              "CU_JIT_MAX_REGISTERS");
static_assert(captured::ours_CU_JIT_OPTIMIZATION_LEVEL == static_cast<long long>(CU_JIT_OPTIMIZATION_LEVEL),
              "CU_JIT_OPTIMIZATION_LEVEL");
static_assert(captured::ours_CU_JIT_TARGET == static_cast<long long>(CU_JIT_TARGET), "CU_JIT_TARGET");
static_assert(captured::ours_CU_JIT_TARGET_FROM_CUCONTEXT == static_cast<long long>(CU_JIT_TARGET_FROM_CUCONTEXT),
              "CU_JIT_TARGET_FROM_CUCONTEXT");
static_assert(captured::ours_CU_JIT_THREADS_PER_BLOCK == static_cast<long long>(CU_JIT_THREADS_PER_BLOCK),
              "CU_JIT_THREADS_PER_BLOCK");
static_assert(captured::ours_CU_JIT_WALL_TIME == static_cast<long long>(CU_JIT_WALL_TIME), "CU_JIT_WALL_TIME");
static_assert(captured::ours_CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT ==
                  static_cast<long long>(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT),
              "CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT");
static_assert(captured::ours_CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH == static_cast<long long>(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH),
              "CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH");
static_assert(captured::ours_CU_LIMIT_MALLOC_HEAP_SIZE == static_cast<long long>(CU_LIMIT_MALLOC_HEAP_SIZE),
              "CU_LIMIT_MALLOC_HEAP_SIZE");
static_assert(captured::ours_CU_LIMIT_MAX_L2_FETCH_GRANULARITY ==
                  static_cast<long long>(CU_LIMIT_MAX_L2_FETCH_GRANULARITY),
              "CU_LIMIT_MAX_L2_FETCH_GRANULARITY");
static_assert(captured::ours_CU_LIMIT_PERSISTING_L2_CACHE_SIZE ==
                  static_cast<long long>(CU_LIMIT_PERSISTING_L2_CACHE_SIZE),
              "CU_LIMIT_PERSISTING_L2_CACHE_SIZE");
static_assert(captured::ours_CU_LIMIT_PRINTF_FIFO_SIZE == static_cast<long long>(CU_LIMIT_PRINTF_FIFO_SIZE),
              "CU_LIMIT_PRINTF_FIFO_SIZE");
static_assert(captured::ours_CU_LIMIT_STACK_SIZE == static_cast<long long>(CU_LIMIT_STACK_SIZE), "CU_LIMIT_STACK_SIZE");
static_assert(captured::ours_CU_MEMHOSTALLOC_DEVICEMAP == static_cast<long long>(CU_MEMHOSTALLOC_DEVICEMAP),
              "CU_MEMHOSTALLOC_DEVICEMAP");
static_assert(captured::ours_CU_MEMHOSTALLOC_PORTABLE == static_cast<long long>(CU_MEMHOSTALLOC_PORTABLE),
              "CU_MEMHOSTALLOC_PORTABLE");
static_assert(captured::ours_CU_MEMHOSTALLOC_WRITECOMBINED == static_cast<long long>(CU_MEMHOSTALLOC_WRITECOMBINED),
              "CU_MEMHOSTALLOC_WRITECOMBINED");
static_assert(captured::ours_CU_MEMHOSTREGISTER_DEVICEMAP == static_cast<long long>(CU_MEMHOSTREGISTER_DEVICEMAP),
              "CU_MEMHOSTREGISTER_DEVICEMAP");
static_assert(captured::ours_CU_MEMHOSTREGISTER_IOMEMORY == static_cast<long long>(CU_MEMHOSTREGISTER_IOMEMORY),
              "CU_MEMHOSTREGISTER_IOMEMORY");
static_assert(captured::ours_CU_MEMHOSTREGISTER_PORTABLE == static_cast<long long>(CU_MEMHOSTREGISTER_PORTABLE),
              "CU_MEMHOSTREGISTER_PORTABLE");
static_assert(captured::ours_CU_MEMHOSTREGISTER_READ_ONLY == static_cast<long long>(CU_MEMHOSTREGISTER_READ_ONLY),
              "CU_MEMHOSTREGISTER_READ_ONLY");
static_assert(captured::ours_CU_MEMORYTYPE_ARRAY == static_cast<long long>(CU_MEMORYTYPE_ARRAY), "CU_MEMORYTYPE_ARRAY");
static_assert(captured::ours_CU_MEMORYTYPE_DEVICE == static_cast<long long>(CU_MEMORYTYPE_DEVICE),
              "CU_MEMORYTYPE_DEVICE");
static_assert(captured::ours_CU_MEMORYTYPE_HOST == static_cast<long long>(CU_MEMORYTYPE_HOST), "CU_MEMORYTYPE_HOST");
static_assert(captured::ours_CU_MEMORYTYPE_UNIFIED == static_cast<long long>(CU_MEMORYTYPE_UNIFIED),
              "CU_MEMORYTYPE_UNIFIED");
static_assert(captured::ours_CU_OCCUPANCY_DEFAULT == static_cast<long long>(CU_OCCUPANCY_DEFAULT),
              "CU_OCCUPANCY_DEFAULT");
static_assert(captured::ours_CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE ==
                  static_cast<long long>(CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE),
              "CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_BUFFER_ID == static_cast<long long>(CU_POINTER_ATTRIBUTE_BUFFER_ID),
              "CU_POINTER_ATTRIBUTE_BUFFER_ID");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_CONTEXT == static_cast<long long>(CU_POINTER_ATTRIBUTE_CONTEXT),
              "CU_POINTER_ATTRIBUTE_CONTEXT");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL ==
                  static_cast<long long>(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL),
              "CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_DEVICE_POINTER ==
                  static_cast<long long>(CU_POINTER_ATTRIBUTE_DEVICE_POINTER),
              "CU_POINTER_ATTRIBUTE_DEVICE_POINTER");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_HOST_POINTER ==
                  static_cast<long long>(CU_POINTER_ATTRIBUTE_HOST_POINTER),
              "CU_POINTER_ATTRIBUTE_HOST_POINTER");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_IS_MANAGED == static_cast<long long>(CU_POINTER_ATTRIBUTE_IS_MANAGED),
              "CU_POINTER_ATTRIBUTE_IS_MANAGED");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_MAPPED == static_cast<long long>(CU_POINTER_ATTRIBUTE_MAPPED),
              "CU_POINTER_ATTRIBUTE_MAPPED");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_MEMORY_TYPE ==
                  static_cast<long long>(CU_POINTER_ATTRIBUTE_MEMORY_TYPE),
              "CU_POINTER_ATTRIBUTE_MEMORY_TYPE");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_RANGE_SIZE == static_cast<long long>(CU_POINTER_ATTRIBUTE_RANGE_SIZE),
              "CU_POINTER_ATTRIBUTE_RANGE_SIZE");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR ==
                  static_cast<long long>(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR),
              "CU_POINTER_ATTRIBUTE_RANGE_START_ADDR");
static_assert(captured::ours_CU_POINTER_ATTRIBUTE_SYNC_MEMOPS ==
                  static_cast<long long>(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS),
              "CU_POINTER_ATTRIBUTE_SYNC_MEMOPS");
static_assert(captured::ours_CU_RESOURCE_TYPE_ARRAY == static_cast<long long>(CU_RESOURCE_TYPE_ARRAY),
              "CU_RESOURCE_TYPE_ARRAY");
static_assert(captured::ours_CU_RESOURCE_TYPE_LINEAR == static_cast<long long>(CU_RESOURCE_TYPE_LINEAR),
              "CU_RESOURCE_TYPE_LINEAR");
static_assert(captured::ours_CU_RESOURCE_TYPE_MIPMAPPED_ARRAY ==
                  static_cast<long long>(CU_RESOURCE_TYPE_MIPMAPPED_ARRAY),
              "CU_RESOURCE_TYPE_MIPMAPPED_ARRAY");
static_assert(captured::ours_CU_RESOURCE_TYPE_PITCH2D == static_cast<long long>(CU_RESOURCE_TYPE_PITCH2D),
              "CU_RESOURCE_TYPE_PITCH2D");
static_assert(captured::ours_CU_STREAM_DEFAULT == static_cast<long long>(CU_STREAM_DEFAULT), "CU_STREAM_DEFAULT");
static_assert(captured::ours_CU_STREAM_NON_BLOCKING == static_cast<long long>(CU_STREAM_NON_BLOCKING),
              "CU_STREAM_NON_BLOCKING");
static_assert(captured::ours_CU_TRSF_NORMALIZED_COORDINATES == static_cast<long long>(CU_TRSF_NORMALIZED_COORDINATES),
              "CU_TRSF_NORMALIZED_COORDINATES");
static_assert(captured::ours_CU_TRSF_READ_AS_INTEGER == static_cast<long long>(CU_TRSF_READ_AS_INTEGER),
              "CU_TRSF_READ_AS_INTEGER");
static_assert(captured::ours_CU_TRSF_SRGB == static_cast<long long>(CU_TRSF_SRGB), "CU_TRSF_SRGB");
static_assert(captured::ours_CU_TR_ADDRESS_MODE_BORDER == static_cast<long long>(CU_TR_ADDRESS_MODE_BORDER),
              "CU_TR_ADDRESS_MODE_BORDER");
static_assert(captured::ours_CU_TR_ADDRESS_MODE_CLAMP == static_cast<long long>(CU_TR_ADDRESS_MODE_CLAMP),
              "CU_TR_ADDRESS_MODE_CLAMP");
static_assert(captured::ours_CU_TR_ADDRESS_MODE_MIRROR == static_cast<long long>(CU_TR_ADDRESS_MODE_MIRROR),
              "CU_TR_ADDRESS_MODE_MIRROR");
static_assert(captured::ours_CU_TR_ADDRESS_MODE_WRAP == static_cast<long long>(CU_TR_ADDRESS_MODE_WRAP),
              "CU_TR_ADDRESS_MODE_WRAP");
static_assert(captured::ours_CU_TR_FILTER_MODE_LINEAR == static_cast<long long>(CU_TR_FILTER_MODE_LINEAR),
              "CU_TR_FILTER_MODE_LINEAR");
static_assert(captured::ours_CU_TR_FILTER_MODE_POINT == static_cast<long long>(CU_TR_FILTER_MODE_POINT),
              "CU_TR_FILTER_MODE_POINT");

static_assert(captured::ours_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED ==
                  static_cast<long long>(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
              "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
static_assert(captured::ours_CUDA_ERROR_STREAM_CAPTURE_INVALIDATED ==
                  static_cast<long long>(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED),
              "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED");
static_assert(captured::ours_CUDA_ERROR_STREAM_CAPTURE_MERGE == static_cast<long long>(CUDA_ERROR_STREAM_CAPTURE_MERGE),
              "CUDA_ERROR_STREAM_CAPTURE_MERGE");
static_assert(captured::ours_CUDA_ERROR_STREAM_CAPTURE_UNMATCHED ==
                  static_cast<long long>(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED),
              "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED");
static_assert(captured::ours_CUDA_ERROR_STREAM_CAPTURE_UNJOINED ==
                  static_cast<long long>(CUDA_ERROR_STREAM_CAPTURE_UNJOINED),
              "CUDA_ERROR_STREAM_CAPTURE_UNJOINED");
static_assert(captured::ours_CUDA_ERROR_STREAM_CAPTURE_ISOLATION ==
                  static_cast<long long>(CUDA_ERROR_STREAM_CAPTURE_ISOLATION),
              "CUDA_ERROR_STREAM_CAPTURE_ISOLATION");
static_assert(captured::ours_CUDA_ERROR_STREAM_CAPTURE_IMPLICIT ==
                  static_cast<long long>(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT),
              "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT");
static_assert(captured::ours_CUDA_ERROR_CAPTURED_EVENT == static_cast<long long>(CUDA_ERROR_CAPTURED_EVENT),
              "CUDA_ERROR_CAPTURED_EVENT");
static_assert(captured::ours_CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD ==
                  static_cast<long long>(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD),
              "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD");
static_assert(captured::ours_CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE ==
                  static_cast<long long>(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE),
              "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE");
static_assert(captured::ours_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED ==
                  static_cast<long long>(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED),
              "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED");
static_assert(captured::ours_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED ==
                  static_cast<long long>(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED),
              "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED");
static_assert(captured::ours_CUDA_ERROR_PEER_ACCESS_NOT_ENABLED ==
                  static_cast<long long>(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED),
              "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_KERNEL == static_cast<long long>(CU_GRAPH_NODE_TYPE_KERNEL),
              "CU_GRAPH_NODE_TYPE_KERNEL");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_MEMCPY == static_cast<long long>(CU_GRAPH_NODE_TYPE_MEMCPY),
              "CU_GRAPH_NODE_TYPE_MEMCPY");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_MEMSET == static_cast<long long>(CU_GRAPH_NODE_TYPE_MEMSET),
              "CU_GRAPH_NODE_TYPE_MEMSET");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_HOST == static_cast<long long>(CU_GRAPH_NODE_TYPE_HOST),
              "CU_GRAPH_NODE_TYPE_HOST");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_GRAPH == static_cast<long long>(CU_GRAPH_NODE_TYPE_GRAPH),
              "CU_GRAPH_NODE_TYPE_GRAPH");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_EMPTY == static_cast<long long>(CU_GRAPH_NODE_TYPE_EMPTY),
              "CU_GRAPH_NODE_TYPE_EMPTY");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_WAIT_EVENT == static_cast<long long>(CU_GRAPH_NODE_TYPE_WAIT_EVENT),
              "CU_GRAPH_NODE_TYPE_WAIT_EVENT");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_EVENT_RECORD == static_cast<long long>(CU_GRAPH_NODE_TYPE_EVENT_RECORD),
              "CU_GRAPH_NODE_TYPE_EVENT_RECORD");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_MEM_ALLOC == static_cast<long long>(CU_GRAPH_NODE_TYPE_MEM_ALLOC),
              "CU_GRAPH_NODE_TYPE_MEM_ALLOC");
static_assert(captured::ours_CU_GRAPH_NODE_TYPE_MEM_FREE == static_cast<long long>(CU_GRAPH_NODE_TYPE_MEM_FREE),
              "CU_GRAPH_NODE_TYPE_MEM_FREE");
static_assert(captured::ours_CU_STREAM_CAPTURE_STATUS_NONE == static_cast<long long>(CU_STREAM_CAPTURE_STATUS_NONE),
              "CU_STREAM_CAPTURE_STATUS_NONE");
static_assert(captured::ours_CU_STREAM_CAPTURE_STATUS_ACTIVE == static_cast<long long>(CU_STREAM_CAPTURE_STATUS_ACTIVE),
              "CU_STREAM_CAPTURE_STATUS_ACTIVE");
static_assert(captured::ours_CU_STREAM_CAPTURE_STATUS_INVALIDATED ==
                  static_cast<long long>(CU_STREAM_CAPTURE_STATUS_INVALIDATED),
              "CU_STREAM_CAPTURE_STATUS_INVALIDATED");
static_assert(captured::ours_CU_STREAM_CAPTURE_MODE_GLOBAL == static_cast<long long>(CU_STREAM_CAPTURE_MODE_GLOBAL),
              "CU_STREAM_CAPTURE_MODE_GLOBAL");
static_assert(captured::ours_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL ==
                  static_cast<long long>(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
              "CU_STREAM_CAPTURE_MODE_THREAD_LOCAL");
static_assert(captured::ours_CU_STREAM_CAPTURE_MODE_RELAXED == static_cast<long long>(CU_STREAM_CAPTURE_MODE_RELAXED),
              "CU_STREAM_CAPTURE_MODE_RELAXED");
static_assert(captured::ours_CU_GRAPH_EXEC_UPDATE_SUCCESS == static_cast<long long>(CU_GRAPH_EXEC_UPDATE_SUCCESS),
              "CU_GRAPH_EXEC_UPDATE_SUCCESS");
static_assert(captured::ours_CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED ==
                  static_cast<long long>(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED),
              "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED");
static_assert(captured::ours_CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED ==
                  static_cast<long long>(CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED),
              "CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED");
static_assert(captured::ours_CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED ==
                  static_cast<long long>(CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED),
              "CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED");
static_assert(captured::ours_CUDA_GRAPH_INSTANTIATE_SUCCESS == static_cast<long long>(CUDA_GRAPH_INSTANTIATE_SUCCESS),
              "CUDA_GRAPH_INSTANTIATE_SUCCESS");
static_assert(captured::ours_CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE ==
                  static_cast<long long>(CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE),
              "CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE");
static_assert(captured::ours_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD ==
                  static_cast<long long>(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD),
              "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD");
static_assert(captured::ours_CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT ==
                  static_cast<long long>(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
              "CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT");
static_assert(captured::ours_CU_MEMPOOL_ATTR_USED_MEM_HIGH == static_cast<long long>(CU_MEMPOOL_ATTR_USED_MEM_HIGH),
              "CU_MEMPOOL_ATTR_USED_MEM_HIGH");
static_assert(captured::ours_CU_MEM_ALLOCATION_TYPE_PINNED == static_cast<long long>(CU_MEM_ALLOCATION_TYPE_PINNED),
              "CU_MEM_ALLOCATION_TYPE_PINNED");
static_assert(captured::ours_CU_MEM_LOCATION_TYPE_DEVICE == static_cast<long long>(CU_MEM_LOCATION_TYPE_DEVICE),
              "CU_MEM_LOCATION_TYPE_DEVICE");
static_assert(captured::ours_CU_MEM_LOCATION_TYPE_HOST == static_cast<long long>(CU_MEM_LOCATION_TYPE_HOST),
              "CU_MEM_LOCATION_TYPE_HOST");
static_assert(captured::ours_CU_MEM_ACCESS_FLAGS_PROT_READWRITE ==
                  static_cast<long long>(CU_MEM_ACCESS_FLAGS_PROT_READWRITE),
              "CU_MEM_ACCESS_FLAGS_PROT_READWRITE");
static_assert(captured::ours_CU_ACCESS_PROPERTY_PERSISTING == static_cast<long long>(CU_ACCESS_PROPERTY_PERSISTING),
              "CU_ACCESS_PROPERTY_PERSISTING");
static_assert(captured::ours_CU_SYNC_POLICY_BLOCKING_SYNC == static_cast<long long>(CU_SYNC_POLICY_BLOCKING_SYNC),
              "CU_SYNC_POLICY_BLOCKING_SYNC");
static_assert(captured::ours_CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW ==
                  static_cast<long long>(CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW),
              "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW");
static_assert(captured::ours_CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY ==
                  static_cast<long long>(CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY),
              "CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY");
static_assert(captured::ours_CU_LAUNCH_ATTRIBUTE_PRIORITY == static_cast<long long>(CU_LAUNCH_ATTRIBUTE_PRIORITY),
              "CU_LAUNCH_ATTRIBUTE_PRIORITY");
static_assert(captured::ours_CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN ==
                  static_cast<long long>(CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN),
              "CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN");
static_assert(captured::ours_CU_STREAM_MEM_OP_WAIT_VALUE_64 == static_cast<long long>(CU_STREAM_MEM_OP_WAIT_VALUE_64),
              "CU_STREAM_MEM_OP_WAIT_VALUE_64");
static_assert(captured::ours_CU_STREAM_MEM_OP_BARRIER == static_cast<long long>(CU_STREAM_MEM_OP_BARRIER),
              "CU_STREAM_MEM_OP_BARRIER");
static_assert(captured::ours_CU_EVENT_RECORD_EXTERNAL == static_cast<long long>(CU_EVENT_RECORD_EXTERNAL),
              "CU_EVENT_RECORD_EXTERNAL");
static_assert(captured::ours_CU_EVENT_WAIT_EXTERNAL == static_cast<long long>(CU_EVENT_WAIT_EXTERNAL),
              "CU_EVENT_WAIT_EXTERNAL");
static_assert(captured::ours_CU_STREAM_WAIT_VALUE_NOR == static_cast<long long>(CU_STREAM_WAIT_VALUE_NOR),
              "CU_STREAM_WAIT_VALUE_NOR");
static_assert(captured::ours_CU_STREAM_WAIT_VALUE_FLUSH == static_cast<long long>(CU_STREAM_WAIT_VALUE_FLUSH),
              "CU_STREAM_WAIT_VALUE_FLUSH");
static_assert(captured::ours_CU_STREAM_SET_CAPTURE_DEPENDENCIES ==
                  static_cast<long long>(CU_STREAM_SET_CAPTURE_DEPENDENCIES),
              "CU_STREAM_SET_CAPTURE_DEPENDENCIES");
static_assert(captured::ours_CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH ==
                  static_cast<long long>(CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH),
              "CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH");
static_assert(captured::ours_CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY ==
                  static_cast<long long>(CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY),
              "CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES),
              "CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM),
              "CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES),
              "CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST),
              "CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED");
static_assert(captured::ours_CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED ==
                  static_cast<long long>(CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED),
              "CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED");
static_assert(captured::ours_CU_JIT_INPUT_CUBIN == static_cast<long long>(CU_JIT_INPUT_CUBIN), "CU_JIT_INPUT_CUBIN");
static_assert(captured::ours_CU_JIT_INPUT_PTX == static_cast<long long>(CU_JIT_INPUT_PTX), "CU_JIT_INPUT_PTX");
static_assert(captured::ours_CU_JIT_INPUT_FATBINARY == static_cast<long long>(CU_JIT_INPUT_FATBINARY),
              "CU_JIT_INPUT_FATBINARY");
static_assert(captured::ours_CU_JIT_INPUT_OBJECT == static_cast<long long>(CU_JIT_INPUT_OBJECT), "CU_JIT_INPUT_OBJECT");
static_assert(captured::ours_CU_JIT_INPUT_LIBRARY == static_cast<long long>(CU_JIT_INPUT_LIBRARY),
              "CU_JIT_INPUT_LIBRARY");
static_assert(captured::ours_CU_JIT_INPUT_NVVM == static_cast<long long>(CU_JIT_INPUT_NVVM), "CU_JIT_INPUT_NVVM");
static_assert(captured::ours_CU_MEM_LOCATION_TYPE_INVALID == static_cast<long long>(CU_MEM_LOCATION_TYPE_INVALID),
              "CU_MEM_LOCATION_TYPE_INVALID");
static_assert(captured::ours_CU_MEM_LOCATION_TYPE_HOST_NUMA == static_cast<long long>(CU_MEM_LOCATION_TYPE_HOST_NUMA),
              "CU_MEM_LOCATION_TYPE_HOST_NUMA");
static_assert(captured::ours_CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT ==
                  static_cast<long long>(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT),
              "CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT");
static_assert(captured::ours_CU_MEM_ALLOCATION_TYPE_INVALID == static_cast<long long>(CU_MEM_ALLOCATION_TYPE_INVALID),
              "CU_MEM_ALLOCATION_TYPE_INVALID");
static_assert(captured::ours_CU_MEM_ALLOCATION_TYPE_MANAGED == static_cast<long long>(CU_MEM_ALLOCATION_TYPE_MANAGED),
              "CU_MEM_ALLOCATION_TYPE_MANAGED");
static_assert(captured::ours_CU_MEM_HANDLE_TYPE_NONE == static_cast<long long>(CU_MEM_HANDLE_TYPE_NONE),
              "CU_MEM_HANDLE_TYPE_NONE");
static_assert(captured::ours_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR ==
                  static_cast<long long>(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
              "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR");
static_assert(captured::ours_CU_MEM_HANDLE_TYPE_WIN32 == static_cast<long long>(CU_MEM_HANDLE_TYPE_WIN32),
              "CU_MEM_HANDLE_TYPE_WIN32");
static_assert(captured::ours_CU_MEM_HANDLE_TYPE_WIN32_KMT == static_cast<long long>(CU_MEM_HANDLE_TYPE_WIN32_KMT),
              "CU_MEM_HANDLE_TYPE_WIN32_KMT");
static_assert(captured::ours_CU_MEM_HANDLE_TYPE_FABRIC == static_cast<long long>(CU_MEM_HANDLE_TYPE_FABRIC),
              "CU_MEM_HANDLE_TYPE_FABRIC");
static_assert(captured::ours_CU_MEM_ACCESS_FLAGS_PROT_NONE == static_cast<long long>(CU_MEM_ACCESS_FLAGS_PROT_NONE),
              "CU_MEM_ACCESS_FLAGS_PROT_NONE");
static_assert(captured::ours_CU_MEM_ACCESS_FLAGS_PROT_READ == static_cast<long long>(CU_MEM_ACCESS_FLAGS_PROT_READ),
              "CU_MEM_ACCESS_FLAGS_PROT_READ");
static_assert(captured::ours_CU_MEM_ALLOC_GRANULARITY_MINIMUM ==
                  static_cast<long long>(CU_MEM_ALLOC_GRANULARITY_MINIMUM),
              "CU_MEM_ALLOC_GRANULARITY_MINIMUM");
static_assert(captured::ours_CU_MEM_ALLOC_GRANULARITY_RECOMMENDED ==
                  static_cast<long long>(CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
              "CU_MEM_ALLOC_GRANULARITY_RECOMMENDED");
static_assert(captured::ours_CU_MEM_ALLOCATION_COMP_NONE == static_cast<long long>(CU_MEM_ALLOCATION_COMP_NONE),
              "CU_MEM_ALLOCATION_COMP_NONE");
static_assert(captured::ours_CU_MEM_ALLOCATION_COMP_GENERIC == static_cast<long long>(CU_MEM_ALLOCATION_COMP_GENERIC),
              "CU_MEM_ALLOCATION_COMP_GENERIC");
static_assert(captured::ours_CU_MEM_ADVISE_SET_READ_MOSTLY == static_cast<long long>(CU_MEM_ADVISE_SET_READ_MOSTLY),
              "CU_MEM_ADVISE_SET_READ_MOSTLY");
static_assert(captured::ours_CU_MEM_ADVISE_UNSET_READ_MOSTLY == static_cast<long long>(CU_MEM_ADVISE_UNSET_READ_MOSTLY),
              "CU_MEM_ADVISE_UNSET_READ_MOSTLY");
static_assert(captured::ours_CU_MEM_ADVISE_SET_PREFERRED_LOCATION ==
                  static_cast<long long>(CU_MEM_ADVISE_SET_PREFERRED_LOCATION),
              "CU_MEM_ADVISE_SET_PREFERRED_LOCATION");
static_assert(captured::ours_CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION ==
                  static_cast<long long>(CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION),
              "CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION");
static_assert(captured::ours_CU_MEM_ADVISE_SET_ACCESSED_BY == static_cast<long long>(CU_MEM_ADVISE_SET_ACCESSED_BY),
              "CU_MEM_ADVISE_SET_ACCESSED_BY");
static_assert(captured::ours_CU_MEM_ADVISE_UNSET_ACCESSED_BY == static_cast<long long>(CU_MEM_ADVISE_UNSET_ACCESSED_BY),
              "CU_MEM_ADVISE_UNSET_ACCESSED_BY");
static_assert(captured::ours_CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY ==
                  static_cast<long long>(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY),
              "CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY");
static_assert(captured::ours_CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION ==
                  static_cast<long long>(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION),
              "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION");
static_assert(captured::ours_CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY ==
                  static_cast<long long>(CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY),
              "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY");
static_assert(captured::ours_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION ==
                  static_cast<long long>(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION),
              "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION");
static_assert(captured::ours_CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE ==
                  static_cast<long long>(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE),
              "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE");
static_assert(captured::ours_CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID ==
                  static_cast<long long>(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID),
              "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID");
static_assert(captured::ours_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE ==
                  static_cast<long long>(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE),
              "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE");
static_assert(captured::ours_CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID ==
                  static_cast<long long>(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID),
              "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID");
static_assert(captured::ours_CU_MEM_ATTACH_GLOBAL == static_cast<long long>(CU_MEM_ATTACH_GLOBAL),
              "CU_MEM_ATTACH_GLOBAL");
static_assert(captured::ours_CU_MEM_ATTACH_HOST == static_cast<long long>(CU_MEM_ATTACH_HOST), "CU_MEM_ATTACH_HOST");
static_assert(captured::ours_CU_MEM_ATTACH_SINGLE == static_cast<long long>(CU_MEM_ATTACH_SINGLE),
              "CU_MEM_ATTACH_SINGLE");
static_assert(captured::ours_CUDA_EXTERNAL_MEMORY_DEDICATED == static_cast<long long>(CUDA_EXTERNAL_MEMORY_DEDICATED),
              "CUDA_EXTERNAL_MEMORY_DEDICATED");
static_assert(captured::ours_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS ==
                  static_cast<long long>(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
              "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS");

#define D4R_CHECK_SIZE(type) static_assert(sizeof(d4r::abi::type) == sizeof(::type), #type " size");
#define D4R_CHECK_FIELD(type, field) \
    static_assert(offsetof(d4r::abi::type, field) == offsetof(::type, field), #type "." #field " offset");
D4R_CHECK_SIZE(CUuuid)
D4R_CHECK_SIZE(CUdevprop)
D4R_CHECK_FIELD(CUdevprop, maxGridSize)
D4R_CHECK_FIELD(CUdevprop, textureAlign)
D4R_CHECK_SIZE(CUipcEventHandle)
D4R_CHECK_SIZE(CUipcMemHandle)
D4R_CHECK_SIZE(CUmemLocation)
D4R_CHECK_FIELD(CUmemLocation, id)
D4R_CHECK_SIZE(CUmemAccessDesc)
D4R_CHECK_FIELD(CUmemAccessDesc, flags)
D4R_CHECK_SIZE(CUmemAllocationProp)
D4R_CHECK_FIELD(CUmemAllocationProp, requestedHandleTypes)
D4R_CHECK_FIELD(CUmemAllocationProp, location)
D4R_CHECK_FIELD(CUmemAllocationProp, win32HandleMetaData)
D4R_CHECK_FIELD(CUmemAllocationProp, allocFlags)
static_assert(offsetof(d4r::abi::CUmemAllocationProp, allocFlags.usage) ==
                  offsetof(::CUmemAllocationProp, allocFlags.usage),
              "allocFlags.usage");
static_assert(sizeof(d4r::abi::CUdeviceptr_v1) == sizeof(::CUdeviceptr_v1), "CUdeviceptr_v1");
static_assert(sizeof(d4r::abi::CUmemGenericAllocationHandle) == sizeof(::CUmemGenericAllocationHandle),
              "CUmemGenericAllocationHandle");
D4R_CHECK_SIZE(CUDA_MEMCPY2D)
D4R_CHECK_FIELD(CUDA_MEMCPY2D, srcMemoryType)
D4R_CHECK_FIELD(CUDA_MEMCPY2D, srcArray)
D4R_CHECK_FIELD(CUDA_MEMCPY2D, dstXInBytes)
D4R_CHECK_FIELD(CUDA_MEMCPY2D, dstPitch)
D4R_CHECK_FIELD(CUDA_MEMCPY2D, Height)
D4R_CHECK_SIZE(CUDA_MEMCPY3D)
D4R_CHECK_FIELD(CUDA_MEMCPY3D, srcLOD)
D4R_CHECK_FIELD(CUDA_MEMCPY3D, reserved0)
D4R_CHECK_FIELD(CUDA_MEMCPY3D, srcHeight)
D4R_CHECK_FIELD(CUDA_MEMCPY3D, dstZ)
D4R_CHECK_FIELD(CUDA_MEMCPY3D, dstArray)
D4R_CHECK_FIELD(CUDA_MEMCPY3D, dstHeight)
D4R_CHECK_FIELD(CUDA_MEMCPY3D, Depth)
D4R_CHECK_SIZE(CUDA_ARRAY_DESCRIPTOR)
D4R_CHECK_FIELD(CUDA_ARRAY_DESCRIPTOR, Format)
D4R_CHECK_FIELD(CUDA_ARRAY_DESCRIPTOR, NumChannels)
D4R_CHECK_SIZE(CUDA_ARRAY3D_DESCRIPTOR)
D4R_CHECK_FIELD(CUDA_ARRAY3D_DESCRIPTOR, Format)
D4R_CHECK_FIELD(CUDA_ARRAY3D_DESCRIPTOR, Flags)
D4R_CHECK_SIZE(CUDA_RESOURCE_DESC)
D4R_CHECK_FIELD(CUDA_RESOURCE_DESC, res)
D4R_CHECK_FIELD(CUDA_RESOURCE_DESC, res.pitch2D.format)
D4R_CHECK_FIELD(CUDA_RESOURCE_DESC, res.pitch2D.numChannels)
D4R_CHECK_FIELD(CUDA_RESOURCE_DESC, res.pitch2D.width)
D4R_CHECK_SIZE(CUDA_EXTERNAL_MEMORY_HANDLE_DESC)
D4R_CHECK_FIELD(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, handle)
D4R_CHECK_FIELD(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, handle.win32.name)
D4R_CHECK_FIELD(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, size)
D4R_CHECK_FIELD(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, flags)
D4R_CHECK_SIZE(CUDA_EXTERNAL_MEMORY_BUFFER_DESC)
D4R_CHECK_FIELD(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, size)
D4R_CHECK_FIELD(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, flags)
D4R_CHECK_SIZE(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC)
D4R_CHECK_FIELD(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC, arrayDesc)
D4R_CHECK_FIELD(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC, numLevels)
D4R_CHECK_SIZE(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC)
D4R_CHECK_FIELD(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, handle)
D4R_CHECK_FIELD(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, flags)
D4R_CHECK_SIZE(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS)
D4R_CHECK_FIELD(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, params.nvSciSync)
D4R_CHECK_FIELD(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, params.keyedMutex)
D4R_CHECK_FIELD(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, flags)
D4R_CHECK_SIZE(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS)
D4R_CHECK_FIELD(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS, params.keyedMutex.timeoutMs)
D4R_CHECK_FIELD(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS, flags)
static_assert(static_cast<long long>(d4r::abi::CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD) ==
              CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD);
static_assert(static_cast<long long>(d4r::abi::CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE) ==
              CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE);
static_assert(static_cast<long long>(d4r::abi::CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD) ==
              CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD);
static_assert(static_cast<long long>(d4r::abi::CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE) ==
              CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE);
static_assert(static_cast<long long>(d4r::abi::CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD) ==
              CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD);
static_assert(static_cast<long long>(d4r::abi::CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_WIN32) ==
              CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_WIN32);
D4R_CHECK_FIELD(CUDA_RESOURCE_DESC, res.pitch2D.pitchInBytes)
D4R_CHECK_FIELD(CUDA_RESOURCE_DESC, res.linear.sizeInBytes)
D4R_CHECK_FIELD(CUDA_RESOURCE_DESC, flags)
D4R_CHECK_SIZE(CUDA_TEXTURE_DESC)
D4R_CHECK_FIELD(CUDA_TEXTURE_DESC, filterMode)
D4R_CHECK_FIELD(CUDA_TEXTURE_DESC, flags)
D4R_CHECK_FIELD(CUDA_TEXTURE_DESC, mipmapFilterMode)
D4R_CHECK_FIELD(CUDA_TEXTURE_DESC, borderColor)
D4R_CHECK_SIZE(CUDA_RESOURCE_VIEW_DESC)
D4R_CHECK_FIELD(CUDA_RESOURCE_VIEW_DESC, lastLayer)
D4R_CHECK_SIZE(CUlaunchConfig)
D4R_CHECK_FIELD(CUlaunchConfig, hStream)
D4R_CHECK_FIELD(CUlaunchConfig, numAttrs)
D4R_CHECK_SIZE(CUDA_KERNEL_NODE_PARAMS_v1)
D4R_CHECK_SIZE(CUDA_KERNEL_NODE_PARAMS_v2)
D4R_CHECK_FIELD(CUDA_KERNEL_NODE_PARAMS_v2, kernelParams)
D4R_CHECK_FIELD(CUDA_KERNEL_NODE_PARAMS_v2, ctx)
D4R_CHECK_SIZE(CUDA_MEMSET_NODE_PARAMS)
D4R_CHECK_FIELD(CUDA_MEMSET_NODE_PARAMS, elementSize)
D4R_CHECK_FIELD(CUDA_MEMSET_NODE_PARAMS, height)
D4R_CHECK_SIZE(CUDA_HOST_NODE_PARAMS)
D4R_CHECK_SIZE(CUgraphEdgeData)
D4R_CHECK_SIZE(CUDA_GRAPH_INSTANTIATE_PARAMS)
D4R_CHECK_FIELD(CUDA_GRAPH_INSTANTIATE_PARAMS, result_out)
D4R_CHECK_SIZE(CUgraphExecUpdateResultInfo)
D4R_CHECK_FIELD(CUgraphExecUpdateResultInfo, errorFromNode)
D4R_CHECK_SIZE(CUmemPoolProps)
D4R_CHECK_FIELD(CUmemPoolProps, maxSize)
D4R_CHECK_FIELD(CUmemPoolProps, usage)
D4R_CHECK_SIZE(CUaccessPolicyWindow)
D4R_CHECK_FIELD(CUaccessPolicyWindow, missProp)
D4R_CHECK_SIZE(CUstreamAttrValue)
D4R_CHECK_FIELD(CUstreamAttrValue, syncPolicy)
D4R_CHECK_SIZE(CUstreamBatchMemOpParams)
D4R_CHECK_FIELD(CUstreamBatchMemOpParams, waitValue.address)
D4R_CHECK_FIELD(CUstreamBatchMemOpParams, waitValue.value64)
D4R_CHECK_FIELD(CUstreamBatchMemOpParams, waitValue.flags)
D4R_CHECK_FIELD(CUstreamBatchMemOpParams, writeValue.alias)
D4R_CHECK_SIZE(CUlaunchAttributeValue)
D4R_CHECK_SIZE(CUlaunchAttribute)
D4R_CHECK_FIELD(CUlaunchAttribute, value)
D4R_CHECK_FIELD(CUlaunchAttribute, value.cooperative)
static_assert(captured::ours_CU_LAUNCH_ATTRIBUTE_COOPERATIVE == static_cast<long long>(CU_LAUNCH_ATTRIBUTE_COOPERATIVE),
              "CU_LAUNCH_ATTRIBUTE_COOPERATIVE");
#undef D4R_CHECK_SIZE
#undef D4R_CHECK_FIELD

// The checks above are compile-time; this records in the test run that they were compiled.
TEST(AbiVsNvidia, DeclarationsMatchTheInstalledCudaHeader) {
    EXPECT_EQ(static_cast<int>(d4r::abi::CUDA_ERROR_ILLEGAL_ADDRESS), static_cast<int>(::CUDA_ERROR_ILLEGAL_ADDRESS));
    EXPECT_EQ(sizeof(d4r::abi::CUDA_MEMCPY3D), sizeof(::CUDA_MEMCPY3D));
}
