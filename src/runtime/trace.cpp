// D4R_CUDA_TRACE=1: one line per driver API call with its arguments and result (docs/runtime.md, "Observability"):
//   CUDA_TRACE cuMemAlloc_v2(dptr=0x7ffd5c3a1e28, bytesize=4096) = CUDA_SUCCESS
// A refused call also shows the reason its refusal gave (refusal.h):
//   CUDA_TRACE cuLinkAddData_v2(...) = CUDA_ERROR_NO_BINARY_FOR_GPU (cpu backend: cuLinkAddData: k.cubin: ...)
// Pointers and device addresses are hex, sizes and enums decimal, C strings quoted (the ones that are
// names: module file, function and global names, cuGetProcAddress symbols).
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>

#include "core/log.h"
#include "runtime/export_tables/export_table_ids.h"
#include "runtime/refusal.h"
#include "runtime/runtime.h"

namespace d4r::runtime {

namespace {

struct TraceState final : LayerState {
    const ApiTable* inner = nullptr;
};

const ApiTable& inner() { return *Runtime::current()->layer<TraceState>(LayerSlot::Trace)->inner; }

template <typename T>
void append_value(std::string& out, const T& v) {
    if constexpr (std::is_same_v<T, const char*> || std::is_same_v<T, char*>) {
        if (!v)
            out += "NULL";
        else
            out += fmt::format("\"{}\"", std::string_view(v, strnlen(v, 256)));
    } else if constexpr (std::is_same_v<T, const CUuuid*>) {
        out += v ? format_uuid(*v) : "NULL"; // export-table ids: their 16 bytes, not the pointer
    } else if constexpr (std::is_pointer_v<T>) {
        if (!v)
            out += "NULL";
        else
            out += fmt::format("{}", reinterpret_cast<const void*>(v));
    } else if constexpr (std::is_same_v<T, unsigned long long>) {
        out += fmt::format("0x{:x}", v); // CUdeviceptr, texture and surface objects
    } else if constexpr (std::is_enum_v<T>) {
        out += fmt::format("{}", static_cast<long long>(v));
    } else if constexpr (std::is_class_v<T> || std::is_union_v<T>) {
        out += fmt::format("{{{} bytes}}", sizeof(T)); // handles passed by value (CUipcMemHandle)
    } else if constexpr (std::is_floating_point_v<T>) {
        out += fmt::format("{}", v);
    } else if constexpr (std::is_class_v<T>) {
        out += "{...}"; // structures passed by value (CUmemLocation, IPC handles)
    } else {
        out += fmt::format("{}", v);
    }
}

// NAMES is the stringised argument list "(a, b, c)".
template <typename... T>
std::string format_call(const char* function, const char* names, CUresult r, const std::tuple<T...>& values) {
    std::string out = fmt::format("CUDA_TRACE {}(", function);
    std::string_view n(names);
    if (n.size() >= 2) n = n.substr(1, n.size() - 2);
    size_t index = 0;
    std::apply(
        [&](const auto&... v) {
            auto one = [&](const auto& value) {
                size_t comma = n.find(',');
                std::string_view name = n.substr(0, comma);
                while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
                n = comma == std::string_view::npos ? std::string_view() : n.substr(comma + 1);
                if (index++) out += ", ";
                out += name;
                out += '=';
                append_value(out, value);
            };
            (one(v), ...);
            (void)one; // functions without parameters
        },
        values);
    const char* rn = error_name(r);
    out += fmt::format(") = {}", rn ? rn : fmt::format("{}", static_cast<int>(r)));
    return out;
}

#define D4R_TRACE_FN(exp, base, since, params, args)                                      \
    CUresult trace_##exp params {                                                         \
        clear_refusal();                                                                  \
        CUresult r = inner().exp args;                                                    \
        std::string line = format_call(#exp, #args, r, std::make_tuple args);             \
        if (r != CUDA_SUCCESS)                                                            \
            if (std::string why = take_refusal(); !why.empty()) line += " (" + why + ")"; \
        log::write(log::Level::Info, line);                                               \
        return r;                                                                         \
    }
D4R_CUDA_API(D4R_TRACE_FN)
#undef D4R_TRACE_FN

} // namespace

ApiTable make_trace_table(Runtime& runtime, const ApiTable& inner) {
    runtime.emplace_layer<TraceState>(LayerSlot::Trace).inner = &inner;
    return ApiTable{
#define D4R_TRACE_REF(exp, base, since, params, args) &trace_##exp,
        D4R_CUDA_API(D4R_TRACE_REF)
#undef D4R_TRACE_REF
    };
}

} // namespace d4r::runtime
