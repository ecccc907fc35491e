// libd4rcuda internals: what a layer of the stack remembers, owned by the Runtime that built it.
//
// Promise: each layer (module registry, native-kernel overrides, observe, export tables, d4r's own export
// tables, legacy launch, trace, init gate, twin PTX) keeps all its state in one struct derived from LayerState, held in
// that layer's slot of a Runtime (runtime_object.h). The layer's entry points are plain C function pointers in an
// ApiTable, so they reach the state through the installed Runtime, with installed_layer<T>() (the state type names its
// slot, so a slot is never read as another layer's state); only log-once flags and the constant tables d4r hands out
// are process-wide. Destroying the Runtime destroys every layer's state.
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace d4r::runtime {

// One slot per layer that keeps state.
enum class LayerSlot : unsigned char {
    Registry,
    Overrides,
    Observe,
    ExportTables,
    OwnTables,
    LegacyLaunch,
    Trace,
    InitGate,
    TwinPtx,
    Count
};
constexpr size_t kLayerSlotCount = static_cast<size_t>(LayerSlot::Count);

struct LayerState {
    virtual ~LayerState() = default;
};

// A layer's state type: derived from LayerState and naming its slot (`static constexpr LayerSlot kSlot`).
template <class T>
concept LayerStateOf = std::is_base_of_v<LayerState, T> && requires {
    { T::kSlot } -> std::convertible_to<LayerSlot>;
};

} // namespace d4r::runtime
