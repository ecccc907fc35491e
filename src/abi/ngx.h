/* d4r ABI: the NGX API (NVIDIA's "Neural Graphics eXtensions" used by DLSS), declared by d4r from public
 * facts: exported names, parameter lists, numeric values and parameter-name strings as documented for
 * the DLSS SDK and as observable in the binaries that export them. No NVIDIA header is used or copied.
 *
 * Promise: a program written against NGX's CUDA API (NVSDK_NGX_CUDA_*) calls d4r's open NGX core
 * (libd4r_ngx.so / d4r_ngx.dll) through exactly these types and names, and d4r's shim implements a
 * parameter object that an MSVC-compiled game can call through its vtable (see NVSDK_NGX_Parameter).
 * In C the declarations are global; in C++ they live in `d4r::abi`, like abi/cuda.h.
 *
 * Only what d4r uses is declared. Enumerations list the members d4r reads or writes; the types stay
 * 32-bit, so values newer than d4r pass through unchanged. x86-64 only (there the Windows and System V
 * conventions each have a single calling convention, so NVSDK_CONV is empty). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
namespace d4r::abi {
extern "C" {
#define D4R_NGX_ENUM_U32 : unsigned int
#define D4R_NGX_ENUM_I32 : int
#else
#define D4R_NGX_ENUM_U32
#define D4R_NGX_ENUM_I32
#endif

/* ---- Results ------------------------------------------------------------------------------------- */

/* Every failure has the high 12 bits 0xBAD; the low bits say which. */
typedef enum NVSDK_NGX_Result D4R_NGX_ENUM_U32 {
    NVSDK_NGX_Result_Success = 0x1,
    NVSDK_NGX_Result_Fail = 0xBAD00000,
    NVSDK_NGX_Result_FAIL_FeatureNotSupported = 0xBAD00001,
    NVSDK_NGX_Result_FAIL_PlatformError = 0xBAD00002,
    NVSDK_NGX_Result_FAIL_FeatureAlreadyExists = 0xBAD00003,
    NVSDK_NGX_Result_FAIL_FeatureNotFound = 0xBAD00004,
    NVSDK_NGX_Result_FAIL_InvalidParameter = 0xBAD00005,
    NVSDK_NGX_Result_FAIL_ScratchBufferTooSmall = 0xBAD00006,
    NVSDK_NGX_Result_FAIL_NotInitialized = 0xBAD00007,
    NVSDK_NGX_Result_FAIL_UnsupportedInputFormat = 0xBAD00008,
    NVSDK_NGX_Result_FAIL_RWFlagMissing = 0xBAD00009,
    NVSDK_NGX_Result_FAIL_MissingInput = 0xBAD0000A,
    NVSDK_NGX_Result_FAIL_UnableToInitializeFeature = 0xBAD0000B,
    NVSDK_NGX_Result_FAIL_OutOfDate = 0xBAD0000C,
    NVSDK_NGX_Result_FAIL_OutOfGPUMemory = 0xBAD0000D,
    NVSDK_NGX_Result_FAIL_UnsupportedFormat = 0xBAD0000E,
    NVSDK_NGX_Result_FAIL_UnableToWriteToAppDataPath = 0xBAD0000F,
    NVSDK_NGX_Result_FAIL_UnsupportedParameter = 0xBAD00010,
    NVSDK_NGX_Result_FAIL_Denied = 0xBAD00011,
    NVSDK_NGX_Result_FAIL_NotImplemented = 0xBAD00012,
} NVSDK_NGX_Result;

#define NVSDK_NGX_FAILED(value) ((((unsigned int)(value)) & 0xFFF00000u) == 0xBAD00000u)
#define NVSDK_NGX_SUCCEED(value) (!NVSDK_NGX_FAILED(value))

/* ---- Versions, features, enumerations ------------------------------------------------------------- */

/* The SDK's API version passed to Init (0x15: logging callback and multi-GPU fields present). */
typedef enum NVSDK_NGX_Version D4R_NGX_ENUM_I32 { NVSDK_NGX_Version_API = 0x15 } NVSDK_NGX_Version;

