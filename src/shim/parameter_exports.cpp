// NGX's C accessors of the parameter object (NVSDK_NGX_Parameter_SetUI, ..._GetVoidPointer, ...), exported by the
// shim for every graphics API. They go through the object's table (abi/ngx.h), so they work on any parameter object;
// null arguments are refused (a getter answers NVSDK_NGX_Result_Fail, a setter does nothing).
#include "shim/entry.h"

using namespace d4r::abi;

extern "C" {

#define D4R_SHIM_SETTER(Suffix, Type)                                                                                  \
    D4R_SHIM_EXPORT void NVSDK_NGX_Parameter_Set##Suffix(NVSDK_NGX_Parameter* InParameter, const char* InName,         \
                                                         Type InValue) {                                               \
        if (InParameter != nullptr && InName != nullptr) InParameter->vtbl->Set##Suffix(InParameter, InName, InValue); \
    }
#define D4R_SHIM_GETTER(Suffix, Type)                                                                         \
    D4R_SHIM_EXPORT NVSDK_NGX_Result NVSDK_NGX_Parameter_Get##Suffix(NVSDK_NGX_Parameter* InParameter,        \
                                                                     const char* InName, Type* OutValue) {    \
        if (InParameter == nullptr || InName == nullptr || OutValue == nullptr) return NVSDK_NGX_Result_Fail; \
        return InParameter->vtbl->Get##Suffix(InParameter, InName, OutValue);                                 \
    }

D4R_SHIM_SETTER(ULL, unsigned long long)
D4R_SHIM_SETTER(F, float)
D4R_SHIM_SETTER(D, double)
D4R_SHIM_SETTER(UI, unsigned int)
D4R_SHIM_SETTER(I, int)
D4R_SHIM_SETTER(D3d11Resource, ID3D11Resource*)
D4R_SHIM_SETTER(D3d12Resource, ID3D12Resource*)
D4R_SHIM_SETTER(VoidPointer, void*)
D4R_SHIM_GETTER(ULL, unsigned long long)
D4R_SHIM_GETTER(F, float)
D4R_SHIM_GETTER(D, double)
D4R_SHIM_GETTER(UI, unsigned int)
D4R_SHIM_GETTER(I, int)
D4R_SHIM_GETTER(D3d11Resource, ID3D11Resource*)
D4R_SHIM_GETTER(D3d12Resource, ID3D12Resource*)
D4R_SHIM_GETTER(VoidPointer, void*)

} // extern "C"
