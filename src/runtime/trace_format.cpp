// The text of one D4R_CUDA_TRACE line; see trace_format.h.
#include "runtime/trace_format.h"

#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "runtime/api_table.h"
#include "runtime/export_tables/export_table_ids.h"

namespace d4r::runtime {

namespace {

void append_value(std::string& out, const TraceArg& a) {
    using K = TraceArg::Kind;
    switch (a.kind) {
    case K::String: {
        const auto* s = static_cast<const char*>(a.pointer);
        if (!s)
            out += "NULL";
        else
            out += fmt::format("\"{}\"", std::string_view(s, strnlen(s, 256)));
        return;
    }
    case K::Uuid:
        out += a.pointer ? format_uuid(*static_cast<const abi::CUuuid*>(a.pointer)) : "NULL";
        return;
    case K::Pointer:
        out += a.pointer ? fmt::format("{}", a.pointer) : "NULL";
        return;
    case K::Hex:
        out += fmt::format("0x{:x}", a.u);
        return;
    case K::Signed:
        out += fmt::format("{}", a.i);
        return;
    case K::Unsigned:
        out += fmt::format("{}", a.u);
        return;
    case K::Bool:
        out += a.u ? "true" : "false";
        return;
    case K::Float:
        out += fmt::format("{}", static_cast<float>(a.d));
        return;
    case K::Double:
        out += fmt::format("{}", a.d);
        return;
    case K::Bytes:
        out += fmt::format("{{{} bytes}}", a.u);
        return;
    }
}

} // namespace

std::string format_trace_call(const char* function, const char* names, abi::CUresult result, const TraceArg* args,
                              size_t count) {
    std::string out = fmt::format("CUDA_TRACE {}(", function);
    std::string_view n(names ? names : "");
    if (n.size() >= 2) n = n.substr(1, n.size() - 2);
    for (size_t index = 0; index < count; ++index) {
        size_t comma = n.find(',');
        std::string_view name = n.substr(0, comma);
        while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
        n = comma == std::string_view::npos ? std::string_view() : n.substr(comma + 1);
        if (index) out += ", ";
        out += name;
        out += '=';
        append_value(out, args[index]);
    }
    const char* rn = error_name(result);
    out += fmt::format(") = {}", rn ? rn : fmt::format("{}", static_cast<int>(result)));
    return out;
}

} // namespace d4r::runtime