typedef enum NVSDK_NGX_Feature D4R_NGX_ENUM_I32 {
    NVSDK_NGX_Feature_Reserved0 = 0,
    NVSDK_NGX_Feature_SuperSampling = 1, /* DLSS Super Resolution: the one feature d4r's core implements */
    NVSDK_NGX_Feature_InPainting = 2,
    NVSDK_NGX_Feature_ImageSuperResolution = 3,
    NVSDK_NGX_Feature_SlowMotion = 4,
    NVSDK_NGX_Feature_VideoSuperResolution = 5,
    NVSDK_NGX_Feature_ImageSignalProcessing = 9,
    NVSDK_NGX_Feature_DeepResolve = 10,
} NVSDK_NGX_Feature;

/* "PerfQualityValue": the quality mode a game picked (render scale per mode: see the optimal-settings
 * callback). */
typedef enum NVSDK_NGX_PerfQuality_Value D4R_NGX_ENUM_I32 {
    NVSDK_NGX_PerfQuality_Value_MaxPerf = 0,
    NVSDK_NGX_PerfQuality_Value_Balanced = 1,
    NVSDK_NGX_PerfQuality_Value_MaxQuality = 2,
    NVSDK_NGX_PerfQuality_Value_UltraPerformance = 3,
    NVSDK_NGX_PerfQuality_Value_UltraQuality = 4,
    NVSDK_NGX_PerfQuality_Value_DLAA = 5,
} NVSDK_NGX_PerfQuality_Value;

/* "DLSS.Feature.Create.Flags" (an int). */
typedef enum NVSDK_NGX_DLSS_Feature_Flags D4R_NGX_ENUM_U32 {
    NVSDK_NGX_DLSS_Feature_Flags_None = 0,
    NVSDK_NGX_DLSS_Feature_Flags_IsHDR = 1u << 0,         /* colour is linear HDR */
    NVSDK_NGX_DLSS_Feature_Flags_MVLowRes = 1u << 1,      /* motion vectors at render resolution */
    NVSDK_NGX_DLSS_Feature_Flags_MVJittered = 1u << 2,    /* motion vectors include the jitter difference */
    NVSDK_NGX_DLSS_Feature_Flags_DepthInverted = 1u << 3, /* 1 = near, 0 = far */
    NVSDK_NGX_DLSS_Feature_Flags_Reserved_0 = 1u << 4,
    NVSDK_NGX_DLSS_Feature_Flags_DoSharpening = 1u << 5,
    NVSDK_NGX_DLSS_Feature_Flags_AutoExposure = 1u << 6,
    NVSDK_NGX_DLSS_Feature_Flags_IsInvalid = 1u << 31,
} NVSDK_NGX_DLSS_Feature_Flags;

/* "DLSS.Hint.Render.Preset.*" values (an unsigned int; 0 = the default preset). */
typedef enum NVSDK_NGX_DLSS_Hint_Render_Preset D4R_NGX_ENUM_U32 {
    NVSDK_NGX_DLSS_Hint_Render_Preset_Default = 0,
    NVSDK_NGX_DLSS_Hint_Render_Preset_A = 1,
    NVSDK_NGX_DLSS_Hint_Render_Preset_B = 2,
    NVSDK_NGX_DLSS_Hint_Render_Preset_C = 3,
    NVSDK_NGX_DLSS_Hint_Render_Preset_D = 4,
    NVSDK_NGX_DLSS_Hint_Render_Preset_E = 5,
    NVSDK_NGX_DLSS_Hint_Render_Preset_F = 6,
} NVSDK_NGX_DLSS_Hint_Render_Preset;

typedef enum NVSDK_NGX_EngineType D4R_NGX_ENUM_I32 {
    NVSDK_NGX_ENGINE_TYPE_CUSTOM = 0,
    NVSDK_NGX_ENGINE_TYPE_UNREAL = 1,
    NVSDK_NGX_ENGINE_TYPE_UNITY = 2,
    NVSDK_NGX_ENGINE_TYPE_OMNIVERSE = 3,
} NVSDK_NGX_EngineType;

typedef enum NVSDK_NGX_Logging_Level D4R_NGX_ENUM_I32 {
    NVSDK_NGX_LOGGING_LEVEL_OFF = 0,
    NVSDK_NGX_LOGGING_LEVEL_ON = 1,
    NVSDK_NGX_LOGGING_LEVEL_VERBOSE = 2,
} NVSDK_NGX_Logging_Level;

/* ---- Handles and init structures ------------------------------------------------------------------ */

/* A created feature. The core owns the memory; the application passes the pointer back. */
typedef struct NVSDK_NGX_Handle {
    unsigned int Id;
} NVSDK_NGX_Handle;

