/* The layout of every structure and enumeration of d4r's CUDA declarations (src/abi/cuda.h), printed
 * one line per size and field offset. Built with g++'s C compiler for Linux and with mingw for Windows:
 * the two outputs must be identical for the Wine bridge to pass structures across unchanged. */
#include <stddef.h>
#include <stdio.h>

#include "abi/cuda_program.h"

#define SIZE(t) printf("sizeof %s %zu align %zu\n", #t, sizeof(t), _Alignof(t))
#define FIELD(t, f) printf("offsetof %s.%s %zu\n", #t, #f, offsetof(t, f))

int main(void) {
    SIZE(CUdeviceptr);
    SIZE(CUuuid);
    SIZE(CUresult);
    SIZE(CUdevice_attribute);
    SIZE(CUjit_option);
    SIZE(CUdriverProcAddressQueryResult);
    SIZE(CUDA_MEMCPY2D);
    FIELD(CUDA_MEMCPY2D, srcHost);
    FIELD(CUDA_MEMCPY2D, srcPitch);
    FIELD(CUDA_MEMCPY2D, dstMemoryType);
    FIELD(CUDA_MEMCPY2D, dstPitch);
    FIELD(CUDA_MEMCPY2D, Height);
    SIZE(CUDA_MEMCPY3D);
    FIELD(CUDA_MEMCPY3D, srcLOD);
    FIELD(CUDA_MEMCPY3D, srcArray);
    FIELD(CUDA_MEMCPY3D, dstXInBytes);
    FIELD(CUDA_MEMCPY3D, dstHeight);
    FIELD(CUDA_MEMCPY3D, Depth);
    SIZE(CUDA_ARRAY_DESCRIPTOR);
    SIZE(CUDA_ARRAY3D_DESCRIPTOR);
    FIELD(CUDA_ARRAY3D_DESCRIPTOR, Flags);
    SIZE(CUDA_RESOURCE_DESC);
    FIELD(CUDA_RESOURCE_DESC, res.pitch2D.pitchInBytes);
    FIELD(CUDA_RESOURCE_DESC, flags);
    SIZE(CUDA_TEXTURE_DESC);
    FIELD(CUDA_TEXTURE_DESC, maxAnisotropy);
    FIELD(CUDA_TEXTURE_DESC, borderColor);
    SIZE(CUDA_RESOURCE_VIEW_DESC);
    SIZE(CUdevprop);
    SIZE(CUipcEventHandle);
    SIZE(CUipcMemHandle);
    SIZE(CUmemLocation);
    SIZE(CUmemAllocationProp);
    FIELD(CUmemAllocationProp, location);
    FIELD(CUmemAllocationProp, win32HandleMetaData);
    FIELD(CUmemAllocationProp, allocFlags);
    SIZE(CUmemAccessDesc);
    SIZE(CUctxCreateParams);
    SIZE(CUlaunchConfig);
    FIELD(CUlaunchConfig, hStream);
    FIELD(CUlaunchConfig, attrs);
    FIELD(CUlaunchConfig, numAttrs);
    SIZE(CUlaunchAttributeValue);
    SIZE(CUDA_EXTERNAL_MEMORY_HANDLE_DESC);
    FIELD(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, size);
    SIZE(CUDA_EXTERNAL_MEMORY_BUFFER_DESC);
    SIZE(CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC);
    SIZE(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC);
    SIZE(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS);
    SIZE(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS);
    SIZE(CUDA_KERNEL_NODE_PARAMS_v1);
    SIZE(CUDA_KERNEL_NODE_PARAMS_v2);
    FIELD(CUDA_KERNEL_NODE_PARAMS_v2, kernelParams);
    SIZE(CUDA_MEMSET_NODE_PARAMS);
    SIZE(CUDA_HOST_NODE_PARAMS);
    SIZE(CUgraphEdgeData);
    SIZE(CUDA_GRAPH_INSTANTIATE_PARAMS);
    SIZE(CUgraphExecUpdateResultInfo);
    SIZE(CUmemPoolProps);
    FIELD(CUmemPoolProps, win32SecurityAttributes);
    SIZE(CUaccessPolicyWindow);
    SIZE(CUstreamBatchMemOpParams);
    return 0;
}
