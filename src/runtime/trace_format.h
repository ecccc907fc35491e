// libd4rcuda internals: the text of one D4R_CUDA_TRACE line (trace.cpp), e.g.
//   CUDA_TRACE cuMemAlloc_v2(dptr=0x7ffd5c3a1e28, bytesize=4096) = CUDA_SUCCESS
//
// Promise: each argument is first reduced to a TraceArg (what kind of value it is, and the value), so the
// formatting is one function compiled once, however many signatures the API has. How each kind prints:
// C strings quoted (at most 256 bytes; NULL), export-table ids (const CUuuid*) as their 16 bytes, other
// pointers in hex (NULL), unsigned long long in hex (CUdeviceptr, texture and surface objects), enums and
// other integers in decimal, floating point as fmt prints it, structures and unions passed by value as
// their size ("{16 bytes}").
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include "abi/cuda.h"

namespace d4r::runtime {

struct TraceArg {
    enum class Kind : unsigned char { String, Uuid, Pointer, Hex, Signed, Unsigned, Bool, Float, Double, Bytes };
    Kind kind = Kind::Bytes;
    const void* pointer = nullptr; // String, Uuid, Pointer
    unsigned long long u = 0;      // Hex, Unsigned, Bool, Bytes (the size)
    long long i = 0;               // Signed (enums too)
    double d = 0;                  // Float, Double
};

template <typename T>
TraceArg trace_arg(const T& v) {
    using K = TraceArg::Kind;
    TraceArg a;
    if constexpr (std::is_same_v<T, const char*> || std::is_same_v<T, char*>) {
        a.kind = K::String;
        a.pointer = v;
    } else if constexpr (std::is_same_v<T, const abi::CUuuid*>) {
        a.kind = K::Uuid;
        a.pointer = v;
    } else if constexpr (std::is_pointer_v<T>) {
        a.kind = K::Pointer;
        a.pointer = reinterpret_cast<const void*>(v);
    } else if constexpr (std::is_same_v<T, unsigned long long>) {
        a.kind = K::Hex;
        a.u = v;
    } else if constexpr (std::is_same_v<T, bool>) {
        a.kind = K::Bool;
        a.u = v;
    } else if constexpr (std::is_enum_v<T>) {
        a.kind = K::Signed;
        a.i = static_cast<long long>(v);
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        a.kind = K::Signed;
        a.i = v;
    } else if constexpr (std::is_integral_v<T>) {
        a.kind = K::Unsigned;
        a.u = v;
    } else if constexpr (std::is_same_v<T, float>) {
        a.kind = K::Float;
        a.d = v;
    } else if constexpr (std::is_floating_point_v<T>) {
        a.kind = K::Double;
        a.d = static_cast<double>(v);
    } else {
        static_assert(std::is_class_v<T> || std::is_union_v<T>, "trace_arg: a parameter type of no known kind");
        a.kind = K::Bytes;
        a.u = sizeof(T);
    }
    return a;
}

template <typename... T>
std::array<TraceArg, sizeof...(T)> trace_args(const T&... v) {
    return {trace_arg(v)...};
}

// "CUDA_TRACE FUNCTION(name=value, ...) = RESULT". NAMES is the stringised argument list "(a, b, c)"
// whose COUNT names go with ARGS in order.
std::string format_trace_call(const char* function, const char* names, abi::CUresult result, const TraceArg* args,
                              size_t count);

} // namespace d4r::runtime