typedef struct ID3D11Resource ID3D11Resource;
typedef struct ID3D12Resource ID3D12Resource;
typedef struct NVSDK_NGX_CUDADevice NVSDK_NGX_CUDADevice; /* opaque (Shutdown1) */
typedef struct NVSDK_NGX_FeatureCommonInfo_Internal NVSDK_NGX_FeatureCommonInfo_Internal;

typedef void (*NVSDK_NGX_AppLogCallback)(const char* message, NVSDK_NGX_Logging_Level loggingLevel,
                                         NVSDK_NGX_Feature sourceComponent);

typedef struct NVSDK_NGX_PathListInfo {
#ifdef _WIN32
    const wchar_t* const* Path; /* extra folders to search for feature DLLs */
#else
    const char* const* Path;
#endif
    unsigned int Length;
} NVSDK_NGX_PathListInfo;

typedef struct NGSDK_NGX_LoggingInfo { /* (sic: the SDK's spelling of the type name) */
    NVSDK_NGX_AppLogCallback LoggingCallback;
    NVSDK_NGX_Logging_Level MinimumLoggingLevel;
    bool DisableOtherLoggingSinks;
} NGSDK_NGX_LoggingInfo;

typedef struct NVSDK_NGX_FeatureCommonInfo {
    NVSDK_NGX_PathListInfo PathListInfo;
    NVSDK_NGX_FeatureCommonInfo_Internal* InternalData;
    NGSDK_NGX_LoggingInfo LoggingInfo; /* read only when the SDK version is 0x14 or later */
} NVSDK_NGX_FeatureCommonInfo;

/* ---- Feature discovery (GetFeatureRequirements) --------------------------------------------------- */

/* Which member of NVSDK_NGX_Application_Identifier's union is set. */
typedef enum NVSDK_NGX_Application_Identifier_Type D4R_NGX_ENUM_I32 {
    NVSDK_NGX_Application_Identifier_Type_Application_Id = 0,
    NVSDK_NGX_Application_Identifier_Type_Project_Id = 1,
} NVSDK_NGX_Application_Identifier_Type;

typedef struct NVSDK_NGX_ProjectIdDescription {
    const char* ProjectId;
    NVSDK_NGX_EngineType EngineType;
    const char* EngineVersion;
} NVSDK_NGX_ProjectIdDescription;

typedef struct NVSDK_NGX_Application_Identifier {
    NVSDK_NGX_Application_Identifier_Type IdentifierType;
    union {
        NVSDK_NGX_ProjectIdDescription ProjectDesc;
        unsigned long long ApplicationId;
    } v;
} NVSDK_NGX_Application_Identifier;

/* What a game asks about before it creates a feature. */
typedef struct NVSDK_NGX_FeatureDiscoveryInfo {
    NVSDK_NGX_Version SDKVersion;
    NVSDK_NGX_Feature FeatureID;
    NVSDK_NGX_Application_Identifier Identifier;
    const wchar_t* ApplicationDataPath;
    const NVSDK_NGX_FeatureCommonInfo* FeatureInfo;
} NVSDK_NGX_FeatureDiscoveryInfo;

/* FeatureRequirement.FeatureSupported: 0, or a bit set of the reasons a feature cannot run. */
typedef enum NVSDK_NGX_Feature_Support_Result D4R_NGX_ENUM_I32 {
    NVSDK_NGX_FeatureSupportResult_Supported = 0,
    NVSDK_NGX_FeatureSupportResult_CheckNotPresent = 1,
    NVSDK_NGX_FeatureSupportResult_DriverVersionUnsupported = 2,
    NVSDK_NGX_FeatureSupportResult_AdapterUnsupported = 4,
    NVSDK_NGX_FeatureSupportResult_OSVersionBelowMinimumSupported = 8,
    NVSDK_NGX_FeatureSupportResult_NotImplemented = 16,
} NVSDK_NGX_Feature_Support_Result;

/* The answer: whether the feature runs, the oldest GPU architecture it needs (an NVAPI architecture id)
 * and the oldest OS version it needs (a NUL-terminated string, "" when there is no minimum). */
typedef struct NVSDK_NGX_FeatureRequirement {
    NVSDK_NGX_Feature_Support_Result FeatureSupported;
    unsigned int MinHWArchitecture;
    char MinOSVersion[255];
} NVSDK_NGX_FeatureRequirement;

/* The x86-64 layouts as an MSVC-compiled game passes them; the same under the System V convention (no
 * wchar_t or long by value inside, pointers are 8 bytes in both), so the Linux and mingw builds check them. */
