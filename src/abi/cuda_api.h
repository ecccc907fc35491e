// d4r ABI: every CUDA driver API function libd4rcuda exports, as one X-macro list.
//
// D4R_CUDA_API(X) calls X(export, base, since, params, args) once per function:
//   export  the symbol a program compiled against NVIDIA's cuda.h links to ("cuMemAlloc_v2");
//   base    the name cuGetProcAddress is asked for ("cuMemAlloc");
//   since   the CUDA version (1000 * major + 10 * minor) from which cuda.h maps `base` to `export`;
//           cuGetProcAddress(base, version) resolves to the entry of that base with the largest
//           `since` <= version;
//   params  the parameter list with types, in parentheses; args the parameter names, in parentheses.
// Every function returns CUresult. The list drives the exported symbols, the backend tables, the
// trace and cuGetProcAddress, so adding a function here is the one place to start.
#pragma once

#include "abi/cuda.h"

// clang-format off
#define D4R_CUDA_API(X) \
    /* Initialisation, version, errors, entry points */ \
    X(cuInit, cuInit, 2000, (unsigned int Flags), (Flags)) \
    X(cuDriverGetVersion, cuDriverGetVersion, 2020, (int* driverVersion), (driverVersion)) \
    X(cuGetErrorName, cuGetErrorName, 6000, (CUresult error, const char** pStr), (error, pStr)) \
    X(cuGetErrorString, cuGetErrorString, 6000, (CUresult error, const char** pStr), (error, pStr)) \
    X(cuGetProcAddress, cuGetProcAddress, 11030, (const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags), (symbol, pfn, cudaVersion, flags)) \
    X(cuGetProcAddress_v2, cuGetProcAddress, 12000, (const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags, CUdriverProcAddressQueryResult* symbolStatus), (symbol, pfn, cudaVersion, flags, symbolStatus)) \
    X(cuGetExportTable, cuGetExportTable, 3000, (const void** ppExportTable, const CUuuid* pExportTableId), (ppExportTable, pExportTableId)) \
    /* Devices */ \
    X(cuDeviceGet, cuDeviceGet, 2000, (CUdevice* device, int ordinal), (device, ordinal)) \
    X(cuDeviceGetCount, cuDeviceGetCount, 2000, (int* count), (count)) \
    X(cuDeviceGetName, cuDeviceGetName, 2000, (char* name, int len, CUdevice dev), (name, len, dev)) \
    X(cuDeviceGetUuid, cuDeviceGetUuid, 9020, (CUuuid* uuid, CUdevice dev), (uuid, dev)) \
    X(cuDeviceGetUuid_v2, cuDeviceGetUuid, 11040, (CUuuid* uuid, CUdevice dev), (uuid, dev)) \
    X(cuDeviceTotalMem_v2, cuDeviceTotalMem, 3020, (size_t* bytes, CUdevice dev), (bytes, dev)) \
    X(cuDeviceGetAttribute, cuDeviceGetAttribute, 2000, (int* pi, CUdevice_attribute attrib, CUdevice dev), (pi, attrib, dev)) \
    X(cuDeviceComputeCapability, cuDeviceComputeCapability, 2000, (int* major, int* minor, CUdevice dev), (major, minor, dev)) \
    X(cuDeviceCanAccessPeer, cuDeviceCanAccessPeer, 4000, (int* canAccessPeer, CUdevice dev, CUdevice peerDev), (canAccessPeer, dev, peerDev)) \
    X(cuDeviceGetProperties, cuDeviceGetProperties, 2000, (CUdevprop* prop, CUdevice dev), (prop, dev)) \
    X(cuDeviceGetByPCIBusId, cuDeviceGetByPCIBusId, 4010, (CUdevice* dev, const char* pciBusId), (dev, pciBusId)) \
    X(cuDeviceGetPCIBusId, cuDeviceGetPCIBusId, 4010, (char* pciBusId, int len, CUdevice dev), (pciBusId, len, dev)) \
    /* Primary contexts */ \
    X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000, (CUcontext* pctx, CUdevice dev), (pctx, dev)) \
    X(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease, 7000, (CUdevice dev), (dev)) \
    X(cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease, 11000, (CUdevice dev), (dev)) \
    X(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset, 7000, (CUdevice dev), (dev)) \
    X(cuDevicePrimaryCtxReset_v2, cuDevicePrimaryCtxReset, 11000, (CUdevice dev), (dev)) \
    X(cuDevicePrimaryCtxGetState, cuDevicePrimaryCtxGetState, 7000, (CUdevice dev, unsigned int* flags, int* active), (dev, flags, active)) \
    X(cuDevicePrimaryCtxSetFlags, cuDevicePrimaryCtxSetFlags, 7000, (CUdevice dev, unsigned int flags), (dev, flags)) \
    X(cuDevicePrimaryCtxSetFlags_v2, cuDevicePrimaryCtxSetFlags, 11000, (CUdevice dev, unsigned int flags), (dev, flags)) \
    /* Contexts */ \
    X(cuCtxCreate, cuCtxCreate, 2000, (CUcontext* pctx, unsigned int flags, CUdevice dev), (pctx, flags, dev)) \
    X(cuCtxCreate_v2, cuCtxCreate, 3020, (CUcontext* pctx, unsigned int flags, CUdevice dev), (pctx, flags, dev)) \
    X(cuCtxCreate_v4, cuCtxCreate, 12050, (CUcontext* pctx, CUctxCreateParams* ctxCreateParams, unsigned int flags, CUdevice dev), (pctx, ctxCreateParams, flags, dev)) \
    X(cuCtxDestroy, cuCtxDestroy, 2000, (CUcontext ctx), (ctx)) \
    X(cuCtxPushCurrent, cuCtxPushCurrent, 2000, (CUcontext ctx), (ctx)) \
    X(cuCtxPopCurrent, cuCtxPopCurrent, 2000, (CUcontext* pctx), (pctx)) \
    X(cuCtxAttach, cuCtxAttach, 2000, (CUcontext* pctx, unsigned int flags), (pctx, flags)) \
    X(cuCtxDetach, cuCtxDetach, 2000, (CUcontext ctx), (ctx)) \
    X(cuCtxDestroy_v2, cuCtxDestroy, 4000, (CUcontext ctx), (ctx)) \
    X(cuCtxPushCurrent_v2, cuCtxPushCurrent, 4000, (CUcontext ctx), (ctx)) \
    X(cuCtxPopCurrent_v2, cuCtxPopCurrent, 4000, (CUcontext* pctx), (pctx)) \
    X(cuCtxSetCurrent, cuCtxSetCurrent, 4000, (CUcontext ctx), (ctx)) \
    X(cuCtxGetCurrent, cuCtxGetCurrent, 4000, (CUcontext* pctx), (pctx)) \
    X(cuCtxGetDevice, cuCtxGetDevice, 2000, (CUdevice* device), (device)) \
    X(cuCtxGetFlags, cuCtxGetFlags, 7000, (unsigned int* flags), (flags)) \
    X(cuCtxGetApiVersion, cuCtxGetApiVersion, 3020, (CUcontext ctx, unsigned int* version), (ctx, version)) \
    X(cuCtxSynchronize, cuCtxSynchronize, 2000, (void), ()) \
    X(cuCtxResetPersistingL2Cache, cuCtxResetPersistingL2Cache, 11000, (void), ()) \
    X(cuCtxSetLimit, cuCtxSetLimit, 3010, (CUlimit limit, size_t value), (limit, value)) \
    X(cuCtxGetLimit, cuCtxGetLimit, 3010, (size_t* pvalue, CUlimit limit), (pvalue, limit)) \
    X(cuCtxGetCacheConfig, cuCtxGetCacheConfig, 3020, (CUfunc_cache* pconfig), (pconfig)) \
    X(cuCtxSetCacheConfig, cuCtxSetCacheConfig, 3020, (CUfunc_cache config), (config)) \
    X(cuCtxGetSharedMemConfig, cuCtxGetSharedMemConfig, 4020, (CUsharedconfig* pConfig), (pConfig)) \
    X(cuCtxSetSharedMemConfig, cuCtxSetSharedMemConfig, 4020, (CUsharedconfig config), (config)) \
    X(cuCtxGetStreamPriorityRange, cuCtxGetStreamPriorityRange, 5050, (int* leastPriority, int* greatestPriority), (leastPriority, greatestPriority)) \
    /* Memory */ \
    X(cuMemGetInfo, cuMemGetInfo, 2000, (unsigned int* free, unsigned int* total), (free, total)) \
    X(cuMemAlloc, cuMemAlloc, 2000, (CUdeviceptr_v1* dptr, unsigned int bytesize), (dptr, bytesize)) \
    X(cuMemFree, cuMemFree, 2000, (CUdeviceptr_v1 dptr), (dptr)) \
    X(cuMemcpyHtoD, cuMemcpyHtoD, 2000, (CUdeviceptr_v1 dstDevice, const void* srcHost, unsigned int ByteCount), (dstDevice, srcHost, ByteCount)) \
    X(cuMemcpyDtoH, cuMemcpyDtoH, 2000, (void* dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount), (dstHost, srcDevice, ByteCount)) \
    X(cuMemGetInfo_v2, cuMemGetInfo, 3020, (size_t* free, size_t* total), (free, total)) \
    X(cuMemAlloc_v2, cuMemAlloc, 3020, (CUdeviceptr* dptr, size_t bytesize), (dptr, bytesize)) \
    X(cuMemAllocPitch_v2, cuMemAllocPitch, 3020, (CUdeviceptr* dptr, size_t* pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes), (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes)) \
    X(cuMemFree_v2, cuMemFree, 3020, (CUdeviceptr dptr), (dptr)) \
    X(cuMemGetAddressRange_v2, cuMemGetAddressRange, 3020, (CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr), (pbase, psize, dptr)) \
    X(cuMemAllocHost_v2, cuMemAllocHost, 3020, (void** pp, size_t bytesize), (pp, bytesize)) \
    X(cuMemFreeHost, cuMemFreeHost, 2000, (void* p), (p)) \
    X(cuMemHostAlloc, cuMemHostAlloc, 2020, (void** pp, size_t bytesize, unsigned int Flags), (pp, bytesize, Flags)) \
    X(cuMemHostGetDevicePointer_v2, cuMemHostGetDevicePointer, 3020, (CUdeviceptr* pdptr, void* p, unsigned int Flags), (pdptr, p, Flags)) \
    X(cuMemHostRegister_v2, cuMemHostRegister, 6050, (void* p, size_t bytesize, unsigned int Flags), (p, bytesize, Flags)) \
    X(cuMemHostUnregister, cuMemHostUnregister, 4000, (void* p), (p)) \
    X(cuMemHostRegister, cuMemHostRegister, 4000, (void* p, size_t bytesize, unsigned int Flags), (p, bytesize, Flags)) \
    X(cuMemHostGetFlags, cuMemHostGetFlags, 2030, (unsigned int* pFlags, void* p), (pFlags, p)) \
    X(cuMemAllocManaged, cuMemAllocManaged, 6000, (CUdeviceptr* dptr, size_t bytesize, unsigned int flags), (dptr, bytesize, flags)) \
    X(cuMemPrefetchAsync, cuMemPrefetchAsync, 8000, (CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream), (devPtr, count, dstDevice, hStream)) \
    X(cuMemPrefetchAsync_v2, cuMemPrefetchAsync, 12020, (CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream), (devPtr, count, location, flags, hStream)) \
    X(cuMemAdvise, cuMemAdvise, 8000, (CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device), (devPtr, count, advice, device)) \
    X(cuMemAdvise_v2, cuMemAdvise, 12020, (CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location), (devPtr, count, advice, location)) \
    X(cuMemRangeGetAttribute, cuMemRangeGetAttribute, 8000, (void* data, size_t dataSize, CUmem_range_attribute attribute, CUdeviceptr devPtr, size_t count), (data, dataSize, attribute, devPtr, count)) \
    X(cuMemRangeGetAttributes, cuMemRangeGetAttributes, 8000, (void** data, size_t* dataSizes, CUmem_range_attribute* attributes, size_t numAttributes, CUdeviceptr devPtr, size_t count), (data, dataSizes, attributes, numAttributes, devPtr, count)) \
    X(cuStreamAttachMemAsync, cuStreamAttachMemAsync, 6000, (CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags), (hStream, dptr, length, flags)) \
    /* Virtual memory management */ \
    X(cuMemGetAllocationGranularity, cuMemGetAllocationGranularity, 10020, (size_t* granularity, const CUmemAllocationProp* prop, CUmemAllocationGranularity_flags option), (granularity, prop, option)) \
    X(cuMemCreate, cuMemCreate, 10020, (CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop, unsigned long long flags), (handle, size, prop, flags)) \
    X(cuMemRelease, cuMemRelease, 10020, (CUmemGenericAllocationHandle handle), (handle)) \
    X(cuMemAddressReserve, cuMemAddressReserve, 10020, (CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags), (ptr, size, alignment, addr, flags)) \
    X(cuMemAddressFree, cuMemAddressFree, 10020, (CUdeviceptr ptr, size_t size), (ptr, size)) \
    X(cuMemMap, cuMemMap, 10020, (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags), (ptr, size, offset, handle, flags)) \
    X(cuMemUnmap, cuMemUnmap, 10020, (CUdeviceptr ptr, size_t size), (ptr, size)) \
    X(cuMemSetAccess, cuMemSetAccess, 10020, (CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count), (ptr, size, desc, count)) \
    X(cuMemGetAccess, cuMemGetAccess, 10020, (unsigned long long* flags, const CUmemLocation* location, CUdeviceptr ptr), (flags, location, ptr)) \
    X(cuMemGetAllocationPropertiesFromHandle, cuMemGetAllocationPropertiesFromHandle, 10020, (CUmemAllocationProp* prop, CUmemGenericAllocationHandle handle), (prop, handle)) \
    X(cuMemRetainAllocationHandle, cuMemRetainAllocationHandle, 11000, (CUmemGenericAllocationHandle* handle, void* addr), (handle, addr)) \
    X(cuMemExportToShareableHandle, cuMemExportToShareableHandle, 10020, (void* shareableHandle, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType, unsigned long long flags), (shareableHandle, handle, handleType, flags)) \
    X(cuMemImportFromShareableHandle, cuMemImportFromShareableHandle, 10020, (CUmemGenericAllocationHandle* handle, void* osHandle, CUmemAllocationHandleType shHandleType), (handle, osHandle, shHandleType)) \
    /* External memory and semaphores */ \
    X(cuImportExternalMemory, cuImportExternalMemory, 10000, (CUexternalMemory* extMem_out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC* memHandleDesc), (extMem_out, memHandleDesc)) \
    X(cuExternalMemoryGetMappedBuffer, cuExternalMemoryGetMappedBuffer, 10000, (CUdeviceptr* devPtr, CUexternalMemory extMem, const CUDA_EXTERNAL_MEMORY_BUFFER_DESC* bufferDesc), (devPtr, extMem, bufferDesc)) \
    X(cuExternalMemoryGetMappedMipmappedArray, cuExternalMemoryGetMappedMipmappedArray, 10000, (CUmipmappedArray* mipmap, CUexternalMemory extMem, const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC* mipmapDesc), (mipmap, extMem, mipmapDesc)) \
    X(cuDestroyExternalMemory, cuDestroyExternalMemory, 10000, (CUexternalMemory extMem), (extMem)) \
    X(cuImportExternalSemaphore, cuImportExternalSemaphore, 10000, (CUexternalSemaphore* extSem_out, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC* semHandleDesc), (extSem_out, semHandleDesc)) \
    X(cuSignalExternalSemaphoresAsync, cuSignalExternalSemaphoresAsync, 10000, (const CUexternalSemaphore* extSemArray, const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS* paramsArray, unsigned int numExtSems, CUstream stream), (extSemArray, paramsArray, numExtSems, stream)) \
    X(cuWaitExternalSemaphoresAsync, cuWaitExternalSemaphoresAsync, 10000, (const CUexternalSemaphore* extSemArray, const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS* paramsArray, unsigned int numExtSems, CUstream stream), (extSemArray, paramsArray, numExtSems, stream)) \
    X(cuDestroyExternalSemaphore, cuDestroyExternalSemaphore, 10000, (CUexternalSemaphore extSem), (extSem)) \
    X(cuMemcpy, cuMemcpy, 4000, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount), (dst, src, ByteCount)) \
    X(cuMemcpyAsync, cuMemcpyAsync, 4000, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream), (dst, src, ByteCount, hStream)) \
    X(cuMemcpyHtoD_v2, cuMemcpyHtoD, 3020, (CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount), (dstDevice, srcHost, ByteCount)) \
    X(cuMemcpyDtoH_v2, cuMemcpyDtoH, 3020, (void* dstHost, CUdeviceptr srcDevice, size_t ByteCount), (dstHost, srcDevice, ByteCount)) \
    X(cuMemcpyDtoD_v2, cuMemcpyDtoD, 3020, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount), (dstDevice, srcDevice, ByteCount)) \
    X(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync, 3020, (CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream), (dstDevice, srcHost, ByteCount, hStream)) \
    X(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync, 3020, (void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream), (dstHost, srcDevice, ByteCount, hStream)) \
    X(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync, 3000, (CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice, unsigned int ByteCount, CUstream hStream), (dstDevice, srcDevice, ByteCount, hStream)) \
    X(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync, 3020, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream), (dstDevice, srcDevice, ByteCount, hStream)) \
    X(cuMemcpyDtoA_v2, cuMemcpyDtoA, 3020, (CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount), (dstArray, dstOffset, srcDevice, ByteCount)) \
    X(cuMemcpyAtoD_v2, cuMemcpyAtoD, 3020, (CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount), (dstDevice, srcArray, srcOffset, ByteCount)) \
    X(cuMemcpyAtoA_v2, cuMemcpyAtoA, 3020, (CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset, size_t ByteCount), (dstArray, dstOffset, srcArray, srcOffset, ByteCount)) \
    X(cuMemcpyHtoAAsync_v2, cuMemcpyHtoAAsync, 3020, (CUarray dstArray, size_t dstOffset, const void* srcHost, size_t ByteCount, CUstream hStream), (dstArray, dstOffset, srcHost, ByteCount, hStream)) \
    X(cuMemcpyAtoHAsync_v2, cuMemcpyAtoHAsync, 3020, (void* dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount, CUstream hStream), (dstHost, srcArray, srcOffset, ByteCount, hStream)) \
    X(cuMemcpyHtoA_v2, cuMemcpyHtoA, 3020, (CUarray dstArray, size_t dstOffset, const void* srcHost, size_t ByteCount), (dstArray, dstOffset, srcHost, ByteCount)) \
    X(cuMemcpyAtoH_v2, cuMemcpyAtoH, 3020, (void* dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount), (dstHost, srcArray, srcOffset, ByteCount)) \
    X(cuMemcpy2D_v2, cuMemcpy2D, 3020, (const CUDA_MEMCPY2D* pCopy), (pCopy)) \
    X(cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned, 3020, (const CUDA_MEMCPY2D* pCopy), (pCopy)) \
    X(cuMemcpy2DAsync_v2, cuMemcpy2DAsync, 3020, (const CUDA_MEMCPY2D* pCopy, CUstream hStream), (pCopy, hStream)) \
    X(cuMemcpy3D_v2, cuMemcpy3D, 3020, (const CUDA_MEMCPY3D* pCopy), (pCopy)) \
    X(cuMemcpy3DAsync_v2, cuMemcpy3DAsync, 3020, (const CUDA_MEMCPY3D* pCopy, CUstream hStream), (pCopy, hStream)) \
    X(cuMemsetD8_v2, cuMemsetD8, 3020, (CUdeviceptr dstDevice, unsigned char uc, size_t N), (dstDevice, uc, N)) \
    X(cuMemsetD16_v2, cuMemsetD16, 3020, (CUdeviceptr dstDevice, unsigned short us, size_t N), (dstDevice, us, N)) \
    X(cuMemsetD32_v2, cuMemsetD32, 3020, (CUdeviceptr dstDevice, unsigned int ui, size_t N), (dstDevice, ui, N)) \
    X(cuMemsetD8Async, cuMemsetD8Async, 3020, (CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream), (dstDevice, uc, N, hStream)) \
    X(cuMemsetD16Async, cuMemsetD16Async, 3020, (CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream), (dstDevice, us, N, hStream)) \
    X(cuMemsetD32Async, cuMemsetD32Async, 3020, (CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream), (dstDevice, ui, N, hStream)) \
    X(cuMemsetD2D8_v2, cuMemsetD2D8, 3020, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height), (dstDevice, dstPitch, uc, Width, Height)) \
    X(cuMemsetD2D16_v2, cuMemsetD2D16, 3020, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height), (dstDevice, dstPitch, us, Width, Height)) \
    X(cuMemsetD2D32_v2, cuMemsetD2D32, 3020, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height), (dstDevice, dstPitch, ui, Width, Height)) \
    X(cuMemAllocAsync, cuMemAllocAsync, 11020, (CUdeviceptr* dptr, size_t bytesize, CUstream hStream), (dptr, bytesize, hStream)) \
    X(cuMemFreeAsync, cuMemFreeAsync, 11020, (CUdeviceptr dptr, CUstream hStream), (dptr, hStream)) \
    X(cuPointerGetAttribute, cuPointerGetAttribute, 4000, (void* data, CUpointer_attribute attribute, CUdeviceptr ptr), (data, attribute, ptr)) \
    X(cuPointerGetAttributes, cuPointerGetAttributes, 7000, (unsigned int numAttributes, CUpointer_attribute* attributes, void** data, CUdeviceptr ptr), (numAttributes, attributes, data, ptr)) \
    /* Arrays, textures, surfaces */ \
    X(cuArrayCreate_v2, cuArrayCreate, 3020, (CUarray* pHandle, const CUDA_ARRAY_DESCRIPTOR* pAllocateArray), (pHandle, pAllocateArray)) \
    X(cuArray3DCreate_v2, cuArray3DCreate, 3020, (CUarray* pHandle, const CUDA_ARRAY3D_DESCRIPTOR* pAllocateArray), (pHandle, pAllocateArray)) \
    X(cuArrayGetDescriptor_v2, cuArrayGetDescriptor, 3020, (CUDA_ARRAY_DESCRIPTOR* pArrayDescriptor, CUarray hArray), (pArrayDescriptor, hArray)) \
    X(cuArray3DGetDescriptor_v2, cuArray3DGetDescriptor, 3020, (CUDA_ARRAY3D_DESCRIPTOR* pArrayDescriptor, CUarray hArray), (pArrayDescriptor, hArray)) \
    X(cuArrayDestroy, cuArrayDestroy, 2000, (CUarray hArray), (hArray)) \
    X(cuMipmappedArrayCreate, cuMipmappedArrayCreate, 5000, (CUmipmappedArray* pHandle, const CUDA_ARRAY3D_DESCRIPTOR* pMipmappedArrayDesc, unsigned int numMipmapLevels), (pHandle, pMipmappedArrayDesc, numMipmapLevels)) \
    X(cuMipmappedArrayDestroy, cuMipmappedArrayDestroy, 5000, (CUmipmappedArray hMipmappedArray), (hMipmappedArray)) \
    X(cuMipmappedArrayGetLevel, cuMipmappedArrayGetLevel, 5000, (CUarray* pLevelArray, CUmipmappedArray hMipmappedArray, unsigned int level), (pLevelArray, hMipmappedArray, level)) \
    X(cuTexObjectCreate, cuTexObjectCreate, 5000, (CUtexObject* pTexObject, const CUDA_RESOURCE_DESC* pResDesc, const CUDA_TEXTURE_DESC* pTexDesc, const CUDA_RESOURCE_VIEW_DESC* pResViewDesc), (pTexObject, pResDesc, pTexDesc, pResViewDesc)) \
    X(cuTexObjectDestroy, cuTexObjectDestroy, 5000, (CUtexObject texObject), (texObject)) \
    X(cuTexObjectGetResourceDesc, cuTexObjectGetResourceDesc, 5000, (CUDA_RESOURCE_DESC* pResDesc, CUtexObject texObject), (pResDesc, texObject)) \
    X(cuSurfObjectCreate, cuSurfObjectCreate, 5000, (CUsurfObject* pSurfObject, const CUDA_RESOURCE_DESC* pResDesc), (pSurfObject, pResDesc)) \
    X(cuSurfObjectDestroy, cuSurfObjectDestroy, 5000, (CUsurfObject surfObject), (surfObject)) \
    X(cuSurfObjectGetResourceDesc, cuSurfObjectGetResourceDesc, 5000, (CUDA_RESOURCE_DESC* pResDesc, CUsurfObject surfObject), (pResDesc, surfObject)) \
    /* Modules, libraries, functions */ \
    /* Texture and surface references (deprecated; not supported by the cpu backend) */ \
    X(cuModuleGetTexRef, cuModuleGetTexRef, 2000, (CUtexref* pTexRef, CUmodule hmod, const char* name), (pTexRef, hmod, name)) \
    X(cuModuleGetSurfRef, cuModuleGetSurfRef, 3000, (CUsurfref* pSurfRef, CUmodule hmod, const char* name), (pSurfRef, hmod, name)) \
    X(cuTexRefCreate, cuTexRefCreate, 2000, (CUtexref* pTexRef), (pTexRef)) \
    X(cuTexRefDestroy, cuTexRefDestroy, 2000, (CUtexref hTexRef), (hTexRef)) \
    X(cuTexRefSetArray, cuTexRefSetArray, 2000, (CUtexref hTexRef, CUarray hArray, unsigned int Flags), (hTexRef, hArray, Flags)) \
    X(cuTexRefSetAddress_v2, cuTexRefSetAddress, 3020, (size_t* ByteOffset, CUtexref hTexRef, CUdeviceptr dptr, size_t bytes), (ByteOffset, hTexRef, dptr, bytes)) \
    X(cuTexRefSetAddress2D_v3, cuTexRefSetAddress2D, 4010, (CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR* desc, CUdeviceptr dptr, size_t Pitch), (hTexRef, desc, dptr, Pitch)) \
    X(cuTexRefSetFormat, cuTexRefSetFormat, 2000, (CUtexref hTexRef, CUarray_format fmt, int NumPackedComponents), (hTexRef, fmt, NumPackedComponents)) \
    X(cuTexRefSetAddressMode, cuTexRefSetAddressMode, 2000, (CUtexref hTexRef, int dim, CUaddress_mode am), (hTexRef, dim, am)) \
    X(cuTexRefSetFilterMode, cuTexRefSetFilterMode, 2000, (CUtexref hTexRef, CUfilter_mode fm), (hTexRef, fm)) \
    X(cuTexRefSetFlags, cuTexRefSetFlags, 2000, (CUtexref hTexRef, unsigned int Flags), (hTexRef, Flags)) \
    X(cuTexRefGetAddress_v2, cuTexRefGetAddress, 3020, (CUdeviceptr* pdptr, CUtexref hTexRef), (pdptr, hTexRef)) \
    X(cuTexRefGetArray, cuTexRefGetArray, 2000, (CUarray* phArray, CUtexref hTexRef), (phArray, hTexRef)) \
    X(cuTexRefGetAddressMode, cuTexRefGetAddressMode, 2000, (CUaddress_mode* pam, CUtexref hTexRef, int dim), (pam, hTexRef, dim)) \
    X(cuTexRefGetFilterMode, cuTexRefGetFilterMode, 2000, (CUfilter_mode* pfm, CUtexref hTexRef), (pfm, hTexRef)) \
    X(cuTexRefGetFormat, cuTexRefGetFormat, 2000, (CUarray_format* pFormat, int* pNumChannels, CUtexref hTexRef), (pFormat, pNumChannels, hTexRef)) \
    X(cuTexRefGetFlags, cuTexRefGetFlags, 2000, (unsigned int* pFlags, CUtexref hTexRef), (pFlags, hTexRef)) \
    X(cuSurfRefSetArray, cuSurfRefSetArray, 3000, (CUsurfref hSurfRef, CUarray hArray, unsigned int Flags), (hSurfRef, hArray, Flags)) \
    X(cuSurfRefGetArray, cuSurfRefGetArray, 3000, (CUarray* phArray, CUsurfref hSurfRef), (phArray, hSurfRef)) \
    /* Graphics interoperability (no graphics API reaches the cpu backend) */ \
    X(cuGraphicsUnregisterResource, cuGraphicsUnregisterResource, 3000, (CUgraphicsResource resource), (resource)) \
    X(cuGraphicsSubResourceGetMappedArray, cuGraphicsSubResourceGetMappedArray, 3000, (CUarray* pArray, CUgraphicsResource resource, unsigned int arrayIndex, unsigned int mipLevel), (pArray, resource, arrayIndex, mipLevel)) \
    X(cuGraphicsResourceGetMappedPointer_v2, cuGraphicsResourceGetMappedPointer, 3020, (CUdeviceptr* pDevPtr, size_t* pSize, CUgraphicsResource resource), (pDevPtr, pSize, resource)) \
    X(cuGraphicsResourceSetMapFlags, cuGraphicsResourceSetMapFlags, 3000, (CUgraphicsResource resource, unsigned int flags), (resource, flags)) \
    X(cuGraphicsResourceSetMapFlags_v2, cuGraphicsResourceSetMapFlags, 6050, (CUgraphicsResource resource, unsigned int flags), (resource, flags)) \
    X(cuGraphicsMapResources, cuGraphicsMapResources, 3000, (unsigned int count, CUgraphicsResource* resources, CUstream hStream), (count, resources, hStream)) \
    X(cuGraphicsUnmapResources, cuGraphicsUnmapResources, 3000, (unsigned int count, CUgraphicsResource* resources, CUstream hStream), (count, resources, hStream)) \
    X(cuModuleLoad, cuModuleLoad, 2000, (CUmodule* module, const char* fname), (module, fname)) \
    X(cuModuleLoadData, cuModuleLoadData, 2000, (CUmodule* module, const void* image), (module, image)) \
    X(cuModuleLoadDataEx, cuModuleLoadDataEx, 2010, (CUmodule* module, const void* image, unsigned int numOptions, CUjit_option* options, void** optionValues), (module, image, numOptions, options, optionValues)) \
    X(cuModuleLoadFatBinary, cuModuleLoadFatBinary, 2000, (CUmodule* module, const void* fatCubin), (module, fatCubin)) \
    X(cuModuleUnload, cuModuleUnload, 2000, (CUmodule hmod), (hmod)) \
    X(cuModuleGetFunction, cuModuleGetFunction, 2000, (CUfunction* hfunc, CUmodule hmod, const char* name), (hfunc, hmod, name)) \
    X(cuModuleGetGlobal_v2, cuModuleGetGlobal, 3020, (CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name), (dptr, bytes, hmod, name)) \
    X(cuLinkCreate, cuLinkCreate, 5050, (unsigned int numOptions, CUjit_option* options, void** optionValues, CUlinkState* stateOut), (numOptions, options, optionValues, stateOut)) \
    X(cuLinkCreate_v2, cuLinkCreate, 6050, (unsigned int numOptions, CUjit_option* options, void** optionValues, CUlinkState* stateOut), (numOptions, options, optionValues, stateOut)) \
    X(cuLinkAddData, cuLinkAddData, 5050, (CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name, unsigned int numOptions, CUjit_option* options, void** optionValues), (state, type, data, size, name, numOptions, options, optionValues)) \
    X(cuLinkAddData_v2, cuLinkAddData, 6050, (CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name, unsigned int numOptions, CUjit_option* options, void** optionValues), (state, type, data, size, name, numOptions, options, optionValues)) \
    X(cuLinkAddFile, cuLinkAddFile, 5050, (CUlinkState state, CUjitInputType type, const char* path, unsigned int numOptions, CUjit_option* options, void** optionValues), (state, type, path, numOptions, options, optionValues)) \
    X(cuLinkAddFile_v2, cuLinkAddFile, 6050, (CUlinkState state, CUjitInputType type, const char* path, unsigned int numOptions, CUjit_option* options, void** optionValues), (state, type, path, numOptions, options, optionValues)) \
    X(cuLinkComplete, cuLinkComplete, 5050, (CUlinkState state, void** cubinOut, size_t* sizeOut), (state, cubinOut, sizeOut)) \
    X(cuLinkDestroy, cuLinkDestroy, 5050, (CUlinkState state), (state)) \
    X(cuLibraryLoadData, cuLibraryLoadData, 12000, (CUlibrary* library, const void* code, CUjit_option* jitOptions, void** jitOptionsValues, unsigned int numJitOptions, CUlibraryOption* libraryOptions, void** libraryOptionValues, unsigned int numLibraryOptions), (library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions)) \
    X(cuLibraryUnload, cuLibraryUnload, 12000, (CUlibrary library), (library)) \
    X(cuLibraryGetKernel, cuLibraryGetKernel, 12000, (CUkernel* pKernel, CUlibrary library, const char* name), (pKernel, library, name)) \
    X(cuLibraryGetModule, cuLibraryGetModule, 12000, (CUmodule* pMod, CUlibrary library), (pMod, library)) \
    X(cuLibraryGetGlobal, cuLibraryGetGlobal, 12000, (CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name), (dptr, bytes, library, name)) \
    X(cuKernelGetFunction, cuKernelGetFunction, 12000, (CUfunction* pFunc, CUkernel kernel), (pFunc, kernel)) \
    X(cuKernelGetAttribute, cuKernelGetAttribute, 12000, (int* pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev), (pi, attrib, kernel, dev)) \
    X(cuKernelSetAttribute, cuKernelSetAttribute, 12000, (CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev), (attrib, val, kernel, dev)) \
    X(cuKernelSetCacheConfig, cuKernelSetCacheConfig, 12000, (CUkernel kernel, CUfunc_cache config, CUdevice dev), (kernel, config, dev)) \
    X(cuKernelGetName, cuKernelGetName, 12030, (const char** name, CUkernel hfunc), (name, hfunc)) \
    X(cuKernelGetLibrary, cuKernelGetLibrary, 12050, (CUlibrary* pLib, CUkernel kernel), (pLib, kernel)) \
    X(cuFuncGetAttribute, cuFuncGetAttribute, 2020, (int* pi, CUfunction_attribute attrib, CUfunction hfunc), (pi, attrib, hfunc)) \
    X(cuFuncSetAttribute, cuFuncSetAttribute, 9000, (CUfunction hfunc, CUfunction_attribute attrib, int value), (hfunc, attrib, value)) \
    X(cuFuncSetCacheConfig, cuFuncSetCacheConfig, 3000, (CUfunction hfunc, CUfunc_cache config), (hfunc, config)) \
    X(cuFuncSetSharedMemConfig, cuFuncSetSharedMemConfig, 4020, (CUfunction hfunc, CUsharedconfig config), (hfunc, config)) \
    X(cuFuncGetName, cuFuncGetName, 12030, (const char** name, CUfunction hfunc), (name, hfunc)) \
    X(cuFuncGetModule, cuFuncGetModule, 11000, (CUmodule* hmod, CUfunction hfunc), (hmod, hfunc)) \
    X(cuFuncSetBlockShape, cuFuncSetBlockShape, 2000, (CUfunction hfunc, int x, int y, int z), (hfunc, x, y, z)) \
    X(cuFuncSetSharedSize, cuFuncSetSharedSize, 2000, (CUfunction hfunc, unsigned int bytes), (hfunc, bytes)) \
    X(cuParamSetSize, cuParamSetSize, 2000, (CUfunction hfunc, unsigned int numbytes), (hfunc, numbytes)) \
    X(cuParamSeti, cuParamSeti, 2000, (CUfunction hfunc, int offset, unsigned int value), (hfunc, offset, value)) \
    X(cuParamSetf, cuParamSetf, 2000, (CUfunction hfunc, int offset, float value), (hfunc, offset, value)) \
    X(cuParamSetv, cuParamSetv, 2000, (CUfunction hfunc, int offset, void* ptr, unsigned int numbytes), (hfunc, offset, ptr, numbytes)) \
    X(cuParamSetTexRef, cuParamSetTexRef, 2000, (CUfunction hfunc, int texunit, CUtexref hTexRef), (hfunc, texunit, hTexRef)) \
    /* Launches and occupancy */ \
    X(cuLaunchKernel, cuLaunchKernel, 4000, (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra), (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra)) \
    X(cuLaunch, cuLaunch, 2000, (CUfunction f), (f)) \
    X(cuLaunchGrid, cuLaunchGrid, 2000, (CUfunction f, int grid_width, int grid_height), (f, grid_width, grid_height)) \
    X(cuLaunchGridAsync, cuLaunchGridAsync, 2000, (CUfunction f, int grid_width, int grid_height, CUstream hStream), (f, grid_width, grid_height, hStream)) \
    X(cuLaunchKernelEx, cuLaunchKernelEx, 11060, (const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra), (config, f, kernelParams, extra)) \
    X(cuLaunchCooperativeKernel, cuLaunchCooperativeKernel, 9000, (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void** kernelParams), (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams)) \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050, (int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize), (numBlocks, func, blockSize, dynamicSMemSize)) \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 7000, (int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags), (numBlocks, func, blockSize, dynamicSMemSize, flags)) \
    X(cuOccupancyMaxPotentialBlockSize, cuOccupancyMaxPotentialBlockSize, 6050, (int* minGridSize, int* blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit), (minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit)) \
    X(cuOccupancyMaxPotentialBlockSizeWithFlags, cuOccupancyMaxPotentialBlockSizeWithFlags, 7000, (int* minGridSize, int* blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit, unsigned int flags), (minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, flags)) \
    X(cuOccupancyAvailableDynamicSMemPerBlock, cuOccupancyAvailableDynamicSMemPerBlock, 10020, (size_t* dynamicSmemSize, CUfunction func, int numBlocks, int blockSize), (dynamicSmemSize, func, numBlocks, blockSize)) \
    /* Streams and events */ \
    X(cuStreamCreate, cuStreamCreate, 2000, (CUstream* phStream, unsigned int Flags), (phStream, Flags)) \
    X(cuStreamCreateWithPriority, cuStreamCreateWithPriority, 5050, (CUstream* phStream, unsigned int flags, int priority), (phStream, flags, priority)) \
    X(cuStreamDestroy, cuStreamDestroy, 2000, (CUstream hStream), (hStream)) \
    X(cuStreamDestroy_v2, cuStreamDestroy, 4000, (CUstream hStream), (hStream)) \
    X(cuStreamQuery, cuStreamQuery, 2000, (CUstream hStream), (hStream)) \
    X(cuStreamSynchronize, cuStreamSynchronize, 2000, (CUstream hStream), (hStream)) \
    X(cuStreamWaitEvent, cuStreamWaitEvent, 3020, (CUstream hStream, CUevent hEvent, unsigned int Flags), (hStream, hEvent, Flags)) \
    X(cuStreamGetPriority, cuStreamGetPriority, 5050, (CUstream hStream, int* priority), (hStream, priority)) \
    X(cuStreamGetFlags, cuStreamGetFlags, 5050, (CUstream hStream, unsigned int* flags), (hStream, flags)) \
    X(cuStreamGetCtx, cuStreamGetCtx, 9020, (CUstream hStream, CUcontext* pctx), (hStream, pctx)) \
    X(cuStreamAddCallback, cuStreamAddCallback, 5000, (CUstream hStream, CUstreamCallback callback, void* userData, unsigned int flags), (hStream, callback, userData, flags)) \
    X(cuLaunchHostFunc, cuLaunchHostFunc, 10000, (CUstream hStream, CUhostFn fn, void* userData), (hStream, fn, userData)) \
    X(cuEventCreate, cuEventCreate, 2000, (CUevent* phEvent, unsigned int Flags), (phEvent, Flags)) \
    X(cuEventDestroy, cuEventDestroy, 2000, (CUevent hEvent), (hEvent)) \
    X(cuEventDestroy_v2, cuEventDestroy, 4000, (CUevent hEvent), (hEvent)) \
    X(cuEventRecord, cuEventRecord, 2000, (CUevent hEvent, CUstream hStream), (hEvent, hStream)) \
    X(cuEventRecordWithFlags, cuEventRecordWithFlags, 11010, (CUevent hEvent, CUstream hStream, unsigned int flags), (hEvent, hStream, flags)) \
    X(cuEventQuery, cuEventQuery, 2000, (CUevent hEvent), (hEvent)) \
    X(cuEventSynchronize, cuEventSynchronize, 2000, (CUevent hEvent), (hEvent)) \
    X(cuEventElapsedTime, cuEventElapsedTime, 2000, (float* pMilliseconds, CUevent hStart, CUevent hEnd), (pMilliseconds, hStart, hEnd)) \
    X(cuEventElapsedTime_v2, cuEventElapsedTime, 12080, (float* pMilliseconds, CUevent hStart, CUevent hEnd), (pMilliseconds, hStart, hEnd)) \
    /* Stream capture, stream attributes, stream memory operations */ \
    X(cuStreamBeginCapture, cuStreamBeginCapture, 10000, (CUstream hStream), (hStream)) \
    X(cuStreamBeginCapture_v2, cuStreamBeginCapture, 10010, (CUstream hStream, CUstreamCaptureMode mode), (hStream, mode)) \
    X(cuStreamBeginCaptureToGraph, cuStreamBeginCaptureToGraph, 12030, (CUstream hStream, CUgraph hGraph, const CUgraphNode* dependencies, const CUgraphEdgeData* dependencyData, size_t numDependencies, CUstreamCaptureMode mode), (hStream, hGraph, dependencies, dependencyData, numDependencies, mode)) \
    X(cuStreamEndCapture, cuStreamEndCapture, 10000, (CUstream hStream, CUgraph* phGraph), (hStream, phGraph)) \
    X(cuStreamIsCapturing, cuStreamIsCapturing, 10000, (CUstream hStream, CUstreamCaptureStatus* captureStatus), (hStream, captureStatus)) \
    X(cuStreamGetCaptureInfo, cuStreamGetCaptureInfo, 10010, (CUstream hStream, CUstreamCaptureStatus* captureStatus_out, cuuint64_t* id_out), (hStream, captureStatus_out, id_out)) \
    X(cuStreamGetCaptureInfo_v2, cuStreamGetCaptureInfo, 11030, (CUstream hStream, CUstreamCaptureStatus* captureStatus_out, cuuint64_t* id_out, CUgraph* graph_out, const CUgraphNode** dependencies_out, size_t* numDependencies_out), (hStream, captureStatus_out, id_out, graph_out, dependencies_out, numDependencies_out)) \
    X(cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo, 12030, (CUstream hStream, CUstreamCaptureStatus* captureStatus_out, cuuint64_t* id_out, CUgraph* graph_out, const CUgraphNode** dependencies_out, const CUgraphEdgeData** edgeData_out, size_t* numDependencies_out), (hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out)) \
    X(cuStreamUpdateCaptureDependencies, cuStreamUpdateCaptureDependencies, 11030, (CUstream hStream, CUgraphNode* dependencies, size_t numDependencies, unsigned int flags), (hStream, dependencies, numDependencies, flags)) \
    X(cuStreamUpdateCaptureDependencies_v2, cuStreamUpdateCaptureDependencies, 12030, (CUstream hStream, CUgraphNode* dependencies, const CUgraphEdgeData* dependencyData, size_t numDependencies, unsigned int flags), (hStream, dependencies, dependencyData, numDependencies, flags)) \
    X(cuThreadExchangeStreamCaptureMode, cuThreadExchangeStreamCaptureMode, 10010, (CUstreamCaptureMode* mode), (mode)) \
    X(cuStreamGetAttribute, cuStreamGetAttribute, 11000, (CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue* value_out), (hStream, attr, value_out)) \
    X(cuStreamSetAttribute, cuStreamSetAttribute, 11000, (CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue* value), (hStream, attr, value)) \
    X(cuStreamCopyAttributes, cuStreamCopyAttributes, 11000, (CUstream dst, CUstream src), (dst, src)) \
    X(cuStreamWaitValue32, cuStreamWaitValue32, 8000, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
    X(cuStreamWaitValue32_v2, cuStreamWaitValue32, 11070, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
    X(cuStreamWaitValue64, cuStreamWaitValue64, 9000, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
    X(cuStreamWaitValue64_v2, cuStreamWaitValue64, 11070, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
    X(cuStreamWriteValue32, cuStreamWriteValue32, 8000, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
    X(cuStreamWriteValue32_v2, cuStreamWriteValue32, 11070, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
    X(cuStreamWriteValue64, cuStreamWriteValue64, 9000, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
    X(cuStreamWriteValue64_v2, cuStreamWriteValue64, 11070, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
    X(cuStreamBatchMemOp, cuStreamBatchMemOp, 8000, (CUstream stream, unsigned int count, CUstreamBatchMemOpParams* paramArray, unsigned int flags), (stream, count, paramArray, flags)) \
    X(cuStreamBatchMemOp_v2, cuStreamBatchMemOp, 11070, (CUstream stream, unsigned int count, CUstreamBatchMemOpParams* paramArray, unsigned int flags), (stream, count, paramArray, flags)) \
    X(cuMemsetD2D8Async, cuMemsetD2D8Async, 3020, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream), (dstDevice, dstPitch, uc, Width, Height, hStream)) \
    X(cuMemsetD2D16Async, cuMemsetD2D16Async, 3020, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height, CUstream hStream), (dstDevice, dstPitch, us, Width, Height, hStream)) \
    X(cuMemsetD2D32Async, cuMemsetD2D32Async, 3020, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height, CUstream hStream), (dstDevice, dstPitch, ui, Width, Height, hStream)) \
    /* Graphs */ \
    X(cuGraphCreate, cuGraphCreate, 10000, (CUgraph* phGraph, unsigned int flags), (phGraph, flags)) \
    X(cuGraphDestroy, cuGraphDestroy, 10000, (CUgraph hGraph), (hGraph)) \
    X(cuGraphClone, cuGraphClone, 10000, (CUgraph* phGraphClone, CUgraph originalGraph), (phGraphClone, originalGraph)) \
    X(cuGraphNodeFindInClone, cuGraphNodeFindInClone, 10000, (CUgraphNode* phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph), (phNode, hOriginalNode, hClonedGraph)) \
    X(cuGraphAddKernelNode, cuGraphAddKernelNode, 10000, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1* nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
    X(cuGraphAddKernelNode_v2, cuGraphAddKernelNode, 12000, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS* nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
    X(cuGraphKernelNodeGetParams, cuGraphKernelNodeGetParams, 10000, (CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1* nodeParams), (hNode, nodeParams)) \
    X(cuGraphKernelNodeGetParams_v2, cuGraphKernelNodeGetParams, 12000, (CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS* nodeParams), (hNode, nodeParams)) \
    X(cuGraphKernelNodeSetParams, cuGraphKernelNodeSetParams, 10000, (CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1* nodeParams), (hNode, nodeParams)) \
    X(cuGraphKernelNodeSetParams_v2, cuGraphKernelNodeSetParams, 12000, (CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS* nodeParams), (hNode, nodeParams)) \
    X(cuGraphAddMemcpyNode, cuGraphAddMemcpyNode, 10000, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, const CUDA_MEMCPY3D* copyParams, CUcontext ctx), (phGraphNode, hGraph, dependencies, numDependencies, copyParams, ctx)) \
    X(cuGraphMemcpyNodeGetParams, cuGraphMemcpyNodeGetParams, 10000, (CUgraphNode hNode, CUDA_MEMCPY3D* nodeParams), (hNode, nodeParams)) \
    X(cuGraphMemcpyNodeSetParams, cuGraphMemcpyNodeSetParams, 10000, (CUgraphNode hNode, const CUDA_MEMCPY3D* nodeParams), (hNode, nodeParams)) \
    X(cuGraphAddMemsetNode, cuGraphAddMemsetNode, 10000, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext ctx), (phGraphNode, hGraph, dependencies, numDependencies, memsetParams, ctx)) \
    X(cuGraphMemsetNodeGetParams, cuGraphMemsetNodeGetParams, 10000, (CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS* nodeParams), (hNode, nodeParams)) \
    X(cuGraphMemsetNodeSetParams, cuGraphMemsetNodeSetParams, 10000, (CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS* nodeParams), (hNode, nodeParams)) \
    X(cuGraphAddHostNode, cuGraphAddHostNode, 10000, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, const CUDA_HOST_NODE_PARAMS* nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
    X(cuGraphHostNodeGetParams, cuGraphHostNodeGetParams, 10000, (CUgraphNode hNode, CUDA_HOST_NODE_PARAMS* nodeParams), (hNode, nodeParams)) \
    X(cuGraphHostNodeSetParams, cuGraphHostNodeSetParams, 10000, (CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS* nodeParams), (hNode, nodeParams)) \
    X(cuGraphAddChildGraphNode, cuGraphAddChildGraphNode, 10000, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, CUgraph childGraph), (phGraphNode, hGraph, dependencies, numDependencies, childGraph)) \
    X(cuGraphChildGraphNodeGetGraph, cuGraphChildGraphNodeGetGraph, 10000, (CUgraphNode hNode, CUgraph* phGraph), (hNode, phGraph)) \
    X(cuGraphAddEmptyNode, cuGraphAddEmptyNode, 10000, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies), (phGraphNode, hGraph, dependencies, numDependencies)) \
    X(cuGraphAddNode, cuGraphAddNode, 12020, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, CUgraphNodeParams* nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
    X(cuGraphAddNode_v2, cuGraphAddNode, 12030, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, const CUgraphEdgeData* dependencyData, size_t numDependencies, CUgraphNodeParams* nodeParams), (phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams)) \
    X(cuGraphConditionalHandleCreate, cuGraphConditionalHandleCreate, 12030, (CUgraphConditionalHandle* pHandle_out, CUgraph hGraph, CUcontext ctx, unsigned int defaultLaunchValue, unsigned int flags), (pHandle_out, hGraph, ctx, defaultLaunchValue, flags)) \
    X(cuGraphAddMemAllocNode, cuGraphAddMemAllocNode, 11040, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS* nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
    X(cuGraphMemAllocNodeGetParams, cuGraphMemAllocNodeGetParams, 11040, (CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS* params_out), (hNode, params_out)) \
    X(cuGraphAddMemFreeNode, cuGraphAddMemFreeNode, 11040, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, CUdeviceptr dptr), (phGraphNode, hGraph, dependencies, numDependencies, dptr)) \
    X(cuGraphMemFreeNodeGetParams, cuGraphMemFreeNodeGetParams, 11040, (CUgraphNode hNode, CUdeviceptr* dptr_out), (hNode, dptr_out)) \
    X(cuDeviceGraphMemTrim, cuDeviceGraphMemTrim, 11040, (CUdevice device), (device)) \
    X(cuDeviceGetGraphMemAttribute, cuDeviceGetGraphMemAttribute, 11040, (CUdevice device, CUgraphMem_attribute attr, void* value), (device, attr, value)) \
    X(cuDeviceSetGraphMemAttribute, cuDeviceSetGraphMemAttribute, 11040, (CUdevice device, CUgraphMem_attribute attr, void* value), (device, attr, value)) \
    X(cuGraphAddEventRecordNode, cuGraphAddEventRecordNode, 11010, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, CUevent event), (phGraphNode, hGraph, dependencies, numDependencies, event)) \
    X(cuGraphAddEventWaitNode, cuGraphAddEventWaitNode, 11010, (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, CUevent event), (phGraphNode, hGraph, dependencies, numDependencies, event)) \
    X(cuGraphEventRecordNodeGetEvent, cuGraphEventRecordNodeGetEvent, 11010, (CUgraphNode hNode, CUevent* event_out), (hNode, event_out)) \
    X(cuGraphEventWaitNodeGetEvent, cuGraphEventWaitNodeGetEvent, 11010, (CUgraphNode hNode, CUevent* event_out), (hNode, event_out)) \
    X(cuGraphGetNodes, cuGraphGetNodes, 10000, (CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes), (hGraph, nodes, numNodes)) \
    X(cuGraphGetRootNodes, cuGraphGetRootNodes, 10000, (CUgraph hGraph, CUgraphNode* rootNodes, size_t* numRootNodes), (hGraph, rootNodes, numRootNodes)) \
    X(cuGraphGetEdges, cuGraphGetEdges, 10000, (CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, size_t* numEdges), (hGraph, from, to, numEdges)) \
    X(cuGraphGetEdges_v2, cuGraphGetEdges, 12030, (CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* edgeData, size_t* numEdges), (hGraph, from, to, edgeData, numEdges)) \
    X(cuGraphNodeGetDependencies, cuGraphNodeGetDependencies, 10000, (CUgraphNode hNode, CUgraphNode* dependencies, size_t* numDependencies), (hNode, dependencies, numDependencies)) \
    X(cuGraphNodeGetDependencies_v2, cuGraphNodeGetDependencies, 12030, (CUgraphNode hNode, CUgraphNode* dependencies, CUgraphEdgeData* edgeData, size_t* numDependencies), (hNode, dependencies, edgeData, numDependencies)) \
    X(cuGraphNodeGetDependentNodes, cuGraphNodeGetDependentNodes, 10000, (CUgraphNode hNode, CUgraphNode* dependentNodes, size_t* numDependentNodes), (hNode, dependentNodes, numDependentNodes)) \
    X(cuGraphNodeGetDependentNodes_v2, cuGraphNodeGetDependentNodes, 12030, (CUgraphNode hNode, CUgraphNode* dependentNodes, CUgraphEdgeData* edgeData, size_t* numDependentNodes), (hNode, dependentNodes, edgeData, numDependentNodes)) \
    X(cuGraphAddDependencies, cuGraphAddDependencies, 10000, (CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to, size_t numDependencies), (hGraph, from, to, numDependencies)) \
    X(cuGraphAddDependencies_v2, cuGraphAddDependencies, 12030, (CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to, const CUgraphEdgeData* edgeData, size_t numDependencies), (hGraph, from, to, edgeData, numDependencies)) \
    X(cuGraphRemoveDependencies, cuGraphRemoveDependencies, 10000, (CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to, size_t numDependencies), (hGraph, from, to, numDependencies)) \
    X(cuGraphRemoveDependencies_v2, cuGraphRemoveDependencies, 12030, (CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to, const CUgraphEdgeData* edgeData, size_t numDependencies), (hGraph, from, to, edgeData, numDependencies)) \
    X(cuGraphDestroyNode, cuGraphDestroyNode, 10000, (CUgraphNode hNode), (hNode)) \
    X(cuGraphNodeGetType, cuGraphNodeGetType, 10000, (CUgraphNode hNode, CUgraphNodeType* type), (hNode, type)) \
    X(cuGraphDebugDotPrint, cuGraphDebugDotPrint, 11030, (CUgraph hGraph, const char* path, unsigned int flags), (hGraph, path, flags)) \
    X(cuGraphInstantiate, cuGraphInstantiate, 10000, (CUgraphExec* phGraphExec, CUgraph hGraph, CUgraphNode* phErrorNode, char* logBuffer, size_t bufferSize), (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize)) \
    X(cuGraphInstantiate_v2, cuGraphInstantiate, 11000, (CUgraphExec* phGraphExec, CUgraph hGraph, CUgraphNode* phErrorNode, char* logBuffer, size_t bufferSize), (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize)) \
    X(cuGraphInstantiateWithFlags, cuGraphInstantiateWithFlags, 11040, (CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags), (phGraphExec, hGraph, flags)) \
    X(cuGraphInstantiateWithParams, cuGraphInstantiateWithParams, 12000, (CUgraphExec* phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS* instantiateParams), (phGraphExec, hGraph, instantiateParams)) \
    X(cuGraphExecGetFlags, cuGraphExecGetFlags, 12000, (CUgraphExec hGraphExec, cuuint64_t* flags), (hGraphExec, flags)) \
    X(cuGraphUpload, cuGraphUpload, 11010, (CUgraphExec hGraphExec, CUstream hStream), (hGraphExec, hStream)) \
    X(cuGraphLaunch, cuGraphLaunch, 10000, (CUgraphExec hGraphExec, CUstream hStream), (hGraphExec, hStream)) \
    X(cuGraphExecDestroy, cuGraphExecDestroy, 10000, (CUgraphExec hGraphExec), (hGraphExec)) \
    X(cuGraphExecKernelNodeSetParams, cuGraphExecKernelNodeSetParams, 10010, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1* nodeParams), (hGraphExec, hNode, nodeParams)) \
    X(cuGraphExecKernelNodeSetParams_v2, cuGraphExecKernelNodeSetParams, 12000, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS* nodeParams), (hGraphExec, hNode, nodeParams)) \
    X(cuGraphExecMemcpyNodeSetParams, cuGraphExecMemcpyNodeSetParams, 10020, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMCPY3D* copyParams, CUcontext ctx), (hGraphExec, hNode, copyParams, ctx)) \
    X(cuGraphExecMemsetNodeSetParams, cuGraphExecMemsetNodeSetParams, 10020, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext ctx), (hGraphExec, hNode, memsetParams, ctx)) \
    X(cuGraphExecHostNodeSetParams, cuGraphExecHostNodeSetParams, 10020, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS* nodeParams), (hGraphExec, hNode, nodeParams)) \
    X(cuGraphExecUpdate, cuGraphExecUpdate, 10020, (CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode* hErrorNode_out, CUgraphExecUpdateResult* updateResult_out), (hGraphExec, hGraph, hErrorNode_out, updateResult_out)) \
    X(cuGraphExecUpdate_v2, cuGraphExecUpdate, 12000, (CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo* resultInfo), (hGraphExec, hGraph, resultInfo)) \
    /* Stream-ordered memory pools */ \
    X(cuMemAllocFromPoolAsync, cuMemAllocFromPoolAsync, 11020, (CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream), (dptr, bytesize, pool, hStream)) \
    X(cuMemPoolCreate, cuMemPoolCreate, 11020, (CUmemoryPool* pool, const CUmemPoolProps* poolProps), (pool, poolProps)) \
    X(cuMemPoolDestroy, cuMemPoolDestroy, 11020, (CUmemoryPool pool), (pool)) \
    X(cuDeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool, 11020, (CUmemoryPool* pool_out, CUdevice dev), (pool_out, dev)) \
    X(cuDeviceGetMemPool, cuDeviceGetMemPool, 11020, (CUmemoryPool* pool, CUdevice dev), (pool, dev)) \
    X(cuDeviceSetMemPool, cuDeviceSetMemPool, 11020, (CUdevice dev, CUmemoryPool pool), (dev, pool)) \
    X(cuMemPoolSetAttribute, cuMemPoolSetAttribute, 11020, (CUmemoryPool pool, CUmemPool_attribute attr, void* value), (pool, attr, value)) \
    X(cuMemPoolGetAttribute, cuMemPoolGetAttribute, 11020, (CUmemoryPool pool, CUmemPool_attribute attr, void* value), (pool, attr, value)) \
    X(cuMemPoolTrimTo, cuMemPoolTrimTo, 11020, (CUmemoryPool pool, size_t minBytesToKeep), (pool, minBytesToKeep)) \
    X(cuMemPoolSetAccess, cuMemPoolSetAccess, 11020, (CUmemoryPool pool, const CUmemAccessDesc* map, size_t count), (pool, map, count)) \
    X(cuMemPoolGetAccess, cuMemPoolGetAccess, 11020, (CUmemAccess_flags* flags, CUmemoryPool memPool, CUmemLocation* location), (flags, memPool, location)) \
    /* Peers and interprocess handles (one device: no peers, no IPC) */ \
    X(cuCtxEnablePeerAccess, cuCtxEnablePeerAccess, 4000, (CUcontext peerContext, unsigned int Flags), (peerContext, Flags)) \
    X(cuCtxDisablePeerAccess, cuCtxDisablePeerAccess, 4000, (CUcontext peerContext), (peerContext)) \
    X(cuMemcpyPeer, cuMemcpyPeer, 4000, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount), (dstDevice, dstContext, srcDevice, srcContext, ByteCount)) \
    X(cuMemcpyPeerAsync, cuMemcpyPeerAsync, 4000, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream), (dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream)) \
    X(cuIpcGetMemHandle, cuIpcGetMemHandle, 4010, (CUipcMemHandle* pHandle, CUdeviceptr dptr), (pHandle, dptr)) \
    X(cuIpcOpenMemHandle, cuIpcOpenMemHandle, 4010, (CUdeviceptr* pdptr, CUipcMemHandle handle, unsigned int Flags), (pdptr, handle, Flags)) \
    X(cuIpcOpenMemHandle_v2, cuIpcOpenMemHandle, 11000, (CUdeviceptr* pdptr, CUipcMemHandle handle, unsigned int Flags), (pdptr, handle, Flags)) \
    X(cuIpcCloseMemHandle, cuIpcCloseMemHandle, 4010, (CUdeviceptr dptr), (dptr)) \
    X(cuIpcGetEventHandle, cuIpcGetEventHandle, 4010, (CUipcEventHandle* pHandle, CUevent event), (pHandle, event)) \
    X(cuIpcOpenEventHandle, cuIpcOpenEventHandle, 4010, (CUevent* phEvent, CUipcEventHandle handle), (phEvent, handle)) \
    /* Profiler (tools attach through it; no profiler runs under d4r's cpu backend) */ \
    X(cuProfilerStart, cuProfilerStart, 4000, (), ()) \
    X(cuProfilerStop, cuProfilerStop, 4000, (), ())

// Base names cuGetProcAddress maps, from a CUDA version on, to a function exported under another base
// name: D4R_CUDA_API_ALIASES(X) calls X(base, since, export) for each.
#define D4R_CUDA_API_ALIASES(X) \
    X(cuGraphInstantiate, 12000, cuGraphInstantiateWithFlags)
// clang-format on

#ifdef __cplusplus
namespace d4r::abi {
// PFN_cuX: the pointer type of each entry point (for dlsym and tables).
#define D4R_CUDA_PFN(exp, base, since, params, args) using PFN_##exp = CUresult(*) params;
D4R_CUDA_API(D4R_CUDA_PFN)
#undef D4R_CUDA_PFN
} // namespace d4r::abi
#endif
