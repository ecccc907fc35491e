// NGX parameter maps: the store, the conversion rules and the object's MSVC-ordered table.
#include "upscaler/ngx/parameters.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/log.h"

namespace d4r::upscaler::ngx {

using namespace abi;

const char* value_type_name(ValueType type) {
    switch (type) {
    case ValueType::ULL:
        return "unsigned long long";
    case ValueType::Float:
        return "float";
    case ValueType::Double:
        return "double";
    case ValueType::UInt:
        return "unsigned int";
    case ValueType::Int:
        return "int";
    case ValueType::D3D11:
        return "ID3D11Resource*";
    case ValueType::D3D12:
        return "ID3D12Resource*";
    case ValueType::Pointer:
        return "void*";
    }
    return "?";
}

void ParameterStore::set(const char* name, Value value) {
    if (name == nullptr) return;
    m_values[name] = value;
}

const Value* ParameterStore::find(const char* name) const {
    if (name == nullptr) return nullptr;
    auto it = m_values.find(name);
    return it == m_values.end() ? nullptr : &it->second;
}

namespace {

bool is_pointer(ValueType t) { return t == ValueType::Pointer || t == ValueType::D3D11 || t == ValueType::D3D12; }

// Floating to integer without undefined behaviour: NaN is 0, out-of-range values clamp.
template <typename I>
I clamp_to(double v) {
    if (std::isnan(v)) return 0;
    constexpr double lo = static_cast<double>(std::numeric_limits<I>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<I>::max());
    if (v <= lo) return std::numeric_limits<I>::lowest();
    if (v >= hi) return std::numeric_limits<I>::max();
    return static_cast<I>(v);
}

template <typename T>
T number_as(const Value& v) {
    if constexpr (std::is_floating_point_v<T>) {
        switch (v.type) {
        case ValueType::ULL:
            return static_cast<T>(v.ull);
        case ValueType::Float:
            return static_cast<T>(v.f);
        case ValueType::Double:
            return static_cast<T>(v.d);
        case ValueType::UInt:
            return static_cast<T>(v.ui);
        default:
            return static_cast<T>(v.i);
        }
    } else {
        switch (v.type) {
        case ValueType::ULL:
            return static_cast<T>(v.ull);
        case ValueType::Float:
            return clamp_to<T>(v.f);
        case ValueType::Double:
            return clamp_to<T>(v.d);
        case ValueType::UInt:
            return static_cast<T>(v.ui);
        default:
            return static_cast<T>(v.i);
        }
    }
}

} // namespace

template <typename T>
std::optional<T> convert(const Value& v) {
    if constexpr (std::is_pointer_v<T>) {
        if (is_pointer(v.type)) return static_cast<T>(v.p);
        if (v.type == ValueType::ULL) return reinterpret_cast<T>(static_cast<uintptr_t>(v.ull));
        return std::nullopt;
    } else {
        if (is_pointer(v.type)) {
            if constexpr (std::is_same_v<T, unsigned long long>) return reinterpret_cast<uintptr_t>(v.p);
            return std::nullopt;
        }
        return number_as<T>(v);
    }
}

template <typename T>
std::optional<T> ParameterStore::get(const char* name) const {
    const Value* v = find(name);
    if (v == nullptr) return std::nullopt;
    return convert<T>(*v);
}

#define D4R_NGX_INSTANTIATE(T)                          \
    template std::optional<T> convert<T>(const Value&); \
    template std::optional<T> ParameterStore::get<T>(const char*) const;
D4R_NGX_INSTANTIATE(unsigned long long)
D4R_NGX_INSTANTIATE(float)
D4R_NGX_INSTANTIATE(double)
D4R_NGX_INSTANTIATE(unsigned int)
D4R_NGX_INSTANTIATE(int)
D4R_NGX_INSTANTIATE(void*)
D4R_NGX_INSTANTIATE(ID3D11Resource*)
D4R_NGX_INSTANTIATE(ID3D12Resource*)
#undef D4R_NGX_INSTANTIATE

namespace {

ParameterStore& store_of(NVSDK_NGX_Parameter* self) { return static_cast<ParameterObject*>(self)->store; }
const ParameterStore& store_of(const NVSDK_NGX_Parameter* self) {
    return static_cast<const ParameterObject*>(self)->store;
}

template <typename T>
Value make_value(ValueType type, T x) {
    Value v;
    v.type = type;
    if constexpr (std::is_pointer_v<T>)
        v.p = static_cast<void*>(x);
    else if constexpr (std::is_same_v<T, unsigned long long>)
        v.ull = x;
    else if constexpr (std::is_same_v<T, float>)
        v.f = x;
    else if constexpr (std::is_same_v<T, double>)
        v.d = x;
    else if constexpr (std::is_same_v<T, unsigned int>)
        v.ui = x;
    else
        v.i = x;
    return v;
}

bool retired(const NVSDK_NGX_Parameter* self) {
    if (!static_cast<const ParameterObject*>(self)->retired.load(std::memory_order_acquire)) return false;
    if (log::once("ngx.parameters.retired"))
        log::debug("ngx: a parameter map from GetParameters is used after Shutdown: Set is ignored, Get answers "
                   "FAIL_NotInitialized");
    return true;
}

template <typename T, ValueType Type>
void set_slot(NVSDK_NGX_Parameter* self, const char* name, T value) {
    if (self == nullptr || retired(self)) return;
    store_of(self).set(name, make_value(Type, value));
}

template <typename T>
NVSDK_NGX_Result get_slot(const NVSDK_NGX_Parameter* self, const char* name, T* out) {
    if (self == nullptr || out == nullptr) return NVSDK_NGX_Result_Fail;
    if (retired(self)) return NVSDK_NGX_Result_FAIL_NotInitialized;
    auto value = store_of(self).get<T>(name);
    if (!value) return NVSDK_NGX_Result_Fail;
    *out = *value;
    return NVSDK_NGX_Result_Success;
}

void reset_slot(NVSDK_NGX_Parameter* self) {
    if (self != nullptr && !retired(self)) store_of(self).clear();
}

// Slot order per abi/ngx.h: each overload group in reverse declaration order.
const NVSDK_NGX_Parameter_Vtbl kVtbl = {
    set_slot<void*, ValueType::Pointer>,
    set_slot<ID3D12Resource*, ValueType::D3D12>,
    set_slot<ID3D11Resource*, ValueType::D3D11>,
    set_slot<int, ValueType::Int>,
    set_slot<unsigned int, ValueType::UInt>,
    set_slot<double, ValueType::Double>,
    set_slot<float, ValueType::Float>,
    set_slot<unsigned long long, ValueType::ULL>,
    get_slot<void*>,
    get_slot<ID3D12Resource*>,
    get_slot<ID3D11Resource*>,
    get_slot<int>,
    get_slot<unsigned int>,
    get_slot<double>,
    get_slot<float>,
    get_slot<unsigned long long>,
    reset_slot,
};

static_assert(sizeof(NVSDK_NGX_Parameter_Vtbl) == D4R_NGX_PARAMETER_VTBL_SLOTS * sizeof(void*));

} // namespace

ParameterObject::ParameterObject() { vtbl = &kVtbl; }

const NVSDK_NGX_Parameter_Vtbl& parameter_vtbl() { return kVtbl; }

void set_capabilities(NVSDK_NGX_Parameter& p) {
    p.Set(NVSDK_NGX_Parameter_SuperSampling_Available, 1);
    p.Set(NVSDK_NGX_Parameter_SuperSampling_NeedsUpdatedDriver, 0);
    p.Set(NVSDK_NGX_Parameter_SuperSampling_MinDriverVersionMajor, 0);
    p.Set(NVSDK_NGX_Parameter_SuperSampling_MinDriverVersionMinor, 0);
    p.Set(NVSDK_NGX_Parameter_SuperSampling_FeatureInitResult, static_cast<int>(NVSDK_NGX_Result_Success));
    p.Set(NVSDK_NGX_Parameter_DLSSOptimalSettingsCallback, reinterpret_cast<void*>(&optimal_settings_callback));
    p.Set(NVSDK_NGX_Parameter_DLSSGetStatsCallback, reinterpret_cast<void*>(&stats_callback));
}

namespace {

float render_scale(int quality) {
    switch (quality) {
    case NVSDK_NGX_PerfQuality_Value_UltraPerformance:
        return 1.0f / 3.0f;
    case NVSDK_NGX_PerfQuality_Value_MaxPerf:
        return 0.5f;
    case NVSDK_NGX_PerfQuality_Value_Balanced:
        return 0.58f;
    case NVSDK_NGX_PerfQuality_Value_MaxQuality:
        return 2.0f / 3.0f;
    case NVSDK_NGX_PerfQuality_Value_UltraQuality:
        return 0.77f;
    case NVSDK_NGX_PerfQuality_Value_DLAA:
        return 1.0f;
    default:
        return 0.0f;
    }
}

unsigned int scaled(unsigned int size, float scale) {
    auto v = static_cast<unsigned int>(std::lround(static_cast<double>(size) * scale));
    return v == 0 ? 1 : v;
}

} // namespace

NVSDK_NGX_Result optimal_settings_callback(NVSDK_NGX_Parameter* params) {
    if (params == nullptr) return NVSDK_NGX_Result_FAIL_InvalidParameter;
    unsigned int width = 0, height = 0;
    int quality = 0;
    if (params->Get(NVSDK_NGX_Parameter_Width, &width) != NVSDK_NGX_Result_Success ||
        params->Get(NVSDK_NGX_Parameter_Height, &height) != NVSDK_NGX_Result_Success || width == 0 || height == 0)
        return NVSDK_NGX_Result_FAIL_InvalidParameter;
    if (params->Get(NVSDK_NGX_Parameter_PerfQualityValue, &quality) != NVSDK_NGX_Result_Success)
        quality = NVSDK_NGX_PerfQuality_Value_MaxQuality;
    float scale = render_scale(quality);
    if (scale == 0.0f) return NVSDK_NGX_Result_FAIL_UnsupportedParameter;
    params->Set(NVSDK_NGX_Parameter_OutWidth, scaled(width, scale));
    params->Set(NVSDK_NGX_Parameter_OutHeight, scaled(height, scale));
    params->Set(NVSDK_NGX_Parameter_Sharpness, 0.0f);
    params->Set(NVSDK_NGX_Parameter_Scale, scale);
    params->Set(NVSDK_NGX_Parameter_SuperSampling_ScaleFactor, scale);
    // Dynamic resolution: anything from a third of the output up to the output size itself.
    params->Set(NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Min_Render_Width, scaled(width, 1.0f / 3.0f));
    params->Set(NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Min_Render_Height, scaled(height, 1.0f / 3.0f));
    params->Set(NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Max_Render_Width, width);
    params->Set(NVSDK_NGX_Parameter_DLSS_Get_Dynamic_Max_Render_Height, height);
    return NVSDK_NGX_Result_Success;
}

NVSDK_NGX_Result stats_callback(NVSDK_NGX_Parameter* params) {
    if (params == nullptr) return NVSDK_NGX_Result_FAIL_InvalidParameter;
    unsigned int width = 0, height = 0;
    (void)params->Get(NVSDK_NGX_Parameter_OutWidth, &width);
    (void)params->Get(NVSDK_NGX_Parameter_OutHeight, &height);
    // Two float4 history buffers at output size dominate the feature's memory.
    params->Set(NVSDK_NGX_Parameter_SizeInBytes, 2ull * 16ull * width * height);
    return NVSDK_NGX_Result_Success;
}

} // namespace d4r::upscaler::ngx