#ifdef __cplusplus
#define D4R_NGX_LAYOUT(expr) static_assert(expr, #expr)
#else
#define D4R_NGX_LAYOUT(expr) _Static_assert(expr, #expr)
#endif
D4R_NGX_LAYOUT(sizeof(NVSDK_NGX_ProjectIdDescription) == 24);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_ProjectIdDescription, EngineType) == 8);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_ProjectIdDescription, EngineVersion) == 16);
D4R_NGX_LAYOUT(sizeof(NVSDK_NGX_Application_Identifier) == 32);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_Application_Identifier, v) == 8);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_FeatureDiscoveryInfo, SDKVersion) == 0);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_FeatureDiscoveryInfo, FeatureID) == 4);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_FeatureDiscoveryInfo, Identifier) == 8);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_FeatureDiscoveryInfo, ApplicationDataPath) == 40);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_FeatureDiscoveryInfo, FeatureInfo) == 48);
D4R_NGX_LAYOUT(sizeof(NVSDK_NGX_FeatureDiscoveryInfo) == 56);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_FeatureRequirement, FeatureSupported) == 0);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_FeatureRequirement, MinHWArchitecture) == 4);
D4R_NGX_LAYOUT(offsetof(NVSDK_NGX_FeatureRequirement, MinOSVersion) == 8);
D4R_NGX_LAYOUT(sizeof(NVSDK_NGX_FeatureRequirement) == 264); /* 8 + 255, padded to 4 */
#undef D4R_NGX_LAYOUT

/* ---- The parameter object ------------------------------------------------------------------------- */

/* NGX's parameter map is a C++ object with one vtable pointer at offset 0. Its interface declares, in
 * this order, eight `Set(name, value)` overloads (unsigned long long, float, double, unsigned int, int,
 * ID3D11Resource*, ID3D12Resource*, void*), the eight matching `Get(name, value*) const` overloads, and
 * `Reset()`. The binary layout is the one MSVC gives that declaration: MSVC groups all overloads of one
 * name into consecutive slots at the position of the name's first declaration and lays each group out
 * in REVERSE declaration order (Microsoft KB Q131104, "Compiler Doesn't Lay Out Overloaded Functions in
 * Order"). GCC and Clang (Itanium ABI, also mingw) would use declaration order instead, so d4r never
 * lets a compiler lay this out: the table below is the layout, slot by slot, and every function in it
 * takes the object as its first argument (on x86-64 both Windows and System V pass `this` exactly like
 * a first pointer argument). Slots:
 *    0 Set void*                 8 Get void**
 *    1 Set ID3D12Resource*       9 Get ID3D12Resource**
 *    2 Set ID3D11Resource*      10 Get ID3D11Resource**
 *    3 Set int                  11 Get int*
 *    4 Set unsigned int         12 Get unsigned int*
 *    5 Set double               13 Get double*
 *    6 Set float                14 Get float*
 *    7 Set unsigned long long   15 Get unsigned long long*
 *                               16 Reset
 */
typedef struct NVSDK_NGX_Parameter NVSDK_NGX_Parameter;

typedef struct NVSDK_NGX_Parameter_Vtbl {
    void (*SetVoidPointer)(NVSDK_NGX_Parameter* self, const char* name, void* value);
    void (*SetD3d12Resource)(NVSDK_NGX_Parameter* self, const char* name, ID3D12Resource* value);
    void (*SetD3d11Resource)(NVSDK_NGX_Parameter* self, const char* name, ID3D11Resource* value);
    void (*SetI)(NVSDK_NGX_Parameter* self, const char* name, int value);
    void (*SetUI)(NVSDK_NGX_Parameter* self, const char* name, unsigned int value);
    void (*SetD)(NVSDK_NGX_Parameter* self, const char* name, double value);
    void (*SetF)(NVSDK_NGX_Parameter* self, const char* name, float value);
    void (*SetULL)(NVSDK_NGX_Parameter* self, const char* name, unsigned long long value);
    NVSDK_NGX_Result (*GetVoidPointer)(const NVSDK_NGX_Parameter* self, const char* name, void** value);
    NVSDK_NGX_Result (*GetD3d12Resource)(const NVSDK_NGX_Parameter* self, const char* name, ID3D12Resource** value);
    NVSDK_NGX_Result (*GetD3d11Resource)(const NVSDK_NGX_Parameter* self, const char* name, ID3D11Resource** value);
    NVSDK_NGX_Result (*GetI)(const NVSDK_NGX_Parameter* self, const char* name, int* value);
    NVSDK_NGX_Result (*GetUI)(const NVSDK_NGX_Parameter* self, const char* name, unsigned int* value);
    NVSDK_NGX_Result (*GetD)(const NVSDK_NGX_Parameter* self, const char* name, double* value);
    NVSDK_NGX_Result (*GetF)(const NVSDK_NGX_Parameter* self, const char* name, float* value);
    NVSDK_NGX_Result (*GetULL)(const NVSDK_NGX_Parameter* self, const char* name, unsigned long long* value);
    void (*Reset)(NVSDK_NGX_Parameter* self);
} NVSDK_NGX_Parameter_Vtbl;

