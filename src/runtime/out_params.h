// The out-parameters of the CUDA driver API's entry points, and clearing them before a call.
//
// Promise: for every entry point of abi/cuda_api.h, out_param_mask() says which parameters are plain
// out-parameters, from their types alone: a non-const pointer to a handle, a pointer or a scalar (an
// integer other than char, a float, an enum), less the parameters kNotOutParams names (in/out values,
// input arrays, arrays the caller sizes). clear_out_params() writes NULL / 0 through each of them that is
// not NULL, so that a refused call leaves no stale value in the caller's variable (NVIDIA's driver clears
// them). Structures, strings and host buffers are never written. Everything is decided at compile time.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "abi/cuda.h"

namespace d4r::runtime {

// Parameters whose types look like out-parameters but are not plain ones: their value on entry is used,
// or they are arrays (the rule is about one pointer, handle or scalar). "function:parameter".
inline constexpr std::string_view kNotOutParams[] = {
    // in/out: the mode to set in, the previous mode out.
    "cuThreadExchangeStreamCaptureMode:mode",
    // Input arrays of options and of their values (a value may be an out-slot, such as a log size).
    "cuModuleLoadDataEx:options",
    "cuModuleLoadDataEx:optionValues",
    "cuLinkCreate:options",
    "cuLinkCreate:optionValues",
    "cuLinkCreate_v2:options",
    "cuLinkCreate_v2:optionValues",
    "cuLinkAddData:options",
    "cuLinkAddData:optionValues",
    "cuLinkAddData_v2:options",
    "cuLinkAddData_v2:optionValues",
    "cuLinkAddFile:options",
    "cuLinkAddFile:optionValues",
    "cuLinkAddFile_v2:options",
    "cuLinkAddFile_v2:optionValues",
    "cuLibraryLoadData:jitOptions",
    "cuLibraryLoadData:jitOptionsValues",
    "cuLibraryLoadData:libraryOptions",
    "cuLibraryLoadData:libraryOptionValues",
    // Kernel arguments: arrays of pointers to the caller's values.
    "cuLaunchKernel:kernelParams",
    "cuLaunchKernel:extra",
    "cuLaunchKernelEx:kernelParams",
    "cuLaunchKernelEx:extra",
    "cuLaunchCooperativeKernel:kernelParams",
    // Input arrays of handles, attributes and batched operations.
    "cuStreamUpdateCaptureDependencies:dependencies",
    "cuStreamUpdateCaptureDependencies_v2:dependencies",
    "cuGraphicsMapResources:resources",
    "cuGraphicsUnmapResources:resources",
    "cuMemRangeGetAttributes:attributes",
    "cuMemRangeGetAttributes:data",
    "cuMemRangeGetAttributes:dataSizes",
    "cuPointerGetAttributes:attributes",
    "cuPointerGetAttributes:data",
    "cuStreamBatchMemOp:paramArray",
    "cuStreamBatchMemOp_v2:paramArray",
    // Output arrays the caller sizes, and their in/out counts (in: the capacity, out: how many).
    "cuGraphGetNodes:nodes",
    "cuGraphGetNodes:numNodes",
    "cuGraphGetRootNodes:rootNodes",
    "cuGraphGetRootNodes:numRootNodes",
    "cuGraphGetEdges:from",
    "cuGraphGetEdges:to",
    "cuGraphGetEdges:numEdges",
    "cuGraphGetEdges_v2:from",
    "cuGraphGetEdges_v2:to",
    "cuGraphGetEdges_v2:edgeData",
    "cuGraphGetEdges_v2:numEdges",
    "cuGraphNodeGetDependencies:dependencies",
    "cuGraphNodeGetDependencies:numDependencies",
    "cuGraphNodeGetDependencies_v2:dependencies",
    "cuGraphNodeGetDependencies_v2:edgeData",
    "cuGraphNodeGetDependencies_v2:numDependencies",
    "cuGraphNodeGetDependentNodes:dependentNodes",
    "cuGraphNodeGetDependentNodes:numDependentNodes",
    "cuGraphNodeGetDependentNodes_v2:dependentNodes",
    "cuGraphNodeGetDependentNodes_v2:edgeData",
    "cuGraphNodeGetDependentNodes_v2:numDependentNodes",
};

// Whether a parameter of type A is an out-parameter by its type.
template <typename A>
constexpr bool out_param_type() {
    if constexpr (!std::is_pointer_v<A>) {
        return false;
    } else {
        using T = std::remove_pointer_t<A>;
        return !std::is_const_v<T> && !std::is_same_v<std::remove_cv_t<T>, char> &&
               (std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_pointer_v<T>);
    }
}

namespace detail {

constexpr bool not_out_param(std::string_view function, std::string_view param) {
    for (std::string_view e : kNotOutParams)
        if (e.size() == function.size() + 1 + param.size() && e.substr(0, function.size()) == function &&
            e[function.size()] == ':' && e.substr(function.size() + 1) == param)
            return true;
    return false;
}

// The I-th name of ARGS, "(a, b, c)".
constexpr std::string_view arg_name(std::string_view args, unsigned i) {
    args = args.substr(1, args.size() - 2);
    for (; i; --i) args = args.substr(args.find(',') + 1);
    args = args.substr(0, args.find(','));
    while (!args.empty() && args.front() == ' ') args.remove_prefix(1);
    return args;
}

template <typename F>
struct Params;
template <typename... A>
struct Params<d4r::abi::CUresult (*)(A...)> {
    static constexpr bool is_out[sizeof...(A) + 1] = {out_param_type<A>()..., false};
    static constexpr unsigned count = sizeof...(A);
};

} // namespace detail

// Bit I set: parameter I of F (a function pointer type), named FUNCTION with the parameter names ARGS
// ("(a, b, c)", as in abi/cuda_api.h), is an out-parameter.
template <typename F>
constexpr uint32_t out_param_mask(std::string_view function, std::string_view args) {
    static_assert(detail::Params<F>::count <= 32);
    uint32_t mask = 0;
    for (unsigned i = 0; i < detail::Params<F>::count; ++i)
        if (detail::Params<F>::is_out[i] && !detail::not_out_param(function, detail::arg_name(args, i)))
            mask |= 1u << i;
    return mask;
}

// Writes NULL / 0 through every parameter of MASK that is not NULL.
template <uint32_t Mask, typename... A>
inline void clear_out_params(A... args) {
    unsigned i = 0;
    [[maybe_unused]] auto clear = [&i](auto p) { // unused for a function without parameters
        if constexpr (out_param_type<decltype(p)>())
            if ((Mask >> i) & 1u && p) *p = {};
        ++i;
    };
    (clear(args), ...);
}

} // namespace d4r::runtime