#define D4R_NGX_PARAMETER_VTBL_SLOTS 17

struct NVSDK_NGX_Parameter {
    const NVSDK_NGX_Parameter_Vtbl* vtbl;
#ifdef __cplusplus
    /* The SDK's C++ spelling (`params->Set(name, value)`, `params->Get(name, &value)`), dispatched
     * through the explicit table; non-virtual, so they add nothing to the layout. */
    void Set(const char* n, unsigned long long v) { vtbl->SetULL(this, n, v); }
    void Set(const char* n, float v) { vtbl->SetF(this, n, v); }
    void Set(const char* n, double v) { vtbl->SetD(this, n, v); }
    void Set(const char* n, unsigned int v) { vtbl->SetUI(this, n, v); }
    void Set(const char* n, int v) { vtbl->SetI(this, n, v); }
    void Set(const char* n, ID3D11Resource* v) { vtbl->SetD3d11Resource(this, n, v); }
    void Set(const char* n, ID3D12Resource* v) { vtbl->SetD3d12Resource(this, n, v); }
    void Set(const char* n, void* v) { vtbl->SetVoidPointer(this, n, v); }
    NVSDK_NGX_Result Get(const char* n, unsigned long long* v) const { return vtbl->GetULL(this, n, v); }
    NVSDK_NGX_Result Get(const char* n, float* v) const { return vtbl->GetF(this, n, v); }
    NVSDK_NGX_Result Get(const char* n, double* v) const { return vtbl->GetD(this, n, v); }
    NVSDK_NGX_Result Get(const char* n, unsigned int* v) const { return vtbl->GetUI(this, n, v); }
    NVSDK_NGX_Result Get(const char* n, int* v) const { return vtbl->GetI(this, n, v); }
    NVSDK_NGX_Result Get(const char* n, ID3D11Resource** v) const { return vtbl->GetD3d11Resource(this, n, v); }
    NVSDK_NGX_Result Get(const char* n, ID3D12Resource** v) const { return vtbl->GetD3d12Resource(this, n, v); }
    NVSDK_NGX_Result Get(const char* n, void** v) const { return vtbl->GetVoidPointer(this, n, v); }
    void Reset() { vtbl->Reset(this); }
#endif
};

/* C accessors: each calls the matching slot of the object's table. */
void NVSDK_NGX_Parameter_SetULL(NVSDK_NGX_Parameter* InParameter, const char* InName, unsigned long long InValue);
void NVSDK_NGX_Parameter_SetF(NVSDK_NGX_Parameter* InParameter, const char* InName, float InValue);
void NVSDK_NGX_Parameter_SetD(NVSDK_NGX_Parameter* InParameter, const char* InName, double InValue);
void NVSDK_NGX_Parameter_SetUI(NVSDK_NGX_Parameter* InParameter, const char* InName, unsigned int InValue);
void NVSDK_NGX_Parameter_SetI(NVSDK_NGX_Parameter* InParameter, const char* InName, int InValue);
void NVSDK_NGX_Parameter_SetD3d11Resource(NVSDK_NGX_Parameter* InParameter, const char* InName,
                                          ID3D11Resource* InValue);
void NVSDK_NGX_Parameter_SetD3d12Resource(NVSDK_NGX_Parameter* InParameter, const char* InName,
                                          ID3D12Resource* InValue);
void NVSDK_NGX_Parameter_SetVoidPointer(NVSDK_NGX_Parameter* InParameter, const char* InName, void* InValue);
NVSDK_NGX_Result NVSDK_NGX_Parameter_GetULL(NVSDK_NGX_Parameter* InParameter, const char* InName,
                                            unsigned long long* OutValue);
NVSDK_NGX_Result NVSDK_NGX_Parameter_GetF(NVSDK_NGX_Parameter* InParameter, const char* InName, float* OutValue);
NVSDK_NGX_Result NVSDK_NGX_Parameter_GetD(NVSDK_NGX_Parameter* InParameter, const char* InName, double* OutValue);
NVSDK_NGX_Result NVSDK_NGX_Parameter_GetUI(NVSDK_NGX_Parameter* InParameter, const char* InName,
                                           unsigned int* OutValue);
NVSDK_NGX_Result NVSDK_NGX_Parameter_GetI(NVSDK_NGX_Parameter* InParameter, const char* InName, int* OutValue);
NVSDK_NGX_Result NVSDK_NGX_Parameter_GetD3d11Resource(NVSDK_NGX_Parameter* InParameter, const char* InName,
                                                      ID3D11Resource** OutValue);
NVSDK_NGX_Result NVSDK_NGX_Parameter_GetD3d12Resource(NVSDK_NGX_Parameter* InParameter, const char* InName,
                                                      ID3D12Resource** OutValue);
NVSDK_NGX_Result NVSDK_NGX_Parameter_GetVoidPointer(NVSDK_NGX_Parameter* InParameter, const char* InName,
                                                    void** OutValue);

/* Stored in capability parameters as void* under NVSDK_NGX_Parameter_DLSSOptimalSettingsCallback: reads
 * Width/Height (output size) and PerfQualityValue, writes OutWidth/OutHeight (render size), Sharpness and
 * the DLSS.Get.Dynamic.{Min,Max}.Render.{Width,Height} bounds. */
typedef NVSDK_NGX_Result (*PFN_NVSDK_NGX_DLSS_GetOptimalSettingsCallback)(NVSDK_NGX_Parameter* InParams);
/* Under NVSDK_NGX_Parameter_DLSSGetStatsCallback: writes SizeInBytes (the feature's memory estimate). */
typedef NVSDK_NGX_Result (*PFN_NVSDK_NGX_DLSS_GetStatsCallback)(NVSDK_NGX_Parameter* InParams);

/* ---- Parameter names ------------------------------------------------------------------------------ */

/* Capabilities (GetCapabilityParameters / GetParameters). */
#define NVSDK_NGX_Parameter_SuperSampling_Available "SuperSampling.Available"
#define NVSDK_NGX_Parameter_SuperSampling_NeedsUpdatedDriver "SuperSampling.NeedsUpdatedDriver"
#define NVSDK_NGX_Parameter_SuperSampling_MinDriverVersionMajor "SuperSampling.MinDriverVersionMajor"
#define NVSDK_NGX_Parameter_SuperSampling_MinDriverVersionMinor "SuperSampling.MinDriverVersionMinor"
#define NVSDK_NGX_Parameter_SuperSampling_FeatureInitResult "SuperSampling.FeatureInitResult"
#define NVSDK_NGX_Parameter_SuperSampling_ScaleFactor "SuperSampling.ScaleFactor"
#define NVSDK_NGX_Parameter_DLSSOptimalSettingsCallback "DLSSOptimalSettingsCallback"
#define NVSDK_NGX_Parameter_DLSSGetStatsCallback "DLSSGetStatsCallback"
#define NVSDK_NGX_Parameter_SizeInBytes "SizeInBytes"
#define NVSDK_NGX_Parameter_Scale "Scale"
#define NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Max_Render_Width "DLSS.Get.Dynamic.Max.Render.Width"
#define NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Max_Render_Height "DLSS.Get.Dynamic.Max.Render.Height"
#define NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Min_Render_Width "DLSS.Get.Dynamic.Min.Render.Width"
#define NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Min_Render_Height "DLSS.Get.Dynamic.Min.Render.Height"

/* Create (CreateFeature). */
#define NVSDK_NGX_Parameter_Width "Width"
#define NVSDK_NGX_Parameter_Height "Height"
#define NVSDK_NGX_Parameter_OutWidth "OutWidth"
#define NVSDK_NGX_Parameter_OutHeight "OutHeight"
#define NVSDK_NGX_Parameter_PerfQualityValue "PerfQualityValue"
#define NVSDK_NGX_Parameter_DLSS_Feature_Create_Flags "DLSS.Feature.Create.Flags"
#define NVSDK_NGX_Parameter_DLSS_Enable_Output_Subrects "DLSS.Enable.Output.Subrects"
#define NVSDK_NGX_Parameter_CreationNodeMask "CreationNodeMask"
#define NVSDK_NGX_Parameter_VisibilityNodeMask "VisibilityNodeMask"
#define NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_DLAA "DLSS.Hint.Render.Preset.DLAA"
#define NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Quality "DLSS.Hint.Render.Preset.Quality"
#define NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Balanced "DLSS.Hint.Render.Preset.Balanced"
#define NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_Performance "DLSS.Hint.Render.Preset.Performance"
#define NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_UltraPerformance "DLSS.Hint.Render.Preset.UltraPerformance"
#define NVSDK_NGX_Parameter_DLSS_Hint_Render_Preset_UltraQuality "DLSS.Hint.Render.Preset.UltraQuality"

/* Evaluate (EvaluateFeature). On the CUDA API the resources are void* holding a CUdeviceptr. */
#define NVSDK_NGX_Parameter_Color "Color"
#define NVSDK_NGX_Parameter_Depth "Depth"
#define NVSDK_NGX_Parameter_MotionVectors "MotionVectors"
#define NVSDK_NGX_Parameter_Output "Output"
#define NVSDK_NGX_Parameter_ExposureTexture "ExposureTexture" /* 1x1, the exposure the game applies */
#define NVSDK_NGX_Parameter_Jitter_Offset_X "Jitter.Offset.X"
#define NVSDK_NGX_Parameter_Jitter_Offset_Y "Jitter.Offset.Y"
#define NVSDK_NGX_Parameter_MV_Scale_X "MV.Scale.X"
#define NVSDK_NGX_Parameter_MV_Scale_Y "MV.Scale.Y"
#define NVSDK_NGX_Parameter_Sharpness "Sharpness"
#define NVSDK_NGX_Parameter_Reset "Reset"
#define NVSDK_NGX_Parameter_DLSS_Pre_Exposure "DLSS.Pre.Exposure"
#define NVSDK_NGX_Parameter_DLSS_Exposure_Scale "DLSS.Exposure.Scale"
#define NVSDK_NGX_Parameter_FrameTimeDeltaInMsec "FrameTimeDeltaInMsec"
#define NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Width "DLSS.Render.Subrect.Dimensions.Width"
#define NVSDK_NGX_Parameter_DLSS_Render_Subrect_Dimensions_Height "DLSS.Render.Subrect.Dimensions.Height"
#define NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_X "DLSS.Input.Color.Subrect.Base.X"
#define NVSDK_NGX_Parameter_DLSS_Input_Color_Subrect_Base_Y "DLSS.Input.Color.Subrect.Base.Y"
#define NVSDK_NGX_Parameter_DLSS_Input_Depth_Subrect_Base_X "DLSS.Input.Depth.Subrect.Base.X"
#define NVSDK_NGX_Parameter_DLSS_Input_Depth_Subrect_Base_Y "DLSS.Input.Depth.Subrect.Base.Y"
#define NVSDK_NGX_Parameter_DLSS_Input_MV_SubrectBase_X "DLSS.Input.MV.Subrect.Base.X"
#define NVSDK_NGX_Parameter_DLSS_Input_MV_SubrectBase_Y "DLSS.Input.MV.Subrect.Base.Y"
#define NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_X "DLSS.Output.Subrect.Base.X"
#define NVSDK_NGX_Parameter_DLSS_Output_Subrect_Base_Y "DLSS.Output.Subrect.Base.Y"

/* d4r's own evaluate parameters (not NGX's): row pitch in bytes of the linear CUDA buffers. 0 or absent
 * means the core's default: rows as wide as the feature's created size (see upscaler/pipeline.h). */
#define D4R_NGX_Parameter_Color_Pitch "D4R.Color.Pitch"
#define D4R_NGX_Parameter_Depth_Pitch "D4R.Depth.Pitch"
#define D4R_NGX_Parameter_MotionVectors_Pitch "D4R.MotionVectors.Pitch"
#define D4R_NGX_Parameter_Output_Pitch "D4R.Output.Pitch"

/* d4r's own create parameter: 0 creates the feature without the refinement network even when its model is
 * loaded (the demo's baseline); absent or non-zero follows D4R_NETWORK. */
#define D4R_NGX_Parameter_Network "D4R.Network"

/* ---- The CUDA entry points ------------------------------------------------------------------------ */

/* Two spellings of NVSDK_NGX_CUDA_Init exist with the same exported name: the SDK's
 * (InApplicationId, InApplicationDataPath, InFeatureInfo, InSDKVersion) and the NGX core DLL's
 * (InApplicationId, InApplicationDataPath, InSDKVersion). d4r's core accepts both: a third argument
 * in 1..0xFFFF is a version, never a pointer. */
NVSDK_NGX_Result NVSDK_NGX_CUDA_Init(unsigned long long InApplicationId, const wchar_t* InApplicationDataPath,
                                     const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo, NVSDK_NGX_Version InSDKVersion);
NVSDK_NGX_Result NVSDK_NGX_CUDA_Init_Ext(unsigned long long InApplicationId, const wchar_t* InApplicationDataPath,
                                         NVSDK_NGX_Version InSDKVersion,
                                         const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo);
NVSDK_NGX_Result NVSDK_NGX_CUDA_Init_ProjectID(const char* InProjectId, NVSDK_NGX_EngineType InEngineType,
                                               const char* InEngineVersion, const wchar_t* InApplicationDataPath,
                                               NVSDK_NGX_Version InSDKVersion,
                                               const NVSDK_NGX_FeatureCommonInfo* InFeatureInfo);
NVSDK_NGX_Result NVSDK_NGX_CUDA_Shutdown(void);
/* Shutdown1(NULL) = Shutdown(); the CUDA core has a single device, so any device shuts it down. */
NVSDK_NGX_Result NVSDK_NGX_CUDA_Shutdown1(NVSDK_NGX_CUDADevice* InDevice);

/* GetParameters: a map owned by the core (pre-filled with capabilities; never destroyed by the caller).
 * AllocateParameters: an empty map. GetCapabilityParameters: a new map pre-filled with capabilities.
 * The last two are freed with DestroyParameters. */
NVSDK_NGX_Result NVSDK_NGX_CUDA_GetParameters(NVSDK_NGX_Parameter** OutParameters);
NVSDK_NGX_Result NVSDK_NGX_CUDA_AllocateParameters(NVSDK_NGX_Parameter** OutParameters);
NVSDK_NGX_Result NVSDK_NGX_CUDA_GetCapabilityParameters(NVSDK_NGX_Parameter** OutParameters);
NVSDK_NGX_Result NVSDK_NGX_CUDA_DestroyParameters(NVSDK_NGX_Parameter* InParameters);
NVSDK_NGX_Result NVSDK_NGX_CUDA_GetScratchBufferSize(NVSDK_NGX_Feature InFeatureId,
                                                     const NVSDK_NGX_Parameter* InParameters, size_t* OutSizeInBytes);
NVSDK_NGX_Result NVSDK_NGX_CUDA_CreateFeature(NVSDK_NGX_Feature InFeatureID, const NVSDK_NGX_Parameter* InParameters,
                                              NVSDK_NGX_Handle** OutHandle);
NVSDK_NGX_Result NVSDK_NGX_CUDA_ReleaseFeature(NVSDK_NGX_Handle* InHandle);

/* Progress callbacks (d4r's core evaluates in one step and never calls them). The C++ one takes the
 * cancel flag by reference, which is a pointer in the ABI. */
#ifdef __cplusplus
typedef void (*PFN_NVSDK_NGX_ProgressCallback)(float InCurrentProgress, bool& OutShouldCancel);
#else
typedef void (*PFN_NVSDK_NGX_ProgressCallback)(float InCurrentProgress, bool* OutShouldCancel);
#endif
typedef void (*PFN_NVSDK_NGX_ProgressCallback_C)(float InCurrentProgress, bool* OutShouldCancel);

/* Enqueues the evaluation on the legacy default stream (0) of the calling thread's current CUDA context
 * (or the feature's context when none is current) and returns without waiting for it. */
NVSDK_NGX_Result NVSDK_NGX_CUDA_EvaluateFeature(const NVSDK_NGX_Handle* InFeatureHandle,
                                                const NVSDK_NGX_Parameter* InParameters,
                                                PFN_NVSDK_NGX_ProgressCallback InCallback);
NVSDK_NGX_Result NVSDK_NGX_CUDA_EvaluateFeature_C(const NVSDK_NGX_Handle* InFeatureHandle,
                                                  const NVSDK_NGX_Parameter* InParameters,
                                                  PFN_NVSDK_NGX_ProgressCallback_C InCallback);

#ifdef __cplusplus
} /* extern "C" */
} /* namespace d4r::abi */
#endif

#undef D4R_NGX_ENUM_U32
#undef D4R_NGX_ENUM_I32
